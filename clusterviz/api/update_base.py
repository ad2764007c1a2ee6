"""Where an update or a patch starts from: the object it replaces, from memory when that is safe.

A write names the revision it replaces, so the store refuses one that started from a copy that is
behind, exactly as it refuses a client's stale read: the handler then starts again from the store.
"""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import resource_version
from clusterviz.store import kv
from clusterviz.store.threads import in_thread

from . import errors, objectcache, watchcache
from .request import ApiRequest, ResourcePath

_get = in_thread(kv.get)


def precondition_resource_version(obj: Any) -> int | None:
    """The resourceVersion a body names as its precondition; None when it names none (or is no object)."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    value = meta.get("resourceVersion") if isinstance(meta, dict) else None
    if value in (None, ""):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise errors.bad_request(f"invalid resourceVersion {value!r}") from None


def own_metadata(body: dict[str, Any]) -> dict[str, Any]:
    """An update's body with a top level and a metadata of its own, the rest shared with ``body``.

    An update changes only those two before its ``strategy.prepare_for_*`` copies what it keeps of the
    body, so the caller's body stays as it was without being copied whole.
    """
    meta = body.get("metadata")
    return {**body, "metadata": {**meta}} if isinstance(meta, dict) else {**body}


def charges_quota(rp: ResourcePath) -> bool:
    """Whether an update of ``rp`` charges ResourceQuotas before it is stored."""
    return rp.resource.kind in ("PersistentVolumeClaim", "Service") and rp.sub == ""


def patches_cached_copy(req: ApiRequest, kind: str, body: Any) -> bool:
    """Whether a patch may start from the watch cache's copy of its object (``watchcache.get``).

    A merge or strategic patch's write names the copy's revision, so the store refuses it if the copy is
    behind, and the patch starts again from the store. A dry run writes nothing to check it by, and
    server-side apply, a JSON patch's tests and a patch naming a resourceVersion can refuse the patch
    on what the copy says: those read the store.
    """
    if req.query.get("dryRun") or kind not in ("merge", "strategic"):
        return False
    return precondition_resource_version(body) is None


async def still_stored(cid: int, key: kv.Key, copy: dict[str, Any]) -> bool:
    """Whether ``copy`` is the revision of ``key``'s object that is stored now."""
    current = await _get(cid, key)
    return current is not None and resource_version(current) == resource_version(copy)


async def remembered_old(
    req: ApiRequest, cid: int, rp: ResourcePath, key: kv.Key, precondition: int | None
) -> dict[str, Any] | None:
    """The object an update of ``key`` replaces, from the watch cache, when the update names its revision.

    A kubelet renewing its Lease, or a controller writing a status, sends what it last read or wrote; that
    revision's object is in memory (among the last events, or as the latest object of a kept resource), and
    a stale one only makes the store's write conflict, as a fresh read would have. A dry run, and an update
    that charges quotas first, read the store: neither may act on a copy that a write would have found stale.
    It is the watch cache's object itself, as a patch's is: an update only reads the object it replaces, and
    the caller must neither change it nor hand it on.
    """
    if precondition is None or req.query.get("dryRun") or charges_quota(rp):
        return None
    recent = watchcache.stored_at(cid, key, precondition, shared=True)
    if recent is not None or key.resource not in objectcache.KEPT:
        return recent
    kept = await watchcache.get(cid, key, shared=True)
    return kept if kept is not None and resource_version(kept) == precondition else None
