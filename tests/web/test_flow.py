"""The flow diagram's captions and timeline: every delivered hop retold in English or Chinese."""

import json

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.utils import translation

from clusterviz.api.client import Client
from clusterviz.web.captions import caption, language_of
from clusterviz.web.routing import websocket_urlpatterns

pytestmark = pytest.mark.django_db(transaction=True)

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "myapp", "namespace": "default"},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "myapp"}},
        "template": {
            "metadata": {"labels": {"app": "myapp"}},
            "spec": {"containers": [{"name": "myapp", "image": "soscscs/myapp:v1"}]},
        },
    },
}


def message(sender: str, to: str, verb: str, step: int | None, kind: str = "Pod", name: str = "web") -> dict:
    return {
        "seq": 1,
        "from": sender,
        "to": to,
        "verb": verb,
        "step": step,
        "summary": "",
        "object": {"kind": kind, "namespace": "" if kind == "Node" else "default", "name": name},
    }


async def test_every_numbered_hop_of_a_deployment_gets_a_caption_in_both_languages(sim):
    await Client("demo", "kubectl").create(DEPLOYMENT)
    await sim.engine.until_settled()
    trace = (await Client("demo", "dashboard").list("flowmessages"))["items"]
    numbered = [m for m in trace if m["step"]]
    assert {m["step"] for m in numbered} == set(range(1, 14))
    for m in numbered:
        english = caption(m)
        with translation.override("zh-hans"):
            chinese = caption(m)
        assert english["why"] and chinese["why"] and english["why"] != chinese["why"], m
        assert english["what"].endswith(f"{m['object']['kind']} {m['object']['namespace']}/{m['object']['name']}")


def test_a_caption_names_both_ends_and_says_why():
    said = caption(message("scheduler", "apiserver", "bind", 10))
    assert said["what"] == "scheduler → API server: bind Pod default/web"
    assert "It only decides; the kubelet does the work." in said["why"]
    said = caption(message("kubelet/node02", "runtime/node02", "pull", 12))
    assert said["what"] == "kubelet on node02 → container runtime on node02: pull image Pod default/web"
    assert "pull the image" in said["why"]


def test_the_kubelets_node_watch_is_captioned_with_the_node_it_carries():
    said = caption(message("apiserver", "kubelet", "watch modified", None, kind="Node", name="node03"))
    assert said["what"] == "API server → kubelet on node03: event: modified Node node03"


def test_captions_in_chinese():
    with translation.override("zh-hans"):
        said = caption(message("controller-manager", "apiserver", "create", 6))
    assert said["what"] == "控制器管理器 → API Server: 创建 Pod default/web"
    assert said["why"] == "它的控制器（ReplicaSet、DaemonSet、StatefulSet 或 Job）发现 Pod 比期望的少，所以请求再创建一个 Pod。"


def test_the_socket_speaks_the_language_of_the_page_cookie_first():
    cookie = {"headers": [(b"cookie", b"django_language=zh-hans"), (b"accept-language", b"en-US,en;q=0.9")]}
    assert language_of(cookie) == "zh-hans"
    assert language_of({"headers": [(b"accept-language", b"zh-CN,zh;q=0.9")]}) == "zh-hans"
    assert language_of({"headers": []}) == "en"


def test_the_diagram_gets_the_nodes_and_its_names_in_both_languages(client):
    html = client.get("/c/demo/").content.decode()
    assert 'data-nodes="node01 node02 node03"' in html
    assert 'data-label-scheduler="scheduler"' in html and 'data-alt-scheduler="调度器"' in html
    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/c/demo/"})
    chinese = client.get("/c/demo/").content.decode()
    assert 'data-label-scheduler="调度器"' in chinese and 'data-label-runtime="容器运行时"' in chinese
    assert 'data-alt-scheduler="scheduler"' in chinese  # the English term stays beside the Chinese one


async def receive_until(communicator: WebsocketCommunicator, needle: str, frames: int = 60) -> str:
    for _ in range(frames):
        text = await communicator.receive_from(timeout=10)
        if needle in text:
            return text
    raise AssertionError(f"{needle!r} never arrived")


async def test_a_chinese_page_gets_chinese_rows_and_captions_over_its_socket(sim):
    communicator = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns), "/ws/c/demo/", headers=[(b"cookie", b"django_language=zh-hans")]
    )
    connected, _ = await communicator.connect()
    assert connected
    await Client("demo", "kubectl").create(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "shown", "namespace": "default"}, "data": {}}
    )
    row = await receive_until(communicator, 'hx-swap-oob="afterbegin:#timeline"')
    assert 'data-from="kubectl" data-to="apiserver"' in row and 'data-step="1"' in row
    assert "kubectl → API Server" in row
    assert 'data-why="每一次变更都从向 API Server 发请求开始，它是进入集群的唯一入口。"' in row
    data = json.loads(await receive_until(communicator, '{"flows"'))["flows"][0]
    assert data["flow"]["step"] == 1
    assert data["caption"]["why"] == "每一次变更都从向 API Server 发请求开始，它是进入集群的唯一入口。"
    await communicator.disconnect()


async def test_a_message_after_a_quiet_spell_reaches_the_page_at_once_and_the_next_wait_for_the_batch(
    sim, monkeypatch
):
    from clusterviz.web import consumers

    # Far longer than the receive timeouts: a page that waited for a batch before the first frame would see nothing.
    monkeypatch.setattr(consumers, "BATCH_SECONDS", 60.0)
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/c/demo/")
    connected, _ = await communicator.connect()
    assert connected
    client = Client("demo", "kubectl")
    configmap = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "first", "namespace": "default"}}
    await client.create(configmap)
    first = json.loads(await receive_until(communicator, '{"flows"'))["flows"]
    assert any(entry["flow"]["object"].get("name") == "first" for entry in first)
    await client.create({**configmap, "metadata": {"name": "second", "namespace": "default"}})
    frames = []
    for _ in range(10):  # a second: what the page got meanwhile
        while not await communicator.receive_nothing(timeout=0.1):
            frames.append(await communicator.receive_from())
    assert not [frame for frame in frames if '"second"' in frame and '{"flows"' in frame]
    await communicator.disconnect()
