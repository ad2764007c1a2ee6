"""The kubectl pane: actions show their kubectl command and answer; a held write answers at once and completes later."""

import asyncio
import html
import re

import pytest

from clusterviz.api.client import Client
from clusterviz.web.console import print_table
from clusterviz.web.tabwriter import tabwrite

pytestmark = pytest.mark.django_db(transaction=True)

KUBECTL = Client("demo", "kubectl")


def text(reply: str) -> str:
    """What the page shows, without tags."""
    return html.unescape(re.sub(r"<[^>]+>", "", reply))


def test_cells_line_up_as_kubectls_tabwriter_lines_them_up():
    assert tabwrite([["NAME", "AGE", "IP"], ["a", "5s", "10.0.0.1"]], padding=3, min_width=6) == [
        "NAME   AGE   IP",
        "a      5s    10.0.0.1",
    ]


def test_wide_columns_are_shown_only_with_wide():
    table = {
        "columnDefinitions": [
            {"name": "Name", "priority": 0},
            {"name": "Nominated Node", "priority": 1},
        ],
        "rows": [{"cells": ["web", "<none>"]}],
    }
    assert print_table(table, wide=False) == ["NAME", "web"]
    assert print_table(table, wide=True) == ["NAME   NOMINATED NODE", "web    <none>"]


async def test_an_action_shows_its_kubectl_command_and_answer(async_client):
    reply = await async_client.post(
        "/c/demo/nodes/node02/action", {"action": "label", "value": "disktype=ssd", "overwrite": "1"}
    )
    shown = text(reply.content.decode())
    assert "$ kubectl label node node02 disktype=ssd --overwrite\nnode/node02 labeled" in shown
    reply = await async_client.post("/c/demo/nodes/node02/action", {"action": "label", "value": "-x-=1"})
    refused = text(reply.content.decode())
    assert "$ kubectl label node node02 -x-=1\nThe Node \"node02\" is invalid: metadata.labels" in refused


async def test_a_write_held_in_step_mode_answers_at_once_and_completes_after_stepping(async_client, sim):
    await sim.engine.until_settled()
    sim.engine.set_mode("step")
    reply = (await async_client.post("/c/demo/nodes/node02/action", {"action": "label", "value": "disktype=ssd"}))
    queued = reply.content.decode()
    assert "waiting at hop 1: press Next numbered hop" in text(queued)
    assert "$ kubectl label node node02 disktype=ssd" in text(queued)
    assert "disktype" not in (await KUBECTL.get("nodes", "node02"))["metadata"].get("labels", {})
    token = re.search(r'/c/demo/console/result/([\w-]+)"', queued).group(1)
    outcome = asyncio.ensure_future(async_client.get(f"/c/demo/console/result/{token}"))
    status = (await KUBECTL.get("simulations", "default"))["status"]
    held = {"hop": 1, "from": "dashboard", "to": "apiserver", "verb": "patch", "object": "Node/node02"}
    assert held in status["waiting"]
    for _ in range(3):
        await sim.engine.step()
    done = text((await asyncio.wait_for(outcome, 10)).content.decode())
    assert "node/node02 labeled" in done
    assert (await KUBECTL.get("nodes", "node02"))["metadata"]["labels"]["disktype"] == "ssd"


async def test_skip_moves_the_page_clock_to_the_next_event(async_client, sim):
    await sim.engine.until_settled()
    sim.engine.set_mode("paused")
    due = (await KUBECTL.get("simulations", "default"))["status"]["next"]
    page = text((await async_client.get("/c/demo/")).content.decode())
    assert f"next: {due['what']} at t=" in page
    controls = text((await async_client.post("/c/demo/controls/step", {"timer": "1"})).content.decode())
    assert f"t = {due['time']:.2f} s" in controls


async def test_the_pane_prints_get_pods_wide_and_describe_pod(async_client, sim):
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "shown", "namespace": "default"},
        "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
    }
    await KUBECTL.create(pod)
    await sim.engine.until_settled()
    pane = text((await async_client.get("/c/demo/console/")).content.decode())
    assert "$ kubectl get pods -o wide\nNAME    READY   STATUS    RESTARTS   AGE" in pane
    assert re.search(r"\nshown   1/1     Running   0          \S+\s+10\.244\.", pane)
    described = text((await async_client.get("/c/demo/console/describe/pod/default/shown")).content.decode())
    assert described.strip().startswith("$ kubectl describe pod shown\nName:")
    assert re.search(r"\nEvents:\n  Type    Reason     Age +From +Message\n  ----    ------     ---- +---- +-------\n",
                     described)


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (
            {"action": "label", "value": "disktype=ssd", "overwrite": "1"},
            "kubectl label node node01 disktype=ssd --overwrite",
        ),
        ({"action": "unlabel", "value": "disktype"}, "kubectl label node node01 disktype-"),
        ({"action": "taint", "value": "gpu=yes:NoSchedule"}, "kubectl taint node node01 gpu=yes:NoSchedule"),
        ({"action": "untaint", "value": "gpu:NoSchedule"}, "kubectl taint node node01 gpu:NoSchedule-"),
        ({"action": "cordon"}, "kubectl cordon node01"),
        ({"action": "stop"}, "kubectl annotate node node01 clusterviz.io/kubelet=stopped --overwrite"),
        ({"action": "delete"}, "kubectl delete node node01"),
    ],
)
def test_each_node_action_names_its_kubectl_command(data, line):
    from clusterviz.web.actions import node_command

    assert node_command("node01", data["action"], data.get("value", ""), bool(data.get("overwrite"))) == line


async def test_workload_and_pod_actions_show_kubectls_lines(async_client):
    from tests.web.test_actions import deployment

    await KUBECTL.create(deployment("web"))
    url = "/c/demo/workloads/deployments/default/web"
    scaled = text((await async_client.post(url, {"action": "scale", "replicas": "2"})).content.decode())
    assert "$ kubectl scale deployment/web --replicas=2\ndeployment.apps/web scaled" in scaled
    body = {"action": "image", "container": "web", "image": "nginx:1.27"}
    imaged = text((await async_client.post(url, body)).content.decode())
    assert "$ kubectl set image deployment/web web=nginx:1.27\ndeployment.apps/web image updated" in imaged
    gone = text((await async_client.post("/c/demo/pods/default/nope/delete")).content.decode())
    assert '$ kubectl delete pod nope\nError from server (NotFound): pods "nope" not found' in gone
    reply = await async_client.post("/c/demo/nodes/node01/action", {"action": "unlabel", "value": "nothere"})
    again = text(reply.content.decode())
    assert '$ kubectl label node node01 nothere-\nlabel "nothere" not found.\nnode/node01 not labeled' in again


def test_the_timers_components_describe_are_retold_in_the_pages_language():
    from django.utils import translation

    from clusterviz.web.captions import TIMERS, timer

    assert timer("image pull on node02 finishes") == "image pull on node02 finishes"
    assert timer('container "web" on node01 starts') == 'container "web" on node01 starts'
    assert timer("something new happens") == "something new happens"
    with translation.override("zh-hans"):
        assert timer("image pull on node02 finishes") != "image pull on node02 finishes"
    assert len({str(text) for _pattern, text in TIMERS}) == len(TIMERS)
