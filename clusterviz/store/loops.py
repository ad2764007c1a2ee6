"""Per-event-loop singletons: one flusher, poller, renewer or write queue for each running loop.

A server runs one event loop, but tests open a new one for each test; what belongs to a loop that
has closed is dropped when the next loop asks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any


def _drop_closed(table: dict[asyncio.AbstractEventLoop, Any]) -> None:
    for closed in [loop for loop in table if loop.is_closed()]:
        del table[closed]


def entry[T](table: dict[asyncio.AbstractEventLoop, T], make: Callable[[], T]) -> T:
    """The running loop's entry of ``table``, made on first use."""
    loop = asyncio.get_running_loop()
    found = table.get(loop)
    if found is None:
        _drop_closed(table)
        found = table[loop] = make()
    return found


def keep_running(
    table: dict[asyncio.AbstractEventLoop, asyncio.Task[None]], run: Callable[[], Coroutine[Any, Any, None]]
) -> None:
    """Start the running loop's task of ``table`` from ``run`` unless it is running already."""
    loop = asyncio.get_running_loop()
    _drop_closed(table)
    task = table.get(loop)
    if task is None or task.done():
        table[loop] = loop.create_task(run())
