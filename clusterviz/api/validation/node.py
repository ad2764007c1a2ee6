"""Nodes: taints, resource lists and the fields a node update may not change."""

from __future__ import annotations

import ipaddress
from typing import Any

from clusterviz.apimachinery.field import FieldError, forbidden, invalid
from clusterviz.apimachinery.names import is_valid_label_value
from clusterviz.apimachinery.unstructured import dict_or_empty, list_or_empty

from .common import (
    Errors,
    as_dict,
    child,
    dict_items,
    get_bool,
    get_dict,
    get_list,
    get_str,
    get_str_list,
    index,
    label_name,
    quantity_field,
)
from .meta import name_is_dns_subdomain, validate_object_meta, validate_object_meta_update
from .pod import resource_quantity_value, validate_taint_effect


def validate_taints(taints: list[Any] | None, path: str) -> Errors:
    """Each taint: a qualified-name key, a label-value value, a required effect; unique by (key, effect)."""
    errs: Errors = []
    seen: set[tuple[str, str]] = set()
    for _, taint_path, taint in dict_items(taints, path, errs):
        key = get_str(taint, "key", taint_path, errs)
        value = get_str(taint, "value", taint_path, errs)
        effect = get_str(taint, "effect", taint_path, errs)
        if isinstance(key, str):
            errs.extend(label_name(key, child(taint_path, "key")))
        if isinstance(value, str):
            problems = is_valid_label_value(value)
            if problems:
                errs.append(invalid(child(taint_path, "value"), value, ";".join(problems)))
        if isinstance(effect, str):
            errs.extend(validate_taint_effect(effect, child(taint_path, "effect"), allow_empty=False))
        if isinstance(key, str) and isinstance(effect, str):
            if (key, effect) in seen:
                errs.append(
                    FieldError("FieldValueDuplicate", taint_path, "taints must be unique by key and effect pair", taint)
                )
                continue
            seen.add((key, effect))
    return errs


def _validate_resource_list(status: dict[str, Any], name: str, errs: Errors) -> None:
    resources = get_dict(status, name, "status", errs)
    for resource, raw in (resources or {}).items():
        # Upstream names these paths with dots: status.capacity.cpu.
        path = child("status", name, resource)
        quantity = quantity_field(raw, path, errs)
        if quantity is not None:
            errs.extend(resource_quantity_value(resource, quantity, path))


def _cidr_valid(value: str) -> bool:
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        return False
    return "/" in value


def validate_node(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    _, errs = validate_object_meta(obj, namespaced=False, name_fn=name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"), "spec", errs) or {}
    # Upstream reports taint problems under metadata.taints, not spec.taints; kept as is.
    errs.extend(validate_taints(get_list(spec, "taints", "spec", errs), "metadata.taints"))
    get_bool(spec, "unschedulable", "spec", errs)
    get_str(spec, "providerID", "spec", errs)
    pod_cidrs = get_str_list(spec, "podCIDRs", "spec", errs) or []
    for i, cidr in enumerate(pod_cidrs):
        if not _cidr_valid(cidr):
            errs.append(invalid(index("spec.podCIDRs", i), pod_cidrs, "must be valid CIDR"))
    pod_cidr = get_str(spec, "podCIDR", "spec", errs)
    if isinstance(pod_cidr, str) and pod_cidr and not _cidr_valid(pod_cidr):
        errs.append(invalid("spec.podCIDR", pod_cidr, "must be valid CIDR"))
    status = as_dict(obj.get("status"), "status", errs)
    if status is not None:
        _validate_resource_list(status, "capacity", errs)
        _validate_resource_list(status, "allocatable", errs)
        for _, cond_path, cond in dict_items(get_list(status, "conditions", "status", errs), "status.conditions", errs):
            get_str(cond, "type", cond_path, errs)
            get_str(cond, "status", cond_path, errs)
        get_list(status, "addresses", "status", errs)
        get_dict(status, "nodeInfo", "status", errs)
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
        old_spec = dict_or_empty(old.get("spec"))
        old_cidrs = list_or_empty(old_spec.get("podCIDRs"))
        if old_cidrs and old_cidrs != pod_cidrs:
            errs.append(forbidden("spec.podCIDRs", 'node updates may not change podCIDR except from "" to valid'))
        old_provider = old_spec.get("providerID")
        if old_provider and old_provider != spec.get("providerID"):
            errs.append(forbidden("spec.providerID", 'node updates may not change providerID except from "" to valid'))
    return errs
