"""What the PV controller and the provisioner share: annotations, classes, phases and claim-to-volume matching.

Matching follows upstream's ``FindMatchingVolume``: a claim takes the
smallest Available volume of its class whose access modes include the
claim's, whose size covers the request, whose volume mode is the claim's and
whose labels its selector picks; a volume already pre-bound to the claim wins
outright. Claims of a WaitForFirstConsumer class are matched only when
pre-bound: the scheduler binds the others, on the node it chose.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from clusterviz.api import clock
from clusterviz.apimachinery import labels
from clusterviz.apimachinery.quantity import Quantity, QuantityError, parse_quantity

from .util import Obj, annotations_of, deleting, labels_of, meta, spec, status

ANN_BIND_COMPLETED: Final = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER: Final = "pv.kubernetes.io/bound-by-controller"
ANN_PROVISIONED_BY: Final = "pv.kubernetes.io/provisioned-by"
ANN_SELECTED_NODE: Final = "volume.kubernetes.io/selected-node"
ANN_STORAGE_PROVISIONER: Final = "volume.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_PROVISIONER: Final = "volume.beta.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_CLASS: Final = "volume.beta.kubernetes.io/storage-class"
WAIT_FOR_FIRST_CONSUMER: Final = "WaitForFirstConsumer"
YES: Final = "yes"


def claim_key(claim: Obj) -> str:
    return f"{meta(claim).get('namespace', '')}/{meta(claim).get('name', '')}"


def claim_ref_key(volume: Obj) -> str | None:
    """The ``namespace/name`` of the claim the volume points at, if any."""
    ref = spec(volume).get("claimRef")
    if not isinstance(ref, dict):
        return None
    return f"{ref.get('namespace', '')}/{ref.get('name', '')}"


def volume_class(obj: Obj) -> str:
    """GetPersistentVolume(Claim)Class: the beta annotation, else spec.storageClassName ("" for none)."""
    annotation = annotations_of(obj).get(ANN_BETA_STORAGE_CLASS)
    if annotation is not None:
        return annotation
    return str(spec(obj).get("storageClassName") or "")


def storage(resources: Any) -> Quantity | None:
    """The ``storage`` quantity of a resource list, if it parses."""
    raw = resources.get("storage") if isinstance(resources, dict) else None
    try:
        return None if raw is None else parse_quantity(raw)
    except (QuantityError, TypeError):
        return None


def requested(claim: Obj) -> Quantity | None:
    return storage((spec(claim).get("resources") or {}).get("requests"))


def is_bound_to(volume: Obj, claim: Obj) -> bool:
    """IsVolumeBoundToClaim: the volume's claimRef names the claim (and its uid, when it has one)."""
    ref = spec(volume).get("claimRef")
    if not isinstance(ref, dict) or claim_ref_key(volume) != claim_key(claim):
        return False
    return not ref.get("uid") or ref.get("uid") == meta(claim).get("uid")


def _modes_cover(volume: Obj, claim: Obj) -> bool:
    have = set(spec(volume).get("accessModes") or [])
    return all(mode in have for mode in spec(claim).get("accessModes") or [])


def _mode(obj: Obj) -> str:
    return str(spec(obj).get("volumeMode") or "Filesystem")


def satisfies(volume: Obj, claim: Obj) -> str:
    """checkVolumeSatisfyClaim: "" when the volume can serve the claim, else why not (upstream's words)."""
    size, wanted = storage(spec(volume).get("capacity")), requested(claim)
    if size is None or (wanted is not None and size < wanted):
        return "requested PV is too small"
    if volume_class(volume) != volume_class(claim):
        return "storageClassName does not match"
    if _mode(volume) != _mode(claim):
        return "incompatible volumeMode"
    if not _modes_cover(volume, claim):
        return "incompatible accessMode"
    return ""


def _selects(claim: Obj, volume: Obj) -> bool:
    selector = spec(claim).get("selector")
    if not isinstance(selector, dict):
        return True
    try:
        return labels.selector_from_label_selector(selector).matches(labels_of(volume))
    except (labels.SelectorError, TypeError, AttributeError):
        return False


def find_best_match(claim: Obj, volumes: Iterable[Obj], delay_binding: bool) -> Obj | None:
    """FindMatchingVolume for the PV controller (no node): a pre-bound volume, else the smallest that fits."""
    wanted = requested(claim)
    best: tuple[Quantity, str, Obj] | None = None
    for volume in volumes:
        if deleting(volume) or _mode(volume) != _mode(claim):
            continue
        if is_bound_to(volume, claim):
            return volume
        if delay_binding:
            continue
        size = storage(spec(volume).get("capacity"))
        if (
            status(volume).get("phase") != "Available"
            or spec(volume).get("claimRef") is not None
            or not _selects(claim, volume)
            or volume_class(volume) != volume_class(claim)
            or not _modes_cover(volume, claim)
            or size is None
            or (wanted is not None and size < wanted)
        ):
            continue
        name = str(meta(volume).get("name", ""))
        if best is None or (size, name) < (best[0], best[1]):
            best = (size, name, volume)
    return None if best is None else best[2]


def with_phase(obj: Obj, phase: str, **fields: Any) -> Obj:
    """A copy of the object with its status in ``phase``; a volume notes when its phase changed."""
    new = {**obj, "status": {**status(obj), "phase": phase, **fields}}
    if obj.get("kind") == "PersistentVolume" and status(obj).get("phase") != phase:
        new["status"]["lastPhaseTransitionTime"] = clock.rfc3339()
    return new
