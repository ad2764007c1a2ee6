"""A page of a big list costs what the page holds, and informers share the objects they list.

A resource the watch cache keeps is paged from its objects, decoded once for the whole process: kubectl's
pages of 500 out of 10,000 Pods each decoded and held every Pod before.
"""

import asyncio
import tracemalloc
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import orjson
import pytest

from clusterviz.api import objectcache, watchcache
from clusterviz.api.client import Client
from clusterviz.api.informer import Informer
from clusterviz.store import kv
from clusterviz.store.threads import in_thread

pytestmark = pytest.mark.django_db(transaction=True)
PODS = "/api/v1/namespaces/default/pods"


def pod(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}


@pytest.fixture
async def follower() -> AsyncIterator[watchcache.LogFollower]:
    """This loop's follower of "demo", as a running engine's watches keep one."""
    cid = await in_thread(kv.cluster_id)("demo")
    listed = await Client("demo").list("pods", "default")
    following = watchcache.acquire(cid, int(listed["metadata"]["resourceVersion"]))
    yield following
    watchcache.release(following)


async def peak_bytes(call: Callable[[], Awaitable[Any]]) -> int:
    """The most memory Python held at once during ``call`` beyond what it held before."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        await call()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


async def test_each_page_of_a_kept_resource_decodes_nothing_and_costs_memory_by_its_own_size(
    follower: watchcache.LogFollower, monkeypatch: pytest.MonkeyPatch,
):
    client = Client("demo", "kubectl", simulated=False)
    for index in range(300):
        await client.create(pod(f"web-{index:03}"), handed_over=True)
    # What every page cost before: the whole collection read and decoded from the store.
    whole = await peak_bytes(lambda: client.list("pods", "default"))
    await client.request("GET", PODS, query={"limit": "1"}, reads_only=True)  # the watch cache lists Pods once

    decodes = 0
    loads = orjson.loads

    def counted(data: Any) -> Any:
        nonlocal decodes
        decodes += 1
        return loads(data)

    monkeypatch.setattr(orjson, "loads", counted)
    names: list[str] = []
    query = {"limit": "25"}
    while True:
        answers: list[Any] = []

        async def page() -> None:
            answers.append((await client.request("GET", PODS, query=query, reads_only=True)).body)  # noqa: B023

        peak = await peak_bytes(page)
        assert peak < whole / 4, (peak, whole)
        body = answers[0]
        names += [item["metadata"]["name"] for item in body["items"]]
        if "continue" not in body["metadata"]:
            break
        assert body["metadata"]["remainingItemCount"] == 300 - len(names)
        query = {"limit": "25", "continue": body["metadata"]["continue"]}
    assert names == [f"web-{index:03}" for index in range(300)]
    assert decodes == 0  # nor copied: a copy is an encoding and a decoding


async def test_informers_share_what_they_list_and_any_other_caller_gets_objects_of_its_own(
    follower: watchcache.LogFollower,
):
    client = Client("demo", "scheduler")
    scheduler, controller = Informer(client, "nodes"), Informer(Client("demo", "daemonset-controller"), "nodes")
    await scheduler.list_once()
    await controller.list_once()
    assert scheduler.cache and all(controller.cache[key] is obj for key, obj in scheduler.cache.items())
    assert all(follower.objects.shared("nodes", ("", key)) is obj for key, obj in scheduler.cache.items())
    mine = (await client.list("nodes"))["items"]
    assert all(scheduler.cache[item["metadata"]["name"]] is not item for item in mine)
    mine[0]["metadata"]["labels"]["changed"] = "yes"
    name = mine[0]["metadata"]["name"]
    assert "changed" not in scheduler.cache[name]["metadata"]["labels"]
    assert "changed" not in (await client.get("nodes", name))["metadata"]["labels"]


async def test_informers_listing_at_once_share_one_listing(follower: watchcache.LogFollower):
    # A starting engine's informers all list at once, before the watch cache keeps Nodes.
    informers = [Informer(Client("demo", name), "nodes") for name in ("scheduler", "node-controller", "kubelets")]
    await asyncio.gather(*(informer.list_once() for informer in informers))
    first = informers[0].cache
    assert first and all(other.cache[key] is obj for other in informers[1:] for key, obj in first.items())
    assert all(follower.objects.shared("nodes", ("", key)) is obj for key, obj in first.items())


async def test_no_component_changes_an_object_it_shares_with_the_others(sim, monkeypatch: pytest.MonkeyPatch):
    # Every object the watch cache decodes or lists is handed to every informer that lists or watches it.
    shared: list[tuple[dict[str, Any], bytes]] = []
    decode = kv.Event.object.fget
    load = objectcache.ObjectCache.load

    def decoded(event: kv.Event) -> dict[str, Any]:
        first = event._object is None
        obj = decode(event)
        if first:
            shared.append((obj, orjson.dumps(obj)))
        return obj

    def loaded(cache: objectcache.ObjectCache, resource: str, items: list[dict[str, Any]], *args: Any) -> None:
        shared.extend((obj, orjson.dumps(obj)) for obj in items)
        load(cache, resource, items, *args)

    monkeypatch.setattr(kv.Event, "object", property(decoded))
    monkeypatch.setattr(objectcache.ObjectCache, "load", loaded)
    kubectl = Client("demo", "kubectl")
    await kubectl.create({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 4, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}},
    })
    await sim.engine.until_settled()
    await kubectl.patch("deployments", "web", {"spec": {"replicas": 1}}, "default", sub="scale")
    await sim.engine.until_settled()
    running = [p for p in (await kubectl.list("pods", "default"))["items"] if p["status"].get("phase") == "Running"]
    assert len(running) == 1
    assert {"Deployment", "Node", "Pod", "ReplicaSet"} <= {obj.get("kind") for obj, _ in shared}
    assert [orjson.dumps(obj) for obj, _ in shared] == [text for _, text in shared]
