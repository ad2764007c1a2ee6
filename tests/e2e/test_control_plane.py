"""The simulated control plane end to end, through the real kubectl and the HTTP API.

Each test runs on a cluster of its own, so none disturbs another or the shared demo cluster.
"""

from __future__ import annotations

import http.client
import json
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.conftest import Kubectl
from tests.livesim import LiveServer

ROOT = Path(__file__).resolve().parents[2]
MYAPP = (ROOT / "examples" / "myapp.yaml").read_text()
SIM = "clusterviz.io/v1"


def ok(result: subprocess.CompletedProcess[str]) -> str:
    """The command's stdout, after asserting it succeeded."""
    assert result.returncode == 0, f"rc={result.returncode}\nstdout:{result.stdout}\nstderr:{result.stderr}"
    return result.stdout


def poll[T](probe: Callable[[], T], done: Callable[[T], bool], attempts: int = 100, pause: float = 0.2) -> T:
    """Re-run ``probe`` until ``done`` holds for its result; fail with the last result otherwise."""
    for _ in range(attempts):
        value = probe()
        if done(value):
            return value
        time.sleep(pause)  # wall-clock: waiting for another process
    raise AssertionError(f"condition not reached after {attempts} attempts; last value: {value!r}")


def new_cluster(live: LiveServer, name: str, nodes: int = 3) -> None:
    """Create a cluster of ``nodes`` Ready nodes on the live server."""
    result = live.manage("createcluster", name, "--nodes", str(nodes))
    assert result.returncode == 0, result.stderr


@pytest.fixture
def cluster_kubectl(request: pytest.FixtureRequest, kubectl_binary: str, live: LiveServer, tmp_path: Path) -> Kubectl:
    """kubectl pointed at a fresh three-node cluster named after the test."""
    name = request.node.name.removeprefix("test_").replace("_", "-")[:40].strip("-")
    new_cluster(live, name)
    return Kubectl(kubectl_binary, live.cluster_url(name), tmp_path)


def apply(kubectl: Kubectl, tmp_path: Path, text: str, name: str = "manifest.yaml") -> str:
    """``kubectl apply -f`` a manifest written to ``tmp_path``."""
    manifest = tmp_path / name
    manifest.write_text(text)
    return ok(kubectl("apply", "-f", str(manifest)))


def pods(kubectl: Kubectl, *selector: str) -> list[dict[str, Any]]:
    """The Pods of the default namespace as JSON objects."""
    return json.loads(ok(kubectl("get", "pods", "-o", "json", *selector)))["items"]


def running(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Pods that are Running and not being deleted."""
    return [p for p in items if p["status"].get("phase") == "Running" and "deletionTimestamp" not in p["metadata"]]


def wait_running(kubectl: Kubectl, count: int, *selector: str) -> list[dict[str, Any]]:
    """Wait until exactly ``count`` Pods exist, all Running (none terminating)."""
    return poll(lambda: pods(kubectl, *selector), lambda ps: len(ps) == count and len(running(ps)) == count)


def http_json(url: str, method: str = "GET", body: dict[str, Any] | None = None) -> dict[str, Any]:
    """One HTTP request to the API server, answered with JSON."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
    try:
        headers = {"Content-Type": "application/merge-patch+json"} if body is not None else {}
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = conn.getresponse()
        data = json.loads(response.read())
        assert response.status < 300, data
        return data
    finally:
        conn.close()


def trace(kubectl: Kubectl) -> list[dict[str, Any]]:
    """The cluster's whole trace of flow messages."""
    return http_json(f"{kubectl.server}/apis/{SIM}/flowmessages?sinceSeq=0")["items"]


def patch_simulation(kubectl: Kubectl, spec: dict[str, Any]) -> None:
    """Merge-patch the cluster's ``simulations/default`` spec with kubectl."""
    ok(kubectl("patch", "simulations", "default", "--type", "merge", "-p", json.dumps({"spec": spec})))


def events(kubectl: Kubectl, pod: str) -> list[str]:
    """The reasons in the Events table of ``kubectl describe pod``."""
    out = ok(kubectl("describe", "pod", pod))
    table = out.split("\nEvents:", 1)[1].splitlines()
    return [line.split()[1] for line in table if line.strip().startswith(("Normal", "Warning"))]


def is_subsequence(wanted: list[int], seen: list[int]) -> bool:
    """Whether ``wanted`` occurs in ``seen`` in order, not necessarily contiguously."""
    it = iter(seen)
    return all(step in it for step in wanted)


def test_deployment_is_scheduled_started_and_traced(cluster_kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl = cluster_kubectl
    apply(kubectl, tmp_path, MYAPP)
    wait_running(kubectl, 3, "-l", "app=myapp")
    rows = [line.split() for line in ok(kubectl("get", "pods", "-o", "wide")).splitlines()[1:]]
    assert len(rows) == 3
    for row in rows:
        name, ready, status, _restarts, _age, ip, node = row[:7]
        assert name.startswith("myapp-") and ready == "1/1" and status == "Running"
        assert ip.startswith("10.") and node in ("node01", "node02", "node03")
    flow = trace(kubectl)
    for row in rows:
        assert events(kubectl, row[0]) == ["Scheduled", "Pulling", "Pulled", "Created", "Started"]
        steps = [
            m["step"]
            for m in flow
            if m["step"] is not None and (m["object"]["kind"] == "Deployment" or m["object"]["name"] == row[0])
        ]
        assert is_subsequence(list(range(1, 14)), steps), steps


def test_node_name_skips_the_scheduler(cluster_kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl = cluster_kubectl
    apply(kubectl, tmp_path, MYAPP.replace("    spec:\n", "    spec:\n      nodeName: node01\n"))
    found = wait_running(kubectl, 3, "-l", "app=myapp")
    assert {p["spec"]["nodeName"] for p in found} == {"node01"}
    for pod in found:
        reasons = events(kubectl, pod["metadata"]["name"])
        assert "Scheduled" not in reasons and "Started" in reasons


def test_scale_roll_and_replication_controller(cluster_kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl = cluster_kubectl
    apply(kubectl, tmp_path, MYAPP)
    wait_running(kubectl, 3, "-l", "app=myapp")
    for replicas in (5, 1):
        ok(kubectl("scale", "deployment/myapp", f"--replicas={replicas}"))
        wait_running(kubectl, replicas, "-l", "app=myapp")
    ok(kubectl("scale", "deployment/myapp", "--replicas=3"))
    old = wait_running(kubectl, 3, "-l", "app=myapp")
    old_hash = old[0]["metadata"]["labels"]["pod-template-hash"]
    ok(kubectl("set", "image", "deployment/myapp", "myapp=soscscs/myapp:v2"))

    def rolled(ps: list[dict[str, Any]]) -> bool:
        return (
            len(ps) == 3
            and len(running(ps)) == 3
            and all(p["spec"]["containers"][0]["image"] == "soscscs/myapp:v2" for p in ps)
        )

    new = poll(lambda: pods(kubectl, "-l", "app=myapp"), rolled)
    new_hash = new[0]["metadata"]["labels"]["pod-template-hash"]
    assert new_hash != old_hash and {p["metadata"]["labels"]["pod-template-hash"] for p in new} == {new_hash}
    assert not {p["metadata"]["name"] for p in old} & {p["metadata"]["name"] for p in new}
    old_rs = f"myapp-{old_hash}"
    assert ok(kubectl("get", "rs", old_rs, "-o", "jsonpath={.spec.replicas}/{.status.replicas}")) == "0/0"
    assert ok(kubectl("get", "rs", f"myapp-{new_hash}", "-o", "jsonpath={.status.readyReplicas}")) == "3"

    apply(
        kubectl,
        tmp_path,
        (
            "apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: mysql\nspec:\n  replicas: 1\n"
            "  selector:\n    app: mysql\n  template:\n    metadata:\n      labels:\n        app: mysql\n"
            "    spec:\n      containers:\n      - name: mysql\n        image: mysql:8\n"
        ),
        "mysql.yaml",
    )
    wait_running(kubectl, 1, "-l", "app=mysql")
    ok(kubectl("scale", "rc/mysql", "--replicas=2"))
    wait_running(kubectl, 2, "-l", "app=mysql")


def node_status(kubectl: Kubectl) -> dict[str, str]:
    """Node name -> STATUS column of ``kubectl get nodes``."""
    rows = [line.split() for line in ok(kubectl("get", "nodes")).splitlines()[1:]]
    return {row[0]: row[1] for row in rows}


def set_kubelet(kubectl: Kubectl, node: str, state: str) -> None:
    """Stop or start a node's kubelet through its annotation."""
    ok(kubectl("annotate", "node", node, f"clusterviz.io/kubelet={state}", "--overwrite"))


def moved_off(node: str) -> Callable[[list[dict[str, Any]]], bool]:
    """A check that three Pods run, none of them on ``node``."""
    return lambda ps: len(running(ps)) == 3 and all(p["spec"].get("nodeName") != node for p in running(ps))


def test_node_failure_moves_pods_and_recovers(cluster_kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl = cluster_kubectl
    patch_simulation(kubectl, {"nodeMonitorGracePeriodSeconds": 10, "podEvictionTimeoutSeconds": 5})
    apply(kubectl, tmp_path, MYAPP)
    wait_running(kubectl, 3, "-l", "app=myapp")
    set_kubelet(kubectl, "node02", "stopped")
    poll(lambda: node_status(kubectl), lambda s: s["node02"] == "NotReady")
    taints = json.loads(ok(kubectl("get", "node", "node02", "-o", "jsonpath={.spec.taints}")))
    assert "node.kubernetes.io/unreachable" in {t["key"] for t in taints}
    poll(lambda: pods(kubectl, "-l", "app=myapp"), moved_off("node02"))
    set_kubelet(kubectl, "node02", "running")
    statuses = poll(lambda: node_status(kubectl), lambda s: s["node02"] == "Ready")
    assert set(statuses.values()) == {"Ready"}


def endpoint_ips(kubectl: Kubectl) -> list[str]:
    """The addresses of the ``myapp`` Endpoints, sorted (none until the endpoints controller has made them)."""
    listed = json.loads(ok(kubectl("get", "endpoints", "--field-selector=metadata.name=myapp", "-o", "json")))
    subsets = [s for item in listed["items"] for s in item.get("subsets") or []]
    return sorted(a["ip"] for s in subsets for a in s.get("addresses") or [])


def ready_ips(kubectl: Kubectl) -> list[str]:
    """The IPs of the ``app=myapp`` Pods whose Ready condition is True, sorted."""
    return sorted(
        p["status"]["podIP"]
        for p in pods(kubectl, "-l", "app=myapp")
        if "deletionTimestamp" not in p["metadata"]
        and any(c["type"] == "Ready" and c["status"] == "True" for c in p["status"].get("conditions") or [])
    )


def endpoints_follow(kubectl: Kubectl, count: int) -> list[str]:
    """Wait until the Endpoints list exactly the ``count`` Ready Pods' IPs."""

    def both() -> tuple[list[str], list[str]]:
        return endpoint_ips(kubectl), ready_ips(kubectl)

    return poll(both, lambda pair: len(pair[1]) == count and pair[0] == pair[1])[0]


def test_service_endpoints_follow_ready_pods(cluster_kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl = cluster_kubectl
    patch_simulation(kubectl, {"nodeMonitorGracePeriodSeconds": 10, "podEvictionTimeoutSeconds": 5})
    apply(
        kubectl,
        tmp_path,
        MYAPP
        + (
            "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: myapp\nspec:\n  selector:\n    app: myapp\n"
            "  ports:\n  - port: 80\n    targetPort: 80\n"
        ),
    )
    endpoints_follow(kubectl, 3)
    ok(kubectl("scale", "deployment/myapp", "--replicas=4"))
    endpoints_follow(kubectl, 4)
    ok(kubectl("scale", "deployment/myapp", "--replicas=3"))
    endpoints_follow(kubectl, 3)
    on_node02 = [
        p["status"]["podIP"] for p in running(pods(kubectl, "-l", "app=myapp")) if p["spec"]["nodeName"] == "node02"
    ]
    set_kubelet(kubectl, "node02", "stopped")
    poll(lambda: pods(kubectl, "-l", "app=myapp"), moved_off("node02"))
    ips = endpoints_follow(kubectl, 3)
    assert not set(on_node02) & set(ips)


def test_step_mode_delivers_one_message_per_step(cluster_kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl = cluster_kubectl
    patch_simulation(kubectl, {"mode": "step"})
    manifest = tmp_path / "myapp.yaml"
    manifest.write_text(MYAPP)
    outcome: list[subprocess.CompletedProcess[str]] = []
    applier = threading.Thread(target=lambda: outcome.append(kubectl("apply", "-f", str(manifest))))
    applier.start()
    step_url = f"{kubectl.server}/apis/{SIM}/simulations/default/step"
    try:
        # A kubelet's heartbeat may be due before kubectl's request arrives (kubectl starts slowly on a
        # busy machine): those are stepped too, until the apply's first hop.
        first = poll(
            lambda: http_json(step_url, "POST"), lambda m: m.get("kind") == "FlowMessage" and m.get("from") == "kubectl"
        )
        assert first["step"] == 1
        assert applier.is_alive(), "kubectl apply answered before its hops 2 and 3 were stepped"
        assert not running(pods(kubectl))
        last = first["seq"]
        for _ in range(2000):
            message = http_json(step_url, "POST")
            if message.get("kind") == "FlowMessage":
                assert message["seq"] == last + 1
                last = message["seq"]
            if not applier.is_alive() and len(running(pods(kubectl, "-l", "app=myapp"))) == 3:
                break
        else:
            pytest.fail("3 Pods not Running after 2000 steps")
    finally:
        applier.join(timeout=60)
    assert outcome and ok(outcome[0]).strip() == "deployment.apps/myapp created"


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Callable[[], LiveServer]]:
    """Starts LiveServers on one database file in ``tmp_path``; all are stopped afterwards."""
    started: list[LiveServer] = []

    def start() -> LiveServer:
        server = LiveServer(tmp_path, {"CLUSTERVIZ_DEFAULT_MODE": "live"})
        server.start(migrate=not started)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def test_restart_mid_rollout_completes_without_duplicates(
    own_server: Callable[[], LiveServer], kubectl_binary: str, tmp_path: Path
) -> None:
    first = own_server()
    new_cluster(first, "restart")
    kubectl = Kubectl(kubectl_binary, first.cluster_url("restart"), tmp_path)
    patch_simulation(kubectl, {"mode": "live", "speed": 1})
    apply(kubectl, tmp_path, MYAPP.replace("replicas: 3", "replicas: 10"))
    poll(lambda: pods(kubectl), lambda ps: len(ps) > 0)
    first.stop()
    second = own_server()
    kubectl = Kubectl(kubectl_binary, second.cluster_url("restart"), tmp_path)
    before = pods(kubectl)
    assert len(running(before)) < 10, "the rollout had already finished before the restart"
    patch_simulation(kubectl, {"mode": "fast-forward"})
    final = wait_running(kubectl, 10, "-l", "app=myapp")
    # No Pod lost across the restart, none added beyond the ten, all from the one ReplicaSet.
    assert {p["metadata"]["name"] for p in before} <= {p["metadata"]["name"] for p in final}
    assert len({p["metadata"]["labels"]["pod-template-hash"] for p in final}) == 1
    assert len(ok(kubectl("get", "rs", "-o", "name")).split()) == 1
