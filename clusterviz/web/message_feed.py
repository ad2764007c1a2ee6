"""A cluster's delivered bus messages, watched once per process for all of its pages.

Every page appends each delivered message to its timeline and animates it. With a watch of its own,
each of a class's 100 pages had every message queued, encoded and filtered for it alone; the pages of a
cluster now share one watch of ``flowmessages``, from the newest message on when the first page came,
and each page is handed every message delivered after it joined.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from clusterviz.api.client import Client
from clusterviz.store import loops

Deliver = Callable[[dict[str, Any]], None]


class _Feed:
    def __init__(self, client: Client) -> None:
        self.client = client
        self.pages: list[Deliver] = []
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        # From the newest message on: a list of the trace starts at its oldest, a page at a time.
        since = str((await self.client.get("simulations", "default"))["status"]["lastSeq"])
        resp = await self.client.request(
            "GET", "/apis/clusterviz.io/v1/flowmessages", query={"watch": "true", "sinceSeq": since}
        )
        assert resp.stream is not None
        async for event in resp.stream:
            for deliver in list(self.pages):
                deliver(event["object"])


# Per event loop: cluster -> its feed.
_feeds: dict[asyncio.AbstractEventLoop, dict[str, _Feed]] = {}


def join(client: Client, deliver: Deliver) -> None:
    """Call ``deliver`` with each message of ``client``'s cluster delivered from now on."""
    table = loops.entry(_feeds, dict)
    feed = table.get(client.cluster)
    if feed is None or feed.task.done():
        feed = table[client.cluster] = _Feed(client)
    feed.pages.append(deliver)


def leave(client: Client, deliver: Deliver) -> None:
    """Stop calling ``deliver``; the watch ends when no page is left."""
    table = loops.entry(_feeds, dict)
    feed = table.get(client.cluster)
    if feed is None or deliver not in feed.pages:
        return
    feed.pages.remove(deliver)
    if not feed.pages:
        feed.task.cancel()
        del table[client.cluster]
