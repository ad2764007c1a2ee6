"""Pure helpers of the Deployment controller, after pkg/controller/deployment/util.

The pod-template hash, maxSurge/maxUnavailable arithmetic, revision and
replica annotations, status conditions and the orderings of ReplicaSets.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from .util import Obj, annotations_of, deleting, int_field, meta, replicas_of, spec, status

HASH_LABEL = "pod-template-hash"
REVISION = "deployment.kubernetes.io/revision"
REVISION_HISTORY = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"
# Never copied from the Deployment to its ReplicaSets.
SKIPPED_ANNOTATIONS = frozenset(
    {
        "kubectl.kubernetes.io/last-applied-configuration",
        REVISION,
        REVISION_HISTORY,
        DESIRED_REPLICAS,
        MAX_REPLICAS,
        "deprecated.deployment.rollback.to",
    }
)
MAX_REVISION_HISTORY_CHARS = 2000

SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_FNV_OFFSET, _FNV_PRIME = 0x811C9DC5, 0x01000193


# --- the pod-template hash ------------------------------------------------------------------------


def fnv32a(data: bytes, value: int = _FNV_OFFSET) -> int:
    """32-bit FNV-1a of ``data``, continuing from ``value``."""
    for byte in data:
        value = ((value ^ byte) * _FNV_PRIME) & 0xFFFFFFFF
    return value


def safe_encode(text: str) -> str:
    """rand.SafeEncodeString: each character mapped into an alphabet without vowels or look-alikes."""
    return "".join(SAFE_ALPHABET[ord(ch) % len(SAFE_ALPHABET)] for ch in text)


def without_nulls(value: Any) -> Any:
    """A copy without null fields: decoded into Go structs, ``creationTimestamp: null`` and absence are one value.

    So a template sent with ``metadata.creationTimestamp: null`` (as kubectl create writes it) and the
    same template after a merge patch dropped the null hash and compare the same.
    """
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def compute_hash(template: dict[str, Any], collision_count: int | None = None) -> str:
    """controller.ComputeHash: FNV-1a (32 bit) of the template, plus the collision count, safely encoded.

    Upstream feeds the FNV hasher a dump of the Go struct; here the template's
    canonical JSON (sorted keys) is hashed, so the value is stable but not
    byte-identical with kube-controller-manager's.
    """
    value = fnv32a(json.dumps(without_nulls(template), sort_keys=True, separators=(",", ":")).encode())
    if collision_count is not None:
        value = fnv32a((collision_count & 0xFFFFFFFF).to_bytes(4, "little") + bytes(4), value)
    return safe_encode(str(value))


def equal_ignore_hash(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    """EqualIgnoreHash: templates equal once the pod-template-hash label is dropped from both."""

    def strip(template: dict[str, Any] | None) -> dict[str, Any]:
        template = without_nulls(template or {})
        template_meta = template.get("metadata")
        if isinstance(template_meta, dict) and isinstance(template_meta.get("labels"), dict):
            template_meta["labels"].pop(HASH_LABEL, None)
            if not template_meta["labels"]:
                del template_meta["labels"]
        return template

    return strip(a) == strip(b)


# --- surge and unavailability -----------------------------------------------------------------------


def is_rolling(d: Obj) -> bool:
    """IsRollingUpdate."""
    return (spec(d).get("strategy") or {}).get("type", "RollingUpdate") == "RollingUpdate"


def scaled_value(value: Any, total: int, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent: an int as is, "25%" of ``total`` rounded up or down."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.endswith("%"):
        scaled = int(value[:-1]) * total / 100
        return math.ceil(scaled) if round_up else math.floor(scaled)
    raise ValueError(f"invalid value for IntOrString: {value!r}")


def resolve_fenceposts(d: Obj) -> tuple[int, int]:
    """ResolveFenceposts: (maxSurge rounded up, maxUnavailable rounded down); never both zero."""
    rolling = (spec(d).get("strategy") or {}).get("rollingUpdate") or {}
    desired = replicas_of(d)
    surge = scaled_value(rolling.get("maxSurge", "25%"), desired, True)
    unavailable = scaled_value(rolling.get("maxUnavailable", "25%"), desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def max_surge(d: Obj) -> int:
    """MaxSurge: 0 unless rolling."""
    return resolve_fenceposts(d)[0] if is_rolling(d) else 0


def max_unavailable(d: Obj) -> int:
    """MaxUnavailable: 0 unless rolling, at most spec.replicas."""
    if not is_rolling(d) or replicas_of(d) == 0:
        return 0
    return min(resolve_fenceposts(d)[1], replicas_of(d))


# --- replica counts ---------------------------------------------------------------------------------


def spec_replicas(rss: list[Obj]) -> int:
    """GetReplicaCountForReplicaSets: the sum of spec.replicas."""
    return sum(replicas_of(rs) for rs in rss)


def status_count(rss: list[Obj], field: str) -> int:
    """The sum of a status count (replicas, readyReplicas, availableReplicas)."""
    return sum(int_field(status(rs), field) for rs in rss)


def active(rss: list[Obj]) -> list[Obj]:
    """FilterActiveReplicaSets: those with spec.replicas > 0."""
    return [rs for rs in rss if replicas_of(rs) > 0]


def new_rs_new_replicas(d: Obj, all_rss: list[Obj], new_rs: Obj) -> int:
    """NewRSNewReplicas: how far the new ReplicaSet may grow now."""
    if not is_rolling(d):
        return replicas_of(d)
    rolling = (spec(d).get("strategy") or {}).get("rollingUpdate") or {}
    surge = scaled_value(rolling.get("maxSurge", "25%"), replicas_of(d), True)
    current = spec_replicas(all_rss)
    max_total = replicas_of(d) + surge
    if current >= max_total:
        return replicas_of(new_rs)
    scale_up = min(max_total - current, replicas_of(d) - replicas_of(new_rs))
    return replicas_of(new_rs) + scale_up


def is_saturated(d: Obj, rs: Obj | None) -> bool:
    """IsSaturated: the ReplicaSet is sized for the Deployment and all its replicas are available."""
    if rs is None:
        return False
    desired = annotations_of(rs).get(DESIRED_REPLICAS)
    return (
        replicas_of(rs) == replicas_of(d)
        and desired == str(replicas_of(d))
        and int_field(status(rs), "availableReplicas") == replicas_of(d)
    )


def get_proportion(rs: Obj, d: Obj, to_add: int, added: int) -> int:
    """GetProportion: this ReplicaSet's share of a proportional scale, bounded by what is left."""
    if replicas_of(rs) == 0 or to_add == 0 or to_add == added:
        return 0
    fraction = _rs_fraction(rs, d)
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


def _rs_fraction(rs: Obj, d: Obj) -> int:
    if replicas_of(d) == 0:
        return -replicas_of(rs)
    deployment_replicas = replicas_of(d) + max_surge(d)
    try:
        annotated = int(annotations_of(rs)[MAX_REPLICAS])
    except (KeyError, ValueError):
        annotated = int_field(status(d), "replicas")
    if annotated == 0:
        return 0
    size = replicas_of(rs) * deployment_replicas / annotated
    # integer.RoundToInt32 rounds half away from zero.
    return int(math.floor(size + 0.5)) - replicas_of(rs)


# --- annotations ----------------------------------------------------------------------------------


def revision(rs: Obj) -> int:
    """The revision annotation as a number (0 when absent)."""
    try:
        return int(annotations_of(rs).get(REVISION, "0"))
    except ValueError:
        return 0


def max_revision(rss: list[Obj]) -> int:
    """MaxRevision."""
    return max((revision(rs) for rs in rss), default=0)


def _annotations(obj: Obj) -> dict[str, str]:
    obj_meta = obj.setdefault("metadata", {})
    if not isinstance(obj_meta.get("annotations"), dict):
        obj_meta["annotations"] = {}
    return obj_meta["annotations"]


def set_replicas_annotations(rs: Obj, desired: int, max_replicas: int) -> bool:
    """SetReplicasAnnotations: desired-replicas and max-replicas; whether they changed."""
    annotations = _annotations(rs)
    changed = False
    for key, value in ((DESIRED_REPLICAS, str(desired)), (MAX_REPLICAS, str(max_replicas))):
        if annotations.get(key) != value:
            annotations[key] = value
            changed = True
    return changed


def replicas_annotations_need_update(rs: Obj, desired: int, max_replicas: int) -> bool:
    """ReplicasAnnotationsNeedUpdate."""
    annotations = annotations_of(rs)
    return annotations.get(DESIRED_REPLICAS) != str(desired) or annotations.get(MAX_REPLICAS) != str(max_replicas)


def set_new_rs_annotations(d: Obj, rs: Obj, new_revision: str, exists: bool) -> bool:
    """SetNewReplicaSetAnnotations: copy the Deployment's annotations, raise the revision, keep its history."""
    annotations = _annotations(rs)
    changed = False
    for key, value in annotations_of(d).items():
        if key not in SKIPPED_ANNOTATIONS and annotations.get(key) != value:
            annotations[key] = value
            changed = True
    old_revision = annotations.get(REVISION)
    try:
        old_value = int(old_revision) if old_revision else 0
    except ValueError:
        return False
    if old_value < int(new_revision):
        annotations[REVISION] = new_revision
        changed = True
        if old_revision:
            # Rolling back to this ReplicaSet: remember the revisions it had.
            history = [r for r in annotations.get(REVISION_HISTORY, "").split(",") if r] + [old_revision]
            while len(",".join(history)) > MAX_REVISION_HISTORY_CHARS and len(history) > 1:
                history.pop(0)
            annotations[REVISION_HISTORY] = ",".join(history)
    if not exists and set_replicas_annotations(rs, replicas_of(d), replicas_of(d) + max_surge(d)):
        changed = True
    return changed


# --- orderings ------------------------------------------------------------------------------------


def by_creation(rank: Callable[[Obj], tuple[str, int]]) -> Callable[[Obj], tuple[Any, ...]]:
    """ReplicaSetsByCreationTimestamp (oldest first), ties broken by the order the objects were seen."""
    return lambda rs: (*rank(rs), meta(rs).get("name", ""))


def by_revision(rank: Callable[[Obj], tuple[str, int]]) -> Callable[[Obj], tuple[Any, ...]]:
    """ReplicaSetsByRevision: lowest revision first, then oldest."""
    return lambda rs: (revision(rs), *rank(rs), meta(rs).get("name", ""))


def sort_by_size(rss: list[Obj], rank: Callable[[Obj], tuple[str, int]], newer_first: bool) -> list[Obj]:
    """ReplicaSetsBySizeNewer / BySizeOlder: the largest first; equal sizes newest (or oldest) first."""
    by_age = sorted(rss, key=by_creation(rank), reverse=newer_first)
    return sorted(by_age, key=replicas_of, reverse=True)


def cleanable(rs: Obj) -> bool:
    """Whether revision-history cleanup may delete this old ReplicaSet."""
    return (
        int_field(status(rs), "replicas") == 0
        and replicas_of(rs) == 0
        and not deleting(rs)
        and int_field(meta(rs), "generation") <= int_field(status(rs), "observedGeneration")
    )
