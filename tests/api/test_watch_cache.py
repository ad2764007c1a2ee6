"""The API server's watch cache: what watchers get does not depend on what it still holds in memory."""

import asyncio
import gc

import pytest
from asgiref.sync import sync_to_async

from clusterviz.api import watchcache
from clusterviz.api.client import Client
from clusterviz.store import kv

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


def lease(name: str, holder: str) -> dict:
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": name, "namespace": "default"}, "spec": {"holderIdentity": holder}}


async def test_a_kept_object_lets_the_one_before_it_go_once_its_event_leaves_memory(monkeypatch):
    # Nodes renew their Leases and Pods change all the time: the cache keeps each one's latest event
    # for its object, and must not keep every version before it alive as well.
    monkeypatch.setattr(watchcache, "KEEP_BYTES", 1)
    client = Client("demo")
    cid = await sync_to_async(kv.cluster_id)("demo")
    created = await client.create(lease("node01", "first"))
    follower = watchcache.acquire(cid, int(created["metadata"]["resourceVersion"]))
    try:
        assert await watchcache.get(cid, kv.Key("leases.coordination.k8s.io", "default", "node01")) is not None
        renewed = await client.update({**created, "spec": {"holderIdentity": "second"}})
        await follower.refresh(int(renewed["metadata"]["resourceVersion"]))
        event = follower.since(int(created["metadata"]["resourceVersion"]))[0]
        before = event.previous
        assert before is not None and before["spec"]["holderIdentity"] == "first"
        del event

        def held_by_events() -> bool:
            return any(isinstance(holder, kv.Event) for holder in gc.get_referrers(before))

        assert held_by_events()
        # Another write moves the renewal's event out of memory.
        later = await client.create(config_map("other", "x"))
        await follower.refresh(int(later["metadata"]["resourceVersion"]))
        assert not held_by_events()
        kept = await watchcache.get(cid, kv.Key("leases.coordination.k8s.io", "default", "node01"))
        assert kept is not None and kept["spec"]["holderIdentity"] == "second"
    finally:
        watchcache.release(follower)


async def test_the_cache_holds_a_bounded_stretch_of_the_log_in_memory():
    # Each event holds its object and the one before it, decoded: a cache of a busy cluster that kept
    # thousands of them held more memory than the cluster's objects themselves.
    client = Client("demo")
    cid = await sync_to_async(kv.cluster_id)("demo")
    start = int((await client.list("configmaps", "default"))["metadata"]["resourceVersion"])
    follower = watchcache.acquire(cid, start)
    try:
        for i in range(2 * watchcache.KEEP + 1):
            latest = await client.create(config_map(f"c{i}", str(i)))
        await follower.refresh(int(latest["metadata"]["resourceVersion"]))
        assert follower.floor > start
        assert len(follower.since(follower.floor)) <= 2000
    finally:
        watchcache.release(follower)
