"""Informers and work queues, the client-go pattern every component follows.

An informer lists once, then watches from the list's resourceVersion,
keeping a local cache and calling handlers on changes. Handlers should only
enqueue keys; workers take keys from a ``WorkQueue`` and reconcile from the
cache. Waiting is done through a ``component.Waiter`` (the simulation engine), so a
component that waits is idle in the simulation's eyes.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import errors
from .client import Client
from .component import Waiter

Obj = dict[str, Any]


def key_of(obj: Obj) -> str:
    """``namespace/name`` (or ``name`` for cluster-scoped objects), client-go's MetaNamespaceKey."""
    meta = obj.get("metadata") or {}
    namespace = meta.get("namespace") or ""
    return f"{namespace}/{meta.get('name')}" if namespace else str(meta.get("name"))


@dataclass
class Handler:
    """Callbacks for cache changes; any may be None."""

    on_add: Callable[[Obj], None] | None = None
    on_update: Callable[[Obj, Obj], None] | None = None
    on_delete: Callable[[Obj], None] | None = None
    # After every list (the first, and each relist), whether or not anything changed: for a view
    # that redraws from the cache, such as a page that must show its snapshot on (re)connect.
    on_sync: Callable[[], None] | None = None


class Informer:
    """A list-watch cache of one resource type."""

    def __init__(self, client: Client, plural: str, namespace: str = "", *, label_selector: str = "",
                 field_selector: str = "") -> None:
        self.client = client
        self.plural = plural
        self.namespace = namespace
        self.label_selector = label_selector
        self.field_selector = field_selector
        self.cache: dict[str, Obj] = {}
        self.handlers: list[Handler] = []
        self.synced = False
        self.resource_version = ""

    def add_handler(self, handler: Handler) -> None:
        self.handlers.append(handler)

    def remove_handler(self, handler: Handler) -> None:
        self.handlers.remove(handler)

    def get(self, key: str) -> Obj | None:
        return self.cache.get(key)

    def items(self) -> list[Obj]:
        return list(self.cache.values())

    def _add(self, obj: Obj) -> None:
        key = key_of(obj)
        old = self.cache.get(key)
        self.cache[key] = obj
        for h in self.handlers:
            if old is None and h.on_add:
                h.on_add(obj)
            elif old is not None and h.on_update:
                h.on_update(old, obj)

    def _delete(self, obj: Obj) -> None:
        old = self.cache.pop(key_of(obj), None)
        for h in self.handlers:
            if h.on_delete:
                h.on_delete(old or obj)

    def forget_all(self) -> None:
        """Drop every cached object, telling the handlers each is gone (the resource is no longer served)."""
        for obj in list(self.cache.values()):
            self._delete(obj)

    async def list_once(self) -> None:
        """The list half: replace the cache, telling handlers what changed."""
        # The cache and its handlers only read the objects, as they do the watch's (which are shared too).
        listed = await self.client.list(
            self.plural, self.namespace, label_selector=self.label_selector, field_selector=self.field_selector,
            reads_only=True,
        )
        fresh = {key_of(o): o for o in listed.get("items", [])}
        for key in [k for k in self.cache if k not in fresh]:
            self._delete(self.cache[key])
        for obj in fresh.values():
            old = self.cache.get(key_of(obj))
            if old is None or old.get("metadata", {}).get("resourceVersion") != obj.get("metadata", {}).get("resourceVersion"):
                self._add(obj)
        self.resource_version = listed.get("metadata", {}).get("resourceVersion", "")
        self.synced = True
        for h in self.handlers:
            if h.on_sync:
                h.on_sync()

    async def run(self) -> None:
        """List, then watch for ever; relist when the watch expires, retry while the store is down."""
        while True:
            try:
                if not self.synced:
                    await self.list_once()
                async for event in self.client.watch(
                    self.plural, self.namespace, resource_version=self.resource_version,
                    label_selector=self.label_selector, field_selector=self.field_selector,
                ):
                    obj = event["object"]
                    if event["type"] == "ERROR":
                        self.synced = False
                        break
                    self.resource_version = obj.get("metadata", {}).get("resourceVersion", self.resource_version)
                    if event["type"] == "DELETED":
                        self._delete(obj)
                    elif event["type"] in ("ADDED", "MODIFIED"):
                        self._add(obj)
            except errors.StatusError as exc:
                if exc.code == 503:
                    # The database is briefly unreachable: resume from the last event once it is back.
                    await asyncio.sleep(exc.retry_after or 1)  # wall-clock: an outage lasts real time
                    continue
                if exc.code != 410:
                    raise
                self.synced = False


class WorkQueue:
    """Keys to reconcile, each at most once in the queue (client-go's workqueue)."""

    def __init__(self, waiter: Waiter) -> None:
        self.waiter = waiter
        self._queue: deque[str] = deque()
        self._queued: set[str] = set()
        self._future: asyncio.Future[None] | None = None

    def add(self, key: str) -> None:
        if key in self._queued:
            return
        self._queued.add(key)
        self._queue.append(key)
        if self._future is not None and not self._future.done():
            self.waiter.wake(self._future)

    def __len__(self) -> int:
        return len(self._queue)

    async def get(self) -> str:
        """The next key, waiting (idle) until there is one."""
        while not self._queue:
            self._future = asyncio.get_running_loop().create_future()
            await self.waiter.wait_for(self._future)
        key = self._queue.popleft()
        self._queued.discard(key)
        return key
