"""The cluster page's actions change the stored objects as kubectl would, and bad input changes nothing."""

import pytest

from clusterviz.api.client import Client
from clusterviz.web.actions import next_node

pytestmark = pytest.mark.django_db(transaction=True)

KUBECTL = Client("demo", "kubectl")


def deployment(name: str = "web", replicas: int = 1, image: str = "soscscs/myapp:v1") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "web", "image": image}]},
            },
        },
    }


async def act(async_client, url: str, **data: str) -> str:
    reply = await async_client.post(url, data)
    assert reply.status_code == 200
    return reply.content.decode()


async def node(name: str = "node01") -> dict:
    return await KUBECTL.get("nodes", name)


async def test_a_label_is_added_and_overwritten_only_with_the_flag(async_client):
    url = "/c/demo/nodes/node01/action"
    assert "node/node01 labeled" in await act(async_client, url, action="label", value="zone=a")
    before = await node()
    refused = await act(async_client, url, action="label", value="zone=b")
    assert "&#x27;zone&#x27; already has a value (a), and --overwrite is false" in refused
    assert (await node())["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    await act(async_client, url, action="label", value="zone=b", overwrite="1")
    assert (await node())["metadata"]["labels"]["zone"] == "b"
    assert "node/node01 unlabeled" in await act(async_client, url, action="unlabel", value="zone-")
    assert "zone" not in (await node())["metadata"]["labels"]
    assert "label &quot;zone&quot; not found" in await act(async_client, url, action="unlabel", value="zone")


async def test_an_invalid_label_key_gets_the_api_message_and_changes_nothing(async_client):
    before = await node("node02")
    reply = await act(async_client, "/c/demo/nodes/node02/action", action="label", value="-bad-=x")
    assert "Node &quot;node02&quot; is invalid: metadata.labels: Invalid value: &quot;-bad-&quot;" in reply
    assert await node("node02") == before


async def test_a_taint_is_added_refused_twice_and_removed(async_client):
    url = "/c/demo/nodes/node03/action"
    assert "node/node03 tainted" in await act(async_client, url, action="taint", value="gpu=yes:NoSchedule")
    assert (await node("node03"))["spec"]["taints"] == [{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]
    again = await act(async_client, url, action="taint", value="gpu=no:NoSchedule")
    assert "already has gpu taint(s) with same effect(s) and --overwrite is false" in again
    await act(async_client, url, action="taint", value="gpu=no:NoSchedule", overwrite="1")
    assert (await node("node03"))["spec"]["taints"] == [{"key": "gpu", "value": "no", "effect": "NoSchedule"}]
    assert "node/node03 untainted" in await act(async_client, url, action="untaint", value="gpu:NoSchedule-")
    assert "taints" not in (await node("node03"))["spec"]


async def test_a_bad_taint_is_refused_before_or_by_the_api(async_client):
    url = "/c/demo/nodes/node03/action"
    before = await node("node03")
    assert "invalid taint effect: NoWay" in await act(async_client, url, action="taint", value="a=b:NoWay")
    assert "invalid taint spec" in await act(async_client, url, action="taint", value="justakey")
    # upstream reports node taints under "metadata.taints", and so does the API
    assert "taints[0].key: Invalid value" in await act(async_client, url, action="taint", value="bad key:NoSchedule")
    assert "taint &quot;gpu-&quot; not found" in await act(async_client, url, action="untaint", value="gpu-")
    assert await node("node03") == before


async def test_cordon_and_the_kubelet_switch(async_client):
    url = "/c/demo/nodes/node02/action"
    assert "node/node02 cordoned" in await act(async_client, url, action="cordon")
    assert (await node("node02"))["spec"]["unschedulable"] is True
    assert "node/node02 uncordoned" in await act(async_client, url, action="uncordon")
    assert "unschedulable" not in (await node("node02"))["spec"]
    assert "kubelet on node02 stopped" in await act(async_client, url, action="stop")
    assert (await node("node02"))["metadata"]["annotations"]["clusterviz.io/kubelet"] == "stopped"
    await act(async_client, url, action="start")
    assert (await node("node02"))["metadata"]["annotations"]["clusterviz.io/kubelet"] == "running"


async def test_a_node_is_added_with_the_next_free_name_and_removed(async_client):
    reply = await act(async_client, "/c/demo/nodes/add", cpu="2", memory="4Gi")
    assert "node/node04 created" in reply
    added = await node("node04")
    assert added["status"]["allocatable"]["cpu"] == "2" and added["spec"]["podCIDR"] == "10.244.4.0/24"
    assert "node &quot;node04&quot; deleted" in await act(async_client, "/c/demo/nodes/node04/action", action="delete")
    assert await KUBECTL.get_or_none("nodes", "node04") is None


async def test_adding_a_node_that_exists_or_with_a_bad_name_is_refused(async_client):
    assert "nodes &quot;node01&quot; already exists" in await act(async_client, "/c/demo/nodes/add", name="node01")
    reply = await act(async_client, "/c/demo/nodes/add", name="Not_A_Name")
    assert "Invalid value: &quot;Not_A_Name&quot;" in reply
    reply = await act(async_client, "/c/demo/nodes/add", cpu="lots")
    assert "status.capacity.cpu: Invalid value: &quot;lots&quot;: quantities must match" in reply
    assert len((await KUBECTL.list("nodes"))["items"]) == 3


def test_a_new_node_gets_a_free_name_and_address():
    nodes = [
        {"metadata": {"name": n}, "spec": {"podCIDR": f"10.244.{i}.0/24"}} for n, i in (("node01", 1), ("node03", 5))
    ]
    assert next_node(nodes) == ("node02", 6)


async def test_scaling_a_deployment_writes_spec_replicas(async_client):
    await KUBECTL.create(deployment())
    url = "/c/demo/workloads/deployments/default/web"
    assert "deployment.apps/web scaled" in await act(async_client, url, action="scale", replicas="5")
    assert (await KUBECTL.get("deployments", "web", "default"))["spec"]["replicas"] == 5


async def test_scaling_to_a_negative_or_non_number_is_refused(async_client):
    await KUBECTL.create(deployment())
    before = await KUBECTL.get("deployments", "web", "default")
    url = "/c/demo/workloads/deployments/default/web"
    reply = await act(async_client, url, action="scale", replicas="-1")
    assert "spec.replicas: Invalid value: -1: must be greater than or equal to 0" in reply
    assert "whole number" in await act(async_client, url, action="scale", replicas="two")
    assert await KUBECTL.get("deployments", "web", "default") == before


async def test_scaling_a_replication_controller_and_a_missing_one(async_client):
    await KUBECTL.create(
        {
            "apiVersion": "v1",
            "kind": "ReplicationController",
            "metadata": {"name": "mysql", "namespace": "default"},
            "spec": {
                "replicas": 1,
                "selector": {"app": "mysql"},
                "template": {
                    "metadata": {"labels": {"app": "mysql"}},
                    "spec": {"containers": [{"name": "mysql", "image": "mysql:8.4"}]},
                },
            },
        }
    )
    url = "/c/demo/workloads/replicationcontrollers/default/mysql"
    assert "replicationcontroller/mysql scaled" in await act(async_client, url, action="scale", replicas="2")
    assert (await KUBECTL.get("replicationcontrollers", "mysql", "default"))["spec"]["replicas"] == 2
    missing = await act(async_client, "/c/demo/workloads/replicasets/default/nope", action="scale", replicas="2")
    assert "replicasets.apps &quot;nope&quot; not found" in missing


async def test_set_image_rolls_a_deployment_to_the_new_image(sim, async_client):
    await KUBECTL.create(deployment(replicas=2))
    await sim.engine.until_settled()
    url = "/c/demo/workloads/deployments/default/web"
    reply = await act(async_client, url, action="image", container="web", image="soscscs/myapp:v2")
    assert "deployment.apps/web image updated" in reply
    await sim.engine.until_settled()
    pods = (await KUBECTL.list("pods", "default", label_selector="app=web"))["items"]
    live = [p for p in pods if not p["metadata"].get("deletionTimestamp")]
    assert len(live) == 2 and {p["spec"]["containers"][0]["image"] for p in live} == {"soscscs/myapp:v2"}
    assert len((await KUBECTL.list("replicasets", "default"))["items"]) == 2  # the old one, scaled to 0, stays


async def test_set_image_of_an_unknown_container_or_to_nothing_is_refused(async_client):
    await KUBECTL.create(deployment())
    before = await KUBECTL.get("deployments", "web", "default")
    url = "/c/demo/workloads/deployments/default/web"
    unknown = await act(async_client, url, action="image", container="nope", image="nginx:1.27")
    assert "unable to find container named &quot;nope&quot;" in unknown
    empty = await act(async_client, url, action="image", container="web", image="")
    assert "spec.template.spec.containers[0].image: Required value" in empty
    assert await KUBECTL.get("deployments", "web", "default") == before


async def test_a_pod_is_deleted_like_kubectl_delete_pod(async_client):
    await KUBECTL.create(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "doomed", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]},
        }
    )
    assert "pod &quot;doomed&quot; deleted" in await act(async_client, "/c/demo/pods/default/doomed/delete")
    gone = await KUBECTL.get_or_none("pods", "doomed", "default")
    assert gone is None or gone["metadata"].get("deletionTimestamp")
    assert "pods &quot;nowhere&quot; not found" in await act(async_client, "/c/demo/pods/default/nowhere/delete")


async def test_removing_a_node_moves_its_pods_to_the_others(sim, async_client):
    await KUBECTL.create(deployment(replicas=3))
    await sim.engine.until_settled()
    await act(async_client, "/c/demo/nodes/node02/action", action="delete")
    await sim.engine.until_settled()
    pods = (await KUBECTL.list("pods", "default", label_selector="app=web"))["items"]
    assert len(pods) == 3 and {p["spec"]["nodeName"] for p in pods} <= {"node01", "node03"}
    assert all(p["status"]["phase"] == "Running" for p in pods)
