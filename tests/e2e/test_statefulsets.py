"""StatefulSets through the machine's real kubectl and the official Python client, on the demo cluster in
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

from tests.conftest import Kubectl
from tests.livesim import LiveServer, wait_until


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, f"rc={result.returncode}\nstdout:{result.stdout}\nstderr:{result.stderr}"
    return result.stdout


def columns(line: str) -> list[str]:
    return re.split(r"\s{2,}", line.strip())


def manifest(name: str, replicas: int = 3, image: str = "nginx:1.27", extra_spec: str = "") -> str:
    """A headless Service and a StatefulSet governed by it, both named ``name``."""
    return (
        f"apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\nspec:\n  clusterIP: None\n"
        f"  selector: {{app: {name}}}\n  ports:\n  - port: 80\n---\n"
        f"apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: {name}\nspec:\n"
        f"  serviceName: {name}\n  replicas: {replicas}\n{extra_spec}"
        f"  selector:\n    matchLabels: {{app: {name}}}\n"
        f"  template:\n    metadata:\n      labels: {{app: {name}}}\n"
        f"    spec:\n      containers:\n      - name: web\n        image: {image}\n"
    )


def pods_of(kubectl: Kubectl, name: str) -> dict[str, dict]:
    items = json.loads(ok(kubectl("get", "pods", "-l", f"app={name}", "-o", "json")))["items"]
    return {p["metadata"]["name"]: p for p in items if not p["metadata"].get("deletionTimestamp")}


@pytest.fixture
def sts(kubectl: Kubectl, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """A StatefulSet of 3 with its headless Service, applied from YAML (named for the test), deleted afterwards."""
    name = f"st-{hashlib.sha1(request.node.name.encode()).hexdigest()[:6]}"
    path = tmp_path / "sts.yaml"
    path.write_text(manifest(name))
    assert ok(kubectl("apply", "-f", str(path))).splitlines() == [
        f"service/{name} created",
        f"statefulset.apps/{name} created",
    ]
    ok(kubectl("rollout", "status", f"sts/{name}", "--timeout=90s"))
    yield name
    kubectl("delete", "sts,svc", name, "--ignore-not-found")


def test_apply_get_and_wide_columns(kubectl: Kubectl, sts: str):
    out = ok(kubectl("get", "sts", sts)).splitlines()
    assert columns(out[0]) == ["NAME", "READY", "AGE"]
    assert columns(out[1])[:2] == [sts, "3/3"]
    wide = ok(kubectl("get", "statefulsets.apps", sts, "-o", "wide")).splitlines()
    assert columns(wide[0]) == ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"]
    assert columns(wide[1])[3:] == ["web", "nginx:1.27"]
    assert sorted(pods_of(kubectl, sts)) == [f"{sts}-0", f"{sts}-1", f"{sts}-2"]


def test_pods_carry_their_identity(kubectl: Kubectl, sts: str):
    for ordinal, (name, pod) in enumerate(sorted(pods_of(kubectl, sts).items())):
        assert pod["spec"]["hostname"] == name and pod["spec"]["subdomain"] == sts
        assert pod["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"] == name
        assert pod["metadata"]["labels"]["apps.kubernetes.io/pod-index"] == str(ordinal)


def test_describe_shows_replicas_strategy_pods_and_events(kubectl: Kubectl, sts: str):
    out = ok(kubectl("describe", "sts", sts))
    assert re.search(rf"^Name:\s+{sts}$", out, re.M)
    assert re.search(rf"^Selector:\s+app={sts}$", out, re.M)
    assert re.search(r"^Replicas:\s+3 desired \| 3 total$", out, re.M)
    assert re.search(r"^Update Strategy:\s+RollingUpdate$", out, re.M)
    assert re.search(r"^  Partition:\s+0$", out, re.M)
    assert re.search(r"^Pods Status:\s+3 Running / 0 Waiting / 0 Succeeded / 0 Failed$", out, re.M)
    assert re.search(r"^Volume Claims:\s+<none>$", out, re.M)
    for ordinal in range(3):
        assert re.search(
            rf"Normal\s+SuccessfulCreate\s+\S+\s+statefulset-controller\s+"
            rf"create Pod {sts}-{ordinal} in StatefulSet {sts} successful",
            out,
        )


def test_scale_down_and_up_keeps_the_names(kubectl: Kubectl, sts: str):
    assert ok(kubectl("scale", "sts", sts, "--replicas=1")).strip() == f"statefulset.apps/{sts} scaled"
    assert wait_until(lambda: sorted(pods_of(kubectl, sts)) == [f"{sts}-0"])
    events = ok(kubectl("get", "events", "--field-selector", f"involvedObject.name={sts}", "--sort-by=.lastTimestamp"))
    deletes = re.findall(rf"delete Pod ({sts}-\d) in StatefulSet {sts} successful", events)
    assert deletes == [f"{sts}-2", f"{sts}-1"]
    ok(kubectl("scale", "sts", sts, "--replicas=2"))
    ok(kubectl("rollout", "status", f"sts/{sts}", "--timeout=90s"))
    assert sorted(pods_of(kubectl, sts)) == [f"{sts}-0", f"{sts}-1"]


def test_set_image_rolls_in_reverse_order_and_history_and_undo_follow(kubectl: Kubectl, sts: str):
    uids = {name: p["metadata"]["uid"] for name, p in pods_of(kubectl, sts).items()}
    ok(kubectl("set", "image", f"sts/{sts}", "web=nginx:1.28"))
    status = ok(kubectl("rollout", "status", f"sts/{sts}", "--timeout=120s"))
    assert status.splitlines()[-1] == "partitioned roll out complete: 3 new pods have been updated..."
    after = pods_of(kubectl, sts)
    assert {p["spec"]["containers"][0]["image"] for p in after.values()} == {"nginx:1.28"}
    assert not set(uids.values()) & {p["metadata"]["uid"] for p in after.values()}
    events = ok(kubectl("get", "events", "--field-selector", f"involvedObject.name={sts}", "--sort-by=.lastTimestamp"))
    deletes = re.findall(rf"delete Pod ({sts}-\d) in StatefulSet {sts} successful", events)
    assert deletes == [f"{sts}-2", f"{sts}-1", f"{sts}-0"]
    history = ok(kubectl("rollout", "history", f"sts/{sts}")).split()
    assert history[history.index("CHANGE-CAUSE") + 1 :] == ["1", "<none>", "2", "<none>"]
    revisions = ok(kubectl("get", "controllerrevisions", "-l", f"app={sts}")).splitlines()
    assert {tuple(columns(r)[1:3]) for r in revisions[1:]} == {
        (f"statefulset.apps/{sts}", "1"),
        (f"statefulset.apps/{sts}", "2"),
    }
    assert ok(kubectl("rollout", "undo", f"sts/{sts}")).strip() == f"statefulset.apps/{sts} rolled back"
    ok(kubectl("rollout", "status", f"sts/{sts}", "--timeout=120s"))
    assert {p["spec"]["containers"][0]["image"] for p in pods_of(kubectl, sts).values()} == {"nginx:1.27"}


def test_partition_keeps_the_lower_ordinals(kubectl: Kubectl, sts: str):
    patch = '{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":2}}}}'
    ok(kubectl("patch", "sts", sts, "-p", patch))
    ok(kubectl("set", "image", f"sts/{sts}", "web=nginx:1.28"))
    status = ok(kubectl("rollout", "status", f"sts/{sts}", "--timeout=120s"))
    assert "partitioned roll out complete: 1 new pods have been updated" in status
    images = {n: p["spec"]["containers"][0]["image"] for n, p in pods_of(kubectl, sts).items()}
    assert images == {f"{sts}-0": "nginx:1.27", f"{sts}-1": "nginx:1.27", f"{sts}-2": "nginx:1.28"}


def test_delete_collects_the_pods(kubectl: Kubectl, sts: str):
    assert ok(kubectl("delete", "sts", sts)).strip() == f'statefulset.apps "{sts}" deleted'
    assert wait_until(lambda: pods_of(kubectl, sts) == {})


def test_validation_speaks_like_the_api_server(kubectl: Kubectl, tmp_path: Path):
    path = tmp_path / "bad.yaml"
    bad = manifest("bad-sts", extra_spec="  podManagementPolicy: Sometimes\n").split("---\n")[1]
    path.write_text(bad.replace("replicas: 3", "replicas: -1"))
    result = kubectl("apply", "-f", str(path))
    assert result.returncode == 1
    assert 'The StatefulSet "bad-sts" is invalid:' in result.stderr
    assert "spec.replicas: Invalid value: -1: must be greater than or equal to 0" in result.stderr
    assert (
        "spec.podManagementPolicy: Invalid value: \"Sometimes\": must be 'OrderedReady' or 'Parallel'" in result.stderr
    )


def test_python_client_creates_lists_watches_and_deletes(live: LiveServer):
    config = client.Configuration(host=live.cluster_url("demo"))
    with client.ApiClient(config) as api:
        apps = client.AppsV1Api(api)
        body = client.V1StatefulSet(
            metadata=client.V1ObjectMeta(name="sts-py"),
            spec=client.V1StatefulSetSpec(
                service_name="sts-py",
                replicas=2,
                selector=client.V1LabelSelector(match_labels={"app": "sts-py"}),
                template=client.V1PodTemplateSpec(
                    metadata=client.V1ObjectMeta(labels={"app": "sts-py"}),
                    spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx:1.27")]),
                ),
            ),
        )
        created = apps.create_namespaced_stateful_set("default", body)
        assert created.spec.pod_management_policy == "OrderedReady"
        assert created.spec.update_strategy.rolling_update.partition == 0
        assert created.spec.revision_history_limit == 10
        listed = apps.list_namespaced_stateful_set("default")
        assert "sts-py" in [s.metadata.name for s in listed.items]
        seen = []
        for event in watch.Watch().stream(
            apps.list_namespaced_stateful_set,
            "default",
            field_selector="metadata.name=sts-py",
            resource_version=created.metadata.resource_version,
            timeout_seconds=30,
        ):
            seen.append(event["type"])
            if event["object"].status.ready_replicas == 2:
                break
        assert seen and set(seen) == {"MODIFIED"}
        apps.delete_namespaced_stateful_set("sts-py", "default")
        assert wait_until(
            lambda: not client.CoreV1Api(api).list_namespaced_pod("default", label_selector="app=sts-py").items
        )
