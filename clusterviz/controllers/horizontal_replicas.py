"""The replica calculation of the HorizontalPodAutoscaler, for resource metrics (cpu, memory), as upstream's.

Desired replicas are ``ceil(ready Pods * usage / target)``, unless the ratio is
within the tolerance (0.1) of 1. Pods being deleted or Failed are ignored;
Pending Pods, and for CPU Pods not yet Ready or whose readiness is too recent
for a whole metrics window, count as unready; Pods without metrics as missing.
When unready or missing Pods could change the answer, the ratio is worked out
again as if they used nothing (on a scale-up) or their request (on a
scale-down), and a result that turns the direction round keeps the current
count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from clusterviz.api import clock
from clusterviz.apimachinery.quantity import QuantityError, parse_quantity

from .util import Obj, deleting, meta, pod_condition, spec, status

TOLERANCE = 0.1
# --horizontal-pod-autoscaler-cpu-initialization-period and --horizontal-pod-autoscaler-initial-readiness-delay.
CPU_INITIALIZATION_PERIOD = timedelta(minutes=5)
INITIAL_READINESS_DELAY = timedelta(seconds=30)


class ReplicaCalcError(Exception):
    """Why no replica count could be worked out (its text is upstream's)."""


@dataclass
class PodMetric:
    """One Pod's use of a resource (milli-units), and when and over how long it was measured."""

    value: int
    timestamp: datetime
    window: timedelta


def _milli(value: Any) -> int | None:
    try:
        return parse_quantity(str(value)).milli_value()
    except QuantityError:
        return None


def pod_metrics(items: list[Obj], resource: str, container: str = "") -> dict[str, PodMetric]:
    """PodMetrics (metrics.k8s.io) to each Pod's use: its containers' summed (or the one named); a Pod with a
    container that does not report the resource is left out."""
    if not items:
        raise ReplicaCalcError("no metrics returned from resource metrics API")
    out: dict[str, PodMetric] = {}
    for item in items:
        total, complete, found = 0, True, False
        for c in item.get("containers") or []:
            if container and c.get("name") != container:
                continue
            used = _milli((c.get("usage") or {}).get(resource))
            if used is None:
                complete = False
                break
            total, found = total + used, True
        if complete and found:
            window = timedelta(seconds=_seconds(item.get("window")))
            stamp = clock.parse(str(item.get("timestamp", ""))) or clock.now()
            out[str(meta(item).get("name"))] = PodMetric(total, stamp, window)
    return out


def _seconds(text: Any) -> float:
    value = str(text or "")
    try:
        return float(value[:-1]) if value.endswith("s") else float(value or 0)
    except ValueError:
        return 0.0


def group_pods(
    pods: list[Obj], metrics: dict[str, PodMetric], resource: str, now: datetime
) -> tuple[int, set[str], set[str], set[str]]:
    """groupPods: (ready count, unready, missing, ignored) Pod names."""
    ready, unready, missing, ignored = 0, set(), set(), set()
    for pod in pods:
        name = str(meta(pod).get("name"))
        phase = status(pod).get("phase")
        if deleting(pod) or phase == "Failed":
            ignored.add(name)
            continue
        if phase == "Pending":
            unready.add(name)
            continue
        metric = metrics.get(name)
        if metric is None:
            missing.add(name)
            continue
        if resource == "cpu" and _cpu_unready(pod, metric, now):
            unready.add(name)
            continue
        ready += 1
    return ready, unready, missing, ignored


def _cpu_unready(pod: Obj, metric: PodMetric, now: datetime) -> bool:
    """A CPU sample is not used while the Pod starts: unready, or ready for less than one metrics window."""
    condition = pod_condition(pod, "Ready")
    started = clock.parse(str(status(pod).get("startTime") or ""))
    if condition is None or started is None:
        return True
    changed = clock.parse(str(condition.get("lastTransitionTime") or "")) or started
    if started + CPU_INITIALIZATION_PERIOD > now:
        return condition.get("status") == "False" or metric.timestamp < changed + metric.window
    # Unready and never ready since it started.
    return condition.get("status") == "False" and started + INITIAL_READINESS_DELAY > changed


def pod_requests(pods: list[Obj], resource: str, container: str = "") -> dict[str, int]:
    """Each Pod's request (milli-units) of the resource, over its containers (or the one named)."""
    out: dict[str, int] = {}
    for pod in pods:
        total = 0
        for c in spec(pod).get("containers") or []:
            if container and c.get("name") != container:
                continue
            request = _milli(((c.get("resources") or {}).get("requests") or {}).get(resource))
            if request is None:
                raise ReplicaCalcError(
                    f"missing request for {resource} in container {c.get('name')} of Pod {meta(pod).get('name')}"
                )
            total += request
        out[str(meta(pod).get("name"))] = total
    return out


def utilization_ratio(metrics: dict[str, PodMetric], requests: dict[str, int], target: int) -> tuple[float, int, int]:
    """GetResourceUtilizationRatio: (usage / target, utilization in percent, average use in milli-units)."""
    used = wanted = count = 0
    for name, metric in metrics.items():
        if name not in requests:
            continue
        used, wanted, count = used + metric.value, wanted + requests[name], count + 1
    if count == 0 or wanted == 0:
        raise ReplicaCalcError("no metrics returned matched known pods")
    utilization = used * 100 // wanted
    return utilization / target, utilization, used // count


def _direction_flips(before: float, after: float) -> bool:
    return (before < 1.0 < after) or (before > 1.0 > after)


def resource_replicas(
    current: int, target_utilization: int, resource: str, pods: list[Obj], items: list[Obj], now: datetime,
    container: str = "", tolerance: float = TOLERANCE,
) -> tuple[int, int, int, datetime]:
    """GetResourceReplicas: (replicas, utilization %, average use in milli-units, the metrics' time)."""
    try:
        metrics = pod_metrics(items, resource, container)
    except ReplicaCalcError as exc:
        raise ReplicaCalcError(f"unable to get metrics for resource {resource}: {exc}") from None
    stamp = next(iter(metrics.values())).timestamp if metrics else now
    if not pods:
        raise ReplicaCalcError("no pods returned by selector while calculating replica count")
    ready, unready, missing, ignored = group_pods(pods, metrics, resource, now)
    for name in ignored | unready:
        metrics.pop(name, None)
    requests = pod_requests(pods, resource, container)
    if not metrics:
        raise ReplicaCalcError("did not receive metrics for targeted pods (pods might be unready)")
    ratio, utilization, raw = utilization_ratio(metrics, requests, target_utilization)
    with_unready = bool(unready) and ratio > 1.0
    if not with_unready and not missing:
        if abs(1.0 - ratio) <= tolerance:
            return current, utilization, raw, stamp
        return math.ceil(ratio * ready), utilization, raw, stamp
    if missing and ratio != 1.0:
        # Scaling down, a Pod without metrics is taken to use its request (or the target, if higher); scaling
        # up, nothing.
        fallback = max(100, target_utilization) if ratio < 1.0 else 0
        for name in missing:
            metrics[name] = PodMetric(requests.get(name, 0) * fallback // 100, stamp, timedelta())
    if with_unready:
        for name in unready:
            metrics[name] = PodMetric(0, stamp, timedelta())
    new_ratio, _, _ = utilization_ratio(metrics, requests, target_utilization)
    if abs(1.0 - new_ratio) <= tolerance or _direction_flips(ratio, new_ratio):
        return current, utilization, raw, stamp
    replicas = math.ceil(new_ratio * len(metrics))
    if (new_ratio < 1.0 and replicas > current) or (new_ratio > 1.0 and replicas < current):
        return current, utilization, raw, stamp
    return replicas, utilization, raw, stamp


def raw_resource_replicas(
    current: int, target_milli: int, resource: str, pods: list[Obj], items: list[Obj], now: datetime,
    container: str = "", tolerance: float = TOLERANCE,
) -> tuple[int, int, datetime]:
    """GetRawResourceReplicas: (replicas, average use in milli-units, the metrics' time) for an AverageValue target."""
    try:
        metrics = pod_metrics(items, resource, container)
    except ReplicaCalcError as exc:
        raise ReplicaCalcError(f"unable to get metrics for resource {resource}: {exc}") from None
    stamp = next(iter(metrics.values())).timestamp if metrics else now
    if not pods:
        raise ReplicaCalcError("no pods returned by selector while calculating replica count")
    ready, unready, missing, ignored = group_pods(pods, metrics, resource, now)
    for name in ignored | unready:
        metrics.pop(name, None)
    if not metrics:
        raise ReplicaCalcError("did not receive metrics for targeted pods (pods might be unready)")
    usage = sum(m.value for m in metrics.values()) // len(metrics)
    ratio = usage / target_milli
    with_unready = bool(unready) and ratio > 1.0
    if not with_unready and not missing:
        if abs(1.0 - ratio) <= tolerance:
            return current, usage, stamp
        return math.ceil(ratio * ready), usage, stamp
    if missing:
        for name in missing:
            metrics[name] = PodMetric(target_milli if ratio < 1.0 else 0, stamp, timedelta())
    if with_unready:
        for name in unready:
            metrics[name] = PodMetric(0, stamp, timedelta())
    new_ratio = (sum(m.value for m in metrics.values()) // len(metrics)) / target_milli
    if abs(1.0 - new_ratio) <= tolerance or _direction_flips(ratio, new_ratio):
        return current, usage, stamp
    replicas = math.ceil(new_ratio * len(metrics))
    if (new_ratio < 1.0 and replicas > current) or (new_ratio > 1.0 and replicas < current):
        return current, usage, stamp
    return replicas, usage, stamp
