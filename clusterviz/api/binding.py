"""POST pods/<name>/binding: the subresource through which the scheduler places a Pod."""

from __future__ import annotations

from clusterviz.apimachinery.field import required
from clusterviz.apimachinery.unstructured import deep_copy, resource_version
from clusterviz.store import kv

from . import clock, codec, errors, watchcache
from .handlers import PATCH_RETRIES, _get, _update, cluster_of, not_found, ok, store_key, store_write
from .request import ApiRequest, ApiResponse, ResourcePath


async def bind(req: ApiRequest, rp: ResourcePath) -> ApiResponse:
    """POST pods/<name>/binding: the scheduler's (or anyone's) placement of a Pod."""
    body = req.payload if isinstance(req.payload, dict) else codec.decode_object(req.body, req.content_type)
    target = body.get("target") if isinstance(body.get("target"), dict) else None
    node = target.get("name") if target else None
    if not isinstance(node, str) or not node:
        raise errors.invalid("Binding", "", rp.name, [required("target.name")])
    cid = await cluster_of(req)
    for attempt in range(PATCH_RETRIES):
        # The watch cache's object first (shared: the binding copies it below); a binding based on an object
        # that is behind conflicts, and reads the store.
        cached = attempt == 0 and not req.query.get("dryRun")
        old = await watchcache.get(cid, store_key(rp), shared=True) if cached else await _get(cid, store_key(rp))
        if old is None:
            raise not_found(rp)
        if (old.get("metadata") or {}).get("deletionTimestamp"):
            raise errors.conflict("pods/binding", "", rp.name, f"pod {rp.name} is being deleted, cannot be assigned to a host")
        current = (old.get("spec") or {}).get("nodeName")
        if current:
            raise errors.conflict("pods/binding", "", rp.name, f'pod {rp.name} is already assigned to node "{current}"')
        new = deep_copy(old)
        new["spec"]["nodeName"] = node
        conditions = [c for c in (new.get("status") or {}).get("conditions") or [] if c.get("type") != "PodScheduled"]
        conditions.append({"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                           "lastTransitionTime": clock.rfc3339()})
        new.setdefault("status", {})["conditions"] = conditions
        # ClearingNominatedNodeNameAfterBinding (on by default since v1.35): a bound Pod is nominated nowhere.
        new["status"].pop("nominatedNodeName", None)
        if req.query.get("dryRun"):
            break
        try:
            await store_write(req, rp, "bind", rp.name, _update, cid, store_key(rp), new, resource_version(old))
        except kv.RevisionConflict:
            continue
        break
    return ok({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}, 201)
