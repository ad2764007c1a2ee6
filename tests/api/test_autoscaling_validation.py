"""HorizontalPodAutoscaler validation and defaulting (autoscaling/v2, as stored), with the API server's messages."""

from __future__ import annotations

from typing import Any

from clusterviz.api.defaulting import apply_defaults
from clusterviz.api.validation import validate

TARGET = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}


def hpa(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "default"}, "spec": {"scaleTargetRef": TARGET, **spec}}


def messages(obj: dict[str, Any]) -> list[str]:
    return [str(e) for e in validate("HorizontalPodAutoscaler", obj)]


def test_defaults_are_upstreams():
    spec = apply_defaults("HorizontalPodAutoscaler", hpa(maxReplicas=3))["spec"]
    assert spec["minReplicas"] == 1
    assert spec["metrics"] == [{"type": "Resource", "resource": {"name": "cpu", "target": {
        "type": "Utilization", "averageUtilization": 80}}}]
    assert "behavior" not in spec  # filled in only when given
    given = apply_defaults("HorizontalPodAutoscaler", hpa(maxReplicas=3, behavior={"scaleDown": {"selectPolicy": "Min"}}))
    assert given["spec"]["behavior"] == {
        "scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
            {"type": "Pods", "value": 4, "periodSeconds": 15}, {"type": "Percent", "value": 100, "periodSeconds": 15}]},
        "scaleDown": {"selectPolicy": "Min", "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]},
    }


def test_replica_bounds_and_the_target():
    assert messages(hpa(maxReplicas=3)) == []
    assert messages(hpa(minReplicas=0, maxReplicas=3)) == [
        "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1"]
    assert messages(hpa(maxReplicas=0, minReplicas=1)) == [
        "spec.maxReplicas: Invalid value: 0: must be greater than 0",
        "spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`"]
    bad_target = hpa(maxReplicas=3)
    bad_target["spec"]["scaleTargetRef"] = {"kind": "", "name": "a/b"}
    assert messages(bad_target) == ["spec.scaleTargetRef.kind: Required value",
                                    "spec.scaleTargetRef.name: Invalid value: \"a/b\": may not contain '/'"]


def test_metrics_name_their_source_and_a_target():
    unknown = messages(hpa(maxReplicas=3, metrics=[{"type": "Custom"}]))
    assert unknown[0] == ('spec.metrics[0].type: Unsupported value: "Custom": supported values: "ContainerResource", '
                          '"External", "Object", "Pods", "Resource"')
    assert messages(hpa(maxReplicas=3, metrics=[{"type": "Resource"}])) == [
        "spec.metrics[0].resource: Required value: must populate information for the given metric source"]
    both = {"type": "Resource", "resource": {"name": "cpu", "target": {
        "type": "Utilization", "averageUtilization": 0, "averageValue": "100m"}}}
    assert messages(hpa(maxReplicas=3, metrics=[both])) == [
        "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
        "spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target raw value and a target "
        "utilization"]


def test_behavior_rules_are_bounded():
    rules = {"stabilizationWindowSeconds": 3601, "selectPolicy": "Most",
             "policies": [{"type": "Nodes", "value": 0, "periodSeconds": 1801}]}
    assert messages(hpa(maxReplicas=3, behavior={"scaleUp": rules})) == [
        "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600",
        'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Most": supported values: "Disabled", "Max", "Min"',
        'spec.behavior.scaleUp.policies[0].type: Unsupported value: "Nodes": supported values: "Percent", "Pods"',
        "spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero",
        "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800",
    ]
