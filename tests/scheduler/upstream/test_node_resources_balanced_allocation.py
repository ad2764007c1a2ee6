"""NodeResourcesBalancedAllocation score cases from upstream
``pkg/scheduler/framework/plugins/noderesources/balanced_allocation_test.go`` (v1.35: standard
deviation of the usage fractions over actual requests, PreScore Skip for best-effort Pods)."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.plugins import build
from clusterviz.scheduler.plugins.node_resources_balanced_allocation import NAME
from tests.scheduler.helpers import capacity_node, req_pod, scores, scores_without_pre_score, snap

GPU = "nvidia.com/gpu"
CPU_AND_MEMORY = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
WITH_GPU = [*CPU_AND_MEMORY, {"name": GPU, "weight": 1}]


def node(name: str, milli_cpu: int, memory: int, gpus: int | None = None) -> dict:
    """upstream's ``makeNode(name, milliCPU, memory, scalars)``."""
    allocatable = {"cpu": f"{milli_cpu}m", "memory": str(memory), "pods": "100"}
    if gpus is not None:
        allocatable[GPU] = str(gpus)
    return capacity_node(name, allocatable)


# The three Pod specs the upstream table reuses; memory "0" is an explicit zero request.
def cpu_only(name: str, on: str | None = "node1") -> dict:
    return req_pod(name, {"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"}, node=on)


def cpu_and_memory(name: str, on: str | None = "node2") -> dict:
    return req_pod(name, {"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"}, node=on)


def cpu_memory_and_gpu(name: str, on: str = "node1") -> dict:
    return req_pod(name, {"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000", GPU: "3"}, node=on)


def existing_cpu_only_and_cpu_and_memory() -> list[dict]:
    return [cpu_only("e1"), cpu_and_memory("e2")]


@pytest.mark.parametrize(
    ("pod", "nodes", "existing", "resources", "pre_score", "want"),
    [
        pytest.param(
            req_pod("p"),
            [node("node1", 4000, 10000), node("node2", 4000, 10000)],
            [],
            CPU_AND_MEMORY,
            True,
            "skip",
            id="nothing scheduled, nothing requested, skip in PreScore",
        ),
        pytest.param(
            cpu_and_memory("p", on=None),
            [node("node1", 4000, 10000), node("node2", 6000, 10000)],
            [],
            CPU_AND_MEMORY,
            True,
            [87, 100],
            id="nothing scheduled, resources requested, differently sized nodes",
        ),
        pytest.param(
            cpu_and_memory("p", on=None),
            [node("node1", 10000, 20000), node("node2", 10000, 20000)],
            existing_cpu_only_and_cpu_and_memory(),
            CPU_AND_MEMORY,
            True,
            [82, 95],
            id="resources requested, pods scheduled with resources",
        ),
        pytest.param(
            cpu_and_memory("p", on=None),
            [node("node1", 10000, 20000), node("node2", 10000, 50000)],
            existing_cpu_only_and_cpu_and_memory(),
            CPU_AND_MEMORY,
            True,
            [82, 80],
            id="resources requested, pods scheduled with resources, differently sized nodes",
        ),
        pytest.param(
            cpu_only("p", on=None),
            [node("node1", 6000, 10000), node("node2", 6000, 10000)],
            existing_cpu_only_and_cpu_and_memory(),
            CPU_AND_MEMORY,
            True,
            [50, 75],
            id="requested resources at node capacity",
        ),
        pytest.param(
            req_pod("p", {"memory": "0", GPU: "1"}),
            [node("node1", 3500, 40000, gpus=8), node("node2", 3500, 40000, gpus=8)],
            [cpu_and_memory("e1"), cpu_memory_and_gpu("e2")],
            WITH_GPU,
            True,
            [70, 65],
            id="include scalar resource on a node for balanced resource allocation",
        ),
        # The Pod does not ask for GPUs, so the GPU fraction is left out on both nodes.
        pytest.param(
            cpu_and_memory("p", on=None),
            [node("node1", 3500, 40000, gpus=8), node("node2", 3500, 40000)],
            [],
            WITH_GPU,
            True,
            [63, 63],
            id="node without the scalar resource should skip the scalar resource",
        ),
        pytest.param(
            cpu_and_memory("p", on=None),
            [node("node1", 10000, 20000), node("node2", 10000, 20000)],
            existing_cpu_only_and_cpu_and_memory(),
            CPU_AND_MEMORY,
            False,
            [82, 95],
            id="resources requested, pods scheduled with resources if PreScore not called",
        ),
    ],
)
def test_node_resources_balanced_allocation(pod, nodes, existing, resources, pre_score, want):
    plugin = build(NAME, {"resources": resources})
    snapshot = snap(nodes, existing)
    if pre_score:
        result = scores(plugin, pod, snapshot)
        got = "skip" if result.get("skip") else [result["normalized"][n["metadata"]["name"]] for n in nodes]
    else:
        raw = scores_without_pre_score(plugin, pod, snapshot)
        got = [raw[n["metadata"]["name"]] for n in nodes]
    assert got == want
