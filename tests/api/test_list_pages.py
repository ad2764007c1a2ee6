"""A page of a big list costs what the page holds.

A resource the watch cache keeps is paged from its objects, decoded once for the whole process: kubectl's
pages of 500 out of 10,000 Pods each decoded and held every Pod before.
"""

import tracemalloc
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import orjson
import pytest

from clusterviz.api import watchcache
from clusterviz.api.client import Client
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
