"""The DefaultStorageClass admission plugin: a new claim that names no class gets the cluster's default; and
PersistentVolumeClaimResize: a claim grows only where its class allows.

A claim with ``storageClassName`` unset (not ``""``, which asks for no class)
gets the StorageClass annotated ``storageclass.kubernetes.io/is-default-class:
"true"``; with several defaults the newest wins (then the name, as upstream),
and with none the claim is left unset.
"""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.quantity import QuantityError, parse_quantity
from clusterviz.apimachinery.unstructured import deep_copy, dict_or_empty

__all__ = ["DEFAULT_CLASS_ANNOTATION", "admit_claim", "default_class", "is_default_class", "resize_refusal"]

DEFAULT_CLASS_ANNOTATION: Final = "storageclass.kubernetes.io/is-default-class"
BETA_DEFAULT_CLASS_ANNOTATION: Final = "storageclass.beta.kubernetes.io/is-default-class"


def is_default_class(storage_class: dict[str, Any]) -> bool:
    """IsDefaultAnnotation: either the GA or the beta annotation says "true"."""
    annotations = dict_or_empty(dict_or_empty(storage_class.get("metadata")).get("annotations"))
    return "true" in (annotations.get(DEFAULT_CLASS_ANNOTATION), annotations.get(BETA_DEFAULT_CLASS_ANNOTATION))


def default_class(classes: list[dict[str, Any]]) -> dict[str, Any] | None:
    """GetDefaultClass: the newest class marked default (the first name among equally new ones)."""
    defaults = [c for c in classes if is_default_class(c)]
    if not defaults:
        return None

    def newest_first(c: dict[str, Any]) -> tuple[str, str]:
        meta = dict_or_empty(c.get("metadata"))
        return str(meta.get("creationTimestamp") or ""), str(meta.get("name") or "")

    latest = max(str(dict_or_empty(c.get("metadata")).get("creationTimestamp") or "") for c in defaults)
    return min((c for c in defaults if newest_first(c)[0] == latest), key=newest_first)


def admit_claim(claim: dict[str, Any], classes: list[dict[str, Any]]) -> dict[str, Any]:
    """The claim as admitted: with the default class's name when it named none."""
    spec = claim.get("spec")
    if not isinstance(spec, dict) or spec.get("storageClassName") is not None:
        return claim
    found = default_class(classes)
    if found is None:
        return claim
    admitted = deep_copy(claim)
    admitted["spec"]["storageClassName"] = dict_or_empty(found.get("metadata")).get("name")
    return admitted


def _storage(claim: dict[str, Any]) -> Any:
    return dict_or_empty(dict_or_empty(dict_or_empty(claim.get("spec")).get("resources")).get("requests")).get("storage")


def resize_refusal(claim: dict[str, Any], old: dict[str, Any], classes: list[dict[str, Any]]) -> str | None:
    """The PersistentVolumeClaimResize plugin: why a claim may not grow (None when it may, or does not grow).

    Only a Bound claim grows, and only when its class sets ``allowVolumeExpansion: true``.
    """
    try:
        new_size, old_size = parse_quantity(_storage(claim)), parse_quantity(_storage(old))
    except (QuantityError, TypeError):
        return None  # validation has said what is wrong
    if not new_size > old_size:
        return None
    if dict_or_empty(old.get("status")).get("phase") != "Bound":
        return "Only bound persistent volume claims can be expanded"
    name = dict_or_empty(claim.get("spec")).get("storageClassName")
    found = next((c for c in classes if dict_or_empty(c.get("metadata")).get("name") == name), None) if name else None
    if found is None or found.get("allowVolumeExpansion") is not True:
        return ("only dynamically provisioned pvc can be resized and "
                "the storageclass that provisions the pvc must support resize")
    return None
