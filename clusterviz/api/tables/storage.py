"""The storage printers: what kubectl get pv, pvc, storageclass and csinode show."""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.quantity import QuantityError, parse_quantity
from clusterviz.apimachinery.unstructured import dict_or_empty, list_or_empty, str_or_empty

from ..admission.storageclass import is_default_class
from .common import Printed, _meta, _since

BETA_CLASS_ANNOTATION: Final = "volume.beta.kubernetes.io/storage-class"
# GetAccessModesAsString: a fixed order, whatever order the object lists them in.
_MODE_ABBREVIATIONS: Final = (
    ("ReadWriteOnce", "RWO"),
    ("ReadOnlyMany", "ROX"),
    ("ReadWriteMany", "RWX"),
    ("ReadWriteOncePod", "RWOP"),
)
UNSET: Final = "<unset>"


def access_modes(modes: Any) -> str:
    """``RWO,ROX,RWX,RWOP``: the modes present, abbreviated, in upstream's order."""
    present = set(m for m in list_or_empty(modes) if isinstance(m, str))
    return ",".join(short for mode, short in _MODE_ABBREVIATIONS if mode in present)


def storage_size(resources: Any) -> str:
    """The ``storage`` quantity as Quantity.String() prints it; "0" when absent, as Go's zero quantity."""
    raw = dict_or_empty(resources).get("storage")
    if raw is None:
        return "0"
    try:
        return parse_quantity(raw.strip() if isinstance(raw, str) else raw).canonical()
    except (QuantityError, TypeError):
        return str(raw)


def volume_class(obj: dict[str, Any]) -> str:
    """GetPersistentVolume(Claim)Class: the beta annotation first, then spec.storageClassName."""
    annotations = dict_or_empty(_meta(obj).get("annotations"))
    if isinstance(annotations.get(BETA_CLASS_ANNOTATION), str):
        return str(annotations[BETA_CLASS_ANNOTATION])
    return str_or_empty(dict_or_empty(obj.get("spec")).get("storageClassName"))


def _phase(obj: dict[str, Any]) -> str:
    if _meta(obj).get("deletionTimestamp"):
        return "Terminating"
    return str_or_empty(dict_or_empty(obj.get("status")).get("phase"))


def _optional(spec: dict[str, Any], name: str) -> str:
    value = spec.get(name)
    return str(value) if isinstance(value, str) else UNSET


def _print_persistent_volume(pv: dict[str, Any], now_ns: int) -> Printed:
    spec, status = dict_or_empty(pv.get("spec")), dict_or_empty(pv.get("status"))
    ref = spec.get("claimRef")
    claim = f"{str_or_empty(ref.get('namespace'))}/{str_or_empty(ref.get('name'))}" if isinstance(ref, dict) else ""
    return [
        str_or_empty(_meta(pv).get("name")),
        storage_size(spec.get("capacity")),
        access_modes(spec.get("accessModes")),
        str_or_empty(spec.get("persistentVolumeReclaimPolicy")),
        _phase(pv),
        claim,
        volume_class(pv),
        _optional(spec, "volumeAttributesClassName"),
        str_or_empty(status.get("reason")),
        _since(_meta(pv).get("creationTimestamp"), now_ns),
        _optional(spec, "volumeMode"),
    ], []


def _print_persistent_volume_claim(pvc: dict[str, Any], now_ns: int) -> Printed:
    spec, status = dict_or_empty(pvc.get("spec")), dict_or_empty(pvc.get("status"))
    volume = str_or_empty(spec.get("volumeName"))
    # Capacity and modes are the bound volume's, so they show only once a volume is named.
    capacity = storage_size(status.get("capacity")) if volume else ""
    modes = access_modes(status.get("accessModes")) if volume else ""
    return [
        str_or_empty(_meta(pvc).get("name")),
        _phase(pvc),
        volume,
        capacity,
        modes,
        volume_class(pvc),
        _optional(spec, "volumeAttributesClassName"),
        _since(_meta(pvc).get("creationTimestamp"), now_ns),
        _optional(spec, "volumeMode"),
    ], []


def _print_storage_class(sc: dict[str, Any], now_ns: int) -> Printed:
    name = str_or_empty(_meta(sc).get("name"))
    return [
        f"{name} (default)" if is_default_class(sc) else name,
        str_or_empty(sc.get("provisioner")),
        str_or_empty(sc.get("reclaimPolicy")) or "Delete",
        str_or_empty(sc.get("volumeBindingMode")) or "Immediate",
        sc.get("allowVolumeExpansion") is True,
        _since(_meta(sc).get("creationTimestamp"), now_ns),
    ], []


def _print_csi_node(node: dict[str, Any], now_ns: int) -> Printed:
    drivers = list_or_empty(dict_or_empty(node.get("spec")).get("drivers"))
    return [
        str_or_empty(_meta(node).get("name")),
        len(drivers),
        _since(_meta(node).get("creationTimestamp"), now_ns),
    ], []
