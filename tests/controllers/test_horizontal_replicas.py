"""The HorizontalPodAutoscaler's replica calculation, with upstream's replica_calculator_test.go cases ported."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from clusterviz.api import clock
from clusterviz.controllers.horizontal_replicas import ReplicaCalcError, raw_resource_replicas, resource_replicas

NOW = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
# Started and ready long enough ago that CPU samples count (past the 5 minute initialisation period).
LONG_AGO = NOW - timedelta(minutes=10)


def pod(name: str, request: str | None = "1", ready: str = "True", phase: str = "Running", started: datetime = LONG_AGO,
        ready_since: datetime = LONG_AGO, deleting: bool = False) -> dict[str, Any]:
    resources = {"requests": {"cpu": request}} if request is not None else {}
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if deleting:
        meta["deletionTimestamp"] = clock.rfc3339(NOW)
    return {
        "metadata": meta,
        "spec": {"containers": [{"name": "app", "resources": resources}]},
        "status": {"phase": phase, "startTime": clock.rfc3339(started), "conditions": [
            {"type": "Ready", "status": ready, "lastTransitionTime": clock.rfc3339(ready_since)}]},
    }


def usage(name: str, milli: int) -> dict[str, Any]:
    return {"metadata": {"name": name}, "timestamp": clock.rfc3339(NOW), "window": "30s",
            "containers": [{"name": "app", "usage": {"cpu": f"{milli}m", "memory": "1Mi"}}]}


def calc(current: int, target: int, levels: list[int], requests: list[str | None] | None = None,
         readiness: list[str] | None = None, phases: list[str] | None = None, metric_pods: int | None = None,
         **pod_args: Any) -> tuple[int, int, int]:
    names = [f"p{i}" for i in range(len(requests or levels))]
    pods = [pod(n, (requests or ["1"] * len(names))[i], (readiness or ["True"] * len(names))[i],
                (phases or ["Running"] * len(names))[i], **pod_args) for i, n in enumerate(names)]
    items = [usage(n, levels[i]) for i, n in enumerate(names[:metric_pods if metric_pods is not None else len(levels)])]
    replicas, utilization, raw, _ = resource_replicas(current, target, "cpu", pods, items, NOW)
    return replicas, utilization, raw


def test_scale_up():
    # TestReplicaCalcScaleUp: 50% against 30% on 3 Pods.
    assert calc(3, 30, [300, 500, 700]) == (5, 50, 500)


def test_scale_up_with_an_unready_pod_scales_less():
    # TestReplicaCalcScaleUpUnreadyLessScale: the unready Pod counts as using nothing.
    assert calc(3, 30, [300, 500, 700], readiness=["False", "True", "True"]) == (4, 60, 600)


def test_a_sample_younger_than_a_window_since_readiness_is_not_used():
    # Within the CPU initialisation period, a Pod ready for less than one metrics window counts as unready.
    with pytest.raises(ReplicaCalcError, match="did not receive metrics"):
        calc(3, 30, [300, 500, 700], started=NOW - timedelta(minutes=1), ready_since=NOW - timedelta(seconds=10))
    assert calc(3, 30, [300, 500, 700], started=NOW - timedelta(minutes=1),
                ready_since=NOW - timedelta(seconds=40)) == (5, 50, 500)


def test_scale_up_ignores_pending_failed_and_deleted_pods():
    # TestReplicaCalcScaleUpIgnoresFailedPods: Failed Pods are left out altogether.
    assert calc(2, 30, [500, 700, 100, 100], phases=["Running", "Running", "Failed", "Failed"]) == (4, 60, 600)


def test_scale_down():
    # TestReplicaCalcScaleDown: 28% against 50% on 5 Pods.
    assert calc(5, 50, [100, 300, 500, 250, 250]) == (3, 28, 280)


def test_scale_down_with_requests_that_differ():
    # Utilisation is the total use over the total requests: 1400m of 6 cores.
    assert calc(5, 50, [100, 300, 500, 250, 250], requests=["1", "2", "1", "1", "1"]) == (3, 23, 280)


def test_within_tolerance_keeps_the_count():
    # TestReplicaCalcTolerance: 102% against 100% is within 10%.
    assert calc(3, 100, [1010, 1030, 1020], requests=["900m", "1", "1100m"]) == (3, 102, 1020)


def test_missing_metrics_on_a_scale_down_count_as_their_request():
    # A Pod without metrics is taken to use its request when scaling down: here that turns the direction,
    # so the count stays.
    assert calc(4, 50, [100, 100, 100, 100], metric_pods=2)[0] == 4


def test_missing_metrics_on_a_scale_up_count_as_nothing():
    # TestReplicaCalcMissingMetricsScaleUp-like: 2 Pods at 200% and 2 without metrics.
    assert calc(4, 50, [2000, 2000, 0, 0], metric_pods=2)[0] == 8


def test_errors_use_upstreams_messages():
    with pytest.raises(ReplicaCalcError, match="^unable to get metrics for resource cpu: no metrics returned from "
                                               "resource metrics API$"):
        resource_replicas(1, 50, "cpu", [pod("p0")], [], NOW)
    with pytest.raises(ReplicaCalcError, match="^missing request for cpu in container app of Pod p0$"):
        calc(1, 50, [100], requests=[None])
    with pytest.raises(ReplicaCalcError, match=r"^did not receive metrics for targeted pods \(pods might be unready\)$"):
        calc(2, 50, [100, 100], readiness=["False", "False"])
    with pytest.raises(ReplicaCalcError, match="^no pods returned by selector while calculating replica count$"):
        resource_replicas(1, 50, "cpu", [], [usage("gone", 100)], NOW)


def test_an_average_value_target():
    # TestReplicaCalcScaleUpRaw-like: 500m average against 300m on 3 Pods.
    pods = [pod(f"p{i}") for i in range(3)]
    items = [usage(f"p{i}", m) for i, m in enumerate([300, 500, 700])]
    assert raw_resource_replicas(3, 300, "cpu", pods, items, NOW)[:2] == (5, 500)
    assert raw_resource_replicas(3, 490, "cpu", pods, items, NOW)[:2] == (3, 500)
