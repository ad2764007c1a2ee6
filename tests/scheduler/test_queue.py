"""The scheduling queue over simulated time: ordering, backoff, event-driven requeue, the 5-minute flush."""

from __future__ import annotations

import copy

import pytest

from clusterviz.scheduler.framework import ASSIGNED_POD_DELETE, FORCE_ACTIVATE, NODE_ADD, node_update_events
from clusterviz.scheduler.profile import default_profile
from clusterviz.scheduler.queue import ACTIVE, BACKOFF, UNSCHEDULABLE, QueuedPodInfo, SchedulingQueue
from tests.scheduler.helpers import make_node, make_pod


@pytest.fixture
def queue() -> SchedulingQueue:
    return SchedulingQueue.for_profile(default_profile())


def park(queue: SchedulingQueue, pod, plugins, now):
    """Add, pop and fail a Pod, as one unsuccessful attempt does."""
    queue.add(pod, now)
    info = queue.pop(now)
    assert info is not None
    return queue.add_unschedulable(info, plugins, now)


def test_backoff_doubles_from_one_second_to_a_ten_second_cap(queue):
    assert [queue.backoff_duration(n) for n in range(1, 7)] == [1, 2, 4, 8, 10, 10]
    assert queue.backoff_duration(0) == 0


def test_higher_priority_first_then_fifo(queue):
    queue.add(make_pod("first"), 0)
    queue.add(make_pod("second"), 1)
    queue.add(make_pod("urgent", priority=10), 2)
    assert [queue.pop(3).key for _ in range(3)] == ["default/urgent", "default/first", "default/second"]
    assert queue.pop(3) is None


def test_rejected_pod_waits_in_the_unschedulable_pool(queue):
    assert park(queue, make_pod("p", nodeSelector={"disk": "ssd"}), {"NodeAffinity"}, 0.5) == UNSCHEDULABLE
    assert queue.pop(1.0) is None
    assert queue.next_wakeup(1.0) == 330.0  # the first 30 s flush tick more than 5 minutes later


def test_labelling_a_node_requeues_a_pending_node_selector_pod(queue):
    pod = make_pod("p", nodeSelector={"disk": "ssd"})
    park(queue, pod, {"NodeAffinity"}, 0.5)
    plain = make_node("n1")
    assert queue.move_all_on_event(NODE_ADD, 0.6, None, plain) == []  # does not match: stays parked
    labelled = make_node("n1", labels={"disk": "ssd"})
    [event] = [e for e in node_update_events(plain, labelled)]
    assert queue.move_all_on_event(event, 0.7, plain, labelled) == ["default/p"]
    assert queue.where("default/p") == BACKOFF  # attempt 1 failed at 0.5: backoff window ends at 2.0
    popped = queue.pop(0.8)  # activeQ is empty, so the head of backoffQ is popped at once
    assert popped is not None and popped.attempts == 2


def test_events_a_rejecting_plugin_did_not_register_do_not_move_the_pod(queue):
    park(queue, make_pod("p", nodeSelector={"disk": "ssd"}), {"NodeAffinity"}, 0)
    bound = make_pod("gone", node="n1")
    assert queue.move_all_on_event(ASSIGNED_POD_DELETE, 1, bound, None) == []


def test_deleting_a_bound_pod_requeues_a_pod_rejected_for_resources(queue):
    park(queue, make_pod("p", cpu="2"), {"NodeResourcesFit"}, 0)
    assert queue.move_all_on_event(ASSIGNED_POD_DELETE, 5, make_pod("gone", cpu="2", node="n1"), None) == ["default/p"]
    assert queue.where("default/p") == ACTIVE  # the 1 s backoff is over at t=5


def test_backoff_windows_without_pop_from_backoff():
    queue = SchedulingQueue.for_profile(default_profile())
    queue.pop_from_backoff = False
    park(queue, make_pod("p", cpu="2"), {"NodeResourcesFit"}, 0.5)
    queue.move_all_on_event(ASSIGNED_POD_DELETE, 0.6, make_pod("gone", node="n1"), None)
    assert queue.where("default/p") == BACKOFF
    assert queue.next_wakeup(0.6) == 2.0  # expiry 0.5 + 1 s, rounded down to 1.0; the window ends at 2.0
    assert queue.pop(1.99) is None
    assert queue.pop(2.0).key == "default/p"


@pytest.mark.parametrize(("attempts", "free_at"), [(1, 2.0), (2, 3.0), (3, 5.0), (4, 9.0), (5, 11.0), (6, 11.0)])
def test_backoff_timings_by_attempt(attempts, free_at):
    queue = SchedulingQueue(pop_from_backoff=False)
    info = QueuedPodInfo(make_pod("p"), "default/p", timestamp=0.5, attempts=attempts)
    assert queue.is_backing_off(info, free_at - 0.01)
    assert not queue.is_backing_off(info, free_at)


def test_event_during_the_attempt_is_not_lost(queue):
    pod = make_pod("p", nodeSelector={"disk": "ssd"})
    queue.add(pod, 0)
    info = queue.pop(0)
    queue.move_all_on_event(NODE_ADD, 0.2, None, make_node("n9", labels={"disk": "ssd"}))
    assert queue.add_unschedulable(info, {"NodeAffinity"}, 0.3) == BACKOFF


def test_unschedulable_pods_are_flushed_after_five_minutes(queue):
    park(queue, make_pod("p", cpu="64"), {"NodeResourcesFit"}, 10)
    assert queue.pop(329) is None
    assert queue.where("default/p") == UNSCHEDULABLE
    assert queue.pop(330).key == "default/p"


def test_error_goes_to_error_backoff_which_is_never_popped_early(queue):
    assert park(queue, make_pod("p"), set(), 0) == BACKOFF
    assert queue.pop(0.5) is None
    assert queue.next_wakeup(0.5) == 2.0
    assert queue.pop(2.0).key == "default/p"


def test_scheduling_gates_hold_the_pod_until_removed(queue):
    gated = make_pod("p", schedulingGates=[{"name": "example.com/wait"}])
    assert queue.add(gated, 0) == UNSCHEDULABLE
    assert queue.get("default/p").gate_message == "waiting for scheduling gates: [example.com/wait]"
    assert queue.pop(1) is None and queue.next_wakeup(1) is None
    open_pod = copy.deepcopy(gated)
    del open_pod["spec"]["schedulingGates"]
    assert queue.update(gated, open_pod, 2) == ACTIVE
    assert queue.pop(2).key == "default/p"


def test_adding_a_toleration_requeues_a_pod_rejected_by_a_taint(queue):
    pod = make_pod("p")
    park(queue, pod, {"TaintToleration"}, 0)
    tolerant = copy.deepcopy(pod)
    tolerant["spec"]["tolerations"] = [{"operator": "Exists"}]
    assert queue.update(pod, tolerant, 5) == ACTIVE


def test_wildcard_event_moves_everyone(queue):
    park(queue, make_pod("p"), {"NodeAffinity"}, 0)
    assert queue.move_all_on_event(FORCE_ACTIVATE, 20) == ["default/p"]


def test_delete_forgets_the_pod(queue):
    queue.add(make_pod("p"), 0)
    queue.delete(make_pod("p"))
    assert queue.pop(0) is None and len(queue) == 0


def test_done_stops_tracking_a_bound_pod(queue):
    queue.add(make_pod("p"), 0)
    info = queue.pop(0)
    queue.done(info.key)
    assert queue.where(info.key) is None
