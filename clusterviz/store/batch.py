"""Group commit: the writes that arrive while one transaction runs are committed together in the next.

An engine turn often writes several objects at once (a ReplicaSet's Pods, a node's status and its
Lease), and a class of clusters writes all the time. Each write still gets its own revision and
watch event, in the order the writes were asked for; what they share is one transaction, one lock
of each cluster's row and one trip to the writer thread. Nothing waits for a batch to fill: the
writes asked for in one turn of the event loop, or while the previous batch commits, go together.

A simulation can also gather the writes of one simulated instant itself and hand them over at once
(``collected_by`` and ``commit_all``), so that they share a transaction whatever the event loop does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from . import kv, loops
from .threads import in_writer_thread

_write_many = in_writer_thread(kv.write_many)


class _Combiner:
    """The writes of one event loop, queued while the previous batch commits."""

    def __init__(self) -> None:
        self.queue: list[tuple[kv.Write, asyncio.Future[dict[str, Any]]]] = []
        self.draining = False

    def enqueue(self, write: kv.Write) -> asyncio.Future[dict[str, Any]]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.queue.append((write, future))
        if not self.draining:
            self.draining = True
            asyncio.get_running_loop().create_task(self._drain())
        return future

    async def _drain(self) -> None:
        try:
            while self.queue:
                batch, self.queue = self.queue, []
                try:
                    results = await _write_many([write for write, _ in batch])
                except Exception as failure:  # noqa: BLE001 - every write of the batch gets the failure
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(failure)
                    continue
                for (_, future), result in zip(batch, results, strict=True):
                    if future.done():
                        continue  # its caller was cancelled; the write itself is committed
                    if isinstance(result, Exception):
                        future.set_exception(result)
                    else:
                        future.set_result(result)
        finally:
            self.draining = False


_combiners: dict[asyncio.AbstractEventLoop, _Combiner] = {}

Collector = Callable[[kv.Write], Awaitable[dict[str, Any]]]
_collector: ContextVar[Collector | None] = ContextVar("store_write_collector", default=None)


@contextmanager
def collected_by(collect: Collector) -> Iterator[None]:
    """Hand the writes asked for in the enclosed code to ``collect`` instead of committing them here."""
    token = _collector.set(collect)
    try:
        yield
    finally:
        _collector.reset(token)


async def _submit(write: kv.Write) -> dict[str, Any]:
    collect = _collector.get()
    if collect is not None:
        return await collect(write)
    return await loops.entry(_combiners, _Combiner).enqueue(write)


async def commit_all(writes: list[kv.Write]) -> list[dict[str, Any] | BaseException]:
    """Commit ``writes`` in order in one transaction; each one's stored object, or what failed it."""
    combiner = loops.entry(_combiners, _Combiner)
    futures = [combiner.enqueue(write) for write in writes]
    return await asyncio.gather(*futures, return_exceptions=True)


async def create(cid: int, key: kv.Key, obj: dict[str, Any]) -> dict[str, Any]:
    """``kv.create``, committed with the writes that queue beside it."""
    return await _submit(kv.Write("create", cid, key, obj))


async def update(cid: int, key: kv.Key, obj: dict[str, Any], expected_rv: int | None = None) -> dict[str, Any]:
    """``kv.update``, committed with the writes that queue beside it."""
    return await _submit(kv.Write("update", cid, key, obj, expected_rv))


async def delete(
    cid: int, key: kv.Key, expected_rv: int | None = None, expected_uid: str | None = None
) -> dict[str, Any]:
    """``kv.delete``, committed with the writes that queue beside it."""
    return await _submit(kv.Write("delete", cid, key, None, expected_rv, expected_uid))
