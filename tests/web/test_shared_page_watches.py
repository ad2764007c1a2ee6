"""The pages of a cluster share one list-watch per resource, one watch of the delivered messages and one
reading of the simulation's clock."""

import json

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from clusterviz.api import shared_informers
from clusterviz.api.client import Client
from clusterviz.web import message_feed, simulation_feed
from clusterviz.web.consumers import CARD_RESOURCES, PANEL_RESOURCES
from clusterviz.web.routing import websocket_urlpatterns

from .test_cluster_page import a_pod_appears_on_its_card, receive_until

pytestmark = pytest.mark.django_db(transaction=True)


async def open_page() -> WebsocketCommunicator:
    page = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/c/demo/")
    connected, _ = await page.connect()
    assert connected
    # Every page starts with the whole node grid, the first as the ones joining a watch already listed.
    first = await receive_until(page, 'id="nodes"')
    assert "node01" in first and "node03" in first
    return page


async def test_three_pages_watch_each_resource_once_and_a_page_leaving_stops_nothing(monkeypatch):
    watches: list[str] = []
    watch = Client.watch

    def counted(self, plural, *args, **kwargs):
        watches.append(plural)
        return watch(self, plural, *args, **kwargs)

    monkeypatch.setattr(Client, "watch", counted)
    pages = [await open_page() for _ in range(3)]
    watched = set(CARD_RESOURCES + PANEL_RESOURCES)
    assert sorted(watches) == sorted(watched)  # one watch per resource, not one per page
    # One reading of the simulation a tick for the three clocks.
    feeds = [feed for table in simulation_feed._feeds.values() for feed in table.values()]
    assert [len(feed.listeners) for feed in feeds] == [3]

    await pages[0].disconnect()
    for page in pages[1:]:
        await a_pod_appears_on_its_card(page, f"seen-by-{id(page)}", "node02")
    for page in pages[1:]:
        await page.disconnect()
    # The last page gone, nobody watches on its behalf.
    assert not [key for table in shared_informers._shared.values() for key in table if key[0] == "demo"]


async def delivered_names(page: WebsocketCommunicator, name: str) -> list[str]:
    """The names in the first animation frame that mentions ``name``."""
    frame = json.loads(await receive_until(page, f'"name": "{name}"'))
    return [entry["flow"]["object"]["name"] for entry in frame["flows"]]


async def test_pages_share_one_watch_of_the_delivered_messages_and_each_gets_every_one(sim):
    pages = [await open_page() for _ in range(2)]
    feeds = [feed for table in message_feed._feeds.values() for feed in table.values()]
    assert [len(feed.pages) for feed in feeds] == [2]
    kubectl = Client("demo", "kubectl")
    await kubectl.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "both", "namespace": "default"}})
    for page in pages:
        assert "both" in await delivered_names(page, "both")

    await pages[0].disconnect()
    await kubectl.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "one", "namespace": "default"}})
    assert "one" in await delivered_names(pages[1], "one")
    await pages[1].disconnect()
    assert not [cluster for table in message_feed._feeds.values() for cluster in table if cluster == "demo"]
