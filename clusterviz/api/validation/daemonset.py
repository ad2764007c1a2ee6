"""DaemonSets and ControllerRevisions (apps/v1), as pkg/apis/apps/validation checks them."""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.field import invalid, not_supported, required
from clusterviz.apimachinery.labels import Selector, SelectorError, selector_from_label_selector
from clusterviz.apimachinery.unstructured import dict_or_empty

from .common import BAD, Errors, as_dict, child, get_dict, get_int, int_or_string, nonnegative
from .meta import (
    immutable,
    name_is_dns_subdomain,
    validate_label_selector,
    validate_object_meta,
    validate_object_meta_update,
)
from .workloads import _int_value, _percent_value, _positive_int_or_percent, _validate_template_for_controller

UPDATE_STRATEGY_TYPES: Final = ["RollingUpdate", "OnDelete"]
STATUS_COUNTS: Final = (
    "currentNumberScheduled",
    "numberMisscheduled",
    "desiredNumberScheduled",
    "numberReady",
    "observedGeneration",
    "updatedNumberScheduled",
    "numberAvailable",
    "numberUnavailable",
    "collisionCount",
)


def _selector(spec: dict[str, Any], errs: Errors) -> Selector | None:
    """spec.selector; a missing one selects nothing (so the template's labels never match it)."""
    raw = spec.get("selector")
    selector = as_dict(raw, "spec.selector", errs)
    if raw is not None and selector is None:
        return None
    if selector is not None:
        errs.extend(validate_label_selector(selector, "spec.selector"))
    try:
        parsed = selector_from_label_selector(selector)
    except (SelectorError, TypeError, AttributeError):
        return None
    if selector is None:
        # LabelSelectorAsSelector(nil) is labels.Nothing(): it matches no template.
        errs.append(
            invalid(
                "spec.template.metadata.labels", _template_labels(spec), "`selector` does not match template `labels`"
            )
        )
        return Selector()
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        errs.append(invalid("spec.selector", selector, "empty selector is invalid for daemonset"))
    return parsed


def _template_labels(spec: dict[str, Any]) -> Any:
    return dict_or_empty(dict_or_empty(spec.get("template")).get("metadata")).get("labels")


def _validate_rolling_update(rolling: dict[str, Any], path: str) -> Errors:
    """ValidateRollingUpdateDaemonSet: both int-or-percent, at most 100%, exactly one of them non-zero."""
    errs: Errors = []
    unavailable_path, surge_path = child(path, "maxUnavailable"), child(path, "maxSurge")
    unavailable = int_or_string(rolling.get("maxUnavailable"), unavailable_path, errs)
    surge = int_or_string(rolling.get("maxSurge"), surge_path, errs)
    if unavailable is BAD or surge is BAD:
        return errs
    errs.extend(_positive_int_or_percent(unavailable, unavailable_path))
    errs.extend(_positive_int_or_percent(surge, surge_path))
    for value, value_path in ((unavailable, unavailable_path), (surge, surge_path)):
        if isinstance(value, str) and (_percent_value(value) or 0) > 100:
            errs.append(invalid(value_path, value, "must not be greater than 100%"))
    has_unavailable, has_surge = _int_value(unavailable) != 0, _int_value(surge) != 0
    if has_unavailable and has_surge:
        errs.append(invalid(surge_path, surge, "may not be set when maxUnavailable is non-zero"))
    elif not has_unavailable and not has_surge:
        errs.append(required(unavailable_path, "cannot be 0 when maxSurge is 0"))
    return errs


def _validate_update_strategy(strategy: dict[str, Any], path: str) -> Errors:
    strategy_type = strategy.get("type")
    if strategy_type == "OnDelete":
        return []
    if strategy_type == "RollingUpdate":
        errs: Errors = []
        rolling_path = child(path, "rollingUpdate")
        rolling = as_dict(strategy.get("rollingUpdate"), rolling_path, errs)
        if strategy.get("rollingUpdate") is None:
            return [required(rolling_path, "")]
        return errs if rolling is None else _validate_rolling_update(rolling, rolling_path)
    return [not_supported(path, strategy, UPDATE_STRATEGY_TYPES)]


def validate_daemon_set(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """ValidateDaemonSet (and, with ``old``, ValidateDaemonSetUpdate plus the immutable apps/v1 selector)."""
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"), "spec", errs)
    if spec is None and obj.get("spec") is None:
        spec = {}
    if spec is not None:
        selector = _selector(spec, errs)
        template = as_dict(spec.get("template"), "spec.template", errs)
        if template is not None or spec.get("template") is None:
            errs.extend(
                _validate_template_for_controller(template, selector or Selector(), "spec.template", "DaemonSet")
            )
        errs.extend(nonnegative(get_int(spec, "minReadySeconds", "spec", errs), "spec.minReadySeconds"))
        strategy = get_dict(spec, "updateStrategy", "spec", errs)
        if strategy is not None:
            errs.extend(_validate_update_strategy(strategy, "spec.updateStrategy"))
        limit = get_int(spec, "revisionHistoryLimit", "spec", errs)
        errs.extend(nonnegative(limit, "spec.revisionHistoryLimit"))
    status = as_dict(obj.get("status"), "status", errs)
    for name in STATUS_COUNTS:
        errs.extend(nonnegative(get_int(status or {}, name, "status", errs, bits=64), f"status.{name}"))
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
        new_spec, old_spec = dict_or_empty(obj.get("spec")), dict_or_empty(old.get("spec"))
        errs.extend(immutable(new_spec.get("selector"), old_spec.get("selector"), "spec.selector"))
        old_count = dict_or_empty(old.get("status")).get("collisionCount")
        new_count = dict_or_empty(obj.get("status")).get("collisionCount")
        if isinstance(old_count, int) and (not isinstance(new_count, int) or new_count < old_count):
            errs.append(invalid("status.collisionCount", new_count or 0, "cannot be decremented"))
    return errs


def validate_controller_revision(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """ValidateControllerRevision: data is mandatory, revision not negative; data never changes."""
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    if obj.get("data") is None:
        errs.append(required("data", "data is mandatory"))
    errs.extend(nonnegative(get_int(obj, "revision", "", errs, bits=64), "revision"))
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
        errs.extend(immutable(obj.get("data"), old.get("data"), "data"))
    return errs
