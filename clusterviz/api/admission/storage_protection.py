"""The StorageObjectInUseProtection admission plugin: every new claim and volume carries its protection finalizer.

A claim (``kubernetes.io/pvc-protection``) stays while a Pod uses it, and a
volume (``kubernetes.io/pv-protection``) while it is Bound, even once deleted:
the protection controllers remove the finalizer when it is safe.
"""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.unstructured import deep_copy

__all__ = ["FINALIZERS", "PV_PROTECTION", "PVC_PROTECTION", "admit"]

PVC_PROTECTION: Final = "kubernetes.io/pvc-protection"
PV_PROTECTION: Final = "kubernetes.io/pv-protection"
FINALIZERS: Final = {"PersistentVolumeClaim": PVC_PROTECTION, "PersistentVolume": PV_PROTECTION}


def admit(kind: str, obj: dict[str, Any]) -> dict[str, Any]:
    """The object as admitted: with its kind's protection finalizer added (once)."""
    finalizer = FINALIZERS.get(kind)
    meta = obj.get("metadata")
    if finalizer is None or not isinstance(meta, dict):
        return obj
    finalizers = meta.get("finalizers")
    if finalizers is not None and (not isinstance(finalizers, list) or finalizer in finalizers):
        return obj  # already protected, or malformed (validation says so)
    admitted = deep_copy(obj)
    admitted["metadata"]["finalizers"] = [*(finalizers or []), finalizer]
    return admitted
