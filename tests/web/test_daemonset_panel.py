"""DaemonSets on the cluster page: their tab of the objects panel, their describe panel, and their Pods on the
node cards, in English and Chinese."""

import re

import pytest
import yaml
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from clusterviz.api.client import Client
from clusterviz.web.routing import websocket_urlpatterns
from tests.controllers.test_daemonset import DAEMON_SET
from tests.web.test_cluster_page import receive_until
from tests.web.test_language import chinese_page, names_in
from tests.web.test_objects import get, headings, rows
from tests.web.untranslated import untranslated_english

pytestmark = pytest.mark.django_db(transaction=True)

KUBECTL = Client("demo", "kubectl")


def test_the_panel_has_a_daemon_sets_tab(client):
    page = client.get("/c/demo/").content.decode()
    assert 'name="tab" value="daemonsets"' in page


async def test_the_tab_reads_like_kubectl_get_daemonsets_and_controllerrevisions_wide(sim, async_client):
    await KUBECTL.create(DAEMON_SET)
    await sim.engine.until_settled()
    html = await get(async_client, "/c/demo/objects?tab=daemonsets")
    assert headings(html, "daemonsets") == [
        "NAMESPACE",
        "NAME",
        "DESIRED",
        "CURRENT",
        "READY",
        "UP-TO-DATE",
        "AVAILABLE",
        "NODE SELECTOR",
        "AGE",
        "CONTAINERS",
        "IMAGES",
        "SELECTOR",
    ]
    [row] = rows(html, "daemonsets")
    assert row[:8] == ["default", "agent", "3", "3", "3", "3", "3", "&lt;none&gt;"]
    assert row[9:] == ["agent", "soscscs/myapp:v1", "app=agent"]
    assert headings(html, "controllerrevisions") == ["NAMESPACE", "NAME", "CONTROLLER", "REVISION", "AGE"]
    [revision] = rows(html, "controllerrevisions")
    assert revision[1].startswith("agent-") and revision[2:4] == ["daemonset.apps/agent", "1"]


async def test_describe_counts_the_nodes_and_lists_the_events(sim, async_client):
    await KUBECTL.create(DAEMON_SET)
    await sim.engine.until_settled()
    html = await get(async_client, "/c/demo/describe/daemonsets/agent?namespace=default")
    assert re.search(r"Desired Number of Nodes Scheduled: 3", html)
    assert re.search(r"Number of Nodes Scheduled with Available Pods: 3", html)
    assert re.search(r"Pods Status:\s+3 Running / 0 Waiting / 0 Succeeded / 0 Failed", html)
    assert "deprecated.daemonset.template.generation: 1" in html
    assert html.count("SuccessfulCreate") == 3


async def test_each_node_card_shows_its_daemon_pod(sim):
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/c/demo/")
    connected, _ = await communicator.connect()
    assert connected
    await receive_until(communicator, 'id="nodes"')
    await KUBECTL.create(DAEMON_SET)
    await sim.engine.until_settled()
    pods = {p["spec"]["nodeName"]: p["metadata"]["name"] for p in (await KUBECTL.list("pods", "default"))["items"]}
    cards: dict[str, str] = {}
    while len(cards) < 3:
        frame = await receive_until(communicator, "agent-")
        for node in pods:
            if f'id="node-{node}"' in frame:
                cards[node] = frame[frame.index(f'id="node-{node}"') :].split("</article>")[0]
    await communicator.disconnect()
    assert sorted(pods) == ["node01", "node02", "node03"]
    for node, card in cards.items():
        assert pods[node] in card


async def test_the_tab_and_describe_have_no_english_left_in_chinese(sim, async_client):
    await KUBECTL.create(DAEMON_SET)
    await sim.engine.until_settled()
    page = await chinese_page(async_client, "/c/demo/")
    assert "DaemonSet（守护进程集）" in page
    panel = await chinese_page(async_client, "/c/demo/objects?tab=daemonsets&describe=daemonsets/default/agent")
    assert untranslated_english(panel, await names_in("demo") | {"agent"}) == []


async def test_the_scoring_panel_explains_a_daemon_pod_s_placement(sim, async_client):
    await KUBECTL.create(DAEMON_SET)
    await sim.engine.until_settled()
    for pod in (await KUBECTL.list("pods", "default", label_selector="app=agent"))["items"]:
        name, node = pod["metadata"]["name"], pod["spec"]["nodeName"]
        page = await get(async_client, f"/c/demo/scoring/default/{name}")
        assert f"<strong>{node}</strong>" in page
        assert "NodeAffinity" in page


async def test_an_exported_lesson_keeps_the_daemon_set_but_not_its_pods_or_revisions(sim, async_client):
    await KUBECTL.create(DAEMON_SET)
    await sim.engine.until_settled()
    exported = await get(async_client, "/c/demo/export.yaml")
    documents = [d for d in yaml.safe_load_all(exported) if d]
    assert [d["metadata"]["name"] for d in documents if d["kind"] == "DaemonSet"] == ["agent"]
    assert not [d for d in documents if d["kind"] == "ControllerRevision"]
    assert not [d for d in documents if d["kind"] == "Pod" and d["metadata"]["name"].startswith("agent-")]
