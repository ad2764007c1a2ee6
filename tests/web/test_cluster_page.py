"""The cluster page: first paint from the API, then live updates over its websocket."""

import json
import re

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from clusterviz.api.client import Client
from clusterviz.web.routing import websocket_urlpatterns

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_page_shows_a_card_per_node_and_the_controls(client):
    page = client.get("/c/demo/").content.decode()
    for name in ("node01", "node02", "node03"):
        assert f'id="node-{name}"' in page
    assert 'ws-connect="/ws/c/demo/"' in page
    assert 'value="fast-forward"' in page and 'id="step"' in page


def test_an_unknown_cluster_is_404(client):
    assert client.get("/c/nowhere/").status_code == 404


async def receive_until(communicator: WebsocketCommunicator, needle: str, frames: int = 40) -> str:
    for _ in range(frames):
        text = await communicator.receive_from(timeout=10)
        if needle in text:
            return text
    raise AssertionError(f"{needle!r} never arrived")


async def a_pod_appears_on_its_card(communicator: WebsocketCommunicator, pod: str, node: str) -> None:
    """Create ``pod`` bound to ``node`` as kubectl does; the page's card of ``node`` must come to show it."""
    await Client("demo", "kubectl").create({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": pod, "namespace": "default"},
        "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx:1.27"}]},
    })
    frame = await receive_until(communicator, pod)
    card = frame[frame.index(f'id="node-{node}"'):]
    assert pod in card.split("</article>")[0]


async def test_a_pod_created_elsewhere_appears_on_its_node_card():
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/c/demo/")
    connected, _ = await communicator.connect()
    assert connected
    first = await receive_until(communicator, 'id="nodes"')
    assert 'hx-swap-oob="outerHTML"' in first and "node01" in first
    await a_pod_appears_on_its_card(communicator, "live-pod", "node02")
    await communicator.disconnect()


async def test_delivered_messages_reach_the_page_as_rows_and_json(sim):
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/c/demo/")
    connected, _ = await communicator.connect()
    assert connected
    await Client("demo", "kubectl").create({
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "shown", "namespace": "default"}, "data": {}})
    row = await receive_until(communicator, "hx-swap-oob=\"afterbegin:#timeline\"")
    assert "kubectl asks the API server to create configmap default/shown" in row
    data = json.loads(await receive_until(communicator, '{"flows"'))
    first = data["flows"][0]["flow"]
    assert first["step"] == 1 and first["from"] == "kubectl"
    await communicator.disconnect()


async def test_the_scoring_panel_shows_every_node_filter_and_the_winner(sim, async_client):
    kubectl = Client("demo", "kubectl")
    await kubectl.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "scored", "namespace": "default"},
                          "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}})
    await sim.engine.until_settled()
    pod = await kubectl.get("pods", "scored", "default")
    page = (await async_client.get("/c/demo/scoring/default/scored")).content.decode()
    for node in ("node01", "node02", "node03"):
        assert f"<th>{node}</th>" in page
    assert "NodeResourcesFit" in page and "PodFitsResources" in page and "LeastRequestedPriority" in page
    assert f"<strong>{pod['spec']['nodeName']}</strong>" in page
    assert page.count('class="winner"') == 2  # its filter row and its score row


async def test_the_scoring_panel_of_a_pending_pod_gives_the_reasons(sim, async_client):
    kubectl = Client("demo", "kubectl")
    await kubectl.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "stuck", "namespace": "default"},
                          "spec": {"nodeSelector": {"disktype": "ssd"},
                                   "containers": [{"name": "c", "image": "nginx:1.27"}]}})
    await sim.engine.until_settled()
    page = (await async_client.get("/c/demo/scoring/default/stuck")).content.decode()
    assert "0/3 nodes are available" in page
    assert page.count("didn&#x27;t match Pod&#x27;s node affinity/selector") >= 3


async def test_node_actions_write_through_the_api(async_client):
    kubectl = Client("demo", "kubectl")
    reply = await async_client.post("/c/demo/nodes/node01/action", {"action": "label", "value": "disktype=ssd"})
    assert "node/node01 labeled" in reply.content.decode()
    assert (await kubectl.get("nodes", "node01"))["metadata"]["labels"]["disktype"] == "ssd"
    await async_client.post("/c/demo/nodes/node01/action", {"action": "cordon"})
    assert (await kubectl.get("nodes", "node01"))["spec"]["unschedulable"] is True
    await async_client.post("/c/demo/nodes/node01/action", {"action": "uncordon"})
    assert "unschedulable" not in (await kubectl.get("nodes", "node01"))["spec"]
    await async_client.post("/c/demo/nodes/node01/action", {"action": "unlabel", "value": "disktype"})
    assert "disktype" not in (await kubectl.get("nodes", "node01"))["metadata"]["labels"]


async def test_a_bad_label_from_the_page_shows_the_api_error_and_changes_nothing(async_client):
    before = await Client("demo", "kubectl").get("nodes", "node02")
    reply = (await async_client.post("/c/demo/nodes/node02/action", {"action": "label", "value": "bad key=x"})).content
    assert "Invalid value" in reply.decode() and "metadata.labels" in reply.decode()
    after = await Client("demo", "kubectl").get("nodes", "node02")
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]


async def test_a_preset_resets_the_cluster_and_loads_its_manifest(sim, async_client):
    reply = await async_client.post("/c/demo/presets", {"preset": "node-selector"})
    page = reply.content.decode()
    assert "nodeSelector: Pending until a node gets the label" in page
    # The lesson's script: each step's text, the command its button stands for, and the questions for the class.
    assert "kubectl label node node02 disktype=ssd" in page and "Which node will the two Pods go to now?" in page
    assert "disktype: ssd" in json.loads(reply["HX-Trigger"])["loadPreset"]["yaml"]
    assert (await Client("demo", "kubectl").get("simulations", "default"))["spec"]["mode"] == "step"


async def test_a_preset_speaks_the_pages_language(sim, async_client):
    await async_client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/c/demo/"})
    page = (await async_client.post("/c/demo/presets", {"preset": "node-affinity"})).content.decode()
    assert "节点亲和性：先硬策略，再软策略" in page and "多个软策略看权重" in page
    assert "kubectl label node node02 zone=a" in page


async def test_the_speed_slider_sets_the_simulation_speed_and_a_bad_one_is_explained(async_client):
    reply = (await async_client.post("/c/demo/controls/mode", {"speed": "2.5"})).content.decode()
    assert 'name="speed"' in reply and "2.5×" in reply
    assert (await Client("demo", "kubectl").get("simulations", "default"))["spec"]["speed"] == 2.5
    refused = (await async_client.post("/c/demo/controls/mode", {"speed": "1000"})).content.decode()
    assert "spec.speed: Invalid value: 1000" in refused and "2.5×" in refused


async def test_a_mode_changed_elsewhere_reaches_the_pages_controls(async_client):
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/c/demo/")
    connected, _ = await communicator.connect()
    assert connected
    await receive_until(communicator, 'id="nodes"')
    # As another browser or kubectl would: the simulations object changes, the page's controls follow.
    await Client("demo", "kubectl").patch("simulations", "default", {"spec": {"mode": "paused"}})
    frame = await receive_until(communicator, 'id="controls"')
    assert 'hx-swap-oob="outerHTML"' in frame and '<button name="mode" value="paused" class="on">' in frame
    await communicator.disconnect()


async def test_the_timeline_starts_with_the_newest_messages(sim, async_client):
    kubectl = Client("demo", "kubectl")
    for i in range(15):
        await kubectl.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm{i}"}}, "default")
    await sim.engine.until_settled()
    last = sim.engine.last_seq
    assert last > 40
    page = (await async_client.get("/c/demo/")).content.decode()
    shown = [int(seq) for seq in re.findall(r'data-seq="(\d+)"', page)]
    assert shown[0] == last and len(shown) == 40 and shown == sorted(shown, reverse=True)
