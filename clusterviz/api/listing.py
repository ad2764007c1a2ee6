"""The list verb: a collection, or a page of it, from the watch cache's objects or from the store.

kubectl reads a big collection in pages of 500 (see paging). A resource the watch cache keeps is paged from
its objects, which are decoded once and shared by every reader of the process: a page costs what its own
objects cost to send, not a copy of the whole collection, and an informer's first list decodes nothing
anew. Other resources, and callers that may change what they get, are answered from the store.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

from clusterviz.store import kv
from clusterviz.store.threads import in_thread

from . import errors, paging, watchcache
from .handlers import _indexed, _list, cluster_of, matches, ok, parse_selectors, render
from .request import ApiRequest, ApiResponse, ResourcePath

_events_since = in_thread(kv.events_since)
_list_page = in_thread(kv.list_page)
# Rows read at a time for a page whose selectors the store cannot apply.
SELECTIVE_READ = 500


async def list_(req: ApiRequest, rp: ResourcePath) -> ApiResponse:
    """GET on a collection: a List (or Table) of the objects that match the selectors, a page at a time when
    the client sets a limit."""
    resource = rp.resource
    cid = await cluster_of(req)
    label_sel, field_reqs = parse_selectors(req, resource)
    # Every key of the collection has this namespace (None: a list across namespaces).
    namespace = rp.namespace if rp.namespace or not resource.namespaced else None
    options = paging.parse(req.query, namespace)
    if options.revision is not None and options.revision != paging.LATEST:
        await _held(cid, options.revision, options.start, namespace)
    elif options.exact is not None:
        await _held(cid, options.exact, None, namespace)
    indexed = _indexed(field_reqs)
    # Only a caller that changes nothing it gets may hold the watch cache's own objects; for the others, the
    # store's fresh ones cost no more than copies would. A selection by name or node (a kubelet's Pods) is
    # a few rows the store's index finds, where the watch cache would look at every object.
    by_index = "name" in indexed or "node_name" in indexed
    follower = await watchcache.listing(cid, resource.key) if req.reads_only and not by_index else None

    def wanted(obj: dict[str, Any]) -> bool:
        return matches(obj, label_sel, field_reqs)

    if follower is not None:
        # From here to the reply nothing is awaited: the page is the watch cache's state at its head.
        keys = follower.objects.keys(resource.key, rp.namespace or None)
        first = 0 if options.start is None else bisect.bisect_left(keys, options.start)
        entries = ((where, follower.objects.shared(resource.key, where)) for where in keys[first:])
        revision, total = follower.head, len(keys) - first
        page, last = paging.take(entries, options.limit, wanted)
    elif options.limit:
        selective = label_sel is not None or bool(field_reqs)
        page, last, revision, total = await _store_page(
            cid, resource.key, rp.namespace or None, indexed, options, selective, wanted
        )
    else:
        items, revision = await _list(cid, resource.key, rp.namespace or None, **indexed)
        ordered = sorted(((paging.key_of(o), o) for o in items), key=lambda entry: entry[0])
        if options.start is not None:
            ordered = ordered[bisect.bisect_left(ordered, options.start, key=lambda entry: entry[0]):]
        total = len(ordered)
        page, last = paging.take(iter(ordered), 0, wanted)
    if options.revision is not None and options.revision != paging.LATEST:
        revision = options.revision  # every page of a listing reports its first page's revision
    body = render(req, resource, page, revision, single=False)
    if last is not None:
        body["metadata"]["continue"] = paging.token(revision, last, namespace)
        if label_sel is None and not field_reqs:
            # As etcd counts keys, not matches: only an unfiltered list says how many remain.
            body["metadata"]["remainingItemCount"] = total - options.limit
    return ok(body)


async def _store_page(
    cid: int,
    resource: str,
    namespace: str | None,
    indexed: dict[str, str],
    options: paging.Options,
    selective: bool,
    wanted: Callable[[dict[str, Any]], bool],
) -> tuple[list[dict[str, Any]], paging.Where | None, int, int]:
    """A page of a resource the watch cache does not keep, read from the store a row past what it still needs
    at a time (more when ``selective`` selectors may pass rows over): the page, the key of its last object
    when more follow, the revision of its first read and how many objects there were from its start."""
    page: list[dict[str, Any]] = []
    start = options.start
    revision = total = -1
    while True:
        needed = options.limit - len(page)
        # One row past the page says whether more follow, as the store's "more" does.
        rows = max(needed + 1, SELECTIVE_READ) if selective else needed + 1
        objects, read_at, count = await _list_page(cid, resource, namespace, start, rows, **indexed)
        if revision < 0:
            revision, total = read_at, count
        taken, last = paging.take(((paging.key_of(o), o) for o in objects), needed, wanted)
        page += taken
        if last is not None or len(objects) < rows:
            return page, last, revision, total
        last_read = paging.key_of(objects[-1])
        if len(page) == options.limit:  # full with the last row read
            return page, last_read if count > rows else None, revision, total
        start = (last_read[0], last_read[1] + "\x00")  # just after it, as a continue token starts


async def _held(cid: int, revision: int, start: paging.Where | None, namespace: str | None) -> None:
    """410 Expired when the watch log no longer holds ``revision`` (etcd compacted it): a continue token's,
    which comes back as one to go on from at the latest revision, or an exact read's."""
    try:
        await _events_since(cid, revision, 1)
    except kv.Compacted:
        if start is None:
            raise errors.expired(paging.EXPIRED_LIST) from None
        # The token's start is just after the key its page ended with; the new token starts there again.
        raise errors.expired(paging.INCONSISTENT_CONTINUE, continue_token=paging.resume(start, namespace)) from None
