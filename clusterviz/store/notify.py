"""Wake-ups for watchers after a write commits.

A wake-up says "cluster N reached revision R". Subscribers in this process are
woken directly, with the events of the write, so that they need not read it
back; other processes learn through one channel-layer group, which each event
loop with subscribers joins (with Redis; the in-memory layer has no other
processes to hear from), and read the log themselves. A message of that group
names every cluster a batch of writes moved, with its revision: one message per
batch however many clusters it wrote, and each listener wakes only the clusters
watched in its loop. One poll per event loop finds what a lost or impossible
wake-up missed, so a wake-up delays an event at worst, never loses it.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from channels.layers import BaseChannelLayer, get_channel_layer
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

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


# The channel-layer group carrying every process's wake-ups.
GROUP = "clusterviz-revisions"


# How often a member joins its group again, well within the layer's ``group_expiry`` (settings):
# a member that stops (its process died) is dropped, and one that Redis forgot (a restart) is back.
RENEW_SECONDS = 20.0


async def membership(group: str, channel: str) -> None:
    """Keep ``channel`` in the channel-layer ``group`` until cancelled, joining again every ``RENEW_SECONDS``."""
    layer = channel_layer()
    while True:
        try:
            await layer.group_add(group, channel)
        except Exception:  # noqa: BLE001 - Redis is away: the next round joins again
            log.warning("could not join the channel-layer group %s", group, exc_info=True)
        await asyncio.sleep(RENEW_SECONDS)  # wall-clock: the layer's group expiry runs in real time


class _Listener:
    """One event loop's channel in the wake-up group, woken by other processes' writes.

    Each message wakes the watchers of the clusters it names that are watched in this loop; the
    others' watchers are in other processes.
    """

    RETRY_SECONDS = 1.0

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.clusters: set[int] = set()
        self.channel = ""
        # Kept referenced: the loop holds only weak references to its tasks.
        self.tasks = {loop.create_task(self._receive())}

    def join(self, cid: int) -> None:
        """Hear about ``cid``'s writes."""
        self.clusters.add(cid)

    def _wake(self, message: dict[str, Any]) -> None:
        """Wake the watchers of the clusters ``message`` names that this loop watches."""
        for cid, revision in message["revisions"]:
            if cid in self.clusters:
                wake_local(int(cid), int(revision))

    async def _receive(self) -> None:
        layer = channel_layer()
        while True:
            try:
                if not self.channel:
                    self.channel = await layer.new_channel()
                    self.tasks.add(self.loop.create_task(membership(GROUP, self.channel)))
                self._wake(await layer.receive(self.channel))
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - Redis went away: watchers poll meanwhile
                log.warning("lost the channel layer; retrying", exc_info=True)
                await asyncio.sleep(self.RETRY_SECONDS)  # wall-clock: waiting for Redis to come back


_listeners: dict[asyncio.AbstractEventLoop, _Listener] = {}


def _listen(cid: int) -> None:
    """Make this event loop hear other processes' writes to ``cid``."""
    if not settings.REDIS_URL:
        return
    loop = asyncio.get_running_loop()
    loops.entry(_listeners, lambda: _Listener(loop)).join(cid)


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
_outbox: queue.SimpleQueue[tuple[int, int]] = queue.SimpleQueue()
_publisher: threading.Thread | None = None


def _publish_forever() -> None:
    """Send queued wake-ups to the channel layer, from an event loop of this thread's own.

    Writers only queue them: a writer never waits for Redis, nor for an event loop that may be
    shutting down (which would keep the process from exiting). The wake-ups queued meanwhile
    go as one message, with each cluster's latest revision.
    """
    loop = asyncio.new_event_loop()
    layer = channel_layer()
    while True:
        latest = dict([_outbox.get()])
        # The wake-ups of the next few milliseconds' commits go in the same message: each message costs
        # Redis, and every process of the group, a command to send or receive it.
        time.sleep(GATHER_SECONDS)  # wall-clock: the other processes' watchers wait in real time
        while not _outbox.empty():
            cid, revision = _outbox.get()
            latest[cid] = max(revision, latest.get(cid, 0))
        # Pairs rather than a mapping: the layer's msgpack reads back only string keys.
        message = {"type": "revisions.written", "revisions": sorted(latest.items())}
        try:
            loop.run_until_complete(layer.group_send(GROUP, message))
        except Exception:  # noqa: BLE001 - a lost wake-up only delays watchers, who also poll
            log.warning("could not publish the revisions %s", latest, exc_info=True)


def publish(cid: int, revision: int, events: Sequence[Any] = ()) -> None:
    """Announce that cluster ``cid`` reached ``revision`` (with the events of this process's write)."""
    global _publisher
    wake_local(cid, revision, events)
    if not settings.REDIS_URL:
        return
    with _lock:
        if _publisher is None:
            # A daemon: wake-ups still queued when the process exits are not worth waiting for.
            _publisher = threading.Thread(target=_publish_forever, name="wake-up publisher", daemon=True)
            _publisher.start()
    _outbox.put((cid, revision))
