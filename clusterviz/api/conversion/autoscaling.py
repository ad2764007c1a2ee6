"""HorizontalPodAutoscaler: autoscaling/v1 as a view of the stored autoscaling/v2 object.

v1 says one thing, the target CPU utilisation; everything else v2 holds travels
in annotations, as upstream's conversion keeps it: the other metrics and the
current metrics in autoscaling/v2beta1's shape, the conditions, and the
behavior (with Go's field names, as upstream encodes its internal type).
"""

from __future__ import annotations

import json
from typing import Any

from clusterviz.apimachinery.unstructured import deep_copy, dict_or_empty

METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/metrics"
CURRENT_METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/current-metrics"
CONDITIONS_ANNOTATION = "autoscaling.alpha.kubernetes.io/conditions"
BEHAVIOR_ANNOTATION = "autoscaling.alpha.kubernetes.io/behavior"
ANNOTATIONS = (METRICS_ANNOTATION, CURRENT_METRICS_ANNOTATION, CONDITIONS_ANNOTATION, BEHAVIOR_ANNOTATION)

V1, V2 = "autoscaling/v1", "autoscaling/v2"
# What each v2 metric source keeps under its target (and current) in v2beta1, by target type.
_SOURCES = ("object", "pods", "resource", "containerResource", "external")


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _load(text: Any) -> Any:
    try:
        return json.loads(str(text))
    except ValueError:
        return None


def _is_cpu_utilization(metric: Any) -> bool:
    if not isinstance(metric, dict) or metric.get("type") != "Resource":
        return False
    resource = dict_or_empty(metric.get("resource"))
    target = dict_or_empty(resource.get("target"))
    return resource.get("name") == "cpu" and target.get("averageUtilization") is not None


def _beta_metric(metric: dict[str, Any]) -> dict[str, Any]:
    """One v2 MetricSpec in v2beta1's shape."""
    kind = str(metric.get("type", ""))
    out: dict[str, Any] = {"type": kind}
    for source in _SOURCES:
        body = dict_or_empty(metric.get(source))
        if not body:
            continue
        target = dict_or_empty(body.get("target"))
        ident = dict_or_empty(body.get("metric"))
        beta: dict[str, Any] = {}
        if source in ("resource", "containerResource"):
            beta["name"] = body.get("name")
            if source == "containerResource":
                beta["container"] = body.get("container")
            _put(beta, "targetAverageUtilization", target.get("averageUtilization"))
            _put(beta, "targetAverageValue", target.get("averageValue"))
        elif source == "pods":
            beta["metricName"] = ident.get("name")
            _put(beta, "selector", ident.get("selector"))
            _put(beta, "targetAverageValue", target.get("averageValue"))
        elif source == "object":
            beta["target"] = body.get("describedObject")
            beta["metricName"] = ident.get("name")
            _put(beta, "targetValue", target.get("value"))
            _put(beta, "selector", ident.get("selector"))
            _put(beta, "averageValue", target.get("averageValue"))
        else:
            beta["metricName"] = ident.get("name")
            _put(beta, "metricSelector", ident.get("selector"))
            _put(beta, "targetValue", target.get("value"))
            _put(beta, "targetAverageValue", target.get("averageValue"))
        out[source] = beta
    return out


def _v2_metric(beta: dict[str, Any]) -> dict[str, Any]:
    """One v2beta1 MetricSpec (from the annotation) back in v2's shape."""
    out: dict[str, Any] = {"type": beta.get("type")}
    for source in _SOURCES:
        body = dict_or_empty(beta.get(source))
        if not body:
            continue
        if source in ("resource", "containerResource"):
            target: dict[str, Any] = {}
            if body.get("targetAverageUtilization") is not None:
                target = {"type": "Utilization", "averageUtilization": body["targetAverageUtilization"]}
            elif body.get("targetAverageValue") is not None:
                target = {"type": "AverageValue", "averageValue": body["targetAverageValue"]}
            v2: dict[str, Any] = {"name": body.get("name"), "target": target}
            if source == "containerResource":
                v2["container"] = body.get("container")
        elif source == "pods":
            v2 = {"metric": _ident(body.get("metricName"), body.get("selector")),
                  "target": {"type": "AverageValue", "averageValue": body.get("targetAverageValue")}}
        elif source == "object":
            target = ({"type": "AverageValue", "averageValue": body["averageValue"]} if body.get("averageValue") is not None
                      else {"type": "Value", "value": body.get("targetValue")})
            v2 = {"describedObject": body.get("target"), "metric": _ident(body.get("metricName"), body.get("selector")),
                  "target": target}
        else:
            target = ({"type": "AverageValue", "averageValue": body["targetAverageValue"]}
                      if body.get("targetAverageValue") is not None else {"type": "Value", "value": body.get("targetValue")})
            v2 = {"metric": _ident(body.get("metricName"), body.get("metricSelector")), "target": target}
        out[source] = v2
    return out


def _beta_current(status: dict[str, Any]) -> dict[str, Any]:
    """One v2 MetricStatus in v2beta1's shape."""
    out: dict[str, Any] = {"type": status.get("type")}
    for source in _SOURCES:
        body = dict_or_empty(status.get(source))
        if not body:
            continue
        current = dict_or_empty(body.get("current"))
        ident = dict_or_empty(body.get("metric"))
        beta: dict[str, Any] = {}
        if source in ("resource", "containerResource"):
            beta["name"] = body.get("name")
            if source == "containerResource":
                beta["container"] = body.get("container")
            _put(beta, "currentAverageUtilization", current.get("averageUtilization"))
            beta["currentAverageValue"] = current.get("averageValue", "0")
        elif source == "external":
            beta["metricName"] = ident.get("name")
            _put(beta, "metricSelector", ident.get("selector"))
            beta["currentValue"] = current.get("value", "0")
            _put(beta, "currentAverageValue", current.get("averageValue"))
        else:
            if source == "object":
                beta["target"] = body.get("describedObject")
            beta["metricName"] = ident.get("name")
            _put(beta, "selector", ident.get("selector"))
            key = "currentValue" if source == "object" else "currentAverageValue"
            beta[key] = current.get("value" if source == "object" else "averageValue", "0")
            if source == "object":
                _put(beta, "averageValue", current.get("averageValue"))
        out[source] = beta
    return out


def _v2_current(beta: dict[str, Any]) -> dict[str, Any]:
    """One v2beta1 MetricStatus (from the annotation) back in v2's shape."""
    out: dict[str, Any] = {"type": beta.get("type")}
    for source in _SOURCES:
        body = dict_or_empty(beta.get(source))
        if not body:
            continue
        current: dict[str, Any] = {}
        if source in ("resource", "containerResource"):
            _put(current, "averageUtilization", body.get("currentAverageUtilization"))
            _put(current, "averageValue", body.get("currentAverageValue"))
            v2: dict[str, Any] = {"name": body.get("name"), "current": current}
            if source == "containerResource":
                v2["container"] = body.get("container")
        elif source == "external":
            _put(current, "value", body.get("currentValue"))
            _put(current, "averageValue", body.get("currentAverageValue"))
            v2 = {"metric": _ident(body.get("metricName"), body.get("metricSelector")), "current": current}
        else:
            if source == "object":
                _put(current, "value", body.get("currentValue"))
                _put(current, "averageValue", body.get("averageValue"))
            else:
                _put(current, "averageValue", body.get("currentAverageValue"))
            v2 = {"metric": _ident(body.get("metricName"), body.get("selector")), "current": current}
            if source == "object":
                v2["describedObject"] = body.get("target")
        out[source] = v2
    return out


def _ident(name: Any, selector: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name}
    _put(out, "selector", selector)
    return out


def _put(out: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        out[key] = value


_GO_NAMES = {"scaleUp": "ScaleUp", "scaleDown": "ScaleDown", "stabilizationWindowSeconds": "StabilizationWindowSeconds",
             "selectPolicy": "SelectPolicy", "policies": "Policies", "type": "Type", "value": "Value",
             "periodSeconds": "PeriodSeconds", "tolerance": "Tolerance"}
_JSON_NAMES = {go: name for name, go in _GO_NAMES.items()}


def _renamed(value: Any, names: dict[str, str]) -> Any:
    """The behavior with its keys renamed (Go's field names <-> JSON's), as upstream's annotation holds it."""
    if isinstance(value, dict):
        return {names.get(k, k): _renamed(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, names) for v in value]
    return value


def v2_to_v1(obj: dict[str, Any]) -> dict[str, Any]:
    """The v1 view of a stored v2 HorizontalPodAutoscaler."""
    out = deep_copy(obj)
    out["apiVersion"] = V1
    spec = dict_or_empty(obj.get("spec"))
    status = dict_or_empty(obj.get("status"))
    metrics = [m for m in spec.get("metrics") or [] if isinstance(m, dict)]
    annotations = {k: v for k, v in dict_or_empty(dict_or_empty(obj.get("metadata")).get("annotations")).items()
                   if k not in ANNOTATIONS}
    cpu = next((m for m in metrics if _is_cpu_utilization(m)), None)
    others = [_beta_metric(m) for m in metrics if m is not cpu]
    if others:
        annotations[METRICS_ANNOTATION] = _dump(others)
    current = [m for m in status.get("currentMetrics") or [] if isinstance(m, dict)]
    if current:
        annotations[CURRENT_METRICS_ANNOTATION] = _dump([_beta_current(m) for m in current])
    if status.get("conditions"):
        annotations[CONDITIONS_ANNOTATION] = _dump(status["conditions"])
    if spec.get("behavior") is not None:
        annotations[BEHAVIOR_ANNOTATION] = _dump(_renamed(spec["behavior"], _GO_NAMES))
    meta = out.setdefault("metadata", {})
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    v1_spec: dict[str, Any] = {"scaleTargetRef": spec.get("scaleTargetRef")}
    _put(v1_spec, "minReplicas", spec.get("minReplicas"))
    v1_spec["maxReplicas"] = spec.get("maxReplicas")
    if cpu is not None:
        v1_spec["targetCPUUtilizationPercentage"] = cpu["resource"]["target"]["averageUtilization"]
    out["spec"] = v1_spec
    if "status" in obj:
        v1_status: dict[str, Any] = {}
        for name in ("observedGeneration", "lastScaleTime"):
            _put(v1_status, name, status.get(name))
        v1_status["currentReplicas"] = status.get("currentReplicas", 0)
        v1_status["desiredReplicas"] = status.get("desiredReplicas", 0)
        for metric in current:
            resource = dict_or_empty(metric.get("resource"))
            utilization = dict_or_empty(resource.get("current")).get("averageUtilization")
            if metric.get("type") == "Resource" and resource.get("name") == "cpu" and utilization is not None:
                v1_status["currentCPUUtilizationPercentage"] = utilization
        out["status"] = v1_status
    return out


def v1_to_v2(obj: dict[str, Any]) -> dict[str, Any]:
    """A v1 HorizontalPodAutoscaler as v2 stores it (what v1 cannot say comes from the annotations)."""
    out = deep_copy(obj)
    out["apiVersion"] = V2
    meta = out.get("metadata")
    raw = dict_or_empty(dict_or_empty(meta).get("annotations"))
    spec_in = obj.get("spec")
    if not isinstance(spec_in, dict):
        return out  # validation reports the malformed spec
    spec: dict[str, Any] = {k: v for k, v in spec_in.items() if k != "targetCPUUtilizationPercentage"}
    metrics: list[Any] = []
    if spec_in.get("targetCPUUtilizationPercentage") is not None:
        metrics.append({"type": "Resource", "resource": {"name": "cpu", "target": {
            "type": "Utilization", "averageUtilization": spec_in["targetCPUUtilizationPercentage"]}}})
    others = _load(raw[METRICS_ANNOTATION]) if METRICS_ANNOTATION in raw else None
    if isinstance(others, list):
        metrics.extend(_v2_metric(m) for m in others if isinstance(m, dict))
    if metrics:
        spec["metrics"] = metrics
    behavior = _load(raw[BEHAVIOR_ANNOTATION]) if BEHAVIOR_ANNOTATION in raw else None
    if isinstance(behavior, dict):
        spec["behavior"] = _renamed(behavior, _JSON_NAMES)
    out["spec"] = spec
    status_in = obj.get("status")
    if isinstance(status_in, dict):
        status = {k: v for k, v in status_in.items() if k != "currentCPUUtilizationPercentage"}
        current = _load(raw[CURRENT_METRICS_ANNOTATION]) if CURRENT_METRICS_ANNOTATION in raw else None
        if isinstance(current, list):
            status["currentMetrics"] = [_v2_current(m) for m in current if isinstance(m, dict)]
        elif status_in.get("currentCPUUtilizationPercentage") is not None:
            status["currentMetrics"] = [{"type": "Resource", "resource": {"name": "cpu", "current": {
                "averageUtilization": status_in["currentCPUUtilizationPercentage"]}}}]
        conditions = _load(raw[CONDITIONS_ANNOTATION]) if CONDITIONS_ANNOTATION in raw else None
        if isinstance(conditions, list):
            status["conditions"] = conditions
        out["status"] = status
    if isinstance(meta, dict) and isinstance(meta.get("annotations"), dict):
        kept = {k: v for k, v in meta["annotations"].items() if k not in ANNOTATIONS}
        if kept:
            meta["annotations"] = kept
        else:
            meta.pop("annotations")
    return out
