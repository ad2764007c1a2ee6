"""The objects panel: kubectl get -A -o wide tables, kubectl describe, and live reloads over the websocket."""

import re
from pathlib import Path

import pytest
import yaml
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from clusterviz.api.client import Client
from clusterviz.web.routing import websocket_urlpatterns
from tests.web.test_actions import deployment
from tests.web.test_cluster_page import receive_until

pytestmark = pytest.mark.django_db(transaction=True)

KUBECTL = Client("demo", "kubectl")
SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 80}]},
}


def headings(html: str, plural: str) -> list[str]:
    table = html[html.index(f'data-plural="{plural}"') :].split("</table>")[0]
    return re.findall(r'<th scope="col">([^<]*)</th>', table)


def rows(html: str, plural: str) -> list[list[str]]:
    table = html[html.index(f'data-plural="{plural}"') :].split("</table>")[0]
    return [re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in table.split("<tr")[2:]]


async def get(async_client, url: str) -> str:
    reply = await async_client.get(url)
    assert reply.status_code == 200
    return reply.content.decode()


def test_the_page_has_the_panel_with_a_tab_per_kind(client):
    page = client.get("/c/demo/").content.decode()
    assert 'id="objects-form"' in page and 'id="objects-refresh"' in page
    for tab in ("pods", "deployments", "replicasets", "replicationcontrollers", "services", "nodes", "events"):
        assert f'name="tab" value="{tab}"' in page


async def test_pods_read_like_kubectl_get_pods_wide(sim, async_client):
    await KUBECTL.create(deployment(replicas=2))
    await sim.engine.until_settled()
    html = await get(async_client, "/c/demo/objects?tab=pods")
    assert headings(html, "pods") == [
        "NAMESPACE",
        "NAME",
        "READY",
        "STATUS",
        "RESTARTS",
        "AGE",
        "IP",
        "NODE",
        "NOMINATED NODE",
        "READINESS GATES",
    ]
    shown = rows(html, "pods")
    assert len(shown) == 2
    for namespace, name, ready, status, restarts, _age, ip, node, nominated, gates in shown:
        assert (namespace, ready, status, restarts, nominated, gates) == (
            "default",
            "1/1",
            "Running",
            "0",
            "&lt;none&gt;",
            "&lt;none&gt;",
        )
        assert name.startswith("web-") and ip.startswith("10.244.") and node.startswith("node0")


async def test_workloads_read_like_kubectl_get_wide(sim, async_client):
    await KUBECTL.create(deployment(replicas=2))
    await sim.engine.until_settled()
    html = await get(async_client, "/c/demo/objects?tab=deployments")
    assert headings(html, "deployments") == [
        "NAMESPACE",
        "NAME",
        "READY",
        "UP-TO-DATE",
        "AVAILABLE",
        "AGE",
        "CONTAINERS",
        "IMAGES",
        "SELECTOR",
    ]
    (row,) = rows(html, "deployments")
    assert row[:5] == ["default", "web", "2/2", "2", "2"] and row[6:] == ["web", "soscscs/myapp:v1", "app=web"]
    html = await get(async_client, "/c/demo/objects?tab=replicasets")
    assert headings(html, "replicasets")[:5] == ["NAMESPACE", "NAME", "DESIRED", "CURRENT", "READY"]
    assert rows(html, "replicasets")[0][2:5] == ["2", "2", "2"]
    html = await get(async_client, "/c/demo/objects?tab=replicationcontrollers")
    assert "No resources found" in html


async def test_services_come_with_their_endpoints(sim, async_client):
    await KUBECTL.create(deployment(replicas=1))
    await KUBECTL.create(SERVICE)
    await sim.engine.until_settled()
    html = await get(async_client, "/c/demo/objects?tab=services")
    assert headings(html, "services") == [
        "NAMESPACE",
        "NAME",
        "TYPE",
        "CLUSTER-IP",
        "EXTERNAL-IP",
        "PORT(S)",
        "AGE",
        "SELECTOR",
    ]
    assert [r[1] for r in rows(html, "services")] == ["kubernetes", "web"]
    endpoints = {r[1]: r[2] for r in rows(html, "endpoints")}
    assert re.fullmatch(r"10\.244\.\d+\.\d+:80", endpoints["web"])


async def test_the_services_tab_lists_endpoint_slices_and_describes_them_as_kubectl(sim, async_client):
    await KUBECTL.create(deployment(replicas=1))
    await KUBECTL.create(SERVICE)
    await sim.engine.until_settled()
    html = await get(async_client, "/c/demo/objects?tab=services")
    assert headings(html, "endpointslices") == ["NAMESPACE", "NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]
    slices = {r[1]: r[2:5] for r in rows(html, "endpointslices")}
    assert slices["kubernetes"] == ["IPv4", "6443", "192.168.49.2"]
    web = next(name for name in slices if name.startswith("web-"))
    assert slices[web][:2] == ["IPv4", "80"] and re.fullmatch(r"10\.244\.\d+\.\d+", slices[web][2])
    described = await get(async_client, "/c/demo/describe/endpointslices/kubernetes?namespace=default")
    text = re.sub(r"<[^>]+>", "", described)
    for line in ("AddressType:  IPv4", "  Name   Port  Protocol", "  https  6443  TCP",
                 "  - Addresses:  192.168.49.2", "      Ready:   true", "    NodeName:  &lt;unset&gt;"):
        assert line in text, line


async def test_the_custom_tab_shows_definitions_and_a_table_for_each_kind_they_add(sim, async_client):
    crd = yaml.safe_load((Path(__file__).parent.parent / "e2e" / "crd_yaml" / "crontab-crd.yaml").read_text())
    await KUBECTL.create(crd)
    cron = yaml.safe_load((Path(__file__).parent.parent / "e2e" / "crd_yaml" / "my-crontab.yaml").read_text())
    await KUBECTL.request("POST", "/apis/stable.example.com/v1/namespaces/default/crontabs", payload=cron)
    await sim.engine.until_settled()
    html = await get(async_client, "/c/demo/objects?tab=custom")
    assert headings(html, "customresourcedefinitions") == ["NAME", "CREATED AT"]
    assert [r[0] for r in rows(html, "customresourcedefinitions")] == ["crontabs.stable.example.com"]
    assert headings(html, "crontabs.stable.example.com") == ["NAMESPACE", "NAME", "SPEC", "REPLICAS", "AGE"]
    assert rows(html, "crontabs.stable.example.com")[0][:4] == ["default", "my-new-cron-object", "* * * * */5", "1"]
    described = re.sub(r"<[^>]+>", "", await get(
        async_client, "/c/demo/describe/crontabs.stable.example.com/my-new-cron-object?namespace=default"))
    assert "Kind:         CronTab" in described and "Cron Spec:  * * * * */5" in described
    unknown = await get(async_client, "/c/demo/describe/widgets.example.com/w?namespace=default")
    assert "the server doesn&#x27;t have a resource type &quot;widgets.example.com&quot;" in unknown


async def test_nodes_and_events_tabs(sim, async_client):
    await KUBECTL.create(deployment(replicas=1))
    await sim.engine.until_settled()
    html = await get(async_client, "/c/demo/objects?tab=nodes")
    assert headings(html, "nodes")[:5] == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    assert [r[:2] for r in rows(html, "nodes")] == [["node01", "Ready"], ["node02", "Ready"], ["node03", "Ready"]]
    html = await get(async_client, "/c/demo/objects?tab=events")
    assert headings(html, "events")[:8] == [
        "NAMESPACE",
        "LAST SEEN",
        "TYPE",
        "REASON",
        "OBJECT",
        "SUBOBJECT",
        "SOURCE",
        "MESSAGE",
    ]
    reasons = [r[3] for r in rows(html, "events")]
    assert {"ScalingReplicaSet", "SuccessfulCreate", "Scheduled", "Started"} <= set(reasons)
    assert "newest first" in html


async def test_describe_pod_shows_its_fields_and_events(sim, async_client):
    await KUBECTL.create(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "solo", "namespace": "default", "labels": {"app": "solo"}},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.27", "ports": [{"containerPort": 80}]}]},
        }
    )
    await sim.engine.until_settled()
    pod = await KUBECTL.get("pods", "solo", "default")
    html = await get(async_client, "/c/demo/describe/pods/solo?namespace=default")
    assert 'id="describe-target" value="pods/default/solo" hx-swap-oob="true"' in html
    for line in (
        "Name:",
        "solo",
        "Namespace:",
        "Labels:",
        "app=solo",
        "Status:",
        "Running",
        "Image:",
        "nginx:1.27",
        "Port:",
        "80/TCP",
        f"{pod['spec']['nodeName']}/{pod['status']['hostIP']}",
    ):
        assert line in html
    events = html[html.index("<caption>Events:</caption>") :]
    for reason in ("Scheduled", "Pulling", "Pulled", "Created", "Started"):
        assert f"<td>{reason}</td>" in events
    assert f"<td>kubelet, {pod['spec']['nodeName']}</td>" in events and "default-scheduler" in events
    assert "Delete Pod" in html


async def test_describe_deployment_offers_scale_and_set_image(sim, async_client):
    await KUBECTL.create(deployment(replicas=2))
    await sim.engine.until_settled()
    html = await get(async_client, "/c/demo/describe/deployments/web?namespace=default")
    assert "2 desired | 2 updated | 2 total | 2 available | 0 unavailable" in html
    assert re.search(r"NewReplicaSet:\s+web-\w+ \(2/2 replicas created\)", html)
    assert 'name="replicas" value="2"' in html and 'name="image" value="soscscs/myapp:v1"' in html
    assert "<td>ScalingReplicaSet</td>" in html


async def test_describe_a_node_and_a_missing_object(async_client):
    html = await get(async_client, "/c/demo/describe/nodes/node01")
    assert "Taints:" in html and "Unschedulable:" in html and "KubeletReady" in html
    missing = await get(async_client, "/c/demo/describe/pods/ghost?namespace=default")
    assert "pods &quot;ghost&quot; not found" in missing and "Delete Pod" not in missing


async def test_a_reload_with_an_open_describe_refreshes_it_out_of_band(async_client):
    html = await get(async_client, "/c/demo/objects?tab=nodes&describe=nodes//node02")
    assert 'id="describe-body" hx-swap-oob="true"' in html and "node02" in html


async def test_the_websocket_asks_the_panel_to_reload_when_objects_change():
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/c/demo/")
    connected, _ = await communicator.connect()
    assert connected
    await receive_until(communicator, 'id="objects-refresh"')
    await KUBECTL.create(SERVICE)
    frame = await receive_until(communicator, 'id="objects-refresh"')
    assert 'hx-trigger="load"' in frame and 'hx-include="#objects-form"' in frame
    await communicator.disconnect()


async def test_flash_messages_and_tabs_are_translated(async_client):
    await async_client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/c/demo/"})
    reply = (await async_client.post("/c/demo/nodes/node01/action", {"action": "cordon"})).content.decode()
    assert "<samp lang=\"en\">node/node01 cordoned</samp> 已禁止调度" in reply
    page = (await async_client.get("/c/demo/")).content.decode()
    assert ">事件</label>" in page and "添加节点" in page and "加污点" in page


async def test_describe_pod_ends_with_each_containers_logs(sim, async_client):
    await KUBECTL.create(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "talker", "namespace": "default"},
            "spec": {
                "restartPolicy": "Never",
                "containers": [
                    {"name": "say", "image": "busybox", "args": ["echo", "hello class"]},
                    {"name": "web", "image": "nginx:1.27"},
                ],
            },
        }
    )
    await sim.engine.until_settled()
    html = await get(async_client, "/c/demo/describe/pods/talker?namespace=default")
    assert "<code>kubectl logs talker -c say --tail=20</code>" in html
    assert "hello class" in html
    assert "start worker processes" in html
