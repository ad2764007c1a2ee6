"""What the volume plugins share about claims, volumes and classes.

Upstream keeps these rules in ``component-helpers/storage/volume`` (claim and
volume classes, ``FindMatchingVolume``, ``CheckNodeAffinity``,
``IsDelayBindingMode``) and ``component-helpers/storage/ephemeral``. They read
plain Kubernetes JSON here and never touch the API.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from clusterviz.apimachinery.labels import selector_from_label_selector
from clusterviz.apimachinery.quantity import QuantityError, parse_quantity

ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"
WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"
FILESYSTEM = "Filesystem"


def meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """An object's metadata ({} when absent)."""
    return obj.get("metadata") or {}


def spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """An object's spec ({} when absent)."""
    return obj.get("spec") or {}


def annotations_of(obj: Mapping[str, Any]) -> Mapping[str, str]:
    """An object's annotations ({} when absent)."""
    return meta(obj).get("annotations") or {}


def pod_claim_names(pod: Mapping[str, Any]) -> list[tuple[str, bool]]:
    """Every claim the Pod's volumes use, in volume order, with whether it is a generic ephemeral volume's.

    An ephemeral volume's claim is named ``<pod>-<volume>`` (``ephemeral.VolumeClaimName``).
    """
    out: list[tuple[str, bool]] = []
    for volume in spec(pod).get("volumes") or []:
        if volume.get("persistentVolumeClaim") is not None:
            out.append(((volume["persistentVolumeClaim"] or {}).get("claimName") or "", False))
        elif volume.get("ephemeral") is not None:
            out.append((f"{meta(pod).get('name') or ''}-{volume.get('name') or ''}", True))
    return out


def mounts_claim(pod: Mapping[str, Any], pvc: Mapping[str, Any]) -> bool:
    """Does the Pod name ``pvc`` in a ``persistentVolumeClaim`` volume (same namespace)?"""
    if (meta(pod).get("namespace") or "default") != (meta(pvc).get("namespace") or "default"):
        return False
    name = meta(pvc).get("name")
    return any(
        (volume.get("persistentVolumeClaim") or {}).get("claimName") == name
        for volume in spec(pod).get("volumes") or []
        if volume.get("persistentVolumeClaim") is not None
    )


def claim_owned_by_pod(pod: Mapping[str, Any], pvc: Mapping[str, Any]) -> str:
    """``ephemeral.VolumeIsForPod``: "" when the Pod controls the claim, else the error upstream gives."""
    uid = meta(pod).get("uid") or ""
    for ref in meta(pvc).get("ownerReferences") or []:
        if ref.get("controller") and ref.get("uid") == uid:
            return ""
    return (
        f"PVC {meta(pvc).get('namespace') or 'default'}/{meta(pvc).get('name') or ''} was not created for pod "
        f"{meta(pod).get('namespace') or 'default'}/{meta(pod).get('name') or ''} (pod is not owner)"
    )


def claim_class(pvc: Mapping[str, Any]) -> str:
    """``GetPersistentVolumeClaimClass``: the beta annotation wins over ``spec.storageClassName``."""
    if ANN_BETA_STORAGE_CLASS in annotations_of(pvc):
        return annotations_of(pvc)[ANN_BETA_STORAGE_CLASS]
    return spec(pvc).get("storageClassName") or ""


def volume_class(pv: Mapping[str, Any]) -> str:
    """``GetPersistentVolumeClass``: the beta annotation wins over ``spec.storageClassName``."""
    if ANN_BETA_STORAGE_CLASS in annotations_of(pv):
        return annotations_of(pv)[ANN_BETA_STORAGE_CLASS]
    return spec(pv).get("storageClassName") or ""


def storage_bytes(resources: Mapping[str, Any] | None) -> int:
    """The ``storage`` quantity of a requests or capacity map, in bytes (0 when absent or unreadable)."""
    value = (resources or {}).get("storage")
    if value is None:
        return 0
    try:
        return parse_quantity(value).value()
    except QuantityError:
        return 0


def requested_bytes(pvc: Mapping[str, Any]) -> int:
    """The storage a claim requests."""
    return storage_bytes((spec(pvc).get("resources") or {}).get("requests"))


def capacity_bytes(pv: Mapping[str, Any]) -> int:
    """The storage a volume offers."""
    return storage_bytes(spec(pv).get("capacity"))


def is_fully_bound(pvc: Mapping[str, Any]) -> bool:
    """A claim names its volume and the PV controller has marked the binding complete."""
    return bool(spec(pvc).get("volumeName")) and ANN_BIND_COMPLETED in annotations_of(pvc)


def is_bound_to_claim(pv: Mapping[str, Any], pvc: Mapping[str, Any]) -> bool:
    """``IsVolumeBoundToClaim``: the volume's claimRef names this claim (and its uid, when the ref has one)."""
    ref = spec(pv).get("claimRef")
    if not ref:
        return False
    if ref.get("name") != meta(pvc).get("name") or (ref.get("namespace") or "") != (
        meta(pvc).get("namespace") or "default"
    ):
        return False
    return not ref.get("uid") or ref.get("uid") == meta(pvc).get("uid")


def node_affinity_matches(pv: Mapping[str, Any], node_labels: Mapping[str, str]) -> bool:
    """``CheckNodeAffinity``: a volume without required node affinity fits every node."""
    # Imported here: the plugins package imports this module while it loads.
    from clusterviz.scheduler.plugins.node_affinity import parse_node_selector

    required = (spec(pv).get("nodeAffinity") or {}).get("required")
    if required is None:
        return True
    return any(term.matches("", node_labels) for term in parse_node_selector(required))


def topology_matches(allowed_topologies: Iterable[Mapping[str, Any]] | None, node_labels: Mapping[str, str]) -> bool:
    """``MatchTopologySelectorTerms``: no terms allow every node; otherwise one term must hold entirely."""
    terms = list(allowed_topologies or [])
    if not terms:
        return True
    for term in terms:
        expressions = term.get("matchLabelExpressions") or []
        if all(node_labels.get(e.get("key") or "") in (e.get("values") or []) for e in expressions):
            return True
    return False


def is_delay_binding(pvc: Mapping[str, Any], classes: Mapping[str, Mapping[str, Any]]) -> tuple[bool, str]:
    """``IsDelayBindingMode``: (waits for its first consumer, error). A missing class binds immediately."""
    name = claim_class(pvc)
    if not name:
        return False, ""
    storage_class = classes.get(name)
    if storage_class is None:
        return False, ""
    mode = storage_class.get("volumeBindingMode")
    if mode is None:
        return False, f'VolumeBindingMode not set for StorageClass "{name}"'
    return mode == WAIT_FOR_FIRST_CONSUMER, ""


def _access_modes_fit(pvc: Mapping[str, Any], pv: Mapping[str, Any]) -> bool:
    offered = set(spec(pv).get("accessModes") or [])
    return all(mode in offered for mode in spec(pvc).get("accessModes") or [])


def _volume_mode(obj: Mapping[str, Any]) -> str:
    return spec(obj).get("volumeMode") or FILESYSTEM


def find_matching_volume(
    pvc: Mapping[str, Any],
    pvs: Iterable[Mapping[str, Any]],
    node_labels: Mapping[str, str],
    excluded: Iterable[str] = (),
) -> Mapping[str, Any] | None:
    """``FindMatchingVolume`` on the scheduler's path: a volume pre-bound to the claim, else the smallest fit.

    A fit is Available, large enough, of the claim's class, attributes class, volume
    mode and access modes, selected by the claim's selector and reachable from the node. A volume
    pre-bound to the claim that the node cannot reach means no match at all.
    """
    skip = set(excluded)
    wanted = requested_bytes(pvc)
    wanted_class = claim_class(pvc)
    raw_selector = spec(pvc).get("selector")
    selector = selector_from_label_selector(raw_selector) if raw_selector is not None else None
    smallest: Mapping[str, Any] | None = None
    smallest_size = 0
    for pv in pvs:
        name = meta(pv).get("name") or ""
        if name in skip:
            continue
        if spec(pv).get("claimRef") and not is_bound_to_claim(pv, pvc):
            continue
        size = capacity_bytes(pv)
        if size < wanted or _volume_mode(pv) != _volume_mode(pvc) or meta(pv).get("deletionTimestamp"):
            continue
        reachable = node_affinity_matches(pv, node_labels)
        if is_bound_to_claim(pv, pvc):
            return pv if reachable else None
        if (pv.get("status") or {}).get("phase") != "Available":
            continue
        if selector is not None and not selector.matches(meta(pv).get("labels") or {}):
            continue
        if volume_class(pv) != wanted_class or not reachable or not _access_modes_fit(pvc, pv):
            continue
        # VolumeAttributesClass is GA: a claim only takes a volume of the same attributes class.
        if (spec(pv).get("volumeAttributesClassName") or "") != (spec(pvc).get("volumeAttributesClassName") or ""):
            continue
        if smallest is None or smallest_size > size:
            smallest, smallest_size = pv, size
    return smallest
