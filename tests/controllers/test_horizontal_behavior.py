"""The HorizontalPodAutoscaler's stabilisation and scaling policies, with cases from upstream's horizontal_test.go."""

from __future__ import annotations

from typing import Any

import pytest

from clusterviz.controllers.horizontal_behavior import (
    History,
    normalize,
    normalize_with_behavior,
    rules,
    scale_down_limit,
    scale_up_limit,
)


def policies(*items: tuple[str, int, int], select: str = "Max", window: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"selectPolicy": select,
                           "policies": [{"type": t, "value": v, "periodSeconds": p} for t, v, p in items]}
    if window is not None:
        out["stabilizationWindowSeconds"] = window
    return out


# TestScaleUpRCImmediately-like cases of calculateScaleUpLimitWithScalingRules: (current, scale-ups in the
# period, rules, limit).
@pytest.mark.parametrize(("current", "ups", "scaling", "limit"), [
    (10, [], policies(("Pods", 4, 15), ("Percent", 100, 15)), 20),       # the default: the higher of +4 and x2
    (1, [], policies(("Pods", 4, 15), ("Percent", 100, 15)), 5),
    (10, [], policies(("Pods", 4, 15), ("Percent", 100, 15), select="Min"), 14),
    (3, [], policies(("Percent", 10, 60)), 4),                            # rounded up, so a scale-up always moves
    (10, [(95.0, 4)], policies(("Pods", 4, 60)), 10),                    # 4 added within the period already
    (10, [(30.0, 4)], policies(("Pods", 4, 60)), 14),                    # that scale-up is out of the period
    (10, [], policies(("Pods", 4, 15), select="Disabled"), 10),
])
def test_scale_up_limit(current: int, ups: list[tuple[float, int]], scaling: dict[str, Any], limit: int):
    assert scale_up_limit(current, History(scale_ups=ups), scaling, now=100.0) == limit


@pytest.mark.parametrize(("current", "downs", "scaling", "limit"), [
    (10, [], policies(("Percent", 100, 15)), 0),                          # the default: anything at once
    (10, [], policies(("Pods", 2, 60), ("Percent", 10, 60)), 8),          # Max: the bigger change
    (10, [], policies(("Pods", 2, 60), ("Percent", 10, 60), select="Min"), 9),
    (8, [(90.0, 2)], policies(("Pods", 2, 60)), 8),                      # 2 removed within the period already
    (10, [], policies(("Percent", 15, 60)), 8),                           # 8.5 rounded down
])
def test_scale_down_limit(current: int, downs: list[tuple[float, int]], scaling: dict[str, Any], limit: int):
    assert scale_down_limit(current, History(scale_downs=downs), scaling, now=100.0) == limit


def test_without_a_behavior_a_scale_up_is_capped_at_twice_the_current_count_or_4():
    history = History()
    history.record_initial(2, 0.0)
    result = normalize(history, current=2, desired=10, low=1, high=10, now=15.0)
    assert (result.replicas, result.limited[0], result.is_limited) == (4, "ScaleUpLimit", True)
    assert result.able[0] == "ReadyForNewScale" and result.held


def test_without_a_behavior_a_scale_down_waits_for_the_300_second_window():
    history = History()
    history.record_initial(5, 0.0)
    held = normalize(history, current=5, desired=2, low=1, high=10, now=15.0)
    assert (held.replicas, held.able[0], held.limited[0]) == (5, "ScaleDownStabilized", "DesiredWithinRange")
    assert held.held
    assert normalize(history, current=5, desired=2, low=1, high=10, now=285.0).replicas == 5
    done = normalize(history, current=5, desired=2, low=1, high=10, now=316.0)
    assert (done.replicas, done.able[0], done.held) == (2, "ReadyForNewScale", False)


def test_the_minimum_limits_a_scale_down():
    history = History()
    history.record_initial(2, 0.0)
    result = normalize(history, current=2, desired=1, low=2, high=6, now=400.0)
    assert (result.replicas, result.limited, result.is_limited) == (
        2, ("TooFewReplicas", "the desired replica count is less than the minimum replica count"), True)
    assert not result.held


def test_a_behavior_stabilises_each_direction_with_its_own_window():
    behavior = {"scaleUp": policies(("Pods", 1, 15), window=60), "scaleDown": policies(("Pods", 1, 15), window=0)}
    history = History()
    history.record_initial(3, 0.0)
    # The scale-up window holds the lowest recommendation of the last minute (3, the initial one).
    up = normalize_with_behavior(history, behavior, current=3, desired=6, low=1, high=10, now=10.0)
    assert (up.replicas, up.able[0]) == (3, "ScaleUpStabilized")
    later = normalize_with_behavior(history, behavior, current=3, desired=6, low=1, high=10, now=75.0)
    # Past the window, one Pod per 15 s.
    assert (later.replicas, later.limited[0], later.able[0]) == (4, "ScaleUpLimit", "ReadyForNewScale")


def test_a_behavior_without_a_scale_down_window_uses_the_controllers_300_seconds():
    up, down = rules({"scaleDown": {"policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]}})
    assert down["stabilizationWindowSeconds"] == 300 and down["selectPolicy"] == "Max"
    assert up == {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15}, {"type": "Percent", "value": 100, "periodSeconds": 15}]}


def test_scale_events_are_counted_within_their_policy_period():
    behavior = {"scaleDown": policies(("Pods", 1, 60), window=0)}
    history = History()
    history.record_initial(5, 0.0)
    first = normalize_with_behavior(history, behavior, current=5, desired=2, low=1, high=10, now=10.0)
    assert (first.replicas, first.limited[0]) == (4, "ScaleDownLimit")
    history.record_scale(behavior, 5, 4, 10.0)
    # Within the minute, the Pod removed already uses the policy up.
    assert normalize_with_behavior(history, behavior, current=4, desired=2, low=1, high=10, now=25.0).replicas == 4
    assert normalize_with_behavior(history, behavior, current=4, desired=2, low=1, high=10, now=75.0).replicas == 3


def test_a_disabled_direction_holds_nothing_back():
    behavior = {"scaleDown": policies(("Pods", 1, 15), select="Disabled", window=0)}
    history = History()
    history.record_initial(5, 0.0)
    result = normalize_with_behavior(history, behavior, current=5, desired=2, low=1, high=10, now=10.0)
    assert (result.replicas, result.limited[0]) == (5, "ScaleDownLimit") and not result.held
