"""The API server's watch cache: what watchers get does not depend on what it still holds in memory."""

import asyncio

import pytest

from clusterviz.api import watchcache
from clusterviz.api.client import Client

pytestmark = pytest.mark.django_db(transaction=True)


def config_map(name: str, value: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"},
            "data": {"value": value}}


async def watched(client: Client, start: str, count: int) -> list[tuple[str, str, int]]:
    """The first ``count`` events of a ConfigMap watch from ``start``: (name, value, resourceVersion)."""
    seen = []
    async for event in client.watch("configmaps", "default", resource_version=start, timeout_seconds=20):
        obj = event["object"]
        seen.append((obj["metadata"]["name"], obj["data"]["value"], int(obj["metadata"]["resourceVersion"])))
        if len(seen) == count:
            break
    return seen


async def test_a_watch_from_before_what_the_cache_keeps_still_gets_every_event_in_order(monkeypatch):
    # A cache that keeps about one event's worth of bytes lets go of the older ones at once.
    monkeypatch.setattr(watchcache, "KEEP_BYTES", 1)
    # The followers the watches read from (the first one's may be gone once its stream has closed).
    followers: list[watchcache.LogFollower] = []
    acquire = watchcache.acquire

    def recorded(cid: int, revision: int) -> watchcache.LogFollower:
        followers.append(acquire(cid, revision))
        return followers[-1]

    monkeypatch.setattr(watchcache, "acquire", recorded)
    client = Client("demo")
    start = (await client.list("configmaps", "default"))["metadata"]["resourceVersion"]
    first = asyncio.ensure_future(watched(client, start, 20))
    for i in range(20):
        await client.create(config_map(f"c{i}", str(i)))
    early = await asyncio.wait_for(first, 30)
    # The first watch has read on past what the cache now holds; one started afterwards goes further back.
    assert followers[0].floor > int(start)
    late = await asyncio.wait_for(watched(client, start, 20), 30)
    expected = [(f"c{i}", str(i), int(start) + 1 + i) for i in range(20)]
    assert early == expected
    assert late == expected


async def test_a_writer_changing_its_object_afterwards_changes_nothing_stored_or_watched():
    client = Client("demo")
    start = (await client.list("configmaps", "default"))["metadata"]["resourceVersion"]
    body = config_map("mine", "as-written")
    created = await client.create(body)
    body["data"]["value"] = "changed-body"
    created["data"]["value"] = "changed-reply"
    assert await asyncio.wait_for(watched(client, start, 1), 30) == [("mine", "as-written", int(start) + 1)]
    assert (await client.get("configmaps", "mine", "default"))["data"] == {"value": "as-written"}
