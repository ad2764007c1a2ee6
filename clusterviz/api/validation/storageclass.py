"""StorageClasses and CSINodes (storage.k8s.io/v1), as pkg/apis/storage/validation checks them."""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.field import duplicate, forbidden, invalid, not_supported, required
from clusterviz.apimachinery.names import is_dns1123_subdomain, is_qualified_name
from clusterviz.apimachinery.unstructured import dict_or_empty

from .common import (
    Errors,
    as_dict,
    child,
    dict_items,
    get_dict,
    get_int,
    get_list,
    get_opt_str,
    get_str,
    get_str_list,
    get_str_map,
    nonnegative,
    semantic,
)
from .meta import immutable, name_is_dns_subdomain, validate_object_meta, validate_object_meta_update

RECLAIM_POLICIES: Final = ["Delete", "Retain"]
BINDING_MODES: Final = ["Immediate", "WaitForFirstConsumer"]
MAX_DRIVER_NAME: Final = 63


def _qualified(value: str, path: str) -> Errors:
    return [invalid(path, value, msg) for msg in is_qualified_name(value)]


def _class_update(obj: dict[str, Any], old: dict[str, Any]) -> Errors:
    """ValidateStorageClassUpdate: parameters, provisioner, reclaim policy and binding mode stay."""
    errs: Errors = validate_object_meta_update(obj, old)
    if semantic(obj.get("parameters")) != semantic(old.get("parameters")):
        errs.append(forbidden("parameters", "updates to parameters are forbidden."))
    if obj.get("provisioner") != old.get("provisioner"):
        errs.append(forbidden("provisioner", "updates to provisioner are forbidden."))
    if obj.get("reclaimPolicy") != old.get("reclaimPolicy"):
        errs.append(forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."))
    errs.extend(immutable(obj.get("volumeBindingMode"), old.get("volumeBindingMode"), "volumeBindingMode"))
    return errs


def validate_storage_class(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """ValidateStorageClass: a provisioner (a qualified name), a known reclaim policy and binding mode."""
    _, errs = validate_object_meta(obj, namespaced=False, name_fn=name_is_dns_subdomain)
    provisioner = get_str(obj, "provisioner", "", errs)
    if provisioner == "":
        errs.append(required("provisioner", ""))
    elif isinstance(provisioner, str):
        errs.extend(_qualified(provisioner.lower(), "provisioner"))
    get_str_map(obj, "parameters", "", errs)
    policy = get_opt_str(obj, "reclaimPolicy", "", errs)
    if policy and policy not in RECLAIM_POLICIES:
        errs.append(not_supported("reclaimPolicy", policy, RECLAIM_POLICIES))
    mode = get_opt_str(obj, "volumeBindingMode", "", errs)
    if mode is None:
        errs.append(required("volumeBindingMode", ""))
    elif isinstance(mode, str) and mode not in BINDING_MODES:
        errs.append(not_supported("volumeBindingMode", mode, BINDING_MODES))
    get_str_list(obj, "mountOptions", "", errs)
    get_list(obj, "allowedTopologies", "", errs)
    if old is not None:
        errs.extend(_class_update(obj, old))
    return errs


def _driver(driver: dict[str, Any], path: str, seen: set[str], errs: Errors) -> None:
    """validateCSINodeDriver: a driver name (a DNS subdomain), a node ID, a count, unique topology keys."""
    name = get_str(driver, "name", path, errs)
    name_path = child(path, "name")
    if name == "":
        errs.append(required(name_path, ""))
    elif isinstance(name, str):
        if len(name) > MAX_DRIVER_NAME:
            errs.append(invalid(name_path, name, f"must be no more than {MAX_DRIVER_NAME} characters"))
        errs.extend(invalid(name_path, name, msg) for msg in is_dns1123_subdomain(name.lower()))
        if name in seen:
            errs.append(duplicate(name_path, name))
        seen.add(name)
    if get_str(driver, "nodeID", path, errs) == "":
        errs.append(required(child(path, "nodeID"), ""))
    allocatable = get_dict(driver, "allocatable", path, errs)
    if allocatable is not None:
        count_path = child(path, "allocatable", "count")
        errs.extend(nonnegative(get_int(allocatable, "count", child(path, "allocatable"), errs), count_path))
    keys: set[str] = set()
    for topology_key in get_str_list(driver, "topologyKeys", path, errs) or []:
        if topology_key == "":
            errs.append(required(path, topology_key))
        if topology_key in keys:
            errs.append(duplicate(path, topology_key))
        keys.add(topology_key)
        errs.extend(_qualified(topology_key, path))


def _csi_node_update(spec: dict[str, Any], old: dict[str, Any], errs: Errors) -> None:
    """A driver registered before keeps its node ID, allocatable count and topology keys."""
    before = {d.get("name"): d for d in dict_or_empty(old.get("spec")).get("drivers") or [] if isinstance(d, dict)}
    drivers = spec.get("drivers") if isinstance(spec.get("drivers"), list) else []
    for _, path, driver in dict_items(drivers, "spec.drivers", []):
        previous = before.get(driver.get("name"))
        if previous is None:
            continue
        for field in ("nodeID", "allocatable", "topologyKeys"):
            errs.extend(immutable(driver.get(field), previous.get(field), child(path, field)))


def validate_csi_node(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """ValidateCSINode: the node's name, each driver; on update the registered drivers stay as they were."""
    _, errs = validate_object_meta(obj, namespaced=False, name_fn=name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"), "spec", errs) or {}
    seen: set[str] = set()
    for _, path, driver in dict_items(get_list(spec, "drivers", "spec", errs), "spec.drivers", errs):
        _driver(driver, path, seen, errs)
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
        _csi_node_update(spec, old, errs)
    return errs
