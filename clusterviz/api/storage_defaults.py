"""The scheme's defaults of the storage kinds (SetDefaults_PersistentVolume, _PersistentVolumeClaim, _StorageClass).

A manual PersistentVolume is retained once its claim goes (the provisioner
writes its class's policy, Delete by default, into the volumes it makes);
both kinds mount as a Filesystem and start Pending. A StorageClass deletes
its volumes and binds at once unless it says otherwise.
"""

from __future__ import annotations

from typing import Any


def _section(obj: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The named sub-object, made when absent; None when it holds something else (validation says what)."""
    if obj.get(name) is None:
        obj[name] = {}
    value = obj[name]
    return value if isinstance(value, dict) else None


def _pending(obj: dict[str, Any]) -> None:
    status = _section(obj, "status")
    if status is not None and not status.get("phase"):
        status["phase"] = "Pending"


def default_persistent_volume(pv: dict[str, Any]) -> None:
    """persistentVolumeReclaimPolicy Retain, volumeMode Filesystem, phase Pending."""
    spec = _section(pv, "spec")
    if spec is not None:
        if not spec.get("persistentVolumeReclaimPolicy"):
            spec["persistentVolumeReclaimPolicy"] = "Retain"
        if spec.get("volumeMode") is None:
            spec["volumeMode"] = "Filesystem"
    _pending(pv)


def default_persistent_volume_claim(pvc: dict[str, Any]) -> None:
    """volumeMode Filesystem, phase Pending."""
    spec = _section(pvc, "spec")
    if spec is not None and spec.get("volumeMode") is None:
        spec["volumeMode"] = "Filesystem"
    _pending(pvc)


def default_storage_class(sc: dict[str, Any]) -> None:
    """reclaimPolicy Delete, volumeBindingMode Immediate."""
    if sc.get("reclaimPolicy") is None:
        sc["reclaimPolicy"] = "Delete"
    if sc.get("volumeBindingMode") is None:
        sc["volumeBindingMode"] = "Immediate"
