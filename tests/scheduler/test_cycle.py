"""The scheduling cycle: totals, selection, tie-breaking, percentageOfNodesToScore and FailedScheduling."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from clusterviz.scheduler.cycle import num_feasible_nodes_to_find, schedule, select_host
from clusterviz.scheduler.profile import default_profile, load_configuration
from tests.scheduler.helpers import MiB, make_node, make_pod, reasons, run, snap

NO_POST_FILTER = load_configuration({"profiles": [{"plugins": {"postFilter": {"disabled": [{"name": "*"}]}}}]}).profile


def test_spec_worked_example_totals_476_475_485():
    nodes = [
        make_node("node-a", "4", "8Gi", images=[(["nginx:1.25"], 500 * MiB)]),
        make_node("node-b", "2", "4Gi"),
        make_node("node-c", "4", "8Gi"),
    ]
    pods = [make_pod("web-1", cpu="1", memory="2Gi", node="node-a"), make_pod("batch-1", node="node-c")]
    record = run(make_pod("demo", cpu="500m", memory="1Gi"), nodes, pods)
    assert {n.name: n.total for n in record.nodes} == {"node-a": 476, "node-b": 475, "node-c": 485}
    assert record.selected == "node-c"
    a = {s.plugin: (s.raw, s.normalized, s.weight, s.weighted) for s in record.node("node-a").scores}
    assert a["TaintToleration"] == (0, 100, 3, 300)
    assert a["NodeResourcesFit"] == (62, 62, 1, 62)
    assert a["NodeResourcesBalancedAllocation"] == (100, 100, 1, 100)
    assert a["ImageLocality"] == (14, 14, 1, 14)
    assert a["NodeAffinity"] == (None, None, 2, 0)  # skipped at PreScore: contributes 0


def test_seeds_example_balanced_allocation_tips_the_choice_to_node02():
    nodes = [make_node("node01", "10", "10Gi"), make_node("node02", "10", "10Gi")]
    pods = [make_pod("a", cpu="1", memory="5Gi", node="node01"), make_pod("b", cpu="4", memory="4Gi", node="node02")]
    record = run(make_pod("new", cpu="1", memory="1Gi"), nodes, pods)
    by = {n.name: {s.plugin: s.weighted for s in n.scores} for n in record.nodes}
    assert by["node01"]["NodeResourcesFit"] > by["node02"]["NodeResourcesFit"]  # 60 vs 50: more room on node01
    assert (by["node01"]["NodeResourcesBalancedAllocation"], by["node02"]["NodeResourcesBalancedAllocation"]) == (
        80,
        100,
    )
    assert record.selected == "node02"


class TestFailedSchedulingMessage:
    def three_nodes(self):
        nodes = [make_node("n1", "2", labels={"disk": "ssd"}), make_node("n2"), make_node("n3")]
        return nodes, [make_pod("busy", cpu="1500m", node="n1")]

    def test_message_without_post_filter_is_the_spec_example(self):
        nodes, pods = self.three_nodes()
        record = run(make_pod("p", cpu="1", nodeSelector={"disk": "ssd"}), nodes, pods, profile=NO_POST_FILTER)
        assert record.message == (
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector."
        )

    def test_default_profile_adds_the_dra_and_preemption_suffix(self):
        nodes, pods = self.three_nodes()
        record = run(make_pod("p", cpu="1", nodeSelector={"disk": "ssd"}), nodes, pods)
        assert record.message == (
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector. "
            "no new claims to deallocate, preemption: 0/3 nodes are available: "
            "1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling."
        )
        assert record.unschedulable_plugins == {"NodeAffinity", "NodeResourcesFit"}

    def test_only_the_first_failing_plugin_of_each_node_is_counted(self):
        nodes = [make_node("n1", "1", unschedulable=True), make_node("n2", "1"), make_node("n3", "1")]
        record = run(make_pod("p", cpu="2"), nodes, profile=NO_POST_FILTER)
        assert record.message == "0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu."
        shown = reasons(record, "n1")  # but the table shows every filter
        assert shown["NodeUnschedulable"] == ("UnschedulableAndUnresolvable", "node(s) were unschedulable")
        assert shown["NodeResourcesFit"] == ("UnschedulableAndUnresolvable", "Insufficient cpu")
        assert shown["NodeName"] == ("Success", "")
        assert shown["NodePorts"] == ("Skip", "")

    def test_reasons_sort_as_strings(self):
        nodes = [make_node(f"m{i:02d}") for i in range(10)] + [
            make_node("s1", "1", labels={"disk": "ssd"}),
            make_node("s2", "1", labels={"disk": "ssd"}),
        ]
        record = run(make_pod("p", cpu="2", nodeSelector={"disk": "ssd"}), nodes, profile=NO_POST_FILTER)
        assert record.message == (
            "0/12 nodes are available: 10 node(s) didn't match Pod's node affinity/selector, 2 Insufficient cpu."
        )

    def test_taint_message_as_real_v135_clusters_print_it(self):
        control_plane = make_node(
            "cp", taints=[{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]
        )
        record = run(make_pod("p", cpu="3"), [control_plane, make_node("w1", "2"), make_node("w2", "2")])
        assert record.message == (
            "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. "
            "no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
        )

    def test_prefilter_rejection_uses_its_own_message(self):
        pin = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchFields": [
                                {"key": "metadata.name", "operator": "In", "values": ["a"]},
                                {"key": "metadata.name", "operator": "In", "values": ["b"]},
                            ]
                        }
                    ]
                }
            }
        }
        record = run(make_pod("p", affinity=pin), [make_node("a"), make_node("b"), make_node("c")])
        assert record.message == (
            "0/3 nodes are available: pod affinity terms conflict. no new claims to deallocate, "
            "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
        )
        assert all(not n.feasible for n in record.nodes)

    def test_no_nodes_at_all(self):
        record = run(make_pod("p"), [])
        assert (record.selected, record.message) == (None, "no nodes available to schedule pods")


class TestPreemption:
    def test_lower_priority_victim_makes_room_and_clears_the_suffix(self):
        nodes = [make_node("n1", "2")]
        pods = [make_pod("low", cpu="2", node="n1", priority=0)]
        record = run(make_pod("high", cpu="1", priority=100), nodes, pods)
        assert record.message == "0/1 nodes are available: 1 Insufficient cpu."
        assert (record.nominated_node, record.victims) == ("n1", ("default/low",))

    def test_preemption_policy_never(self):
        record = run(
            make_pod("high", cpu="1", priority=100, preemptionPolicy="Never"),
            [make_node("n1", "2")],
            [make_pod("low", cpu="2", node="n1")],
        )
        assert record.message == (
            "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
            "preemption: not eligible due to preemptionPolicy=Never."
        )

    def test_still_not_fitting_after_removing_every_lower_priority_pod(self):
        pods = [make_pod("low", cpu="1", node="n1", priority=0), make_pod("vip", cpu="1", node="n1", priority=1000)]
        record = run(make_pod("high", cpu="2", priority=100), [make_node("n1", "2")], pods)
        assert record.message.endswith("preemption: 0/1 nodes are available: 1 Insufficient cpu.")

    def test_only_the_needed_victims_are_chosen(self):
        pods = [make_pod(f"low-{i}", cpu="500m", node="n1", priority=i) for i in range(4)]
        record = run(make_pod("high", cpu="1", priority=100), [make_node("n1", "2")], pods)
        assert record.victims == ("default/low-1", "default/low-0")  # the two least important


class TestSelection:
    def test_single_feasible_node_is_chosen_with_scores_marked_not_needed(self):
        record = run(
            make_pod("p", nodeSelector={"role": "only"}), [make_node("a", labels={"role": "only"}), make_node("b")]
        )
        assert (record.selected, record.scoring_needed, record.tie_break.method) == ("a", False, "single-feasible")
        assert record.node("a").scores and all(not s.needed for s in record.node("a").scores)
        assert record.node("b").scores == ()

    def test_ties_are_reproducible_for_a_seed(self):
        nodes = [make_node(n) for n in ("a", "b", "c")]
        first = [run(make_pod("p"), nodes, seed=seed).selected for seed in range(20)]
        again = [run(make_pod("p"), nodes, seed=seed).selected for seed in range(20)]
        assert first == again
        record = run(make_pod("p"), nodes, seed=7)
        assert record.tied == ("a", "b", "c")
        assert record.tie_break.method == "reservoir"
        assert [(n, k) for n, k, _ in record.tie_break.draws] == [("b", 2), ("c", 3)]

    def test_ties_are_broken_uniformly(self):
        totals = {"a": 500, "b": 500, "c": 500, "d": 400}
        picks = Counter(select_host(totals, random.Random(seed))[0] for seed in range(3000))
        assert set(picks) == {"a", "b", "c"}
        assert all(850 <= count <= 1150 for count in picks.values()), picks

    def test_highest_total_wins_without_drawing(self):
        rng = random.Random(1)
        state = rng.getstate()
        assert select_host({"a": 10, "b": 20}, rng)[0] == "b"
        assert rng.getstate() == state


class TestPercentageOfNodesToScore:
    @pytest.mark.parametrize(
        ("nodes", "percentage", "want"),
        [
            (50, None, 50),
            (99, 0, 99),
            (500, 0, 230),
            (5000, 0, 500),
            (6000, 0, 300),
            (1000, 100, 1000),
            (150, 50, 100),
            (400, 50, 200),
        ],
    )
    def test_num_feasible_nodes_to_find(self, nodes, percentage, want):
        assert num_feasible_nodes_to_find(percentage, 0, nodes) == want

    def test_global_value_applies_when_the_profile_sets_none(self):
        assert num_feasible_nodes_to_find(None, 20, 1000) == 200

    def test_search_stops_after_enough_feasible_nodes_and_rotates(self):
        profile = load_configuration({"profiles": [{"percentageOfNodesToScore": 10}]}).profile
        snapshot = snap([make_node(f"n{i:03d}") for i in range(150)])
        record = schedule(make_pod("p"), snapshot, profile, random.Random(0))
        assert len(record.nodes) == 100 and record.next_start_index == 100
        later = schedule(make_pod("q"), snapshot, profile, random.Random(0), start_index=record.next_start_index)
        assert later.nodes[0].name == "n000" and "n149" in {n.name for n in later.nodes}

    def test_classroom_default_scores_every_node(self):
        record = schedule(
            make_pod("p"), snap([make_node(f"n{i:03d}") for i in range(120)]), default_profile(), random.Random(0)
        )
        assert len(record.nodes) == 120


def test_record_to_dict_has_the_api_shape():
    record = run(make_pod("p"), [make_node("a"), make_node("b", unschedulable=True)])
    body = record.to_dict()
    assert set(body) == {
        "pod",
        "attempt",
        "time",
        "profile",
        "nodes",
        "selected",
        "tied",
        "message",
        "scoringNeeded",
        "tieBreak",
    }
    assert body["pod"] == {"namespace": "default", "name": "p", "uid": "uid-default-p"}
    assert body["profile"] == "default-scheduler"
    node = body["nodes"][0]
    assert set(node) == {"name", "filters", "scores", "total", "feasible"}
    assert set(node["filters"][0]) == {"plugin", "legacyName", "status", "reason"}
    assert node["filters"][0]["legacyName"] == "CheckNodeUnschedulable"
    assert {"plugin", "legacyName", "raw", "normalized", "weight", "weighted"} <= set(node["scores"][0])
    assert body["nodes"][1]["feasible"] is False and body["nodes"][1]["total"] is None
