"""Deployments, ReplicaSets and ReplicationControllers (apps and core workload validation)."""

from __future__ import annotations

import re
from typing import Any, Final

from clusterviz.apimachinery.field import forbidden, invalid, not_supported, required
from clusterviz.apimachinery.labels import Selector, SelectorError, selector_from_label_selector, selector_from_set
from clusterviz.apimachinery.unstructured import dict_or_empty

from .common import (
    BAD,
    Errors,
    as_dict,
    child,
    get_bool,
    get_dict,
    get_int,
    get_str_map,
    int_or_string,
    nonnegative,
)
from .meta import (
    immutable,
    name_is_dns_subdomain,
    validate_label_selector,
    validate_object_meta,
    validate_object_meta_update,
)
from .pod import validate_pod_template

STRATEGY_TYPES: Final = ["Recreate", "RollingUpdate"]
SELECTOR_MISMATCH_MSG: Final = "`selector` does not match template `labels`"
PERCENT_MSG: Final = (
    "a valid percent string must be a numeric string followed by an ending '%' "
    "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
)
_PERCENT = re.compile(r"[0-9]+%")


def _template_labels(template: dict[str, Any] | None) -> dict[str, Any] | None:
    meta = template.get("metadata") if template else None
    labels = meta.get("labels") if isinstance(meta, dict) else None
    return labels if isinstance(labels, dict) else None


def _validate_template_for_controller(
    template: dict[str, Any] | None,
    selector: Selector,
    path: str,
    owner: str,
) -> Errors:
    """The pod template of a ReplicaSet-like controller: selected by its selector, restartPolicy Always."""
    errs: Errors = []
    labels = _template_labels(template)
    if not selector.empty and not selector.matches({k: v for k, v in (labels or {}).items() if isinstance(v, str)}):
        errs.append(invalid(child(path, "metadata", "labels"), labels, SELECTOR_MISMATCH_MSG))
    errs.extend(validate_pod_template(template or {}, path))
    spec = (template or {}).get("spec")
    if isinstance(spec, dict):
        restart = spec.get("restartPolicy")
        if isinstance(restart, str) and restart != "Always":
            errs.append(not_supported(child(path, "spec", "restartPolicy"), restart, ["Always"]))
        if spec.get("activeDeadlineSeconds") is not None:
            errs.append(
                forbidden(
                    child(path, "spec", "activeDeadlineSeconds"),
                    f"activeDeadlineSeconds in {owner} is not Supported",
                )
            )
    return errs


def _validate_selector_and_template(spec: dict[str, Any], path: str, owner: str) -> Errors:
    """spec.selector (required, not empty) and a template that it selects (apps/v1 rules)."""
    errs: Errors = []
    selector_path = child(path, "selector")
    raw_selector = spec.get("selector")
    selector_obj = as_dict(raw_selector, selector_path, errs)
    if raw_selector is None:
        errs.append(required(selector_path, ""))
    elif selector_obj is None:
        # A selector that could not be read cannot be matched against the template.
        return errs + _template_errors_only(spec, path, owner)
    else:
        errs.extend(validate_label_selector(selector_obj, selector_path))
        if not selector_obj.get("matchLabels") and not selector_obj.get("matchExpressions"):
            errs.append(invalid(selector_path, selector_obj, "empty selector is invalid for deployment"))
    try:
        selector = selector_from_label_selector(selector_obj)
    except (SelectorError, TypeError, AttributeError):
        errs.append(invalid(selector_path, selector_obj, "invalid label selector"))
        return errs + _template_errors_only(spec, path, owner)
    template = as_dict(spec.get("template"), child(path, "template"), errs)
    if template is not None or spec.get("template") is None:
        errs.extend(_validate_template_for_controller(template, selector, child(path, "template"), owner))
    return errs


def _template_errors_only(spec: dict[str, Any], path: str, owner: str) -> Errors:
    errs: Errors = []
    template = as_dict(spec.get("template"), child(path, "template"), errs)
    if template is not None or spec.get("template") is None:
        errs.extend(_validate_template_for_controller(template, Selector(), child(path, "template"), owner))
    return errs


def _percent_value(value: str) -> int | None:
    return int(value[:-1]) if _PERCENT.fullmatch(value) else None


def _int_value(value: int | str | None) -> int:
    """IntOrString's value: the percentage for valid percents, else the integer (0 when unreadable)."""
    if isinstance(value, str):
        percent = _percent_value(value)
        if percent is not None:
            return percent
        try:
            return int(value)
        except ValueError:
            return 0
    return value or 0


def _positive_int_or_percent(value: int | str | None, path: str) -> Errors:
    if isinstance(value, str):
        if _percent_value(value) is None:
            return [invalid(path, value, PERCENT_MSG)]
        return []
    return nonnegative(value, path)


def _validate_strategy(strategy: dict[str, Any], path: str) -> Errors:
    errs: Errors = []
    strategy_type = strategy.get("type")
    rolling = strategy.get("rollingUpdate")
    rolling_path = child(path, "rollingUpdate")
    if strategy_type == "Recreate":
        if rolling is not None:
            errs.append(forbidden(rolling_path, "may not be specified when strategy `type` is 'Recreate'"))
    elif strategy_type == "RollingUpdate":
        rolling_update = as_dict(rolling, rolling_path, errs)
        if rolling is None:
            errs.append(required(rolling_path, "this should be defaulted and never be nil"))
        elif rolling_update is not None:
            unavailable_path = child(rolling_path, "maxUnavailable")
            surge_path = child(rolling_path, "maxSurge")
            unavailable = int_or_string(rolling_update.get("maxUnavailable"), unavailable_path, errs)
            surge = int_or_string(rolling_update.get("maxSurge"), surge_path, errs)
            if unavailable is not BAD and surge is not BAD:
                errs.extend(_positive_int_or_percent(unavailable, unavailable_path))
                errs.extend(_positive_int_or_percent(surge, surge_path))
                if _int_value(unavailable) == 0 and _int_value(surge) == 0:
                    errs.append(invalid(unavailable_path, unavailable or 0, "may not be 0 when `maxSurge` is 0"))
                if isinstance(unavailable, str) and (_percent_value(unavailable) or 0) > 100:
                    errs.append(invalid(unavailable_path, unavailable, "must not be greater than 100%"))
    elif strategy_type is None or isinstance(strategy_type, str):
        errs.append(not_supported(child(path, "type"), strategy_type or "", STRATEGY_TYPES))
    else:
        errs.append(invalid(child(path, "type"), strategy_type, "must be of type string"))
    return errs


def _spec(obj: dict[str, Any], errs: Errors) -> dict[str, Any] | None:
    spec = as_dict(obj.get("spec"), "spec", errs)
    if spec is None and obj.get("spec") is None:
        return {}
    return spec


def validate_deployment(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    spec = _spec(obj, errs)
    if spec is not None:
        errs.extend(nonnegative(get_int(spec, "replicas", "spec", errs), "spec.replicas"))
        errs.extend(_validate_selector_and_template(spec, "spec", "ReplicaSet"))
        strategy = get_dict(spec, "strategy", "spec", errs)
        if strategy is not None:
            errs.extend(_validate_strategy(strategy, "spec.strategy"))
        min_ready = get_int(spec, "minReadySeconds", "spec", errs)
        errs.extend(nonnegative(min_ready, "spec.minReadySeconds"))
        errs.extend(nonnegative(get_int(spec, "revisionHistoryLimit", "spec", errs), "spec.revisionHistoryLimit"))
        deadline = get_int(spec, "progressDeadlineSeconds", "spec", errs)
        if isinstance(deadline, int):
            errs.extend(nonnegative(deadline, "spec.progressDeadlineSeconds"))
            if deadline <= (min_ready if isinstance(min_ready, int) else 0):
                errs.append(invalid("spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds"))
        get_bool(spec, "paused", "spec", errs)
    as_dict(obj.get("status"), "status", errs)
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
        errs.extend(_selector_immutable(obj, old))
    return errs


def validate_replica_set(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    spec = _spec(obj, errs)
    if spec is not None:
        errs.extend(nonnegative(get_int(spec, "replicas", "spec", errs), "spec.replicas"))
        errs.extend(nonnegative(get_int(spec, "minReadySeconds", "spec", errs), "spec.minReadySeconds"))
        errs.extend(_validate_selector_and_template(spec, "spec", "ReplicaSet"))
    as_dict(obj.get("status"), "status", errs)
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
        errs.extend(_selector_immutable(obj, old))
    return errs


def _selector_immutable(obj: dict[str, Any], old: dict[str, Any]) -> Errors:
    new_spec = dict_or_empty(obj.get("spec"))
    old_spec = dict_or_empty(old.get("spec"))
    return immutable(new_spec.get("selector"), old_spec.get("selector"), "spec.selector")


def validate_replication_controller(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """core/v1 ReplicationController: a plain map selector (defaulted from the template labels)."""
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    spec = _spec(obj, errs)
    if spec is not None:
        errs.extend(nonnegative(get_int(spec, "minReadySeconds", "spec", errs), "spec.minReadySeconds"))
        selector_map = get_str_map(spec, "selector", "spec", errs)
        if not selector_map and (selector_map is not None or spec.get("selector") is None):
            errs.append(required("spec.selector", ""))
        errs.extend(nonnegative(get_int(spec, "replicas", "spec", errs), "spec.replicas"))
        template = as_dict(spec.get("template"), "spec.template", errs)
        if spec.get("template") is None:
            errs.append(required("spec.template", ""))
        elif template is not None:
            selector = selector_from_set(selector_map)
            errs.extend(_validate_template_for_controller(template, selector, "spec.template", "ReplicationController"))
    as_dict(obj.get("status"), "status", errs)
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
    return errs
