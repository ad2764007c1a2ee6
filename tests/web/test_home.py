"""The home page lists the clusters with their nodes, and creates, resets and deletes clusters."""

import pytest
from asgiref.sync import sync_to_async

from clusterviz.api.client import Client
from clusterviz.sim.models import FlowMessage, Simulation
from clusterviz.store import kv

pytestmark = pytest.mark.django_db(transaction=True)


def test_home_lists_the_demo_cluster_and_its_ready_nodes(client):
    response = client.get("/")
    assert response.status_code == 200
    page = response.content.decode()
    assert '<h2><a href="/c/demo/">demo</a></h2>' in page
    assert page.count('class="ready"') == 3
    assert "/c/demo get nodes" in page
    assert 'hx-post="/clusters/new"' in page and 'hx-post="/clusters/demo/reset"' in page


async def test_a_cluster_is_created_with_its_nodes(async_client):
    reply = (await async_client.post("/clusters/new", {"name": "lesson1", "nodes": "2"})).content.decode()
    assert "cluster &quot;lesson1&quot; created with 2 node(s)" in reply
    assert '<a href="/c/lesson1/">lesson1</a>' in reply
    nodes = (await Client("lesson1", "kubectl").list("nodes"))["items"]
    assert [n["metadata"]["name"] for n in nodes] == ["node01", "node02"]


async def test_bad_names_counts_and_duplicates_are_refused(async_client):
    bad_name = (await async_client.post("/clusters/new", {"name": "Bad_Name", "nodes": "3"})).content.decode()
    assert "invalid cluster name" in bad_name and "a lowercase RFC 1123 label" in bad_name
    too_many = (await async_client.post("/clusters/new", {"name": "big", "nodes": "5000"})).content.decode()
    assert "between 0 and 100" in too_many
    duplicate = (await async_client.post("/clusters/new", {"name": "demo", "nodes": "3"})).content.decode()
    assert "cluster &quot;demo&quot; already exists" in duplicate
    assert await sync_to_async(kv.cluster_names)() == ["demo"]


async def test_reset_removes_the_workloads_and_brings_back_three_nodes(async_client):
    kubectl = Client("demo", "kubectl")
    await kubectl.create(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "left", "namespace": "kube-public"}}
    )
    await kubectl.delete("nodes", "node03")
    await kubectl.patch("nodes", "node01", {"metadata": {"labels": {"disktype": "ssd"}}})
    reply = (await async_client.post("/clusters/demo/reset")).content.decode()
    assert "cluster &quot;demo&quot; reset to 3 nodes" in reply
    nodes = (await kubectl.list("nodes"))["items"]
    assert [n["metadata"]["name"] for n in nodes] == ["node01", "node02", "node03"]
    assert "disktype" not in nodes[0]["metadata"]["labels"]
    assert await kubectl.get_or_none("configmaps", "left", "kube-public") is None
    assert await kubectl.get_or_none("services", "kubernetes", "default") is not None


async def test_delete_removes_the_cluster_and_its_trace(async_client):
    await async_client.post("/clusters/new", {"name": "doomed", "nodes": "1"})
    await Client("doomed", "kubectl").get("simulations", "default")
    reply = (await async_client.post("/clusters/doomed/delete")).content.decode()
    assert "cluster &quot;doomed&quot; deleted" in reply and "/c/doomed/" not in reply
    assert await sync_to_async(kv.cluster_names)() == ["demo"]
    assert not await Simulation.objects.filter(cluster="doomed").aexists()
    assert not await FlowMessage.objects.filter(cluster="doomed").aexists()
    assert (await async_client.get("/c/doomed/")).status_code == 404
    again = (await async_client.post("/clusters/doomed/delete")).content.decode()
    assert "cluster &quot;doomed&quot; not found" in again
