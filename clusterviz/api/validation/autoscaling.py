"""HorizontalPodAutoscalers (autoscaling/v2, as stored), as ValidateHorizontalPodAutoscaler."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.field import forbidden, invalid, not_supported, required

from .common import BAD, Errors, as_dict, as_list, child, get_int, get_str, index, quantity_field
from .meta import name_is_dns_subdomain, validate_label_selector, validate_object_meta, validate_object_meta_update

METRIC_SOURCE_TYPES = ["ContainerResource", "External", "Object", "Pods", "Resource"]
# Each source type's field in a MetricSpec.
SOURCE_FIELDS = {"ContainerResource": "containerResource", "External": "external", "Object": "object",
                 "Pods": "pods", "Resource": "resource"}
TARGET_TYPES = ("Utilization", "Value", "AverageValue")
SELECT_POLICIES = ["Disabled", "Max", "Min"]
POLICY_TYPES = ["Percent", "Pods"]
MAX_STABILIZATION_WINDOW_SECONDS = 3600
MAX_PERIOD_SECONDS = 1800


def path_segment_errors(value: str) -> list[str]:
    """IsValidPathSegmentName: what a name used in a URL path may not be."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in value]


def validate_cross_version_reference(ref: Any, path: str, errs: Errors) -> None:
    """scaleTargetRef or an Object metric's describedObject: kind and name, each usable in a URL."""
    ref = as_dict(ref, path, errs) or {}
    for name in ("kind", "name"):
        value = get_str(ref, name, path, errs)
        if value is BAD:
            continue
        if not value:
            errs.append(required(child(path, name), ""))
        for message in path_segment_errors(str(value)):
            errs.append(invalid(child(path, name), value, message))


def _validate_target(target: Any, path: str, errs: Errors) -> dict[str, Any]:
    """validateMetricTarget: a type, and positive values."""
    target = as_dict(target, path, errs) or {}
    kind = get_str(target, "type", path, errs)
    if kind == "":
        errs.append(required(child(path, "type"), "must specify a metric target type"))
    elif kind is not BAD and kind not in TARGET_TYPES:
        errs.append(invalid(child(path, "type"), kind, "must be either Utilization, Value, or AverageValue"))
    for name in ("value", "averageValue"):
        quantity = quantity_field(target.get(name), child(path, name), errs)
        if quantity is not None and quantity.sign() != 1:
            errs.append(invalid(child(path, name), target[name], "must be positive"))
    utilization = get_int(target, "averageUtilization", path, errs)
    if isinstance(utilization, int) and utilization < 1:
        errs.append(invalid(child(path, "averageUtilization"), utilization, "must be greater than 0"))
    return target


def _validate_identifier(metric: Any, path: str, errs: Errors) -> None:
    metric = as_dict(metric, path, errs) or {}
    if get_str(metric, "name", path, errs) == "":
        errs.append(required(child(path, "name"), "must specify a metric name"))
    if metric.get("selector") is not None:
        errs.extend(validate_label_selector(metric["selector"], child(path, "selector")))


def _validate_source(kind: str, source: dict[str, Any], path: str, errs: Errors) -> None:
    target_path = child(path, "target")
    if kind in ("Resource", "ContainerResource"):
        if get_str(source, "name", path, errs) == "":
            errs.append(required(child(path, "name"), "must specify a resource name"))
        if kind == "ContainerResource" and get_str(source, "container", path, errs) == "":
            errs.append(required(child(path, "container"), "must specify a container"))
        target = _validate_target(source.get("target"), target_path, errs)
        if target.get("averageUtilization") is None and target.get("averageValue") is None:
            errs.append(required(child(target_path, "averageUtilization"),
                                 "must set either a target raw value or a target utilization"))
        elif target.get("averageUtilization") is not None and target.get("averageValue") is not None:
            errs.append(forbidden(child(target_path, "averageValue"),
                                  "may not set both a target raw value and a target utilization"))
        return
    _validate_identifier(source.get("metric"), child(path, "metric"), errs)
    target = _validate_target(source.get("target"), target_path, errs)
    if kind == "Object":
        validate_cross_version_reference(source.get("describedObject"), child(path, "describedObject"), errs)
    if kind == "Pods":
        if target.get("averageValue") is None:
            errs.append(required(child(target_path, "averageValue"), "must specify a positive target averageValue"))
    elif target.get("value") is None and target.get("averageValue") is None:
        errs.append(required(child(target_path, "value"), "must set either a target value or averageValue"))
    elif target.get("value") is not None and target.get("averageValue") is not None:
        errs.append(forbidden(child(target_path, "value"), "may not set both a target value for metric and a per-pod target"))


def _validate_metric(metric: dict[str, Any], path: str, errs: Errors) -> None:
    """validateMetricSpec: a known type and exactly its source."""
    kind = get_str(metric, "type", path, errs)
    if kind == "":
        errs.append(required(child(path, "type"), "must specify a metric source type"))
    if kind not in METRIC_SOURCE_TYPES:
        errs.append(not_supported(child(path, "type"), kind, METRIC_SOURCE_TYPES))
    present = [name for name in SOURCE_FIELDS.values() if metric.get(name) is not None]
    expected = SOURCE_FIELDS.get(str(kind), str(kind).lower())
    if present:
        source = as_dict(metric[present[0]], child(path, present[0]), errs)
        if source is not None and kind in SOURCE_FIELDS and present[0] == expected:
            _validate_source(str(kind), source, child(path, expected), errs)
    if expected not in present:
        errs.append(required(child(path, expected), "must populate information for the given metric source"))
    for name in present:
        if name != expected:
            errs.append(forbidden(child(path, name), "must populate the given metric source only"))


def _validate_rules(rules: Any, path: str, errs: Errors) -> None:
    """validateScalingRules: the window, the select policy and each policy."""
    rules = as_dict(rules, path, errs)
    if rules is None:
        return
    window = get_int(rules, "stabilizationWindowSeconds", path, errs)
    if isinstance(window, int) and window < 0:
        errs.append(invalid(child(path, "stabilizationWindowSeconds"), window, "must be greater than or equal to zero"))
    elif isinstance(window, int) and window > MAX_STABILIZATION_WINDOW_SECONDS:
        errs.append(invalid(child(path, "stabilizationWindowSeconds"), window,
                            f"must be less than or equal to {MAX_STABILIZATION_WINDOW_SECONDS}"))
    select = rules.get("selectPolicy")
    if select is not None and select not in SELECT_POLICIES:
        errs.append(not_supported(child(path, "selectPolicy"), select, SELECT_POLICIES))
    policies = as_list(rules.get("policies"), child(path, "policies"), errs)
    if not policies:
        errs.append(required(child(path, "policies"), "must specify at least one Policy"))
        return
    for i, policy in enumerate(policies):
        policy_path = index(child(path, "policies"), i)
        policy = as_dict(policy, policy_path, errs) or {}
        kind = policy.get("type")
        if kind not in POLICY_TYPES:
            errs.append(not_supported(child(policy_path, "type"), kind, POLICY_TYPES))
        value = get_int(policy, "value", policy_path, errs)
        if not isinstance(value, int) or value <= 0:
            errs.append(invalid(child(policy_path, "value"), policy.get("value", 0), "must be greater than zero"))
        period = get_int(policy, "periodSeconds", policy_path, errs)
        if not isinstance(period, int) or period <= 0:
            errs.append(invalid(child(policy_path, "periodSeconds"), policy.get("periodSeconds", 0),
                                "must be greater than zero"))
        elif period > MAX_PERIOD_SECONDS:
            errs.append(invalid(child(policy_path, "periodSeconds"), period,
                                f"must be less than or equal to {MAX_PERIOD_SECONDS}"))


def _validate_spec(spec: dict[str, Any], errs: Errors) -> None:
    low = get_int(spec, "minReplicas", "spec", errs)
    high = get_int(spec, "maxReplicas", "spec", errs)
    if isinstance(low, int) and low < 1:
        errs.append(invalid("spec.minReplicas", low, "must be greater than or equal to 1"))
    if not isinstance(high, int) or high < 1:
        if high is not BAD:
            errs.append(invalid("spec.maxReplicas", high or 0, "must be greater than 0"))
    if isinstance(low, int) and isinstance(high, int) and high < low:
        errs.append(invalid("spec.maxReplicas", high, "must be greater than or equal to `minReplicas`"))
    validate_cross_version_reference(spec.get("scaleTargetRef"), "spec.scaleTargetRef", errs)
    for i, metric in enumerate(as_list(spec.get("metrics"), "spec.metrics", errs) or []):
        metric_path = index("spec.metrics", i)
        metric = as_dict(metric, metric_path, errs)
        if metric is not None:
            _validate_metric(metric, metric_path, errs)
    behavior = as_dict(spec.get("behavior"), "spec.behavior", errs)
    if behavior is not None:
        _validate_rules(behavior.get("scaleUp"), "spec.behavior.scaleUp", errs)
        _validate_rules(behavior.get("scaleDown"), "spec.behavior.scaleDown", errs)


def validate_horizontal_pod_autoscaler(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """Metadata, the replica bounds, the scale target, the metrics and the behavior; counts in status not negative."""
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"), "spec", errs)
    if spec is not None:
        _validate_spec(spec, errs)
    status = as_dict(obj.get("status"), "status", errs) or {}
    for name in ("currentReplicas", "desiredReplicas"):
        count = get_int(status, name, "status", errs)
        if isinstance(count, int) and count < 0:
            errs.append(invalid(child("status", name), count, "must be greater than or equal to 0"))
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
    return errs
