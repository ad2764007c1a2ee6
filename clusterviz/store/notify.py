"""Wake-ups for watchers after a write commits.

A wake-up only says "cluster N reached revision R"; watchers always read the
log itself, so a lost wake-up delays an event but never loses it. Watchers in
this process are woken directly; other processes learn through the channel
layer group of the cluster.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import defaultdict

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings

log = logging.getLogger(__name__)

_lock = threading.Lock()
_waiters: dict[int, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = defaultdict(set)


def group_name(cid: int) -> str:
    """The channel-layer group carrying a cluster's wake-ups."""
    return f"cluster-{cid}"


class Subscription:
    """An asyncio.Event set whenever the cluster's revision moves."""

    def __init__(self, cid: int) -> None:
        self.cid = cid
        self.loop = asyncio.get_running_loop()
        self.event = asyncio.Event()
        with _lock:
            _waiters[cid].add((self.loop, self.event))

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


def publish(cid: int, revision: int) -> None:
    """Announce that cluster ``cid`` reached ``revision``."""
    wake_local(cid)
    if settings.REDIS_URL:
        try:
            async_to_sync(get_channel_layer().group_send)(
                group_name(cid), {"type": "revision.written", "revision": revision}
            )
        except Exception:  # noqa: BLE001 - a lost wake-up only delays watchers, who also poll
            log.warning("could not publish revision %s of cluster %s", revision, cid, exc_info=True)
