"""Framework helpers: normalisation, the FitError message and cluster-event matching."""

from __future__ import annotations

from clusterviz.scheduler.framework import (
    ActionType,
    ClusterEvent,
    EventResource,
    Status,
    default_normalize_score,
    fit_error_message,
    go_div,
    go_round,
    node_update_events,
    pod_update_events,
)
from tests.scheduler.helpers import make_node, make_pod


def test_default_normalize_score_forward_and_reverse():
    assert default_normalize_score({"a": 2, "b": 11, "c": 4}) == {"a": 18, "b": 100, "c": 36}
    assert default_normalize_score({"a": 0, "b": 1, "c": 2}, reverse=True) == {"a": 100, "b": 50, "c": 0}
    assert default_normalize_score({"a": 0, "b": 0}) == {"a": 0, "b": 0}
    assert default_normalize_score({"a": 0, "b": 0}, reverse=True) == {"a": 100, "b": 100}


def test_go_integer_semantics():
    assert go_div(-7, 2) == -3 and go_div(7, -2) == -3 and go_div(7, 2) == 3
    assert go_round(2.5) == 3 and go_round(-2.5) == -3 and go_round(2.4999) == 2


def test_fit_error_message_counts_absent_nodes_and_appends_post_filter_text():
    statuses = {"a": Status.unschedulable("Insufficient cpu", "Insufficient memory")}
    message = fit_error_message(
        3, statuses, absent_reasons=("node(s) didn't satisfy plugin(s) [NodeAffinity]",), post_filter_message="x."
    )
    assert message == (
        "0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, "
        "2 node(s) didn't satisfy plugin(s) [NodeAffinity]. x."
    )


def test_pod_registration_covers_assigned_and_unscheduled_pods():
    registered = ClusterEvent(EventResource.POD, ActionType.DELETE)
    assert registered.matches(ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE))
    assert registered.matches(ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.DELETE))
    assert not registered.matches(ClusterEvent(EventResource.NODE, ActionType.DELETE))


def test_specific_registration_does_not_match_a_broader_event():
    label_only = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL)
    assert label_only.matches(ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL))
    assert not label_only.matches(ClusterEvent(EventResource.NODE, ActionType.UPDATE))
    any_update = ClusterEvent(EventResource.NODE, ActionType.UPDATE)
    assert any_update.matches(ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT))


def test_node_update_events():
    cordoned = make_node("n", unschedulable=True)
    relabelled = make_node("n", labels={"disk": "ssd"})
    actions = [e.action for e in node_update_events(cordoned, relabelled)]
    assert actions == [ActionType.UPDATE_NODE_TAINT, ActionType.UPDATE_NODE_LABEL]  # uncordon counts as a taint update
    bigger = make_node("n", cpu="8")
    assert [e.action for e in node_update_events(make_node("n"), bigger)] == [ActionType.UPDATE_NODE_ALLOCATABLE]


def test_pod_update_events():
    old = make_pod("p", labels={"a": "1"})
    new = make_pod("p", labels={"a": "2"}, tolerations=[{"operator": "Exists"}])
    events = pod_update_events(old, new)
    assert [e.action for e in events] == [ActionType.UPDATE_POD_LABEL, ActionType.UPDATE_POD_TOLERATION]
    assert {e.resource for e in events} == {EventResource.UNSCHEDULED_POD}
