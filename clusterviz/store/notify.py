"""Wake-ups for watchers after a write commits.

A wake-up says "cluster N reached revision R". Subscribers in this process are woken directly, with
the events of the write, so that they need not read it back; other processes learn through one Redis
pub/sub channel, to which each event loop with subscribers listens (with Redis; without it there are
no other processes to hear from). A message on that channel names every cluster a batch of writes
moved, with its revision and the JSON of its events: one message per batch however many clusters it
wrote, and each listener wakes only the clusters watched in its loop, handing them the events, so
that a web process serving the watches of clusters whose engines run in workers need not read back
from the database every event they write (it reads the log only after a gap: a lost message, or one
too big to carry its events). Pub/sub costs Redis one command per message, and a listener none
(Redis pushes to its connection), where a channel-layer group cost each member four commands per
message. One poll per event loop finds what a lost or impossible wake-up missed (pub/sub keeps
nothing for a listener that is away), so a wake-up delays an event at worst, never loses it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import queue
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import orjson
import redis
import redis.asyncio
from channels.layers import BaseChannelLayer, get_channel_layer
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connection

from . import loops

log = logging.getLogger(__name__)

_lock = threading.Lock()
_waiters: dict[int, set[tuple[asyncio.AbstractEventLoop, Subscription]]] = defaultdict(set)


def channel_layer() -> BaseChannelLayer:
    """The process's channel layer (the settings always configure one: in memory, or Redis)."""
    layer = get_channel_layer()
    if layer is None:
        raise ImproperlyConfigured("CHANNEL_LAYERS has no default layer")
    return layer


def wake_up_channel() -> str:
    """The Redis pub/sub channel carrying the wake-ups of every process on this database.

    Named after the database: the processes of another one (a second class, a test run) may share the
    Redis server, and their cluster ids name other clusters.
    """
    db = connection.settings_dict
    return f"clusterviz-revisions:{db.get('HOST') or ''}:{db.get('PORT') or ''}/{db['NAME']}"

# How long a listener that lost Redis waits before subscribing again.
RETRY_SECONDS = 1.0
# RESP2, not redis-py's default RESP3: with RESP3 every pub/sub message is a push message, which redis-py
# turns into a string for a debug log line whether or not it logs it (a wake-up carries events, so that
# cost a listener more than reading the message).
PROTOCOL = 2

_clients: dict[asyncio.AbstractEventLoop, redis.asyncio.Redis] = {}


def redis_client() -> redis.asyncio.Redis:
    """The running event loop's client of Redis (``REDIS_URL``), its connections pooled and named after
    this process (``CLIENT LIST`` tells whose they are)."""
    return loops.entry(
        _clients, lambda: redis.asyncio.Redis.from_url(
            settings.REDIS_URL, client_name=f"clusterviz-{os.getpid()}", protocol=PROTOCOL
        )
    )


class Listening:
    """Hands each message published on a Redis channel to ``take``, in this event loop, until closed.

    A listener that loses Redis subscribes again after ``RETRY_SECONDS``; what was published meanwhile
    is not kept for it. ``subscribed`` is set while messages reach it.
    """

    def __init__(self, channel: str, take: Callable[[bytes], None]) -> None:
        self.channel = channel
        self.take = take
        self.subscribed = asyncio.Event()
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            pubsub = redis_client().pubsub()
            try:
                await pubsub.subscribe(self.channel)
                async for message in pubsub.listen():
                    if message["type"] == "subscribe":
                        self.subscribed.set()
                    elif message["type"] == "message":
                        self.take(message["data"])
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - Redis went away: subscribe again shortly
                log.warning("lost Redis while listening on %s; retrying", self.channel, exc_info=True)
            finally:
                self.subscribed.clear()
                with contextlib.suppress(Exception):  # Redis may be the failure
                    await pubsub.aclose()
            await asyncio.sleep(RETRY_SECONDS)  # wall-clock: waiting for Redis to come back

    def close(self) -> None:
        """Stop listening."""
        self.task.cancel()


class _Listener:
    """One event loop's listener to the wake-ups of other processes' writes.

    Each message wakes the watchers of the clusters it names that are watched in this loop; the
    others' watchers are in other processes.
    """

    def __init__(self) -> None:
        self.clusters: set[int] = set()
        self.listening = Listening(wake_up_channel(), self._wake)

    def join(self, cid: int) -> None:
        """Hear about ``cid``'s writes."""
        self.clusters.add(cid)

    def _wake(self, data: bytes) -> None:
        """Wake the watchers of the clusters the message names that this loop watches, with their events."""
        sender, clusters, body = _parse(data)
        if sender == SENDER:
            return  # this process's own writes woke its watchers at commit
        for cid, revision, start, end in clusters:
            if cid in self.clusters:
                wake_local(cid, revision, _events(body[start:end]) if end > start else ())


_listeners: dict[asyncio.AbstractEventLoop, _Listener] = {}


def _listen(cid: int) -> None:
    """Make this event loop hear other processes' writes to ``cid``."""
    if not settings.REDIS_URL:
        return
    loops.entry(_listeners, _Listener).join(cid)


class Subscription:
    """Woken whenever the cluster's revision moves, here or in another process.

    ``revision`` is the highest revision announced so far, so a subscriber that has already read
    that far (its own process's write) need not read the log again.
    """

    def __init__(self, cid: int) -> None:
        self.cid = cid
        self.loop = asyncio.get_running_loop()
        self.event = asyncio.Event()
        self.revision = 0
        # Events this process wrote, handed over at commit (those of other processes must be read).
        self.events: list[Any] = []
        # Set when the database did not answer the poll: the subscriber should find out by reading.
        self.unreachable = False
        with _lock:
            _waiters[cid].add((self.loop, self))
        _listen(cid)
        loops.keep_running(_pollers, lambda: _poll_forever(self.loop))

    def _woken(self, revision: int, events: list[Any]) -> None:
        self.revision = max(self.revision, revision)
        self.events.extend(events)
        self.event.set()

    def _unreachable(self) -> None:
        self.unreachable = True
        self.event.set()

    def take(self) -> list[Any]:
        """The events handed over since the last call, in the order their transactions committed."""
        taken, self.events = self.events, []
        return taken

    async def wait(self, timeout: float | None = None) -> bool:
        """Wait until woken or ``timeout`` seconds pass; True if woken."""
        try:
            await asyncio.wait_for(self.event.wait(), timeout)
        except TimeoutError:
            return False
        self.event.clear()
        return True

    def close(self) -> None:
        with _lock:
            _waiters[self.cid].discard((self.loop, self))


def wake_local(cid: int, revision: int, events: Sequence[Any] = ()) -> None:
    """Wake this process's subscribers of cluster ``cid``, which reached ``revision`` (any thread).

    ``events`` are the store's events of a write committed in this process, if known.
    """
    with _lock:
        _known[cid] = max(revision, _known.get(cid, 0))
        waiters = list(_waiters.get(cid, ()))
    by_loop: dict[asyncio.AbstractEventLoop, list[Subscription]] = defaultdict(list)
    for loop, subscription in waiters:
        by_loop[loop].append(subscription)
    handed = tuple(events)  # as they are now: the writer's list is its own to reuse
    # One hand-over per event loop, not per subscriber: each wakes the loop through its self-pipe.
    for loop, subscriptions in by_loop.items():
        try:
            loop.call_soon_threadsafe(_wake_all, subscriptions, revision, handed)
        except RuntimeError:  # the loop has closed; its subscribers are gone
            with _lock:
                for subscription in subscriptions:
                    _waiters[cid].discard((loop, subscription))


def _wake_all(subscriptions: list[Subscription], revision: int, events: Sequence[Any]) -> None:
    for subscription in subscriptions:
        subscription._woken(revision, list(events))


# The latest revision this process has heard of, per cluster (its own writes and announcements).
_known: dict[int, int] = {}
# Writes by processes that cannot announce them (no Redis, or a lost wake-up) are found by this
# poll: one query for every cluster subscribed in the loop, not one per cluster or per subscriber.
POLL_SECONDS = 0.5
_pollers: dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = {}


async def _poll_forever(loop: asyncio.AbstractEventLoop) -> None:
    # kv and threads import this module.
    from .kv import revisions
    from .threads import in_thread

    while True:
        await asyncio.sleep(POLL_SECONDS)  # wall-clock: other processes' writes arrive in real time
        with _lock:
            cids = sorted(cid for cid, waiters in _waiters.items() if any(w[0] is loop for w in waiters))
        if not cids:
            return
        try:
            current = await in_thread(revisions)(cids)
        except Exception:  # noqa: BLE001 - whatever failed, the database did not answer
            # Subscribers read the log to learn it is away (and say so to their watchers).
            with _lock:
                waiting = [w for cid in cids for w in _waiters.get(cid, ()) if w[0] is loop]
            for _, subscription in waiting:
                subscription._unreachable()
            continue
        for cid, revision in current.items():
            if revision > _known.get(cid, 0):
                wake_local(cid, revision)


# Wake-ups for other processes wait here for the publisher thread.
GATHER_SECONDS = 0.01
# Past this many bytes of events, a message names the rest of its clusters' revisions without their
# events (their watchers in other processes read them from the log): Redis drops a subscriber that
# falls 32 MiB behind, and a big message holds up every listener while it is read.
EVENTS_MAX_BYTES = 1 << 20
# Who sent a message: a listener skips its own process's, whose watchers were woken at commit.
SENDER = uuid.uuid4().hex
# An event as it crosses processes: revision, type, resource, namespace, name, object's and previous's JSON.
Row = tuple[int, str, str, str, str, str, str | None]
_outbox: queue.SimpleQueue[tuple[int, int, Sequence[Row]]] = queue.SimpleQueue()
_publisher: threading.Thread | None = None


def _message(latest: dict[int, int], rows: dict[int, list[Row]]) -> bytes:
    """One wake-up message: a JSON header line naming each cluster's revision and where its events are, then
    the events' JSON one cluster after the other (a listener decodes only those of the clusters it watches)."""
    header: list[tuple[int, int, int, int]] = []
    blobs: list[bytes] = []
    size = 0
    for cid, revision in sorted(latest.items()):
        blob = orjson.dumps(rows[cid]) if cid in rows and size < EVENTS_MAX_BYTES else b""
        header.append((cid, revision, size, size + len(blob)))
        blobs.append(blob)
        size += len(blob)
    return b"\n".join([orjson.dumps({"from": SENDER, "clusters": header}), b"".join(blobs)])


def _parse(data: bytes) -> tuple[str, list[tuple[int, int, int, int]], memoryview]:
    """A wake-up message's sender, clusters (id, revision, start and end of their events) and events' bytes."""
    head, _, body = data.partition(b"\n")
    header = orjson.loads(head)
    return header["from"], [(int(c), int(r), int(s), int(e)) for c, r, s, e in header["clusters"]], memoryview(body)


def _events(blob: memoryview) -> list[Any]:
    """The store's events of a cluster as another process sent them."""
    from .kv import Event  # kv imports this module

    return [Event(*row) for row in orjson.loads(blob)]


def _publish_forever() -> None:
    """Send queued wake-ups to Redis, with a client of this thread's own.

    Writers only queue them: a writer never waits for Redis, nor for an event loop that may be
    shutting down (which would keep the process from exiting). The wake-ups queued meanwhile
    go as one message, with each cluster's latest revision and its events in order; a cluster
    one of whose writes came without its events goes without any, and its watchers read the log.
    """
    client = redis.Redis.from_url(settings.REDIS_URL, protocol=PROTOCOL)
    channel = wake_up_channel()
    while True:
        queued = [_outbox.get()]
        # The wake-ups of the next few milliseconds' commits go in the same message: each message costs
        # Redis, and every listening process, a message to send or read.
        time.sleep(GATHER_SECONDS)  # wall-clock: the other processes' watchers wait in real time
        while not _outbox.empty():
            queued.append(_outbox.get())
        latest: dict[int, int] = {}
        rows: dict[int, list[Row]] = {}
        incomplete: set[int] = set()
        for cid, revision, written in queued:
            latest[cid] = max(revision, latest.get(cid, 0))
            if written:
                rows.setdefault(cid, []).extend(written)
            else:
                incomplete.add(cid)
        for cid in incomplete:
            rows.pop(cid, None)
        try:
            client.publish(channel, _message(latest, rows))
        except Exception:  # noqa: BLE001 - a lost wake-up only delays watchers, who also poll
            log.warning("could not publish the revisions %s", latest, exc_info=True)


def publish(cid: int, revision: int, events: Sequence[Any] = (), rows: Sequence[Row] = ()) -> None:
    """Announce that cluster ``cid`` reached ``revision``, with the events of this process's write (``rows``:
    the same events as they travel to other processes)."""
    global _publisher
    wake_local(cid, revision, events)
    if not settings.REDIS_URL:
        return
    with _lock:
        if _publisher is None:
            # A daemon: wake-ups still queued when the process exits are not worth waiting for.
            _publisher = threading.Thread(target=_publish_forever, name="wake-up publisher", daemon=True)
            _publisher.start()
    _outbox.put((cid, revision, rows))
