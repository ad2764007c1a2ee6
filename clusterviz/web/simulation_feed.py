"""``simulations/default`` read once a tick for every page of a cluster in this process.

Each page shows the simulation's mode, speed and clock. A class of 100 pages on one cluster polling
it each was 100 reads and 100 renders of the same clock a second; the pages of a cluster now share
one reading per tick, and one rendering of each fragment per language (``Feed.rendered``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

from clusterviz.api import errors
from clusterviz.api.client import Client
from clusterviz.store import loops


class Feed:
    """The latest reading of one cluster's simulation, taken every ``period`` seconds while anyone listens."""

    def __init__(self, client: Client, period: float) -> None:
        self.client = client
        self.period = period
        self.latest: dict[str, Any] | None = None
        self.failure: Exception | None = None
        self.listeners: set[asyncio.Event] = set()
        self._rendered: dict[Any, str] = {}
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while self.listeners:
            try:
                reading = await self.client.get("simulations", "default")
            except errors.StatusError as exc:
                if exc.code != 503:
                    self.failure = exc
                    self._wake()
                    return
                # The store is briefly unavailable: the clocks stand still until a later tick reads it.
            else:
                if reading != self.latest:
                    self.latest, self._rendered = reading, {}
                self._wake()
            await asyncio.sleep(self.period)  # wall-clock: how often the pages' clocks tick

    def _wake(self) -> None:
        for listener in self.listeners:
            listener.set()

    def rendered(self, key: Any, render: Callable[[], str]) -> str:
        """``render()`` of the latest reading, made once for every page that asks with the same ``key``."""
        if key not in self._rendered:
            self._rendered[key] = render()
        return self._rendered[key]


# Per event loop: (cluster, period) -> its feed.
_feeds: dict[asyncio.AbstractEventLoop, dict[tuple[str, float], Feed]] = {}


def _feed(client: Client, period: float) -> Feed:
    table = loops.entry(_feeds, dict)
    key = (client.cluster, period)
    feed = table.get(key)
    if feed is None or feed.task.done():
        feed = table[key] = Feed(client, period)
    return feed


async def readings(client: Client, period: float) -> AsyncIterator[tuple[Feed, dict[str, Any]]]:
    """Each tick's reading of ``client``'s cluster's simulation (the latest one first), with its feed.

    Raises what stopped the feed (a reading that failed other than with 503 ServiceUnavailable).
    """
    feed = _feed(client, period)
    listener = asyncio.Event()
    feed.listeners.add(listener)
    if feed.latest is not None:
        listener.set()
    try:
        while True:
            await listener.wait()
            listener.clear()
            if feed.failure is not None:
                raise feed.failure
            if feed.latest is not None:
                yield feed, feed.latest
    finally:
        feed.listeners.discard(listener)
