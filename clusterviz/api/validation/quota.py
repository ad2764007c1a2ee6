"""ResourceQuotas and LimitRanges (core/v1), as upstream's ValidateResourceQuota and ValidateLimitRange."""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.field import duplicate, forbidden, invalid
from clusterviz.apimachinery.quantity import Quantity

from .common import Errors, as_dict, child, dict_items, get_list, get_str, get_str_list, key, label_name
from .meta import name_is_dns_subdomain, validate_object_meta, validate_object_meta_update
from .resources import _resource_list, is_hugepages, resource_quantity_value

QUOTA_RESOURCES: Final = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas",
    "services", "replicationcontrollers", "secrets", "persistentvolumeclaims", "configmaps", "services.nodeports",
    "services.loadbalancers",
})
QUOTA_SCOPES: Final = frozenset({
    "Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity",
    "VolumeAttributesClass",
})
_POD_FORBIDDEN: Final = "may not be specified when `type` is 'Pod'"


def _quota_resource_name(name: str, path: str) -> Errors:
    """A qualified name; one without a prefix must be a standard quota resource (or a hugepages size)."""
    if "/" in name:
        return label_name(name, path)
    if name in QUOTA_RESOURCES or is_hugepages(name) or name.startswith(("requests.hugepages-", "limits.hugepages-")):
        return []
    return [invalid(path, name, "must be a standard resource type or fully qualified"),
            invalid(path, name, "must be a standard resource for quota")]


def _quota_list(value: Any, path: str, errs: Errors) -> None:
    for name, quantity in _resource_list(value, path, errs).items():
        errs.extend(_quota_resource_name(name, key(path, name)))
        errs.extend(resource_quantity_value(name, quantity, key(path, name)))


def validate_resource_quota(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """Metadata, hard's resource names and quantities, the scopes; status lists are checked the same way."""
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"), "spec", errs) or {}
    _quota_list(spec.get("hard"), "spec.hard", errs)
    scopes = get_str_list(spec, "scopes", "spec", errs) or []
    if any(scope not in QUOTA_SCOPES for scope in scopes):
        errs.append(invalid("spec.scopes", scopes, "unsupported scope"))
    status = as_dict(obj.get("status"), "status", errs) or {}
    _quota_list(status.get("hard"), "status.hard", errs)
    _quota_list(status.get("used"), "status.used", errs)
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
    return errs


def _compare(name: str, found: dict[str, dict[str, Quantity]], path: str) -> Errors:
    """Upstream's checks between an item's min, max, default, defaultRequest and ratio for one resource."""
    low, high = found["min"].get(name), found["max"].get(name)
    default, request = found["default"].get(name), found["defaultRequest"].get(name)
    ratio = found["maxLimitRequestRatio"].get(name)
    errs: Errors = []
    if low is not None and high is not None and high < low:
        errs.append(invalid(key(child(path, "min"), name), str(low),
                            f"min value {low} is greater than max value {high}"))
    at_request = key(child(path, "defaultRequest"), name)
    if request is not None and low is not None and request < low:
        errs.append(invalid(at_request, str(request),
                            f"min value {low} is greater than default request value {request}"))
    if request is not None and high is not None and high < request:
        errs.append(invalid(at_request, str(request),
                            f"default request value {request} is greater than max value {high}"))
    if request is not None and default is not None and default < request:
        errs.append(invalid(at_request, str(request),
                            f"default request value {request} is greater than default limit value {default}"))
    at_default = key(child(path, "default"), name)
    if default is not None and low is not None and default < low:
        errs.append(invalid(at_default, str(low), f"min value {low} is greater than default value {default}"))
    if default is not None and high is not None and high < default:
        errs.append(invalid(at_default, str(high), f"default value {default} is greater than max value {high}"))
    if ratio is not None and ratio < Quantity(1):
        errs.append(invalid(key(child(path, "maxLimitRequestRatio"), name), str(ratio),
                            f"ratio {ratio} is less than 1"))
    return errs


def validate_limit_range(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """Metadata; each item's type once, no defaults for Pods, and its bounds in order (min <= default <= max)."""
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"), "spec", errs) or {}
    seen: set[str] = set()
    for _i, where, item in dict_items(get_list(spec, "limits", "spec", errs), "spec.limits", errs):
        limit_type = get_str(item, "type", where, errs)
        if isinstance(limit_type, str):
            if limit_type in seen:
                errs.append(duplicate(child(where, "type"), limit_type))
            seen.add(limit_type)
        found = {name: _resource_list(item.get(name), child(where, name), errs)
                 for name in ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")}
        if limit_type == "Pod":
            errs.extend(forbidden(child(where, name), _POD_FORBIDDEN) for name in ("default", "defaultRequest")
                        if found[name])
        for name in sorted({n for quantities in found.values() for n in quantities}):
            errs.extend(_compare(name, found, where))
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
    return errs
