"""PersistentVolumes and PersistentVolumeClaims (core/v1), as pkg/apis/core/validation checks them."""

from __future__ import annotations

import posixpath
from typing import Any, Final

from clusterviz.apimachinery.field import forbidden, invalid, not_supported, required
from clusterviz.apimachinery.names import is_dns1123_subdomain
from clusterviz.apimachinery.quantity import Quantity
from clusterviz.apimachinery.unstructured import deep_copy, dict_or_empty

from .affinity import validate_node_selector_term
from .common import (
    IS_NOT_POSITIVE_MSG,
    Errors,
    as_dict,
    as_str_list,
    child,
    dict_items,
    get_dict,
    get_list,
    get_opt_str,
    get_str,
    key,
    quantity_field,
    semantic,
)
from .meta import (
    immutable,
    name_is_dns_subdomain,
    validate_label_selector,
    validate_object_meta,
    validate_object_meta_update,
)
from .resources import resource_quantity_value
from .volumes import HOST_PATH_TYPES

ACCESS_MODES: Final = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"]
VOLUME_MODES: Final = ["Block", "Filesystem"]
RECLAIM_POLICIES: Final = ["Delete", "Recycle", "Retain"]
# The sources a PersistentVolume may have, in the order upstream looks for them.
PV_SOURCES: Final = (
    "hostPath", "gcePersistentDisk", "awsElasticBlockStore", "glusterfs", "flocker", "nfs", "rbd", "quobyte",
    "cephfs", "iscsi", "cinder", "fc", "flexVolume", "azureFile", "vsphereVolume", "photonPersistentDisk",
    "portworxVolume", "azureDisk", "scaleIO", "local", "storageos", "csi",
)
IMMUTABLE_CLAIM_SPEC: Final = (
    "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"
)


def _access_modes(spec: dict[str, Any], path: str, missing: str, errs: Errors) -> None:
    modes_path = child(path, "accessModes")
    modes = as_str_list(spec.get("accessModes"), modes_path, errs)
    if not modes:
        if modes is not None or spec.get("accessModes") is None:
            errs.append(required(modes_path, missing))
        return
    for mode in modes:
        if mode not in ACCESS_MODES:
            errs.append(not_supported(modes_path, mode, ACCESS_MODES))
    if "ReadWriteOncePod" in modes and any(m != "ReadWriteOncePod" for m in modes):
        errs.append(forbidden(modes_path, "may not use ReadWriteOncePod with other access modes"))


def _class_and_mode(spec: dict[str, Any], path: str, errs: Errors) -> None:
    """storageClassName (a DNS subdomain when not empty) and volumeMode (Block or Filesystem)."""
    class_name = get_opt_str(spec, "storageClassName", path, errs)
    if isinstance(class_name, str) and class_name:
        errs.extend(invalid(child(path, "storageClassName"), class_name, m) for m in is_dns1123_subdomain(class_name))
    mode = get_opt_str(spec, "volumeMode", path, errs)
    if isinstance(mode, str) and mode not in VOLUME_MODES:
        errs.append(not_supported(child(path, "volumeMode"), mode, VOLUME_MODES))


def _positive(quantity: Quantity, path: str) -> Errors:
    if quantity.sign() <= 0:
        return [invalid(path, quantity.canonical(), IS_NOT_POSITIVE_MSG)]
    return []


def _node_affinity(spec: dict[str, Any], errs: Errors) -> bool:
    """validateVolumeNodeAffinity: required node constraints with at least one term; whether they were given."""
    path = "spec.nodeAffinity"
    affinity = get_dict(spec, "nodeAffinity", "spec", errs)
    if affinity is None:
        return False
    selector = get_dict(affinity, "required", path, errs)
    if selector is None:
        errs.append(required(child(path, "required"), "must specify required node constraints"))
        return False
    terms_path = child(path, "required", "nodeSelectorTerms")
    terms = get_list(selector, "nodeSelectorTerms", child(path, "required"), errs)
    if not terms:
        errs.append(required(terms_path, "must have at least one node selector term"))
    for _, term_path, term in dict_items(terms, terms_path, errs):
        errs.extend(validate_node_selector_term(term, term_path))
    return True


def _source(name: str, source: dict[str, Any], path: str, errs: Errors) -> None:
    """The checks of the sources this cluster's volumes use; others are kept as given."""
    if name in ("hostPath", "local"):
        source_path = get_str(source, "path", path, errs)
        if source_path == "":
            errs.append(required(child(path, "path"), ""))
        host_type = get_opt_str(source, "type", path, errs) if name == "hostPath" else None
        if isinstance(host_type, str) and host_type not in HOST_PATH_TYPES:
            errs.append(not_supported(child(path, "type"), host_type, HOST_PATH_TYPES))
    elif name == "csi":
        for field in ("driver", "volumeHandle"):
            if get_str(source, field, path, errs) == "":
                errs.append(required(child(path, field), ""))
    elif name == "nfs":
        for field in ("server", "path"):
            if get_str(source, field, path, errs) == "":
                errs.append(required(child(path, field), ""))


def _pv_spec(spec: dict[str, Any], errs: Errors) -> None:
    """ValidatePersistentVolumeSpec: access modes, a storage capacity, a reclaim policy, exactly one source."""
    _access_modes(spec, "spec", "", errs)
    cap_path = "spec.capacity"
    capacity = as_dict(spec.get("capacity"), cap_path, errs)
    if not capacity:
        errs.append(required(cap_path, ""))
    if capacity is not None and ("storage" not in capacity or len(capacity) > 1):
        errs.append(not_supported(cap_path, capacity, ["storage"]))
    for name, raw in (capacity or {}).items():
        quantity = quantity_field(raw, key(cap_path, name), errs)
        if quantity is not None:
            errs.extend(_positive(quantity, key(cap_path, name)))
    policy = get_opt_str(spec, "persistentVolumeReclaimPolicy", "spec", errs)
    if policy and policy not in RECLAIM_POLICIES:
        errs.append(not_supported("spec.persistentVolumeReclaimPolicy", policy, RECLAIM_POLICIES))
    has_affinity = _node_affinity(spec, errs)
    count = 0
    for name in PV_SOURCES:
        if spec.get(name) is None:
            continue
        source_path = child("spec", name)
        if count:
            errs.append(forbidden(source_path, "may not specify more than 1 volume type"))
            continue
        count += 1
        source = as_dict(spec[name], source_path, errs)
        if source is not None:
            _source(name, source, source_path, errs)
        if name == "local" and not has_affinity:
            errs.append(required("metadata.annotations", "Local volume requires node affinity"))
    if count == 0:
        errs.append(required("spec", "must specify a volume type"))
    host_path = dict_or_empty(spec.get("hostPath")).get("path")
    if isinstance(host_path, str) and host_path and posixpath.normpath(host_path) == "/" and policy == "Recycle":
        errs.append(forbidden("spec.persistentVolumeReclaimPolicy", "may not be 'recycle' for a hostPath mount of '/'"))
    _class_and_mode(spec, "spec", errs)


def validate_persistent_volume(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """ValidatePersistentVolume, and on update ValidatePersistentVolumeUpdate (the source and mode stay)."""
    _, errs = validate_object_meta(obj, namespaced=False, name_fn=name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"), "spec", errs)
    if spec is not None:
        _pv_spec(spec, errs)
    as_dict(obj.get("status"), "status", errs)
    if old is not None and spec is not None:
        errs.extend(validate_object_meta_update(obj, old))
        old_spec = dict_or_empty(old.get("spec"))
        if any(semantic(spec.get(n)) != semantic(old_spec.get(n)) for n in PV_SOURCES):
            errs.append(forbidden("spec.persistentvolumesource", "spec.persistentvolumesource is immutable after creation"))
        errs.extend(immutable(spec.get("volumeMode"), old_spec.get("volumeMode"), "volumeMode"))
    return errs


def _storage_request(spec: dict[str, Any], base: str, errs: Errors) -> Quantity | None:
    """resources.requests[storage]: required and greater than zero."""
    path = f"{child(base, 'resources')}[storage]"
    resources = get_dict(spec, "resources", base, errs) or {}
    requests = get_dict(resources, "requests", child(base, "resources"), errs) or {}
    if "storage" not in requests:
        errs.append(required(path, ""))
        return None
    quantity = quantity_field(requests["storage"], path, errs)
    if quantity is not None:
        problems = _positive(quantity, path) or resource_quantity_value("storage", quantity, path)
        errs.extend(problems)
    return quantity


def _claim_update(spec: dict[str, Any], obj: dict[str, Any], old: dict[str, Any], errs: Errors) -> None:
    """ValidatePersistentVolumeClaimUpdate: volumeName may be set once, an unset class once, a bound claim's
    storage request may grow; nothing else in the spec changes."""
    old_spec = dict_or_empty(old.get("spec"))
    new_clone, old_clone = deep_copy(spec), deep_copy(old_spec)
    if not old_spec.get("volumeName"):
        old_clone["volumeName"] = new_clone.get("volumeName")
    if old_spec.get("storageClassName") is None:
        new_clone.pop("storageClassName", None)
        old_clone.pop("storageClassName", None)
    bound = dict_or_empty(obj.get("status")).get("phase") == "Bound"
    new_requests = dict_or_empty(dict_or_empty(new_clone.get("resources")).get("requests"))
    if bound and new_requests:
        old_requests = dict_or_empty(dict_or_empty(old_spec.get("resources")).get("requests"))
        new_requests["storage"] = old_requests.get("storage")
    if semantic(new_clone) != semantic(old_clone):
        errs.append(forbidden("spec", IMMUTABLE_CLAIM_SPEC))
    new_size = _quantity(dict_or_empty(dict_or_empty(spec.get("resources")).get("requests")).get("storage"))
    capacity = _quantity(dict_or_empty(dict_or_empty(old.get("status")).get("capacity")).get("storage"))
    if bound and new_size is not None and capacity is not None and new_size < capacity:
        errs.append(forbidden("spec.resources.requests.storage", "field can not be less than status.capacity"))
    errs.extend(immutable(spec.get("volumeMode"), old_spec.get("volumeMode"), "volumeMode"))


def _quantity(value: Any) -> Quantity | None:
    return quantity_field(value, "", [])


def validate_claim_spec(spec: dict[str, Any], path: str) -> Errors:
    """ValidatePersistentVolumeClaimSpec (a claim's, or a StatefulSet's claim template's at ``path``)."""
    errs: Errors = []
    _access_modes(spec, path, "at least 1 access mode is required", errs)
    if spec.get("selector") is not None:
        errs.extend(validate_label_selector(spec["selector"], child(path, "selector")))
    _storage_request(spec, path, errs)
    _class_and_mode(spec, path, errs)
    get_opt_str(spec, "volumeName", path, errs)
    return errs


def validate_persistent_volume_claim(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """ValidatePersistentVolumeClaim: access modes, selector, a positive storage request, class and mode."""
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"), "spec", errs)
    if spec is not None:
        errs.extend(validate_claim_spec(spec, "spec"))
    as_dict(obj.get("status"), "status", errs)
    if old is not None and spec is not None:
        errs.extend(validate_object_meta_update(obj, old))
        _claim_update(spec, obj, old, errs)
    return errs
