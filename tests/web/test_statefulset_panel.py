"""StatefulSets on the cluster page: their tab of the objects panel, their describe panel, and their Pods on the
node cards, in English and Chinese."""

import re

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from clusterviz.api.client import Client
from clusterviz.web.routing import websocket_urlpatterns
from tests.controllers.test_statefulset import SERVICE, STATEFUL_SET
from tests.web.test_cluster_page import receive_until
from tests.web.test_language import chinese_page, names_in
from tests.web.test_objects import get, headings, rows
from tests.web.untranslated import untranslated_english

pytestmark = pytest.mark.django_db(transaction=True)

KUBECTL = Client("demo", "kubectl")


def test_the_panel_has_a_stateful_sets_tab(client):
    page = client.get("/c/demo/").content.decode()
    assert 'name="tab" value="statefulsets"' in page


async def test_the_tab_reads_like_kubectl_get_statefulsets_and_controllerrevisions_wide(sim, async_client):
    await KUBECTL.create(STATEFUL_SET)
    await sim.engine.until_settled()
    html = await get(async_client, "/c/demo/objects?tab=statefulsets")
    assert headings(html, "statefulsets") == ["NAMESPACE", "NAME", "READY", "AGE", "CONTAINERS", "IMAGES"]
    [row] = rows(html, "statefulsets")
    assert row[:3] == ["default", "web", "3/3"] and row[4:] == ["nginx", "nginx:1.27"]
    [revision] = rows(html, "controllerrevisions")
    assert revision[1].startswith("web-") and revision[2:4] == ["statefulset.apps/web", "1"]


async def test_describe_reads_like_kubectl_describe_statefulset(sim, async_client):
    await KUBECTL.create(SERVICE)
    await KUBECTL.create(STATEFUL_SET)
    await sim.engine.until_settled()
    html = await get(async_client, "/c/demo/describe/statefulsets/web?namespace=default")
    assert re.search(r"Replicas:\s+3 desired \| 3 total", html)
    assert re.search(r"Update Strategy:\s+RollingUpdate\n\s+Partition:\s+0", html)
    assert re.search(r"Pods Status:\s+3 Running / 0 Waiting / 0 Succeeded / 0 Failed", html)
    assert re.search(r"Volume Claims:\s+&lt;none&gt;", html)
    assert "create Pod web-2 in StatefulSet web successful" in html


async def test_each_pod_is_on_a_node_card(sim):
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/c/demo/")
    connected, _ = await communicator.connect()
    assert connected
    await receive_until(communicator, 'id="nodes"')
    await KUBECTL.create(STATEFUL_SET)
    await sim.engine.until_settled()
    pods = {p["metadata"]["name"]: p["spec"]["nodeName"] for p in (await KUBECTL.list("pods", "default"))["items"]}
    assert sorted(pods) == ["web-0", "web-1", "web-2"]
    found: set[str] = set()
    while len(found) < 3:
        frame = await receive_until(communicator, "web-")
        for name, node in pods.items():
            if (
                f'id="node-{node}"' in frame
                and name in frame[frame.index(f'id="node-{node}"') :].split("</article>")[0]
            ):
                found.add(name)
    await communicator.disconnect()


async def test_the_tab_and_describe_have_no_english_left_in_chinese(sim, async_client):
    await KUBECTL.create(STATEFUL_SET)
    await sim.engine.until_settled()
    page = await chinese_page(async_client, "/c/demo/")
    assert "StatefulSet（有状态副本集）" in page
    panel = await chinese_page(async_client, "/c/demo/objects?tab=statefulsets&describe=statefulsets/default/web")
    assert untranslated_english(panel, await names_in("demo") | {"web", "nginx"}) == []


async def test_the_describe_panel_scales_a_stateful_set_like_kubectl_scale(sim, async_client):
    await KUBECTL.create(STATEFUL_SET)
    await sim.engine.until_settled()
    html = await get(async_client, "/c/demo/describe/statefulsets/web?namespace=default")
    assert 'name="replicas" value="3"' in html and 'name="image" value="nginx:1.27"' in html
    reply = await async_client.post("/c/demo/workloads/statefulsets/default/web", {"action": "scale", "replicas": "1"})
    assert "statefulset.apps/web scaled" in reply.content.decode()
    await sim.engine.until_settled()
    names = sorted(p["metadata"]["name"] for p in (await KUBECTL.list("pods", "default"))["items"])
    assert names == ["web-0"]
