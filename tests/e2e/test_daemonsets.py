"""DaemonSets through the machine's real kubectl and the official Python client, on the demo cluster in
fast-forward."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from kubernetes import client, watch

from clusterviz.api.bootstrap import node_object
from tests.conftest import Kubectl
from tests.livesim import LiveServer, wait_until

NODES = ["node01", "node02", "node03"]


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, f"rc={result.returncode}\nstdout:{result.stdout}\nstderr:{result.stderr}"
    return result.stdout


def columns(line: str) -> list[str]:
    return re.split(r"\s{2,}", line.strip())


def manifest(name: str, image: str = "soscscs/myapp:v1", extra_spec: str = "") -> str:
    return (
        f"apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: {name}\nspec:\n"
        f"  selector:\n    matchLabels: {{app: {name}}}\n"
        f"  template:\n    metadata:\n      labels: {{app: {name}}}\n"
        f"    spec:\n{extra_spec}      containers:\n      - name: agent\n        image: {image}\n"
    )


def pods_of(kubectl: Kubectl, name: str) -> list[dict]:
    items = json.loads(ok(kubectl("get", "pods", "-l", f"app={name}", "-o", "json")))["items"]
    return [p for p in items if not p["metadata"].get("deletionTimestamp")]


def placed(kubectl: Kubectl, name: str) -> list[str]:
    return sorted(p["spec"].get("nodeName", "") for p in pods_of(kubectl, name))


@pytest.fixture
def daemon(kubectl: Kubectl, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """A DaemonSet applied from YAML (named for the test), deleted with its Pods afterwards."""
    name = f"ds-{hashlib.sha1(request.node.name.encode()).hexdigest()[:6]}"
    path = tmp_path / "ds.yaml"
    path.write_text(manifest(name))
    assert ok(kubectl("apply", "-f", str(path))).strip() == f"daemonset.apps/{name} created"
    assert "successfully rolled out" in ok(kubectl("rollout", "status", f"ds/{name}", "--timeout=60s"))
    yield name
    kubectl("delete", "ds", name, "--ignore-not-found")


def test_apply_get_and_wide_columns(kubectl: Kubectl, daemon: str):
    out = ok(kubectl("get", "ds", daemon)).splitlines()
    assert columns(out[0]) == ["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"]
    assert columns(out[1])[:7] == [daemon, "3", "3", "3", "3", "3", "<none>"]
    wide = ok(kubectl("get", "daemonsets.apps", daemon, "-o", "wide")).splitlines()
    assert columns(wide[0]) == [
        "NAME",
        "DESIRED",
        "CURRENT",
        "READY",
        "UP-TO-DATE",
        "AVAILABLE",
        "NODE SELECTOR",
        "AGE",
        "CONTAINERS",
        "IMAGES",
        "SELECTOR",
    ]
    assert columns(wide[1])[8:] == ["agent", "soscscs/myapp:v1", f"app={daemon}"]
    assert placed(kubectl, daemon) == NODES
    status = json.loads(ok(kubectl("get", "ds", daemon, "-o", "jsonpath={.status}")))
    assert status == {
        "currentNumberScheduled": 3,
        "desiredNumberScheduled": 3,
        "numberAvailable": 3,
        "numberMisscheduled": 0,
        "numberReady": 3,
        "observedGeneration": 1,
        "updatedNumberScheduled": 3,
    }


def test_describe_shows_counts_pods_and_events(kubectl: Kubectl, daemon: str):
    out = ok(kubectl("describe", "ds", daemon))
    assert re.search(rf"^Name:\s+{daemon}$", out, re.M)
    assert re.search(rf"^Selector:\s+app={daemon}$", out, re.M)
    assert re.search(r"^Desired Number of Nodes Scheduled: 3$", out, re.M)
    assert re.search(r"^Number of Nodes Scheduled with Available Pods: 3$", out, re.M)
    assert re.search(r"^Pods Status:\s+3 Running / 0 Waiting / 0 Succeeded / 0 Failed$", out, re.M)
    creations = re.findall(
        rf"Normal\s+SuccessfulCreate\s+\S+\s+daemonset-controller\s+Created pod: {daemon}-\w{{5}}", out
    )
    assert len(creations) == 3


def test_pods_carry_the_node_affinity_and_tolerations_and_were_scheduled(kubectl: Kubectl, daemon: str):
    for pod in pods_of(kubectl, daemon):
        node = pod["spec"]["nodeName"]
        terms = pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        assert terms["nodeSelectorTerms"] == [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
        ]
        tolerations = pod["spec"]["tolerations"]
        assert {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"} in tolerations
        assert {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"} in tolerations
        events = ok(kubectl("get", "events", "--field-selector", f"involvedObject.name={pod['metadata']['name']}"))
        assert re.search(
            rf"Scheduled\s+pod/{pod['metadata']['name']}\s+Successfully assigned default/\S+ to {node}", events
        )


def test_set_image_rolls_out_and_history_and_undo_follow_revisions(kubectl: Kubectl, daemon: str):
    before = {p["metadata"]["name"] for p in pods_of(kubectl, daemon)}
    ok(kubectl("set", "image", f"ds/{daemon}", "agent=soscscs/myapp:v2"))
    assert f'daemon set "{daemon}" successfully rolled out' in ok(
        kubectl("rollout", "status", f"ds/{daemon}", "--timeout=90s")
    )
    after = pods_of(kubectl, daemon)
    assert {p["spec"]["containers"][0]["image"] for p in after} == {"soscscs/myapp:v2"}
    assert not before & {p["metadata"]["name"] for p in after}
    assert sorted(p["spec"]["nodeName"] for p in after) == NODES
    history = ok(kubectl("rollout", "history", f"ds/{daemon}")).split()
    assert history[history.index("CHANGE-CAUSE") + 1 :] == ["1", "<none>", "2", "<none>"]
    revisions = ok(kubectl("get", "controllerrevisions", "-l", f"app={daemon}")).splitlines()
    assert columns(revisions[0]) == ["NAME", "CONTROLLER", "REVISION", "AGE"]
    assert {tuple(columns(r)[1:3]) for r in revisions[1:]} == {
        (f"daemonset.apps/{daemon}", "1"),
        (f"daemonset.apps/{daemon}", "2"),
    }
    events = ok(kubectl("get", "events", "--field-selector", f"involvedObject.name={daemon}"))
    assert re.search(rf"SuccessfulDelete\s+daemonset/{daemon}\s+Deleted pod: {daemon}-\w{{5}}", events)
    skipped = ok(kubectl("rollout", "undo", f"ds/{daemon}", "--to-revision=2")).strip()
    assert skipped == f"daemonset.apps/{daemon} skipped rollback (current template already matches revision 2)"
    assert ok(kubectl("rollout", "undo", f"ds/{daemon}")).strip() == f"daemonset.apps/{daemon} rolled back"
    ok(kubectl("rollout", "status", f"ds/{daemon}", "--timeout=90s"))
    assert {p["spec"]["containers"][0]["image"] for p in pods_of(kubectl, daemon)} == {"soscscs/myapp:v1"}
    history = ok(kubectl("rollout", "history", f"ds/{daemon}")).split()
    assert history[history.index("CHANGE-CAUSE") + 1 :] == ["2", "<none>", "3", "<none>"]


def test_delete_collects_the_pods_and_revisions(kubectl: Kubectl, daemon: str):
    assert ok(kubectl("delete", "ds", daemon)).strip() == f'daemonset.apps "{daemon}" deleted'
    assert wait_until(lambda: pods_of(kubectl, daemon) == [])
    assert wait_until(lambda: "No resources" in kubectl("get", "controllerrevisions", "-l", f"app={daemon}").stderr)


def test_validation_speaks_like_the_api_server(kubectl: Kubectl, tmp_path: Path):
    path = tmp_path / "bad.yaml"
    path.write_text(
        manifest("bad-ds").replace("matchLabels: {app: bad-ds}", "matchLabels: {app: other}")
        + "  updateStrategy:\n    type: RollingUpdate\n    rollingUpdate: {maxUnavailable: 1, maxSurge: 1}\n"
    )
    result = kubectl("apply", "-f", str(path))
    assert result.returncode == 1
    assert 'The DaemonSet "bad-ds" is invalid:' in result.stderr
    assert (
        'spec.template.metadata.labels: Invalid value: {"app":"bad-ds"}: `selector` does not match template `labels`'
        in result.stderr
    )
    assert (
        "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero"
        in result.stderr
    )


def test_follows_a_new_node_labels_and_taints(kubectl: Kubectl, live: LiveServer, tmp_path: Path):
    name = "ds-follow"
    path = tmp_path / "ds.yaml"
    path.write_text(manifest(name, extra_spec="      nodeSelector: {role: agent}\n"))
    ok(kubectl("apply", "-f", str(path)))
    config = client.Configuration(host=live.cluster_url("demo"))
    with client.ApiClient(config) as api:
        core = client.CoreV1Api(api)
        try:
            assert placed(kubectl, name) == []
            for node in NODES:
                ok(kubectl("label", "node", node, "role=agent"))
            assert wait_until(lambda: placed(kubectl, name) == NODES)
            # A node added through the API, as the page's "add node" does.
            core.create_node(node_object("node09", 9, labels={"role": "agent"}))
            assert wait_until(lambda: placed(kubectl, name) == [*NODES, "node09"])
            ok(kubectl("taint", "node", "node09", "dedicated=db:NoExecute"))
            assert wait_until(lambda: placed(kubectl, name) == NODES)
            ok(kubectl("label", "node", "node02", "role-"))
            assert wait_until(lambda: placed(kubectl, name) == ["node01", "node03"])
            shown = ok(kubectl("get", "ds", name)).splitlines()[1]
            assert columns(shown)[:7] == [name, "2", "2", "2", "2", "2", "role=agent"]
        finally:
            kubectl("delete", "ds", name, "--ignore-not-found")
            core.delete_node("node09")
            for node in NODES:
                kubectl("label", "node", node, "role-")


def test_python_client_creates_lists_watches_and_deletes(live: LiveServer):
    config = client.Configuration(host=live.cluster_url("demo"))
    with client.ApiClient(config) as api:
        apps = client.AppsV1Api(api)
        body = client.V1DaemonSet(
            metadata=client.V1ObjectMeta(name="ds-py"),
            spec=client.V1DaemonSetSpec(
                selector=client.V1LabelSelector(match_labels={"app": "ds-py"}),
                template=client.V1PodTemplateSpec(
                    metadata=client.V1ObjectMeta(labels={"app": "ds-py"}),
                    spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="soscscs/myapp:v1")]),
                ),
            ),
        )
        created = apps.create_namespaced_daemon_set("default", body)
        assert created.spec.update_strategy.type == "RollingUpdate"
        assert created.spec.update_strategy.rolling_update.max_unavailable == 1
        assert created.spec.revision_history_limit == 10
        listed = apps.list_namespaced_daemon_set("default", label_selector="")
        assert "ds-py" in [d.metadata.name for d in listed.items]
        seen = []
        for event in watch.Watch().stream(
            apps.list_namespaced_daemon_set,
            "default",
            field_selector="metadata.name=ds-py",
            resource_version=created.metadata.resource_version,
            timeout_seconds=30,
        ):
            seen.append(event["type"])
            if event["object"].status.number_available == 3:
                break
        assert seen and set(seen) == {"MODIFIED"}
        apps.delete_namespaced_daemon_set("ds-py", "default")
        assert wait_until(
            lambda: not client.CoreV1Api(api).list_namespaced_pod("default", label_selector="app=ds-py").items
        )


def test_server_side_apply_creates_then_rolls_the_image(kubectl: Kubectl, tmp_path: Path):
    name = "ds-ssa"
    path = tmp_path / "ds.yaml"
    path.write_text(manifest(name))
    try:
        assert (
            ok(kubectl("apply", "--server-side", "-f", str(path))).strip()
            == f"daemonset.apps/{name} serverside-applied"
        )
        path.write_text(manifest(name, image="soscscs/myapp:v2"))
        ok(kubectl("apply", "--server-side", "-f", str(path)))
        ok(kubectl("rollout", "status", f"ds/{name}", "--timeout=90s"))
        shown = ok(kubectl("get", "ds", name, "-o", "jsonpath={.metadata.generation} {.status.observedGeneration}"))
        assert shown == "2 2"
        assert {p["spec"]["containers"][0]["image"] for p in pods_of(kubectl, name)} == {"soscscs/myapp:v2"}
        managers = ok(
            kubectl("get", "ds", name, "--show-managed-fields", "-o", "jsonpath={.metadata.managedFields[*].manager}")
        )
        assert "kubectl" in managers.split()
    finally:
        kubectl("delete", "ds", name, "--ignore-not-found")
