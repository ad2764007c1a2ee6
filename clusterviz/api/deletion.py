"""DELETE: one object (gracefully for bound Pods, held by finalizers, a namespace marked Terminating) or a collection."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from clusterviz.apimachinery.unstructured import deep_copy, dict_or_empty, resource_version
from clusterviz.store import kv

from . import clock, codec, customresources, errors
from .handlers import (
    PATCH_RETRIES,
    _delete,
    _get,
    _indexed,
    _list,
    _update,
    cluster_of,
    matches,
    namespace_held,
    not_found,
    ok,
    parse_selectors,
    render,
    store_key,
    store_write,
    with_type,
)
from .request import ApiRequest, ApiResponse, ResourcePath
from .validation.priorityclass import SYSTEM_PRIORITY_CLASSES

# Namespaces the NamespaceLifecycle admission plugin never lets go.
IMMORTAL_NAMESPACES = ("default", "kube-system", "kube-public")
NAMESPACE_PURGE_PENDING = (
    "The system is ensuring all content is removed from this namespace.  "
    "Upon completion, this namespace will automatically be purged by the system."
)


def _delete_options(req: ApiRequest) -> dict[str, Any]:
    """The request's DeleteOptions (body), or none."""
    if req.payload is not None and isinstance(req.payload, dict):
        return req.payload
    if req.body.strip():
        return codec.decode_object(req.body, req.content_type or "application/json")
    return {}


async def delete(req: ApiRequest, rp: ResourcePath) -> ApiResponse:
    options = _delete_options(req)
    if rp.resource.kind == "Namespace" and rp.name in IMMORTAL_NAMESPACES:
        raise errors.forbidden_resource("namespaces", "", rp.name, "this namespace may not be deleted")
    if rp.resource.kind == "PriorityClass" and rp.name in SYSTEM_PRIORITY_CLASSES:
        raise errors.forbidden_resource(
            "priorityclasses", "scheduling.k8s.io", rp.name, "this is a system priority class and cannot be deleted"
        )
    cid = await cluster_of(req)
    if rp.resource.kind == "CustomResourceDefinition":
        await _delete_instances(req, rp, cid)
    return ok(with_type(rp.resource, await delete_object(req, rp, cid, options)))


async def _delete_instances(req: ApiRequest, rp: ResourcePath, cid: int) -> None:
    """What the definition's cleanup finalizer waits for: every object of its kind deleted first."""
    crd = await _get(cid, store_key(rp))
    stored = [r for r in customresources.resources_of(crd or {}) if not r.storage_version]
    if req.query.get("dryRun") or not stored:
        return
    items, _ = await _list(cid, stored[0].key, None)
    for item in items:
        meta = item["metadata"]
        try:
            await delete_object(req, ResourcePath(stored[0], meta.get("namespace", ""), meta["name"], ""), cid, {})
        except errors.StatusError as exc:
            if exc.code != 404:  # gone meanwhile
                raise


async def delete_object(req: ApiRequest, rp: ResourcePath, cid: int, options: dict[str, Any]) -> dict[str, Any]:
    """Delete one object as the registry does: graceful for bound Pods, held by finalizers, else at once."""
    resource = rp.resource
    preconditions = dict_or_empty(options.get("preconditions"))
    for _ in range(PATCH_RETRIES):
        old = await _get(cid, store_key(rp))
        if old is None:
            raise not_found(rp)
        if req.query.get("dryRun") or options.get("dryRun"):
            return old
        if resource.kind == "Namespace" and namespace_held(old):
            if (old.get("metadata") or {}).get("deletionTimestamp"):
                raise errors.conflict("namespaces", "", rp.name, NAMESPACE_PURGE_PENDING)
            try:
                return await _mark_namespace_terminating(req, rp, cid, old)
            except kv.RevisionConflict:
                continue
        grace = _grace_period(old, options, req)
        if not grace and not (old.get("metadata") or {}).get("finalizers"):
            break
        try:
            return await _mark_deleting(req, rp, cid, old, grace)
        except kv.RevisionConflict:
            continue  # the kubelet wrote status meanwhile; mark the fresh object, as the real server retries
    else:
        raise errors.conflict(resource.plural, resource.group, rp.name, errors.MODIFIED_CONFLICT)
    expected_rv = None
    if preconditions.get("resourceVersion"):
        try:
            expected_rv = int(preconditions["resourceVersion"])
        except (TypeError, ValueError):
            raise errors.bad_request("invalid precondition resourceVersion") from None
    uid = preconditions.get("uid") or None
    try:
        return await store_write(req, rp, "delete", rp.name, _delete, cid, store_key(rp), expected_rv, uid)
    except kv.KeyNotFound:
        raise not_found(rp) from None
    except kv.RevisionConflict:
        raise errors.conflict(
            resource.plural, resource.group, rp.name,
            "the UID in the precondition does not match the UID in record" if uid else errors.MODIFIED_CONFLICT,
        ) from None


async def _mark_namespace_terminating(
    req: ApiRequest, rp: ResourcePath, cid: int, old: dict[str, Any]
) -> dict[str, Any]:
    """The namespace registry's delete: Terminating now, gone once the namespace controller has emptied it."""
    new = deep_copy(old)
    new["metadata"]["deletionTimestamp"] = clock.rfc3339()
    new["metadata"]["deletionGracePeriodSeconds"] = 0
    new.setdefault("status", {})["phase"] = "Terminating"
    return await store_write(req, rp, "delete", rp.name, _update, cid, store_key(rp), new, resource_version(old))


def _grace_period(obj: dict[str, Any], options: dict[str, Any], req: ApiRequest) -> int:
    """Seconds a bound Pod gets to terminate; 0 deletes at once (everything else, unbound or finished Pods)."""
    if obj.get("kind") != "Pod":
        return 0
    spec = obj.get("spec") or {}
    if not spec.get("nodeName") or (obj.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return 0
    value = options.get("gracePeriodSeconds", req.query.get("gracePeriodSeconds"))
    if value in (None, ""):
        value = spec.get("terminationGracePeriodSeconds", 30)
    try:
        grace = int(value)
    except (TypeError, ValueError):
        raise errors.bad_request(f"invalid gracePeriodSeconds: {value!r}") from None
    meta = obj.get("metadata") or {}
    if meta.get("deletionTimestamp") and grace >= int(meta.get("deletionGracePeriodSeconds") or 0) > 0:
        # Already terminating with a shorter or equal grace period: nothing to change.
        return int(meta["deletionGracePeriodSeconds"])
    return max(grace, 0)


async def _mark_deleting(req: ApiRequest, rp: ResourcePath, cid: int, old: dict[str, Any], grace: int) -> dict[str, Any]:
    """Graceful deletion: set deletionTimestamp; the kubelet (or finalizer owner) finishes the job."""
    meta = old.get("metadata") or {}
    if meta.get("deletionTimestamp") and int(meta.get("deletionGracePeriodSeconds") or 0) == grace:
        return old
    new = deep_copy(old)
    new_meta = new["metadata"]
    moment = clock.now()
    if not new_meta.get("deletionTimestamp") or grace:
        new_meta["deletionTimestamp"] = clock.rfc3339(moment + timedelta(seconds=grace))
    new_meta["deletionGracePeriodSeconds"] = grace
    return await store_write(req, rp, "delete", rp.name, _update, cid, store_key(rp), new, resource_version(old))


async def delete_collection(req: ApiRequest, rp: ResourcePath) -> ApiResponse:
    resource = rp.resource
    if "deletecollection" not in resource.verbs:
        raise errors.method_not_allowed("deletecollection", resource.plural, resource.group)
    options = _delete_options(req)
    cid = await cluster_of(req)
    label_sel, field_reqs = parse_selectors(req, resource)
    items, _ = await _list(cid, resource.key, rp.namespace or None, **_indexed(field_reqs))
    deleted = []
    for item in items:
        if not matches(item, label_sel, field_reqs):
            continue
        meta = item["metadata"]
        if req.query.get("dryRun"):
            deleted.append(item)
            continue
        one = ResourcePath(resource, meta.get("namespace", ""), meta["name"], "")
        try:
            deleted.append(await delete_object(req, one, cid, options))
        except errors.StatusError as exc:
            if exc.code != 404:  # gone meanwhile: nothing to delete
                raise
    revision = max((resource_version(d) for d in deleted), default=0)
    return ok(render(req, resource, deleted, revision, single=False))
