"""A cluster too big for a card per Pod: compact cards, a capped Pending list, and frames with only what changed."""

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from clusterviz.api.bootstrap import create_cluster
from clusterviz.api.client import Client
from clusterviz.web.cluster_view import COMPACT_NODES, PENDING_SHOWN
from clusterviz.web.objects import ROWS_SHOWN
from clusterviz.web.routing import websocket_urlpatterns

pytestmark = pytest.mark.django_db(transaction=True)
NODES = COMPACT_NODES + 6


def pod(name: str, node: str = "") -> dict:
    spec = {"containers": [{"name": "c", "image": "nginx:1.27"}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


async def big() -> Client:
    await create_cluster("big", nodes=NODES)
    client = Client("big", "kubectl", simulated=False)
    await client.patch("simulations", "default", {"spec": {"mode": "paused"}})
    for i in range(3):
        await client.create(pod(f"placed-{i}", "node01"), "default")
    for i in range(PENDING_SHOWN + 7):
        await client.create(pod(f"waiting-{i:03d}"), "default")
    return client


async def test_big_clusters_get_compact_cards_and_a_capped_pending_list(async_client):
    await big()
    page = (await async_client.get("/c/big/")).content.decode()
    assert page.count('class="node-card compact') == NODES
    assert 'class="node-actions"' not in page  # actions move to the node's describe view
    card = page[page.index('id="node-node01"') :].split("</article>")[0]
    assert "3 Pending" in card and "placed-0" not in card
    assert "and 7 more Pods" in page


async def test_a_change_to_one_node_sends_only_that_card():
    client = await big()
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/c/big/")
    connected, _ = await communicator.connect()
    assert connected
    for _ in range(40):
        first = await communicator.receive_from(timeout=10)
        if 'id="nodes"' in first:
            break
    await client.patch("nodes", "node07", {"metadata": {"labels": {"disktype": "ssd"}}})
    for _ in range(40):
        frame = await communicator.receive_from(timeout=10)
        if "disktype=ssd" in frame:
            break
    assert 'id="nodes"' not in frame
    assert frame.count("<article") == 1 and 'id="node-node07" hx-swap-oob="outerHTML"' in frame
    await communicator.disconnect()


async def test_object_tables_stop_at_a_screenful_and_say_how_many_more(async_client):
    client = await big()
    for i in range(ROWS_SHOWN):
        await client.create(pod(f"more-{i:03d}", "node02"), "default")
    total = 3 + PENDING_SHOWN + 7 + ROWS_SHOWN
    page = (await async_client.get("/c/big/objects", {"tab": "pods"})).content.decode()
    assert page.count("<tr tabindex") == ROWS_SHOWN
    assert f"and {total - ROWS_SHOWN} more: <code>kubectl get pods -A</code>" in page
