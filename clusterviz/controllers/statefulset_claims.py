"""A StatefulSet's PersistentVolumeClaims: one per volumeClaimTemplate and Pod, named ``<template>-<set>-<ordinal>``.

As upstream's stateful_pod_control, each Pod's volumes name its claims (a
template's claim replaces a template volume of the same name), missing
claims are made before the Pod, and the persistentVolumeClaimRetentionPolicy
is kept in the claims' ownerReferences for the garbage collector: owned by
the set when ``whenDeleted: Delete``, by the Pod once it is condemned by a
scale-down when ``whenScaled: Delete``; Retain leaves a claim unowned.
"""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import deep_copy

from .util import Obj, meta, owner_refs, spec


def templates(sts: Obj) -> list[Obj]:
    """The set's volumeClaimTemplates (the well-formed ones)."""
    return [t for t in spec(sts).get("volumeClaimTemplates") or [] if isinstance(t, dict) and meta(t).get("name")]


def claim_name(template: Obj, sts: Obj, ordinal: int) -> str:
    """getPersistentVolumeClaimName."""
    return f"{meta(template).get('name')}-{meta(sts).get('name')}-{ordinal}"


def claims_for(sts: Obj, ordinal: int) -> list[Obj]:
    """getPersistentVolumeClaims: each template as the Pod's claim, labelled with the set's matchLabels."""
    match_labels = (spec(sts).get("selector") or {}).get("matchLabels") or {}
    claims = []
    for template in templates(sts):
        claim = deep_copy(template)
        claim.pop("status", None)
        claim["apiVersion"], claim["kind"] = "v1", "PersistentVolumeClaim"
        claim_meta = claim.setdefault("metadata", {})
        claim_meta["name"] = claim_name(template, sts, ordinal)
        claim_meta["namespace"] = meta(sts).get("namespace")
        claim_meta["labels"] = {**(claim_meta.get("labels") or {}), **match_labels}
        claims.append(claim)
    return claims


def with_claim_volumes(sts: Obj, pod: Obj, ordinal: int) -> Obj:
    """updateStorage: the Pod's volumes with one per claim template, naming the Pod's claim."""
    names = {str(meta(t).get("name")): claim_name(t, sts, ordinal) for t in templates(sts)}
    if not names:
        return pod
    pod_spec = pod.setdefault("spec", {})
    kept = [v for v in pod_spec.get("volumes") or [] if not (isinstance(v, dict) and v.get("name") in names)]
    pod_spec["volumes"] = [{"name": n, "persistentVolumeClaim": {"claimName": c}} for n, c in names.items()] + kept
    return pod


def _ref(owner: Obj, api_version: str, kind: str) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "name": meta(owner).get("name"), "uid": meta(owner).get("uid")}


def owner_patch(sts: Obj, pod: Obj, claim: Obj, condemned: bool) -> list[dict[str, Any]]:
    """The ownerReferences patch that brings the claim in line with the retention policy ([] when it is)."""
    policy = spec(sts).get("persistentVolumeClaimRetentionPolicy") or {}
    wanted = {
        str(meta(sts).get("uid")): (policy.get("whenDeleted") == "Delete", _ref(sts, "apps/v1", "StatefulSet")),
        str(meta(pod).get("uid")): (policy.get("whenScaled") == "Delete" and condemned, _ref(pod, "v1", "Pod")),
    }
    have = {str(r.get("uid")) for r in owner_refs(claim)}
    patch: list[dict[str, Any]] = []
    for uid, (owned, ref) in wanted.items():
        if owned and uid not in have:
            patch.append(ref)
        elif not owned and uid in have:
            patch.append({"$patch": "delete", "uid": uid})
    return patch
