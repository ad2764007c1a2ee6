"""DefaultPreemption: eligibility, victim selection and the choice between candidate nodes."""

from __future__ import annotations

from clusterviz.scheduler.nodeinfo import PodInfo
from clusterviz.scheduler.plugins.default_preemption import more_important_first, pick_one_node
from tests.scheduler.helpers import make_node, make_pod, run


def info(name, priority, start="2026-01-01T00:00:00Z"):
    pod = make_pod(name, priority=priority, node="n")
    pod["status"]["startTime"] = start
    return PodInfo.from_pod(pod)


def test_more_important_means_higher_priority_then_started_earlier():
    pods = [info("new", 1, "2026-01-02T00:00:00Z"), info("old", 1, "2026-01-01T00:00:00Z"), info("top", 5)]
    assert [p.name for p in more_important_first(pods)] == ["top", "old", "new"]


def test_node_with_the_lowest_priority_victims_is_preferred():
    candidates = {"a": [info("x", 10)], "b": [info("y", 1), info("z", 1)]}
    assert pick_one_node(candidates) == "b"


def test_fewer_victims_break_equal_priorities():
    candidates = {"a": [info("x", 1), info("y", 0)], "b": [info("z", 1)]}
    assert pick_one_node(candidates) == "b"


def test_terminating_victim_on_the_nominated_node_blocks_a_second_preemption():
    victim = make_pod("low", cpu="2", node="n1")
    victim["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    victim["status"]["conditions"] = [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}]
    pod = make_pod("high", cpu="1", priority=100)
    pod["status"]["nominatedNodeName"] = "n1"
    record = run(pod, [make_node("n1", "2")], [victim])
    assert record.message.endswith("preemption: not eligible due to a terminating pod on the nominated node.")


def test_equal_priority_pods_are_never_victims():
    record = run(make_pod("p", cpu="1"), [make_node("n1", "1")], [make_pod("peer", cpu="1", node="n1")])
    assert record.message.endswith(
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    )
