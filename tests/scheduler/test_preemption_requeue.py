"""After a preemption the preemptor waits until its victim is gone: the victim's deletion, not its graceful
termination starting, brings it back (through NodeResourcesFit's hint, as upstream's DefaultPreemption leaves it)."""

from __future__ import annotations

import copy
import random

from clusterviz.scheduler.cycle import schedule
from clusterviz.scheduler.framework import ASSIGNED_POD_DELETE, pod_update_events
from clusterviz.scheduler.profile import default_profile
from clusterviz.scheduler.queue import SchedulingQueue
from tests.scheduler.helpers import make_node, make_pod, run, snap


def test_the_preemptor_is_requeued_when_its_victim_is_deleted():
    queue = SchedulingQueue.for_profile(default_profile())
    preemptor = make_pod("urgent", cpu="2", priority=1000)
    preemptor["status"]["nominatedNodeName"] = "n1"
    queue.add(preemptor, 0)
    info = queue.pop(0)
    assert info is not None
    queue.add_unschedulable(info, {"NodeResourcesFit"}, 0)

    victim = make_pod("cache", cpu="2", node="n1")
    terminating = copy.deepcopy(victim)
    terminating["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    terminating["status"]["conditions"] = [{"type": "DisruptionTarget", "status": "True",
                                            "reason": "PreemptionByScheduler"}]
    for event in pod_update_events(victim, terminating):
        assert queue.move_all_on_event(event, 0.5, victim, terminating) == []
    assert queue.move_all_on_event(ASSIGNED_POD_DELETE, 1, terminating, None) == ["default/urgent"]


def test_a_nominated_pod_tries_its_nominated_node_first_and_alone():
    # Both nodes fit once the victim is gone; upstream takes the nominated one without scoring the other.
    pod = make_pod("urgent", cpu="1", priority=1000)
    pod["status"]["nominatedNodeName"] = "n2"
    record = run(pod, [make_node("n1", "4"), make_node("n2", "2")], [])
    assert (record.selected, record.tie_break.method, [n.name for n in record.nodes]) == ("n2", "nominated-node", ["n2"])
    # A nominated node that does not fit leaves the usual walk over every node.
    pod["status"]["nominatedNodeName"] = "n2"
    record = run(pod, [make_node("n1", "4"), make_node("n2", "2")], [make_pod("big", cpu="2", node="n2")])
    assert record.selected == "n1" and record.tie_break.method != "nominated-node"


def _schedule_beside(waiting: dict, pod: dict):
    nodes = [make_node("n1", "3"), make_node("n2", "2")]
    snapshot = snap(nodes, [make_pod("load", cpu="2", node="n1")])
    return schedule(pod, snapshot, default_profile(), random.Random(0), nominated_pods=[waiting])


def test_room_made_for_a_nominated_pod_is_kept_for_it():
    # n2 has room for one of them; the nominated Pod of higher priority counts there, so the other fits nowhere.
    waiting = make_pod("urgent", cpu="2", priority=1000)
    waiting["status"]["nominatedNodeName"] = "n2"
    record = _schedule_beside(waiting, make_pod("other", cpu="2", priority=10))
    assert record.selected is None
    failed = {f.plugin: f.reason for f in record.node("n2").filters if f.status != "Success" and f.status != "Skip"}
    assert failed == {"NodeResourcesFit": "Insufficient cpu"}
    assert record.message.startswith("0/2 nodes are available: 2 Insufficient cpu.")
    # A nominated Pod of lower priority does not hold the room.
    waiting["spec"]["priority"] = 1
    assert _schedule_beside(waiting, make_pod("other", cpu="2", priority=10)).selected == "n2"
