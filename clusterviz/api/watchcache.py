"""One reader of a cluster's watch log per process, shared by every watch stream of that cluster.

A page of the dashboard opens several watches, and a class of 100 opens hundreds. Each reading
the log from the database after every write made a write cost hundreds of queries. As
kube-apiserver's watch cache does with etcd, a :class:`LogFollower` reads each new stretch of the
log once, keeps the recent events in memory, and wakes the streams, which filter their share.
A stream that starts further back than the follower's memory catches up from the database first.
"""

from __future__ import annotations

import asyncio
import bisect
from typing import Any

from clusterviz.apimachinery.unstructured import deep_copy
from clusterviz.store import kv, notify
from clusterviz.store.threads import in_thread

from .objectcache import KEPT, ObjectCache

_events_since = in_thread(kv.events_since)
_current_revision = in_thread(kv.current_revision)
_get = in_thread(kv.get)
_list = in_thread(kv.list_objects)
_objects_in = in_thread(kv.objects_in)

BATCH = 500
# Events kept in memory per cluster, at most KEEP and about KEEP_BYTES of their stored JSON (a scheduling
# decision on 100 nodes is 300 KB); older revisions are read from the database. A Pod's event holds its
# object and the one before it, decoded at about 4.5 times their JSON's size (18 KB for a running Pod of
# 4 KB): 10,000 such events held about 350 MB, more than the latest objects of 10,000 Pods do, so the
# cache keeps a few seconds' worth of a busy cluster's writes, as kube-apiserver's does (100 events per
# resource to start with). A watch or a write hop's publishing that is further behind reads the log.
KEEP = 1000
KEEP_BYTES = 8 * 1024 * 1024
# After a failed read, wait this long before trying again.
RETRY_SECONDS = 1.0
# An update takes its old object from memory only when at most this many events came after it.
RECENT_EVENTS = 64


class LogFollower:
    """Follows one cluster's log from ``floor`` on; streams take the events after their revision."""

    def __init__(self, cid: int, floor: int) -> None:
        self.cid = cid
        self.floor = floor  # every event after this revision is in memory (until trimmed)
        self.head = floor
        self._revisions: list[int] = []
        self._events: list[kv.Event] = []
        self._bytes = 0
        self._woken = asyncio.Event()
        self._reading = asyncio.Lock()
        # Held while a resource is listed into ``objects``: the first readers of a resource (every informer
        # of a starting engine) wait for one listing and share its objects, rather than each load its own.
        self.loading = asyncio.Lock()
        self.failure: Exception | None = None
        self.users = 0
        self.loop = asyncio.get_running_loop()
        # Wakes whoever waits for the log to move (streams through ``wait``, the engine's gate).
        self.moved = asyncio.Event()
        # The latest object of each key of a few resources, as of ``head`` (see objectcache).
        self.objects = ObjectCache()
        self._subscription = notify.Subscription(cid)
        self._task = self.loop.create_task(self._run())

    def since(self, revision: int) -> list[kv.Event]:
        """The events after ``revision`` (which must not be below ``floor``)."""
        return self._events[bisect.bisect_right(self._revisions, revision) :]

    def stored_at(self, key: kv.Key, revision: int, *, shared: bool = False) -> dict[str, Any] | None:
        """A copy of ``key``'s object as written at ``revision``, if that event is among the last few here
        and none of them changed ``key`` again; None otherwise. With ``shared``, the event's object itself."""
        index = bisect.bisect_left(self._revisions, revision)
        if index == len(self._revisions) or self._revisions[index] != revision:
            return None
        if len(self._events) - index > RECENT_EVENTS:
            return None
        where = (key.resource, key.namespace, key.name)
        event = self._events[index]
        if event.type == "DELETED" or (event.resource, event.namespace, event.name) != where:
            return None
        if any((e.resource, e.namespace, e.name) == where for e in self._events[index + 1 :]):
            return None
        return event.object if shared else deep_copy(event.object)

    def current(self) -> bool:
        """Whether every revision this process wrote or heard of is here (taking over what its writes handed over)."""
        if self._reading.locked():
            return False  # a read of the log is under way, and appends what it found next
        self._absorb()
        return self.failure is None and self.head >= self._subscription.revision

    def keep(self, resource: str, items: list[dict[str, Any]], revision: int) -> bool:
        """Keep ``resource``'s objects from their listing at ``revision`` on; False when the events after it are gone."""
        if revision < self.floor:
            return False
        self.objects.load(resource, items, revision, self.since(revision))
        return True

    async def wait(self, revision: int, timeout: float) -> None:
        """Until the log moves past ``revision``, a read fails, or ``timeout`` passes."""
        while self.head <= revision and self.failure is None:
            woken = self._woken
            try:
                await asyncio.wait_for(woken.wait(), timeout)
            except TimeoutError:
                return

    def _wake(self) -> None:
        self._woken.set()
        self._woken = asyncio.Event()
        self.moved.set()

    async def refresh(self, upto: int | None = None) -> None:
        """Read the log past ``head`` now (or only if ``head`` is below ``upto``).

        Whoever reads first, every user then finds the events in memory: a write is read once.
        Raises StoreUnavailable when the database is away (``failure`` says so to the streams too).
        """
        async with self._reading:
            self._absorb()
            while upto is None or self.head < upto:
                try:
                    events = await _events_since(self.cid, self.head, BATCH)
                except kv.Compacted:
                    # Fell behind the log's retention: go on from now; older streams read the database.
                    self._restart(await _current_revision(self.cid))
                    continue
                except kv.StoreUnavailable as exc:
                    self.failure = exc
                    self._wake()
                    raise
                self.failure = None
                if events:
                    self._append(events)
                    self._wake()
                if len(events) < BATCH:
                    return

    def _absorb(self) -> None:
        """Take the events this process's writes handed over, as far as they continue the log."""
        taken: list[kv.Event] = []
        for event in self._subscription.take():
            if event.revision == self.head + len(taken) + 1:
                taken.append(event)
            # An older one is in memory already; after a gap, ``refresh`` reads the rest from the log.
        if taken:
            self._append(taken)
            self._wake()

    async def _run(self) -> None:
        subscription = self._subscription
        try:
            while True:
                try:
                    await self.refresh()
                except kv.StoreUnavailable:
                    # Try again after a while, or at once when a write of this process commits.
                    await subscription.wait(RETRY_SECONDS)
                    continue
                # Woken by every write; one whose events were handed over costs no read.
                while True:
                    self._absorb()
                    if subscription.revision > self.head or subscription.unreachable:
                        subscription.unreachable = False
                        break
                    await subscription.wait()
        finally:
            subscription.close()

    def _append(self, events: list[kv.Event]) -> None:
        self._events.extend(events)
        self._revisions.extend(e.revision for e in events)
        self._bytes += sum(e.size for e in events)
        self.head = events[-1].revision
        self.objects.apply(events)
        if len(self._events) > 2 * KEEP or self._bytes > 2 * KEEP_BYTES:
            # Trim in big steps, so that the copy is rare.
            cut = max(len(self._events) - KEEP, 0)
            kept = sum(e.size for e in self._events[cut:])
            while kept > KEEP_BYTES and cut < len(self._events) - 1:
                kept -= self._events[cut].size
                cut += 1
            if cut:
                self.floor = self._revisions[cut - 1]
                self.objects.release(self._events[:cut])
                del self._events[:cut], self._revisions[:cut]
            self._bytes = kept

    def _restart(self, revision: int) -> None:
        self.objects.reset()
        self._events.clear()
        self._revisions.clear()
        self._bytes = 0
        self.floor = self.head = revision

    def close(self) -> None:
        """Stop reading (the last stream left)."""
        self._task.cancel()


_followers: dict[tuple[Any, int], LogFollower] = {}


def acquire(cid: int, revision: int) -> LogFollower:
    """The running loop's follower of cluster ``cid`` (started at ``revision`` if there is none yet)."""
    key = (asyncio.get_running_loop(), cid)
    follower = _followers.get(key)
    if follower is None:
        follower = _followers[key] = LogFollower(cid, revision)
    follower.users += 1
    return follower


def stored_at(cid: int, key: kv.Key, revision: int, *, shared: bool = False) -> dict[str, Any] | None:
    """``key``'s object at ``revision`` from the running loop's follower of cluster ``cid`` (None: read the store).

    As kube-apiserver's update starts from its watch cache's copy, an update that names the revision it
    read needs no read of the store: the object at a revision never changes, and the store's write still
    checks that the revision is current. With ``shared``, the cache's object itself, which the caller must
    neither change nor hand on.
    """
    follower = _followers.get((asyncio.get_running_loop(), cid))
    return None if follower is None else follower.stored_at(key, revision, shared=shared)


def _keeping(cid: int, resource: str) -> LogFollower | None:
    """The running loop's follower of cluster ``cid``, if it may answer a read of ``resource`` now."""
    if resource not in KEPT:
        return None
    follower = _followers.get((asyncio.get_running_loop(), cid))
    return follower if follower is not None and follower.current() else None


async def _loaded(follower: LogFollower, resource: str) -> bool:
    """Whether ``follower`` keeps ``resource``, listing it from the store first if it does not yet."""
    if follower.objects.has(resource):
        return True
    async with follower.loading:
        if follower.objects.has(resource):
            return True
        items, revision = await _list(follower.cid, resource, None)
        return follower.keep(resource, items, revision)


async def _answers(follower: LogFollower, resource: str) -> bool:
    """Whether ``follower`` keeps ``resource`` (see ``_loaded``) and is current."""
    return await _loaded(follower, resource) and follower.current()


async def get(cid: int, key: kv.Key, *, shared: bool = False) -> dict[str, Any] | None:
    """``key``'s object as this process last knows it: from the follower's objects, else from the store.

    For admission's look-ups and the object an update or patch starts from; a write based on it is
    refused when it is stale (see objectcache). A key not found there is looked for in the store.
    With ``shared``, the follower's object itself, which the caller must neither change nor hand on.
    """
    follower = _keeping(cid, key.resource)
    if follower is not None and await _answers(follower, key.resource):
        found = follower.objects.get(key, shared=shared)
        if found is not None:
            return found
    return await _get(cid, key)


async def listing(cid: int, resource: str) -> LogFollower | None:
    """The running loop's follower of cluster ``cid``, caught up with the store's current revision and keeping
    ``resource``; None when there is none, or it cannot answer now (the store then does).

    As kube-apiserver serves a consistent list from its watch cache once the cache has caught up with etcd's
    revision, a list (or a page of one) read from ``objects`` right away, without awaiting anything in
    between, is the state at ``head``: no copy of the collection is made, and no object decoded twice.
    """
    follower = _followers.get((asyncio.get_running_loop(), cid)) if resource in KEPT else None
    if follower is None:
        return None
    await follower.refresh(await _current_revision(cid))
    return follower if await _loaded(follower, resource) else None


async def objects(cid: int, resource: str, namespace: str | None) -> list[dict[str, Any]]:
    """``resource``'s objects (of one namespace, or all) by namespace and name, as ``get`` reads them."""
    follower = _keeping(cid, resource)
    if follower is not None and await _answers(follower, resource):
        return follower.objects.objects(resource, namespace)
    if namespace is None:
        return (await _list(cid, resource, None))[0]
    return await _objects_in(cid, resource, namespace)


def release(follower: LogFollower) -> None:
    """A stream is done with its follower; the last one out stops it."""
    follower.users -= 1
    if follower.users <= 0:
        _followers.pop((follower.loop, follower.cid), None)
        follower.close()
