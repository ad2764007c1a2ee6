"""NodeResourcesBalancedAllocation (v1.35): (1 - std) x 100 over actual-request fractions."""

from __future__ import annotations

from clusterviz.scheduler.plugins.node_resources_balanced_allocation import (
    NodeResourcesBalancedAllocation,
    balanced_score,
    fraction_score,
)
from tests.scheduler.helpers import container, make_node, make_pod, scores, snap

CPU_ONLY = [
    container(requests={"cpu": "1000m", "memory": "0"}),
    container("b", requests={"cpu": "2000m", "memory": "0"}),
]
CPU_AND_MEMORY = [
    container(requests={"cpu": "1000m", "memory": "2000"}),
    container("b", requests={"cpu": "2000m", "memory": "3000"}),
]


def node(name, milli_cpu, memory, extra=None):
    return make_node(name, f"{milli_cpu}m", str(memory), extra=extra)


def balanced(pod, nodes, pods=(), resources=("cpu", "memory")):
    return scores(NodeResourcesBalancedAllocation(resources), pod, snap(nodes, pods))


def test_seeds_example_prefers_50_50_over_20_60():
    # 南京 seed: node01 at 20%:60% scores lower than node02 at 50%:50%.
    assert fraction_score([0.2, 0.6]) == 80
    assert fraction_score([0.5, 0.5]) == 100


def test_seeds_example_through_the_plugin():
    pod = make_pod("p", cpu="1", memory="1Gi")
    nodes = [make_node("node01", "10", "10Gi"), make_node("node02", "10", "10Gi")]
    pods = [make_pod("a", cpu="1", memory="5Gi", node="node01"), make_pod("b", cpu="4", memory="4Gi", node="node02")]
    assert balanced(pod, nodes, pods)["raw"] == {"node01": 80, "node02": 100}


def test_spec_example_three_quarters_and_a_half_gives_87():
    assert balanced_score([3, 1], [4, 2]) == 87


def test_best_effort_pod_is_skipped_at_prescore():
    assert balanced(make_pod("p"), [node("node1", 4000, 10000)]) == {"skip": True}


class TestUpstreamTable:
    def test_nothing_scheduled_differently_sized_nodes(self):
        pod = make_pod("p", containers=CPU_AND_MEMORY)
        assert balanced(pod, [node("node1", 4000, 10000), node("node2", 6000, 10000)])["raw"] == {
            "node1": 87,
            "node2": 100,
        }

    def test_pods_scheduled_with_resources(self):
        pod = make_pod("p", containers=CPU_AND_MEMORY)
        existing = [
            make_pod("e1", containers=CPU_ONLY, node="node1"),
            make_pod("e2", containers=CPU_AND_MEMORY, node="node2"),
        ]
        got = balanced(pod, [node("node1", 10000, 20000), node("node2", 10000, 20000)], existing)["raw"]
        assert got == {"node1": 82, "node2": 95}

    def test_differently_sized_nodes_with_pods(self):
        pod = make_pod("p", containers=CPU_AND_MEMORY)
        existing = [
            make_pod("e1", containers=CPU_ONLY, node="node1"),
            make_pod("e2", containers=CPU_AND_MEMORY, node="node2"),
        ]
        got = balanced(pod, [node("node1", 10000, 20000), node("node2", 10000, 50000)], existing)["raw"]
        assert got == {"node1": 82, "node2": 80}

    def test_requested_at_node_capacity(self):
        pod = make_pod("p", containers=CPU_ONLY)
        existing = [
            make_pod("e1", containers=CPU_ONLY, node="node1"),
            make_pod("e2", containers=CPU_AND_MEMORY, node="node2"),
        ]
        got = balanced(pod, [node("node1", 6000, 10000), node("node2", 6000, 10000)], existing)["raw"]
        assert got == {"node1": 50, "node2": 75}

    def test_scalar_resource_makes_three_fractions(self):
        gpu = {"nvidia.com/gpu": "8"}
        pod = make_pod("p", requests={"memory": "0", "nvidia.com/gpu": "1"})
        with_gpu = [
            container(requests={"cpu": "1000m", "memory": "2000"}),
            container("b", requests={"cpu": "2000m", "memory": "3000", "nvidia.com/gpu": "3"}),
        ]
        existing = [
            make_pod("e1", containers=with_gpu, node="node1"),
            make_pod("e2", containers=CPU_AND_MEMORY, node="node2"),
        ]
        got = balanced(
            pod,
            [node("node1", 3500, 40000, gpu), node("node2", 3500, 40000, gpu)],
            existing,
            ("cpu", "memory", "nvidia.com/gpu"),
        )
        assert got["raw"] == {"node1": 70, "node2": 65}

    def test_node_without_the_scalar_resource_skips_it(self):
        pod = make_pod("p", containers=CPU_AND_MEMORY)
        nodes = [node("node1", 3500, 40000, {"nvidia.com/gpu": "8"}), node("node2", 3500, 40000)]
        got = balanced(pod, nodes, (), ("cpu", "memory", "nvidia.com/gpu"))
        assert got["raw"] == {"node1": 63, "node2": 63}


def test_actual_requests_are_used_not_the_non_zero_defaults():
    # The existing best-effort pod adds nothing here (it would add 100m/200Mi for LeastAllocated).
    pod = make_pod("p", cpu="1", memory="2Gi")
    got = balanced(pod, [make_node("n", "4", "8Gi")], [make_pod("be", node="n")])
    assert got["raw"] == {"n": 100}
