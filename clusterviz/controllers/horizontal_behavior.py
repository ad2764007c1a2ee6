"""How the HorizontalPodAutoscaler turns a recommendation into the replicas it sets, as upstream's controller.

Recommendations are remembered with their time. Without ``spec.behavior``
the highest recommendation of the last 300 s wins (the downscale
stabilisation window) and a scale-up is capped at max(2 x current, 4). With a
behavior, each direction's stabilisation window bounds the recommendation
and its policies cap the change over their periods, counting the scale
events the controller made within them. Each step names the condition
reason and message upstream sets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from clusterviz.api.autoscaling_defaults import SCALE_DOWN_RULES, SCALE_UP_RULES, scaling_rules

# --horizontal-pod-autoscaler-downscale-stabilization.
DOWNSCALE_STABILIZATION_SECONDS = 300.0
SCALE_UP_LIMIT_FACTOR, SCALE_UP_LIMIT_MINIMUM = 2.0, 4.0
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1

Condition = tuple[str, str]  # (reason, message)
WITHIN_RANGE: Condition = ("DesiredWithinRange", "the desired count is within the acceptable range")
READY: Condition = ("ReadyForNewScale", "recommended size matches current size")
UP_STABILIZED: Condition = (
    "ScaleUpStabilized", "recent recommendations were lower than current one, applying the lowest recent recommendation")
DOWN_STABILIZED: Condition = (
    "ScaleDownStabilized",
    "recent recommendations were higher than current one, applying the highest recent recommendation")
UP_LIMIT: Condition = ("ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate")
DOWN_LIMIT: Condition = ("ScaleDownLimit", "the desired replica count is decreasing faster than the maximum scale rate")
TOO_MANY: Condition = ("TooManyReplicas", "the desired replica count is more than the maximum replica count")
TOO_FEW: Condition = ("TooFewReplicas", "the desired replica count is less than the minimum replica count")


@dataclass
class History:
    """One autoscaler's remembered recommendations and scale events: (simulated second, value)."""

    recommendations: list[tuple[float, int]] = field(default_factory=list)
    scale_ups: list[tuple[float, int]] = field(default_factory=list)
    scale_downs: list[tuple[float, int]] = field(default_factory=list)

    def record_initial(self, current: int, now: float) -> None:
        """recordInitialRecommendation: the current size is the first recommendation."""
        if not self.recommendations:
            self.recommendations.append((now, current))

    def record_scale(self, behavior: Any, current: int, desired: int, now: float) -> None:
        """storeScaleEvent: remember a change (only a behavior's policies look at them), forgetting those older
        than the longest policy period."""
        if not isinstance(behavior, dict):
            return
        up, down = rules(behavior)
        if desired > current:
            keep = max((p.get("periodSeconds", 0) for p in up["policies"]), default=0)
            self.scale_ups = [e for e in self.scale_ups if e[0] > now - keep] + [(now, desired - current)]
        elif desired < current:
            keep = max((p.get("periodSeconds", 0) for p in down["policies"]), default=0)
            self.scale_downs = [e for e in self.scale_downs if e[0] > now - keep] + [(now, current - desired)]

    def remember(self, recommendation: int, now: float, stale: int | None) -> None:
        """Replace the stale sample (one past every window) or add one."""
        if stale is None:
            self.recommendations.append((now, recommendation))
        else:
            self.recommendations[stale] = (now, recommendation)


def rules(behavior: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The behavior's scale-up and scale-down rules with upstream's defaults, the controller's scale-down window
    standing in for an unset one."""
    up = scaling_rules(behavior.get("scaleUp"), SCALE_UP_RULES)
    down = scaling_rules(behavior.get("scaleDown"), SCALE_DOWN_RULES)
    down.setdefault("stabilizationWindowSeconds", DOWNSCALE_STABILIZATION_SECONDS)
    return up, down


def _stabilize(history: History, desired: int, now: float) -> int:
    """stabilizeRecommendation: the highest recommendation within the downscale window."""
    best, stale = desired, None
    for i, (when, value) in enumerate(history.recommendations):
        if when < now - DOWNSCALE_STABILIZATION_SECONDS:
            stale = i
        elif value > best:
            best = value
    history.remember(desired, now, stale)
    return best


def _scale_up_limit(current: int) -> int:
    return int(max(SCALE_UP_LIMIT_FACTOR * current, SCALE_UP_LIMIT_MINIMUM))


def _within_rules(current: int, desired: int, low: int, high: int) -> tuple[int, Condition]:
    """convertDesiredReplicasWithRules: bounds, and the fixed scale-up rate."""
    limit = _scale_up_limit(current)
    maximum, limiting = (limit, UP_LIMIT) if high > limit else (high, TOO_MANY)
    if desired < low:
        return low, TOO_FEW
    if desired > maximum:
        return maximum, limiting
    return desired, WITHIN_RANGE


@dataclass
class Normalized:
    """The replicas to set, and the AbleToScale and ScalingLimited conditions that say why."""

    replicas: int
    able: Condition
    limited: Condition
    # Whether the rules moved the stabilised recommendation (ScalingLimited is True).
    is_limited: bool
    # Whether the recommendation is held back (by a window or a rate) and a later sync will move on.
    held: bool


def normalize(history: History, current: int, desired: int, low: int, high: int, now: float) -> Normalized:
    """normalizeDesiredReplicas (no behavior)."""
    stabilized = _stabilize(history, desired, now)
    able = DOWN_STABILIZED if stabilized != desired else READY
    replicas, limited = _within_rules(current, stabilized, low, high)
    return Normalized(replicas, able, limited, replicas != stabilized, replicas != _bounded(desired, low, high))


def _stabilize_with_behavior(
    history: History, current: int, desired: int, up: dict[str, Any], down: dict[str, Any], now: float
) -> tuple[int, Condition]:
    """stabilizeRecommendationWithBehaviors: the current size kept between the lowest recommendation of the
    scale-up window and the highest of the scale-down window."""
    up_cutoff = now - float(up.get("stabilizationWindowSeconds") or 0)
    down_cutoff = now - float(down.get("stabilizationWindowSeconds") or 0)
    up_value = down_value = desired
    stale = None
    for i, (when, value) in enumerate(history.recommendations):
        if when > up_cutoff:
            up_value = min(value, up_value)
        if when > down_cutoff:
            down_value = max(value, down_value)
        if when < up_cutoff and when < down_cutoff:
            stale = i
    recommendation = min(max(current, up_value), down_value)
    history.remember(desired, now, stale)
    return recommendation, (UP_STABILIZED if desired >= current else DOWN_STABILIZED)


def _changed_within(period: float, events: list[tuple[float, int]], now: float) -> int:
    return sum(change for when, change in events if when > now - period)


def scale_up_limit(current: int, history: History, scaling: dict[str, Any], now: float) -> int:
    """calculateScaleUpLimitWithScalingRules: the most replicas the policies allow now."""
    select = scaling.get("selectPolicy", "Max")
    if select == "Disabled":
        return current
    result, pick = (INT32_MAX, min) if select == "Min" else (INT32_MIN, max)
    for policy in scaling.get("policies") or []:
        period = float(policy.get("periodSeconds", 0))
        start = current - _changed_within(period, history.scale_ups, now) + _changed_within(period, history.scale_downs, now)
        if policy.get("type") == "Pods":
            proposed = start + int(policy.get("value", 0))
        else:
            proposed = math.ceil(start * (1 + int(policy.get("value", 0)) / 100))
        result = pick(result, proposed)
    return result


def scale_down_limit(current: int, history: History, scaling: dict[str, Any], now: float) -> int:
    """calculateScaleDownLimitWithBehaviors: the fewest replicas the policies allow now."""
    select = scaling.get("selectPolicy", "Max")
    if select == "Disabled":
        return current
    result, pick = (INT32_MIN, max) if select == "Min" else (INT32_MAX, min)
    for policy in scaling.get("policies") or []:
        period = float(policy.get("periodSeconds", 0))
        start = current - _changed_within(period, history.scale_ups, now) + _changed_within(period, history.scale_downs, now)
        if policy.get("type") == "Pods":
            proposed = start - int(policy.get("value", 0))
        else:
            proposed = int(start * (1 - int(policy.get("value", 0)) / 100))
        result = pick(result, proposed)
    return result


def _within_behavior_rate(
    history: History, current: int, desired: int, low: int, high: int, up: dict[str, Any], down: dict[str, Any],
    now: float,
) -> tuple[int, Condition]:
    """convertDesiredReplicasWithBehaviorRate: bounds, and the policies' rates."""
    if desired > current:
        limit = max(scale_up_limit(current, history, up, now), current)
        maximum, limiting = (limit, UP_LIMIT) if high > limit else (high, TOO_MANY)
        if desired > maximum:
            return maximum, limiting
    elif desired < current:
        limit = min(scale_down_limit(current, history, down, now), current)
        minimum, limiting = (limit, DOWN_LIMIT) if low < limit else (low, TOO_FEW)
        if desired < minimum:
            return minimum, limiting
    return desired, WITHIN_RANGE


def normalize_with_behavior(
    history: History, behavior: dict[str, Any], current: int, desired: int, low: int, high: int, now: float
) -> Normalized:
    """normalizeDesiredReplicasWithBehaviors."""
    up, down = rules(behavior)
    stabilized, stabilizing = _stabilize_with_behavior(history, current, desired, up, down, now)
    able = stabilizing if stabilized != desired else READY
    replicas, limited = _within_behavior_rate(history, current, stabilized, low, high, up, down, now)
    wanted = _bounded(desired, low, high)
    # A direction whose policy is Disabled never moves: nothing is held back for a later sync.
    disabled = (up if wanted > replicas else down).get("selectPolicy") == "Disabled"
    return Normalized(replicas, able, limited, replicas != stabilized, replicas != wanted and not disabled)


def _bounded(desired: int, low: int, high: int) -> int:
    return min(max(desired, low), high)
