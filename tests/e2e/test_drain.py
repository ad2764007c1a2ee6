"""kubectl drain: cordon, then every Pod of the node evicted (or deleted), as its disruption budget allows."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Kubectl
from tests.e2e.test_kubectl import MYAPP, ok
from tests.livesim import LiveServer, wait_until


@pytest.fixture(scope="module")
def drain_cluster(live: LiveServer) -> str:
    """A cluster of this module's own: draining cordons nodes and evicts whatever runs there."""
    created = live.manage("createcluster", "drainlab", "--nodes", "3")
    assert created.returncode == 0, created.stderr
    return "drainlab"


@pytest.fixture
def kubectl(kubectl_binary: str, live: LiveServer, tmp_path: Path, drain_cluster: str) -> Kubectl:
    return Kubectl(kubectl_binary, live.cluster_url(drain_cluster), tmp_path)


def _pods_on(kubectl: Kubectl, node: str) -> list[str]:
    out = ok(kubectl("get", "pods", "-A", "--field-selector", f"spec.nodeName={node}", "-o", "name"))
    return out.split()


def test_drain_deletes_the_nodes_pods_and_their_controllers_replace_them_elsewhere(kubectl: Kubectl, tmp_path: Path):
    manifest = tmp_path / "drained.yaml"
    manifest.write_text(MYAPP.replace("name: myapp", "name: drained", 1).replace("replicas: 3", "replicas: 6"))
    ok(kubectl("apply", "-f", str(manifest)))
    ok(kubectl("rollout", "status", "deployment/drained", "--timeout=60s"))
    before = _pods_on(kubectl, "node02")
    assert before

    # --disable-eviction: kubectl deletes each Pod, with a protobuf DeleteOptions body.
    result = kubectl("drain", "node02", "--ignore-daemonsets", "--disable-eviction", "--timeout=60s")
    assert result.returncode == 0, result.stderr
    assert "node/node02 cordoned" in result.stdout
    assert "node/node02 drained" in result.stdout
    on_node = [line for line in result.stdout.splitlines() if line.startswith("pod/")]
    assert len(on_node) >= 1 and all(line.startswith("pod/drained-") and line.endswith(" deleted") for line in on_node)
    assert len(on_node) == len(before)
    assert _pods_on(kubectl, "node02") == []
    assert ok(kubectl("get", "node", "node02", "-o", "jsonpath={.spec.unschedulable}")) == "true"
    assert wait_until(
        lambda: ok(kubectl("get", "deploy", "drained", "-o", "jsonpath={.status.readyReplicas}")) == "6"
    )
    ok(kubectl("uncordon", "node02"))
    ok(kubectl("delete", "-f", str(manifest)))


BUDGET = """apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: guarded
spec:
  minAvailable: {min_available}
  selector:
    matchLabels: {{app: guarded}}
"""


def test_drain_evicts_only_as_the_disruption_budget_allows(kubectl: Kubectl, tmp_path: Path):
    manifest = tmp_path / "guarded.yaml"
    manifest.write_text(MYAPP.replace("myapp", "guarded"))
    ok(kubectl("apply", "-f", str(manifest)))
    ok(kubectl("rollout", "status", "deployment/guarded", "--timeout=60s"))
    budget = tmp_path / "pdb.yaml"
    budget.write_text(BUDGET.format(min_available=3))
    ok(kubectl("apply", "-f", str(budget)))
    assert wait_until(lambda: ok(kubectl("get", "pdb", "guarded", "--no-headers")).split()[1:4] == ["3", "N/A", "0"])
    node = ok(kubectl("get", "pods", "-l", "app=guarded", "-o", "jsonpath={.items[0].spec.nodeName}"))

    # Every replica is needed: kubectl retries the refused eviction until its timeout.
    held = kubectl("drain", node, "--ignore-daemonsets", "--timeout=7s", timeout=60)
    assert held.returncode == 1
    assert "Cannot evict pod as it would violate the pod's disruption budget." in held.stderr
    assert "(will retry after 5s)" in held.stderr
    assert "guarded" in ok(kubectl("get", "pods", "-l", "app=guarded", "--field-selector", f"spec.nodeName={node}"))
    status = ok(kubectl("get", "pdb", "guarded", "-o", "jsonpath={.status.currentHealthy}/{.status.desiredHealthy}"))
    assert status == "3/3"

    # One may go at a time: each eviction waits for the replacement to be Ready elsewhere.
    budget.write_text(BUDGET.format(min_available=2))
    ok(kubectl("apply", "-f", str(budget)))
    drained = kubectl("drain", node, "--ignore-daemonsets", "--timeout=60s", timeout=90)
    assert drained.returncode == 0, drained.stderr
    assert f"node/{node} drained" in drained.stdout
    assert all(line.endswith(" evicted") for line in drained.stdout.splitlines() if line.startswith("pod/"))
    assert _pods_on(kubectl, node) == []
    assert wait_until(lambda: ok(kubectl("get", "deploy", "guarded", "-o", "jsonpath={.status.readyReplicas}")) == "3")
    events = ok(kubectl("get", "events", "--field-selector", "reason=Killing", "-o", "name"))
    assert events
    ok(kubectl("uncordon", node))
    ok(kubectl("delete", "-f", str(manifest), "-f", str(budget)))
