"""Wake-ups for watchers after a write commits.

A wake-up only says "cluster N reached revision R"; watchers always read the
log itself, so a lost wake-up delays an event but never loses it. Watchers in
this process are woken directly; other processes learn through the channel
layer group of the cluster, which each event loop with watchers joins (with
Redis; the in-memory layer has no other processes to hear from).
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections import defaultdict

from channels.layers import BaseChannelLayer, get_channel_layer
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

log = logging.getLogger(__name__)

_lock = threading.Lock()
_waiters: dict[int, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = defaultdict(set)


def channel_layer() -> BaseChannelLayer:
    """The process's channel layer (the settings always configure one: in memory, or Redis)."""
    layer = get_channel_layer()
    if layer is None:
        raise ImproperlyConfigured("CHANNEL_LAYERS has no default layer")
    return layer


def group_name(cid: int) -> str:
    """The channel-layer group carrying a cluster's wake-ups."""
    return f"cluster-{cid}"


class _Listener:
    """One event loop's channel on the channel layer, woken by other processes' writes.

    It joins the group of each cluster watched in its loop and wakes that cluster's watchers
    whenever a message arrives.
    """

    RETRY_SECONDS = 1.0

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.clusters: set[int] = set()
        self.channel: asyncio.Future[str] = loop.create_future()
        self.tasks = {loop.create_task(self._receive())}

    def join(self, cid: int) -> None:
        """Hear about ``cid``'s writes (again: joining renews the group membership's expiry)."""
        self.clusters.add(cid)
        task = self.loop.create_task(self._join([cid]))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _join(self, cids: list[int]) -> None:
        channel = await asyncio.shield(self.channel)
        try:
            for cid in cids:
                await channel_layer().group_add(group_name(cid), channel)
        except Exception:  # noqa: BLE001 - without the group, watchers still poll the log
            log.warning("could not join the wake-up groups of clusters %s", cids, exc_info=True)

    async def _receive(self) -> None:
        layer = channel_layer()
        while True:
            try:
                if not self.channel.done():
                    self.channel.set_result(await layer.new_channel())
                message = await layer.receive(self.channel.result())
                wake_local(int(message["cluster"]))
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - Redis went away: watchers poll meanwhile
                log.warning("lost the channel layer; retrying", exc_info=True)
                await asyncio.sleep(self.RETRY_SECONDS)  # wall-clock: waiting for Redis to come back
                # Redis may have lost the memberships (a restart); join again.
                await self._join(sorted(self.clusters))


_listeners: dict[asyncio.AbstractEventLoop, _Listener] = {}


def _listen(cid: int) -> None:
    """Make this event loop hear other processes' writes to ``cid``."""
    if not settings.REDIS_URL:
        return
    loop = asyncio.get_running_loop()
    for closed in [other for other in _listeners if other.is_closed()]:
        del _listeners[closed]  # the event loops of finished tests
    if loop not in _listeners:
        _listeners[loop] = _Listener(loop)
    _listeners[loop].join(cid)


class Subscription:
    """An asyncio.Event set whenever the cluster's revision moves, here or in another process."""

    def __init__(self, cid: int) -> None:
        self.cid = cid
        self.loop = asyncio.get_running_loop()
        self.event = asyncio.Event()
        with _lock:
            _waiters[cid].add((self.loop, self.event))
        _listen(cid)

    async def wait(self, timeout: float) -> bool:
        """Wait until woken or ``timeout`` seconds pass; True if woken."""
        try:
            await asyncio.wait_for(self.event.wait(), timeout)
        except TimeoutError:
            return False
        self.event.clear()
        return True

    def close(self) -> None:
        with _lock:
            _waiters[self.cid].discard((self.loop, self.event))


def wake_local(cid: int) -> None:
    """Wake this process's watchers of cluster ``cid`` (any thread)."""
    with _lock:
        waiters = list(_waiters.get(cid, ()))
    for loop, event in waiters:
        try:
            loop.call_soon_threadsafe(event.set)
        except RuntimeError:  # the loop has closed; its watcher is gone
            with _lock:
                _waiters[cid].discard((loop, event))


# Wake-ups for other processes wait here for the publisher thread.
_outbox: queue.SimpleQueue[tuple[int, int]] = queue.SimpleQueue()
_publisher: threading.Thread | None = None


def _publish_forever() -> None:
    """Send queued wake-ups to the channel layer, from an event loop of this thread's own.

    Writers only queue them: a writer never waits for Redis, nor for an event loop that may be
    shutting down (which would keep the process from exiting). Queued wake-ups of one cluster
    are sent as one, for its latest revision.
    """
    loop = asyncio.new_event_loop()
    layer = channel_layer()
    while True:
        latest = dict([_outbox.get()])
        while not _outbox.empty():
            cid, revision = _outbox.get()
            latest[cid] = max(revision, latest.get(cid, 0))
        for cid, revision in latest.items():
            message = {"type": "revision.written", "cluster": cid, "revision": revision}
            try:
                loop.run_until_complete(layer.group_send(group_name(cid), message))
            except Exception:  # noqa: BLE001 - a lost wake-up only delays watchers, who also poll
                log.warning("could not publish revision %s of cluster %s", revision, cid, exc_info=True)


def publish(cid: int, revision: int) -> None:
    """Announce that cluster ``cid`` reached ``revision``."""
    global _publisher
    wake_local(cid)
    if not settings.REDIS_URL:
        return
    with _lock:
        if _publisher is None:
            # A daemon: wake-ups still queued when the process exits are not worth waiting for.
            _publisher = threading.Thread(target=_publish_forever, name="wake-up publisher", daemon=True)
            _publisher.start()
    _outbox.put((cid, revision))
