"""HorizontalPodAutoscaler: the v1 view of the stored v2 object and back, and the TARGETS cell."""

from __future__ import annotations

import json
from typing import Any

from clusterviz.api.conversion.autoscaling import v1_to_v2, v2_to_v1
from clusterviz.api.tables.autoscaling import format_metrics

CPU = {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}
MEMORY = {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "100Mi"}}}
PODS = {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "10"}}}


def stored(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default", "annotations": {"team": "a"}},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                 "minReplicas": 2, "maxReplicas": 6, **spec},
        "status": {"currentReplicas": 3, "desiredReplicas": 4, "currentMetrics": [
            {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 70, "averageValue": "70m"}}}],
            "conditions": [{"type": "AbleToScale", "status": "True", "reason": "SucceededRescale", "message": "m",
                            "lastTransitionTime": "2025-01-01T00:00:00Z"}]},
    }


def test_the_cpu_target_is_v1s_own_field_and_the_rest_travels_in_annotations():
    view = v2_to_v1(stored(metrics=[CPU, MEMORY], behavior={"scaleDown": {"stabilizationWindowSeconds": 60}}))
    assert view["apiVersion"] == "autoscaling/v1"
    assert view["spec"] == {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                            "minReplicas": 2, "maxReplicas": 6, "targetCPUUtilizationPercentage": 50}
    assert view["status"] == {"currentReplicas": 3, "desiredReplicas": 4, "currentCPUUtilizationPercentage": 70}
    annotations = view["metadata"]["annotations"]
    assert annotations["team"] == "a"
    # autoscaling/v2beta1's shapes, as upstream's annotations hold them.
    assert json.loads(annotations["autoscaling.alpha.kubernetes.io/metrics"]) == [
        {"type": "Resource", "resource": {"name": "memory", "targetAverageValue": "100Mi"}}]
    assert json.loads(annotations["autoscaling.alpha.kubernetes.io/current-metrics"]) == [
        {"type": "Resource", "resource": {"name": "cpu", "currentAverageUtilization": 70, "currentAverageValue": "70m"}}]
    assert json.loads(annotations["autoscaling.alpha.kubernetes.io/behavior"]) == {"ScaleDown": {"StabilizationWindowSeconds": 60}}
    assert json.loads(annotations["autoscaling.alpha.kubernetes.io/conditions"])[0]["reason"] == "SucceededRescale"


def test_a_v1_object_converts_back_to_the_same_v2_object():
    original = stored(metrics=[CPU, MEMORY, PODS], behavior={"scaleUp": {"selectPolicy": "Min"}})
    assert v1_to_v2(v2_to_v1(original)) == original


def test_a_v1_body_without_a_target_stores_no_metric_for_defaulting_to_fill():
    body = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
            "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 3}}
    assert v1_to_v2(body) == {**body, "apiVersion": "autoscaling/v2"}
    with_target = {**body, "spec": {**body["spec"], "targetCPUUtilizationPercentage": 50}}
    assert v1_to_v2(with_target)["spec"]["metrics"] == [CPU]


def test_targets_print_current_and_target_as_kubectl_get_shows_them():
    assert format_metrics([CPU], None) == "cpu: <unknown>/50%"
    assert format_metrics([CPU], [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 20}}}]) == (
        "cpu: 20%/50%")
    assert format_metrics([MEMORY], [{"type": "Resource", "resource": {"name": "memory", "current": {
        "averageValue": "52428800"}}}]) == "memory: 52428800/100Mi"
    assert format_metrics([PODS], [{"type": ""}]) == "<unknown>/10"
    assert format_metrics([CPU, MEMORY, PODS], None) == "cpu: <unknown>/50%, memory: <unknown>/100Mi + 1 more..."
    assert format_metrics([], None) == "<none>"
