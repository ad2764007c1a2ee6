"""kubectl top: the metrics API, from the load knob a workload carries."""

from __future__ import annotations

from tests.conftest import Kubectl
from tests.e2e.test_kubectl import header, ok


def test_top_pods_share_the_workloads_load_and_nodes_add_their_pods(kubectl: Kubectl):
    ok(kubectl("create", "deployment", "loaded", "--image=nginx:1.27", "--replicas=3"))
    ok(kubectl("rollout", "status", "deployment/loaded", "--timeout=60s"))
    ok(kubectl("annotate", "deployment", "loaded", "clusterviz.io/load=900m"))
    out = ok(kubectl("top", "pods", "-l", "app=loaded"))
    assert header(out) == ["NAME", "CPU(cores)", "MEMORY(bytes)"]
    rows = [line.split() for line in out.splitlines()[1:] if line.strip()]
    assert len(rows) == 3 and all(r[1:] == ["300m", "3Mi"] for r in rows)

    # More replicas share the same load: each uses less.
    ok(kubectl("scale", "deployment", "loaded", "--replicas=6"))
    ok(kubectl("rollout", "status", "deployment/loaded", "--timeout=60s"))
    rows = [line.split() for line in ok(kubectl("top", "pods", "-l", "app=loaded")).splitlines()[1:] if line.strip()]
    assert len(rows) == 6 and all(r[1] == "150m" for r in rows)

    nodes = ok(kubectl("top", "nodes"))
    assert header(nodes) == ["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"]
    total = sum(int(line.split()[1].rstrip("m")) for line in nodes.splitlines()[1:] if line.strip())
    assert total >= 900 + 3 * 100  # the workload's load and each node's own daemons
    ok(kubectl("annotate", "pod", rows[0][0], "clusterviz.io/cpu-usage=42m"))
    assert ok(kubectl("top", "pod", rows[0][0], "--no-headers")).split()[1] == "42m"
    ok(kubectl("delete", "deployment", "loaded"))
