"""After a preemption the preemptor waits until its victim is gone: the victim's deletion, not its graceful
termination starting, brings it back (through NodeResourcesFit's hint, as upstream's DefaultPreemption leaves it)."""

from __future__ import annotations

import copy

from clusterviz.scheduler.framework import ASSIGNED_POD_DELETE, pod_update_events
from clusterviz.scheduler.profile import default_profile
from clusterviz.scheduler.queue import SchedulingQueue
from tests.scheduler.helpers import make_node, make_pod, run


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
