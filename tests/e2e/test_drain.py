"""kubectl drain: cordon, then every Pod of the node deleted with the DeleteOptions kubectl sends as protobuf."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Kubectl
from tests.e2e.test_kubectl import MYAPP, ok
from tests.livesim import wait_until


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

    result = kubectl("drain", "node02", "--ignore-daemonsets", "--timeout=60s")
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
