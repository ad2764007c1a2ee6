"""Watch streams: list-then-watch from the store's log (read once per process, see watchcache), filtered per stream."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

from clusterviz.apimachinery import field, fields, labels
from clusterviz.store import kv
from clusterviz.store.threads import in_thread

from . import clock, errors, tables, watchcache
from .gate import TRIGGER_FIELDS
from .handlers import _indexed, _list, cluster_of, matches, parse_selectors, with_type
from .request import ApiRequest, ApiResponse, ResourcePath

_events_since = in_thread(kv.events_since)

# Bookmarks, for clients that allow them, at least this often while idle.
BOOKMARK_SECONDS = 10.0
# As the watch cache does, one more bookmark this long before a watch's timeout ends it,
# so a client resumes from the newest revision.
FINAL_BOOKMARK_LEAD = 2.0
# The real API server ends watches after a randomised 30-60 minutes; so do we, at 30.
MAX_WATCH_SECONDS = 1800.0
BATCH = 500


def _status_event(exc: errors.StatusError) -> dict[str, Any]:
    return {"type": "ERROR", "object": exc.status()}


async def watch(req: ApiRequest, rp: ResourcePath) -> ApiResponse:
    """Start a watch; bad parameters fail before the stream opens."""
    resource = rp.resource
    cid = await cluster_of(req)
    label_sel, field_reqs = parse_selectors(req, resource)
    rv_text = req.query.get("resourceVersion", "")
    start: int | None = None
    if rv_text not in ("", "0"):
        try:
            start = int(rv_text)
        except ValueError:
            raise errors.bad_request(f"invalid resource version: {rv_text!r}") from None
        if start < 0:
            raise errors.bad_request(f"invalid resource version: {rv_text!r}")
    _check_watch_list(req)
    initial = start is None or req.flag("sendInitialEvents")
    timeout = MAX_WATCH_SECONDS
    if req.query.get("timeoutSeconds"):
        try:
            timeout = min(float(req.query["timeoutSeconds"]), MAX_WATCH_SECONDS)
        except ValueError:
            raise errors.bad_request(f"invalid timeoutSeconds: {req.query['timeoutSeconds']!r}") from None
    if req.gate is not None:

        def classify(event: kv.Event) -> str:
            return _event_type(event, label_sel, field_reqs)

        # A component watching without a resourceVersion (an empty cluster lists at "0") starts from now.
        gated = await req.gate.watch(req, rp, -1 if start is None else start, classify, _trigger(resource.key, field_reqs))
        if gated is not None:
            return ApiResponse(200, stream=gated)
    stream = _stream(req, rp, cid, label_sel, field_reqs, start, initial, timeout, req.flag("allowWatchBookmarks"))
    return ApiResponse(200, stream=stream)


async def _stream(
    req: ApiRequest,
    rp: ResourcePath,
    cid: int,
    label_sel: labels.Selector | None,
    field_reqs: list[fields.Requirement],
    start: int | None,
    initial: bool,
    timeout: float,
    bookmarks: bool,
) -> AsyncIterator[dict[str, Any]]:
    resource = rp.resource
    include = req.query.get("includeObject", "Metadata")

    def shape(obj: dict[str, Any]) -> dict[str, Any]:
        if req.wants_table:
            return tables.build_table(
                resource.plural,
                [obj],
                clock.now(),
                include_object=include,
                resource_version=str(obj.get("metadata", {}).get("resourceVersion", "")),
                custom_columns=resource.custom.columns if resource.custom is not None else None,
            )
        return with_type(resource, obj)

    def bookmark(revision: int, initial_end: bool = False) -> dict[str, Any]:
        meta: dict[str, Any] = {"resourceVersion": str(revision)}
        if initial_end:
            meta["annotations"] = {"k8s.io/initial-events-end": "true"}
        return {
            "type": "BOOKMARK",
            "object": {"kind": resource.kind, "apiVersion": resource.group_version, "metadata": meta},
        }

    follower: watchcache.LogFollower | None = None
    try:
        deadline = time.monotonic() + timeout
        if initial:
            # Without a resourceVersion, or with sendInitialEvents (WatchList): the state now, which is
            # "not older than" any revision asked for, then the changes after it.
            try:
                items, revision = await _list(cid, resource.key, rp.namespace or None, **_indexed(field_reqs))
            except kv.StoreUnavailable:
                yield _status_event(errors.store_unavailable())
                return
            for obj in items:
                if matches(obj, label_sel, field_reqs):
                    yield {"type": "ADDED", "object": shape(obj)}
            if bookmarks and req.flag("sendInitialEvents"):
                yield bookmark(revision, initial_end=True)
        else:
            revision = start or 0
        follower = watchcache.acquire(cid, revision)
        last_sent = time.monotonic()
        final_bookmark = deadline - FINAL_BOOKMARK_LEAD if bookmarks and timeout > FINAL_BOOKMARK_LEAD else None
        while True:
            if revision < follower.floor:
                # Older than the shared reader remembers: catch up from the log in the database.
                try:
                    events = await _events_since(cid, revision, BATCH)
                except kv.Compacted as exc:
                    yield _status_event(errors.expired(str(exc)))
                    return
                except kv.StoreUnavailable:
                    yield _status_event(errors.store_unavailable())
                    return
            else:
                events = follower.since(revision)
            if not events and follower.failure is not None:
                try:
                    # The database may be back since the reader last failed: find out first.
                    await follower.refresh()
                    continue
                except kv.StoreUnavailable:
                    # As the real API server does when etcd fails under a watch: end it with a Status;
                    # clients watch again from the last resourceVersion they saw.
                    yield _status_event(errors.store_unavailable())
                    return
            for event in events:
                revision = event.revision
                if event.resource != resource.key or (rp.namespace and event.namespace != rp.namespace):
                    continue
                kind = _event_type(event, label_sel, field_reqs)
                if kind:
                    last_sent = time.monotonic()
                    yield {"type": kind, "object": shape(event.object)}
            if events and revision < follower.head:
                continue
            now = time.monotonic()
            remaining = deadline - now
            if remaining <= 0:
                return
            wake = remaining
            if bookmarks:
                due = last_sent + BOOKMARK_SECONDS if final_bookmark is None else min(last_sent + BOOKMARK_SECONDS, final_bookmark)
                wake = min(remaining, max(due - now, 0.0))
            await follower.wait(revision, wake)
            now = time.monotonic()
            final_due = final_bookmark is not None and now >= final_bookmark
            if bookmarks and (now - last_sent >= BOOKMARK_SECONDS or final_due):
                if final_due:
                    final_bookmark = None
                last_sent = now
                yield bookmark(revision)
    finally:
        if follower is not None:
            watchcache.release(follower)


def _check_watch_list(req: ApiRequest) -> None:
    """ValidateListOptions for sendInitialEvents: WatchList needs NotOlderThan and bookmarks."""
    if "sendInitialEvents" not in req.query:
        return
    problems = []
    if req.query.get("resourceVersionMatch") != "NotOlderThan":
        problems.append(
            field.forbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
        )
    if not req.flag("allowWatchBookmarks"):
        problems.append(
            field.forbidden("allowWatchBookmarks", "sendInitialEvents requires setting allowWatchBookmarks to true")
        )
    if problems:
        raise errors.invalid("ListOptions", "meta.k8s.io", "", problems)


def _trigger(resource: str, field_reqs: list[fields.Requirement]) -> str | None:
    """The value of ``resource``'s trigger field (``TRIGGER_FIELDS``) that the watch's field selector requires."""
    field = TRIGGER_FIELDS.get(resource)
    return next((r.value for r in field_reqs if r.field == field and r.operator == fields.EQUALS), None)


def _event_type(event: kv.Event, label_sel: labels.Selector | None, field_reqs: list[fields.Requirement]) -> str:
    """The event a filtered watcher sees: a change that leaves its selection is a DELETED.

    An unfiltered watcher's is the stored event's type, and the objects stay undecoded here.
    """
    if label_sel is None and not field_reqs:
        return event.type
    now_matches = matches(event.object, label_sel, field_reqs)
    previous = event.previous if event.type == "MODIFIED" else None
    if previous is None:
        return event.type if now_matches else ""
    was_matching = matches(previous, label_sel, field_reqs)
    if now_matches and was_matching:
        return "MODIFIED"
    if now_matches:
        return "ADDED"
    if was_matching:
        return "DELETED"
    return ""
