"""NodeResourcesFit: the filter on actual requests, the three scoring strategies on non-zero requests."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.framework import Code
from clusterviz.scheduler.nodeinfo import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, pod_requests
from clusterviz.scheduler.plugins.node_resources_fit import (
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    NodeResourcesFit,
    ScoringStrategy,
    broken_linear,
    least_allocated,
    requested_to_capacity_ratio,
)
from tests.scheduler.helpers import container, filter_status, make_node, make_pod, scores, snap

# Upstream's least_allocated tests use whole-core quantities; the units cancel out.
TWO_CONTAINERS = [
    container(requests={"cpu": "1000", "memory": "2000"}),
    container("b", requests={"cpu": "2000", "memory": "3000"}),
]


def fit_scores(pod, nodes, pods=(), strategy=None):
    return scores(NodeResourcesFit(strategy), pod, snap(nodes, pods))["raw"]


class TestLeastAllocatedUpstreamTable:
    def test_nothing_scheduled_nothing_requested_scores_100(self):
        pod = make_pod("p", containers=[])
        nodes = [make_node("node1", "4000", "10000"), make_node("node2", "4000", "10000")]
        assert fit_scores(pod, nodes) == {"node1": 100, "node2": 100}

    def test_differently_sized_nodes(self):
        pod = make_pod("p", containers=TWO_CONTAINERS)
        nodes = [make_node("node1", "4000", "10000"), make_node("node2", "6000", "10000")]
        assert fit_scores(pod, nodes) == {"node1": 37, "node2": 50}

    def test_existing_pods_with_explicit_zero_memory_keep_zero(self):
        pod = make_pod("p", containers=[])
        nodes = [make_node("node1", "10000", "20000"), make_node("node2", "10000", "20000")]
        existing = [
            make_pod("e1", cpu="3000", memory="0", node="node1"),
            make_pod("e2", cpu="3000", memory="0", node="node1"),
            make_pod("e3", cpu="3000", memory="0", node="node2"),
            make_pod("e4", cpu="3000", memory="5000", node="node2"),
        ]
        assert fit_scores(pod, nodes, existing) == {"node1": 70, "node2": 57}

    def test_resources_requested_pods_scheduled_with_resources(self):
        pod = make_pod("p", containers=TWO_CONTAINERS)
        nodes = [make_node("node1", "10000", "20000"), make_node("node2", "10000", "50000")]
        existing = [
            make_pod("e1", cpu="3000", memory="0", node="node1"),
            make_pod("e2", cpu="3000", memory="5000", node="node2"),
        ]
        assert fit_scores(pod, nodes, existing) == {"node1": 57, "node2": 60}

    def test_requested_resources_exceeding_capacity_score_zero_for_that_resource(self):
        pod = make_pod("p", cpu="3000", memory="0")
        nodes = [make_node("node1", "4000", "10000"), make_node("node2", "4000", "10000")]
        existing = [
            make_pod("e1", cpu="3000", memory="0", node="node1"),
            make_pod("e2", cpu="3000", memory="5000", node="node2"),
        ]
        assert fit_scores(pod, nodes, existing) == {"node1": 50, "node2": 25}

    def test_zero_allocatable_leaves_every_resource_out(self):
        pod = make_pod("p", containers=[])
        nodes = [make_node("node1", "0", "0"), make_node("node2", "0", "0")]
        assert fit_scores(pod, nodes) == {"node1": 0, "node2": 0}

    def test_resource_weights(self):
        pod = make_pod("p", containers=TWO_CONTAINERS)
        nodes = [make_node("node1", "4000", "10000"), make_node("node2", "6000", "10000")]
        strategy = ScoringStrategy(resources=(("memory", 2), ("cpu", 1)))
        assert fit_scores(pod, nodes, strategy=strategy) == {"node1": 41, "node2": 50}

    def test_extended_resource_is_left_out_when_the_pod_does_not_request_it(self):
        pod = make_pod("p", containers=TWO_CONTAINERS)
        nodes = [
            make_node("node1", "6000", "10000"),
            make_node("node2", "6000", "10000", extra={"example.com/foo": "4"}),
        ]
        strategy = ScoringStrategy(resources=(("cpu", 1), ("memory", 1), ("example.com/foo", 1)))
        assert fit_scores(pod, nodes, strategy=strategy) == {"node1": 50, "node2": 50}

    def test_extended_resource_counts_when_requested(self):
        pod = make_pod("p", requests={"cpu": "3000", "memory": "5000", "example.com/foo": "2"})
        nodes = [
            make_node("node1", "6000", "10000", extra={"example.com/foo": "4"}),
            make_node("node2", "6000", "10000", extra={"example.com/foo": "10"}),
        ]
        strategy = ScoringStrategy(resources=(("cpu", 1), ("memory", 1), ("example.com/foo", 1)))
        assert fit_scores(pod, nodes, strategy=strategy) == {"node1": 50, "node2": 60}


class TestNonZeroDefaults:
    def test_missing_cpu_and_memory_count_as_100m_and_200Mi_for_scoring_only(self):
        pod = make_pod("p")
        assert pod_requests(pod).milli_cpu == 0
        assert pod_requests(pod, non_zero=True).milli_cpu == DEFAULT_MILLI_CPU_REQUEST
        assert pod_requests(pod, non_zero=True).memory == DEFAULT_MEMORY_REQUEST == 209_715_200

    def test_explicit_zero_stays_zero(self):
        pod = make_pod("p", cpu="0", memory="0")
        assert pod_requests(pod, non_zero=True).milli_cpu == 0
        assert pod_requests(pod, non_zero=True).memory == 0

    def test_best_effort_pod_on_a_node_lowers_least_allocated(self):
        # 4000m/8Gi node with one best-effort pod: (4000-100-500)/4000 -> 85, like node-c in the spec.
        pod = make_pod("demo", cpu="500m", memory="1Gi")
        raw = fit_scores(pod, [make_node("node-c")], [make_pod("batch-1", node="node-c")])
        assert raw == {"node-c": 85}

    def test_init_containers_take_the_max_and_sidecars_add_up(self):
        pod = make_pod(
            "p",
            containers=[container(requests={"cpu": "1", "memory": "1Gi"})],
            init_containers=[
                container("init", requests={"cpu": "3", "memory": "512Mi"}),
                container("sidecar", requests={"cpu": "500m", "memory": "256Mi"}, restart_policy="Always"),
            ],
        )
        requests = pod_requests(pod)
        assert requests.milli_cpu == 3000  # the classic init container (no sidecar ran before it)
        assert requests.memory == 1280 * 1024 * 1024  # app 1Gi + sidecar 256Mi beats 512Mi


class TestFilter:
    def test_insufficient_cpu_is_unschedulable(self):
        snapshot = snap([make_node("n", "1", "4Gi")], [make_pod("e", cpu="700m", node="n")])
        status = filter_status(NodeResourcesFit(), make_pod("p", cpu="500m"), snapshot, "n")
        assert (status.code, status.reasons) == (Code.UNSCHEDULABLE, ("Insufficient cpu",))

    def test_request_equal_to_what_is_free_fits(self):
        snapshot = snap([make_node("n", "1", "4Gi")], [make_pod("e", cpu="500m", node="n")])
        assert filter_status(NodeResourcesFit(), make_pod("p", cpu="500m"), snapshot, "n").is_success

    def test_cpu_and_memory_reasons_come_together_in_order(self):
        snapshot = snap([make_node("n", "1", "1Gi")], [make_pod("e", cpu="1", memory="1Gi", node="n")])
        status = filter_status(NodeResourcesFit(), make_pod("p", cpu="1m", memory="1Mi"), snapshot, "n")
        assert status.reasons == ("Insufficient cpu", "Insufficient memory")

    def test_request_larger_than_the_whole_node_is_unresolvable(self):
        status = filter_status(NodeResourcesFit(), make_pod("p", cpu="8"), snap([make_node("n", "4")]), "n")
        assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        assert status.reasons == ("Insufficient cpu",)

    def test_too_many_pods_applies_to_pods_requesting_nothing(self):
        snapshot = snap([make_node("n", pods="1")], [make_pod("e", node="n")])
        status = filter_status(NodeResourcesFit(), make_pod("p"), snapshot, "n")
        assert status.reasons == ("Too many pods",)

    def test_missing_extended_resource_counts_as_zero_allocatable(self):
        status = filter_status(
            NodeResourcesFit(), make_pod("p", requests={"nvidia.com/gpu": "1"}), snap([make_node("n")]), "n"
        )
        assert status.reasons == ("Insufficient nvidia.com/gpu",)
        assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE

    def test_ignored_resource_groups_skip_extended_resources(self):
        plugin = NodeResourcesFit(ignored_resource_groups=frozenset({"nvidia.com"}))
        assert filter_status(
            plugin, make_pod("p", requests={"nvidia.com/gpu": "1"}), snap([make_node("n")]), "n"
        ).is_success


class TestOtherStrategies:
    def test_most_allocated_prefers_the_fuller_node(self):
        pod = make_pod("p", cpu="3000", memory="5000")
        nodes = [make_node("node1", "4000", "10000"), make_node("node2", "6000", "10000")]
        raw = fit_scores(pod, nodes, strategy=ScoringStrategy(type=MOST_ALLOCATED))
        assert raw == {"node1": 62, "node2": 50}  # (75+50)/2, (50+50)/2

    def test_requested_to_capacity_ratio_rounds_half_away_from_zero(self):
        shape = ((0, 10), (100, 0))  # scores 0..10 are scaled by 10
        assert requested_to_capacity_ratio([25, 50], [100, 100], [1, 1], shape) == 63  # mean of 75 and 50 = 62.5

    def test_requested_to_capacity_ratio_ignores_resources_scoring_zero(self):
        shape = ((0, 10), (100, 0))
        assert requested_to_capacity_ratio([100, 50], [100, 100], [1, 1], shape) == 50

    def test_broken_linear_function_truncates_toward_zero(self):
        assert broken_linear([(0, 100), (30, 0)], 10) == 67  # 100 + (-1000 / 30) with Go's division

    def test_requested_to_capacity_ratio_strategy_through_the_plugin(self):
        strategy = ScoringStrategy(type=REQUESTED_TO_CAPACITY_RATIO, shape=((0, 0), (100, 10)))
        pod = make_pod("p", cpu="1000", memory="2500")
        raw = fit_scores(pod, [make_node("node1", "4000", "10000")], strategy=strategy)
        assert raw == {"node1": 25}

    def test_least_allocated_pure_function_example_from_the_spec(self):
        assert least_allocated([3000, 5000], [4000, 10000], [1, 1]) == 37


@pytest.mark.parametrize(
    ("strategy", "legacy"),
    [("LeastAllocated", "LeastRequestedPriority"), ("MostAllocated", "MostRequestedPriority")],
)
def test_legacy_score_name_follows_the_strategy(strategy, legacy):
    plugin = NodeResourcesFit(ScoringStrategy(type=strategy))
    assert plugin.legacy_name("score") == legacy
    assert plugin.legacy_name("filter") == "PodFitsResources"
