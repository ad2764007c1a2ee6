"""A page's live view outlives the database going away: its list-watch retries and catches up, no reload."""

import asyncio

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from clusterviz.api import watchcache
from clusterviz.store import kv
from clusterviz.web.consumers import CARD_RESOURCES, PANEL_RESOURCES
from clusterviz.web.routing import websocket_urlpatterns

from .test_cluster_page import a_pod_appears_on_its_card, receive_until

pytestmark = pytest.mark.django_db(transaction=True)


async def until(condition, seconds: float = 10.0) -> None:
    """Wait (wall-clock: the page's retries follow real time) until ``condition()`` holds."""
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)  # wall-clock: the page retries on real time
    raise AssertionError("the condition never held")


async def test_the_node_cards_catch_up_after_the_store_was_unavailable(outage, monkeypatch):
    # How many statements the store had refused when the log's reader first failed.
    refused_before: list[int] = []
    read_log = watchcache._events_since

    async def events_since(*args: object) -> list[kv.Event]:
        try:
            return await read_log(*args)
        except kv.StoreUnavailable:
            refused_before.append(len(outage.refused))
            raise

    monkeypatch.setattr(watchcache, "_events_since", events_since)
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/c/demo/")
    connected, _ = await communicator.connect()
    assert connected
    await receive_until(communicator, 'id="nodes"')

    # Every statement is refused, so every read of the store (the page's lists, the log) is a 503.
    outage("")
    # The log's reader fails, so every watch of the page ends with a 503 Status at once, and each
    # list-watch lists again, which is refused too.
    watched = len(CARD_RESOURCES + PANEL_RESOURCES)
    await until(lambda: bool(refused_before) and len(outage.refused) - refused_before[0] >= watched)
    outage.end()

    await a_pod_appears_on_its_card(communicator, "after-outage", "node02")
    await communicator.disconnect()
