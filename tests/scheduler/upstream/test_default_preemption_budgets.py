"""DefaultPreemption with PodDisruptionBudgets and a limited candidate search, from upstream
``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go`` (TestDryRunPreemption's
PDB and DefaultPreemptionArgs cases), and pickOneNodeForPreemption's first criterion.

Through the same public functions as test_default_preemption.py: the dry run over a snapshot's nodes with
NodeResourcesFit deciding each fit."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.framework import CycleState
from clusterviz.scheduler.nodeinfo import PodInfo
from clusterviz.scheduler.plugins.default_preemption import (
    BY_HIGHEST_PRIORITY,
    BY_PDB_VIOLATIONS,
    Candidate,
    DefaultPreemption,
    Victim,
    choose_candidate,
    dry_run_preemption,
    select_victims_with_budgets,
)
from tests.scheduler.helpers import snap
from tests.scheduler.upstream.test_default_preemption import (
    FIT,
    HIGH,
    LARGE,
    LOW,
    MEDIUM,
    MID,
    VERY_HIGH,
    VERY_LARGE,
    filter_runner,
    node,
    pod,
)

FOO = {"app": "foo"}


def budget(allowed: int, disrupted: tuple[str, ...] = ()) -> dict:
    """A budget over app=foo in default, as upstream's cases write it (only its status matters here)."""
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "pdb", "namespace": "default"},
        "spec": {"selector": {"matchLabels": FOO}},
        "status": {"disruptionsAllowed": allowed, "disruptedPods": {p: "2026-01-01T00:00:00Z" for p in disrupted}},
    }


def dry_run(incoming, existing, node_names, pdbs=(), **limits):
    nodes = [node(n, VERY_LARGE) for n in node_names]
    snapshot = snap(nodes, existing)
    found, _ = dry_run_preemption(
        PodInfo.from_pod(incoming), snapshot.list(), snapshot, filter_runner(FIT, incoming), list(pdbs), **limits
    )
    return {c.node: (sorted(v.name for v in c.victims), c.pdb_violations) for c in found}


def on_node1(*names: str) -> list[dict]:
    return [pod(n, MID, MEDIUM, node="node1", labels=FOO) for n in names]


@pytest.mark.parametrize(
    ("existing", "pdbs", "want"),
    [
        pytest.param(on_node1("p1.1", "p1.2"), [budget(1)], {"node1": (["p1.1", "p1.2"], 1)},
                     id="preemption with violation of same pdb"),
        pytest.param(on_node1("p1.1", "p1.2"), [budget(1, ("p2",))], {"node1": (["p1.1", "p1.2"], 1)},
                     id="preemption with violation of the pdb with pod whose eviction was processed, the victim "
                        "doesn't belong to DisruptedPods"),
        pytest.param(on_node1("p1.1", "p1.2"), [budget(1, ("p1.2",))], {"node1": (["p1.1", "p1.2"], 0)},
                     id="preemption with violation of the pdb with pod whose eviction was processed, the victim "
                        "belongs to DisruptedPods"),
        pytest.param(on_node1("p1.1", "p1.2", "p1.3"), [budget(1, ("p1.3",))],
                     {"node1": (["p1.1", "p1.2", "p1.3"], 1)},
                     id="preemption with violation of the pdb with pod whose eviction was processed, the victim "
                        "which belongs to DisruptedPods is treated as 'nonViolating'"),
    ],
)
def test_dry_run_counts_budget_violations(existing, pdbs, want):
    assert dry_run(pod("p", HIGH, VERY_LARGE), existing, ["node1"], pdbs) == want


def five_nodes(priorities: dict[str, int]) -> list[dict]:
    return [pod(f"p{i}", priorities.get(f"p{i}", MID), LARGE, node=f"node{i}") for i in range(1, 6)]


NODES = [f"node{i}" for i in range(1, 6)]


def test_all_nodes_are_possible_candidates_but_the_args_limit_to_2():
    # MinCandidateNodesPercentage 40 of 5 nodes, at least 1: 2 candidates, from offset 4 (node5, then node1).
    got = dry_run(pod("p", HIGH, LARGE), five_nodes({}), NODES, offset=4, num_candidates=2)
    assert got == {"node1": (["p1"], 0), "node5": (["p5"], 0)}


def test_some_nodes_are_not_possible_candidates_and_the_args_limit_to_2():
    existing = five_nodes({"p2": VERY_HIGH, "p5": VERY_HIGH})
    got = dry_run(pod("p", HIGH, LARGE), existing, NODES, offset=4, num_candidates=2)
    assert got == {"node1": (["p1"], 0), "node3": (["p3"], 0)}


def test_the_search_goes_past_its_count_until_a_node_breaks_no_budget():
    existing = five_nodes({})
    for p in existing:
        if p["metadata"]["name"] in ("p1", "p2", "p5"):
            p["metadata"]["labels"] = dict(FOO)
    got = dry_run(pod("p", HIGH, LARGE), existing, NODES, [budget(0)], offset=4, num_candidates=2)
    # node5 and node1 break the budget; node2 too; node3 is the first that breaks none.
    assert got == {"node5": (["p5"], 1), "node1": (["p1"], 1), "node2": (["p2"], 1), "node3": (["p3"], 0)}


def test_budget_breaking_pods_are_reprieved_first():
    # Without budgets the more important p2 is given back and p1 goes; p1's budget allows nothing, so p1 is
    # offered back first and stays, and p2 goes instead.
    existing = [pod("p1", LOW, MEDIUM, node="node1", labels=FOO), pod("p2", MID, MEDIUM, node="node1")]
    incoming = pod("p", HIGH, {"cpu": "300m", "memory": "300"})
    snapshot = snap([node("node1", VERY_LARGE)], existing)
    info = snapshot.get("node1")
    assert info is not None
    runner = filter_runner(FIT, incoming)
    victims, violations, status = select_victims_with_budgets(
        PodInfo.from_pod(incoming), info, snapshot, runner, [budget(0)]
    )
    assert status.is_success and ([v.name for v in victims], violations) == (["p2"], 0)
    victims, violations, _ = select_victims_with_budgets(PodInfo.from_pod(incoming), info, snapshot, runner)
    assert ([v.name for v in victims], violations) == (["p1"], 0)


def test_fewest_budget_violations_come_before_victim_priority():
    breaking = Candidate("node1", (Victim("default/a", LOW, "~", True),), 1)
    keeping = Candidate("node2", (Victim("default/b", MID, "~"),), 0)
    assert choose_candidate([breaking, keeping]) == ("node2", BY_PDB_VIOLATIONS, {"node1": BY_PDB_VIOLATIONS})
    lower = Candidate("node3", (Victim("default/c", LOW, "~"),), 0)
    assert choose_candidate([keeping, lower]) == ("node3", BY_HIGHEST_PRIORITY, {"node2": BY_HIGHEST_PRIORITY})


def test_post_filter_respects_the_snapshots_budgets():
    existing = [pod("p1", MID, LARGE, node="node1", labels=FOO), pod("p2", MID, LARGE, node="node2")]
    incoming = pod("p", HIGH, LARGE)
    snapshot = snap([node("node1", VERY_LARGE), node("node2", VERY_LARGE)], existing)
    snapshot.add_workload(budget(0), "PodDisruptionBudget")
    runner = filter_runner(FIT, incoming)
    statuses = {n.name: runner(snapshot, n) for n in snapshot.list()}
    outcome = DefaultPreemption().post_filter(CycleState(snapshot), PodInfo.from_pod(incoming), statuses, runner)
    assert (outcome.nominated_node, outcome.victims) == ("node2", ("default/p2",))
    assert outcome.report is not None and outcome.report.decided_by == BY_PDB_VIOLATIONS


def test_malformed_budgets_count_as_allowing_nothing_or_covering_nothing():
    bad_status = {**budget(0), "status": {"disruptionsAllowed": "many", "disruptedPods": "p1"}}
    bad_selector = {**budget(5), "spec": {"selector": "app=foo"}}
    existing = [pod("p1", LOW, MEDIUM, node="node1", labels=FOO)]
    got = dry_run(pod("p", HIGH, VERY_LARGE), existing, ["node1"], [bad_status, bad_selector])
    assert got == {"node1": (["p1"], 1)}


def test_the_victims_marked_as_breaking_a_budget_are_as_many_as_its_violations():
    incoming = pod("p", HIGH, VERY_LARGE)
    snapshot = snap([node("node1", VERY_LARGE)], on_node1("p1.1", "p1.2", "p1.3"))
    found, _ = dry_run_preemption(
        PodInfo.from_pod(incoming), snapshot.list(), snapshot, filter_runner(FIT, incoming), [budget(1)]
    )
    [candidate] = found
    assert candidate.pdb_violations == 2 == sum(v.violates_budget for v in candidate.victims)
