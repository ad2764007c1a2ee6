"""Group commit: the writes that arrive while one transaction runs are committed together in the next.

An engine turn often writes several objects at once (a ReplicaSet's Pods, a node's status and its
Lease), and a class of clusters writes all the time. Each write still gets its own revision and
watch event, in the order the writes were asked for; what they share is one transaction, one lock
of each cluster's row and one trip to the writer thread. Nothing waits for a batch to fill: the
writes asked for in one turn of the event loop, or while the previous batch commits, go together.
"""

from __future__ import annotations

import asyncio
from typing import Any

from . import kv, loops
from .threads import in_writer_thread

_write_many = in_writer_thread(kv.write_many)


class _Combiner:
    """The writes of one event loop, queued while the previous batch commits."""

    def __init__(self) -> None:
        self.queue: list[tuple[kv.Write, asyncio.Future[dict[str, Any]]]] = []
        self.draining = False

    async def submit(self, write: kv.Write) -> dict[str, Any]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.queue.append((write, future))
        if not self.draining:
            self.draining = True
            asyncio.get_running_loop().create_task(self._drain())
        return await future

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


async def create(cid: int, key: kv.Key, obj: dict[str, Any]) -> dict[str, Any]:
    """``kv.create``, committed with the writes that queue beside it."""
    return await loops.entry(_combiners, _Combiner).submit(kv.Write("create", cid, key, obj))


async def update(cid: int, key: kv.Key, obj: dict[str, Any], expected_rv: int | None = None) -> dict[str, Any]:
    """``kv.update``, committed with the writes that queue beside it."""
    return await loops.entry(_combiners, _Combiner).submit(kv.Write("update", cid, key, obj, expected_rv))


async def delete(
    cid: int, key: kv.Key, expected_rv: int | None = None, expected_uid: str | None = None
) -> dict[str, Any]:
    """``kv.delete``, committed with the writes that queue beside it."""
    return await loops.entry(_combiners, _Combiner).submit(kv.Write("delete", cid, key, None, expected_rv, expected_uid))
