"""``kubectl describe`` for PersistentVolumes, PersistentVolumeClaims and StorageClasses, as kubectl's describers print them."""

from __future__ import annotations

from typing import Any

from clusterviz.api import clock
from clusterviz.api.admission.storageclass import is_default_class
from clusterviz.api.tables.labels import format_labels
from clusterviz.api.tables.storage import access_modes, storage_size, volume_class
from clusterviz.apimachinery.duration import human_duration
from clusterviz.apimachinery.unstructured import dict_or_empty, list_or_empty

from .describe import Text
from .describe_batch import _labels_and_annotations


def _finalizers(meta: dict[str, Any]) -> str:
    """A []string as Go's %v prints it: ``[a b]``."""
    return "[" + " ".join(str(f) for f in list_or_empty(meta.get("finalizers"))) + "]"


def _status(meta: dict[str, Any], phase: Any) -> str:
    """The phase, or ``Terminating (lasts 5s)`` since the deletion while finalizers hold the object."""
    deleted = clock.parse(meta["deletionTimestamp"]) if isinstance(meta.get("deletionTimestamp"), str) else None
    if deleted is None:
        return str(phase or "")
    return f"Terminating (lasts {human_duration((clock.now() - deleted).total_seconds())})"


def _node_affinity(text: Text, affinity: Any) -> None:
    """printVolumeNodeAffinity: each required term's expressions (``key in [a, b]``)."""
    required = dict_or_empty(affinity).get("required")
    if not isinstance(required, dict):
        text.add(0, "Node Affinity", "<none>")
        return
    text.add(0, "Node Affinity")
    terms = [t for t in list_or_empty(required.get("nodeSelectorTerms")) if isinstance(t, dict)]
    text.add(1, "Required Terms", "" if terms else "<none>")
    for i, term in enumerate(terms):
        expressions = [e for e in list_or_empty(term.get("matchExpressions")) if isinstance(e, dict)]
        lines = []
        for expression in expressions:
            line = f"{expression.get('key', '')} {str(expression.get('operator', '')).lower()}"
            values = list_or_empty(expression.get("values"))
            lines.append(f"{line} [{', '.join(str(v) for v in values)}]" if values else line)
        text.add(2, f"Term {i}", lines[0] if lines else "<none>")
        for line in lines[1:]:
            text.more(2, line)


def _source(text: Text, spec: dict[str, Any]) -> None:
    """The volume's source, as the print*VolumeSource functions write it under ``Source:``."""
    text.add(0, "Source")
    if isinstance(spec.get("hostPath"), dict):
        source = spec["hostPath"]
        text.write(2, "Type:\tHostPath (bare host directory volume)")
        text.write(2, f"Path:\t{source.get('path', '')}")
        text.write(2, f"HostPathType:\t{source.get('type') or ''}")
    elif isinstance(spec.get("local"), dict):
        text.write(2, "Type:\tLocalVolume (a persistent volume backed by local storage on a node)")
        text.write(2, f"Path:\t{spec['local'].get('path', '')}")
    elif isinstance(spec.get("csi"), dict):
        source = spec["csi"]
        text.write(2, "Type:\tCSI (a Container Storage Interface (CSI) volume source)")
        text.write(2, f"Driver:\t{source.get('driver', '')}")
        text.write(2, f"FSType:\t{source.get('fsType', '')}")
        text.write(2, f"VolumeHandle:\t{source.get('volumeHandle', '')}")
        text.write(2, f"ReadOnly:\t{str(source.get('readOnly') is True).lower()}")
        attributes = [f"{k}={v}" for k, v in sorted(dict_or_empty(source.get("volumeAttributes")).items())]
        text.write(2, f"VolumeAttributes:\t{'        ' + attributes[0] if attributes else '<none>'}")
        for line in attributes[1:]:
            text.write(2, f"\t        {line}")
    else:
        text.write(2, "Type:\t<unknown>")


def describe_persistent_volume(pv: dict[str, Any]) -> Text:
    """describePersistentVolume: class, phase, claim, policy, modes, size, node affinity, then the source."""
    meta, spec, status = (dict_or_empty(pv.get(k)) for k in ("metadata", "spec", "status"))
    text = Text()
    text.add(0, "Name", meta.get("name", ""))
    _labels_and_annotations(text, meta)
    text.add(0, "Finalizers", _finalizers(meta))
    text.write(0, f"StorageClass:\t{volume_class(pv)}")
    text.write(0, f"Status:\t{_status(meta, status.get('phase'))}")
    ref = dict_or_empty(spec.get("claimRef"))
    text.write(0, f"Claim:\t{ref.get('namespace', '')}/{ref.get('name', '')}" if ref else "Claim:\t")
    text.write(0, f"Reclaim Policy:\t{spec.get('persistentVolumeReclaimPolicy', '')}")
    text.write(0, f"Access Modes:\t{access_modes(spec.get('accessModes'))}")
    if spec.get("volumeMode") is not None:
        text.add(0, "VolumeMode", spec["volumeMode"])
    text.add(0, "Capacity", storage_size(spec.get("capacity")))
    _node_affinity(text, spec.get("nodeAffinity"))
    text.write(0, f"Message:\t{status.get('message', '')}")
    _source(text, spec)
    return text


def _users(claim: dict[str, Any], pods: list[dict[str, Any]]) -> list[str]:
    """getPodsForPVC: the Pods of the claim's namespace whose volumes name it."""
    meta = dict_or_empty(claim.get("metadata"))
    return sorted(
        str(dict_or_empty(p.get("metadata")).get("name", "")) for p in pods
        if dict_or_empty(p.get("metadata")).get("namespace") == meta.get("namespace")
        and any(dict_or_empty(dict_or_empty(v).get("persistentVolumeClaim")).get("claimName") == meta.get("name")
                for v in list_or_empty(dict_or_empty(p.get("spec")).get("volumes")))
    )


def describe_persistent_volume_claim(pvc: dict[str, Any], pods: list[dict[str, Any]]) -> Text:
    """describePersistentVolumeClaim: class, phase, volume, size and modes once bound, and the Pods using it."""
    meta, spec, status = (dict_or_empty(pvc.get(k)) for k in ("metadata", "spec", "status"))
    bound = bool(spec.get("volumeName"))
    text = Text()
    text.add(0, "Name", meta.get("name", ""))
    text.add(0, "Namespace", meta.get("namespace", ""))
    text.write(0, f"StorageClass:\t{volume_class(pvc)}")
    text.write(0, f"Status:\t{_status(meta, status.get('phase'))}")
    text.write(0, f"Volume:\t{spec.get('volumeName', '')}")
    _labels_and_annotations(text, meta)
    text.add(0, "Finalizers", _finalizers(meta))
    text.write(0, f"Capacity:\t{storage_size(status.get('capacity')) if bound else ''}")
    text.write(0, f"Access Modes:\t{access_modes(status.get('accessModes')) if bound else ''}")
    if spec.get("volumeMode") is not None:
        text.add(0, "VolumeMode", spec["volumeMode"])
    users = _users(pvc, pods)
    text.add(0, "Used By", users[0] if users else "<none>")
    for name in users[1:]:
        text.more(0, name)
    return text


def _bool_pointer(value: Any) -> str:
    """printBoolPtr: True, False or <unset>."""
    return "<unset>" if not isinstance(value, bool) else str(value)


def describe_storage_class(sc: dict[str, Any]) -> Text:
    """describeStorageClass: whether it is the default, its provisioner and parameters, policies and modes."""
    meta = dict_or_empty(sc.get("metadata"))
    text = Text()
    text.add(0, "Name", meta.get("name", ""))
    text.add(0, "IsDefaultClass", "Yes" if is_default_class(sc) else "No")
    text.add(0, "Annotations", format_labels(meta.get("annotations")))
    text.add(0, "Provisioner", sc.get("provisioner", ""))
    text.add(0, "Parameters", format_labels(sc.get("parameters")))
    text.add(0, "AllowVolumeExpansion", _bool_pointer(sc.get("allowVolumeExpansion")))
    options = [str(o) for o in list_or_empty(sc.get("mountOptions"))]
    text.add(0, "MountOptions", "" if options else "<none>")
    for option in options:
        text.raw(1, option)
    if sc.get("reclaimPolicy") is not None:
        text.add(0, "ReclaimPolicy", sc["reclaimPolicy"])
    if sc.get("volumeBindingMode") is not None:
        text.add(0, "VolumeBindingMode", sc["volumeBindingMode"])
    return text
