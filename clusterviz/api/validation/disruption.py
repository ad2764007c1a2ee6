"""PodDisruptionBudgets (policy/v1), as ValidatePodDisruptionBudget."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.field import invalid, not_supported

from .common import Errors, as_dict, child, int_or_string
from .meta import name_is_dns_subdomain, validate_label_selector, validate_object_meta, validate_object_meta_update
from .workloads import _percent_value, _positive_int_or_percent

EVICTION_POLICIES = ["AlwaysAllow", "IfHealthyBudget"]


def _int_or_percent(spec: dict[str, Any], name: str, errs: Errors) -> None:
    """Non-negative, and a percentage no greater than 100%."""
    path = child("spec", name)
    value = int_or_string(spec.get(name), path, errs)
    if not isinstance(value, (int, str)) or isinstance(value, bool):
        return
    problems = _positive_int_or_percent(value, path)
    errs.extend(problems)
    percent = _percent_value(value) if isinstance(value, str) else None
    if not problems and percent is not None and percent > 100:
        errs.append(invalid(path, value, "must not be greater than 100%"))


def validate_pod_disruption_budget(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """Metadata, minAvailable xor maxUnavailable (each an int or a percentage), the selector, the eviction policy."""
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"), "spec", errs)
    if spec is not None:
        if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
            errs.append(invalid("spec", spec, "minAvailable and maxUnavailable cannot be both set"))
        for name in ("minAvailable", "maxUnavailable"):
            if spec.get(name) is not None:
                _int_or_percent(spec, name, errs)
        if spec.get("selector") is not None:
            errs.extend(validate_label_selector(spec.get("selector"), "spec.selector"))
        policy = spec.get("unhealthyPodEvictionPolicy")
        if policy is not None and policy not in EVICTION_POLICIES:
            errs.append(not_supported("spec.unhealthyPodEvictionPolicy", policy, EVICTION_POLICIES))
    as_dict(obj.get("status"), "status", errs)
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
    return errs
