"""Optimistic concurrency and the watch log under concurrent writers, through the API server."""

import asyncio

import pytest

from clusterviz.api import errors
from clusterviz.api.client import Client

pytestmark = pytest.mark.django_db(transaction=True)


async def test_concurrent_updates_with_one_resource_version_let_exactly_one_win():
    client = Client("demo")
    node = await client.get("nodes", "node01")
    rv = node["metadata"]["resourceVersion"]

    async def label(i: int) -> str:
        patch = {"metadata": {"resourceVersion": rv, "labels": {"writer": str(i)}}}
        try:
            await client.patch("nodes", "node01", patch)
            return "won"
        except errors.StatusError as exc:
            assert exc.code == 409 and exc.reason == "Conflict"
            return "conflict"

    results = await asyncio.gather(*(label(i) for i in range(8)))
    assert results.count("won") == 1
    assert results.count("conflict") == 7


async def test_every_write_reaches_a_watcher_in_revision_order_without_gaps():
    client = Client("demo")
    listed = await client.list("configmaps", "default")
    start = listed["metadata"]["resourceVersion"]
    seen: list[tuple[str, int]] = []

    async def watch() -> None:
        async for event in client.watch("configmaps", "default", resource_version=start, timeout_seconds=20):
            seen.append((event["object"]["metadata"]["name"], int(event["object"]["metadata"]["resourceVersion"])))
            if len(seen) == 40:
                return

    watcher = asyncio.ensure_future(watch())

    async def writer(w: int) -> None:
        for i in range(10):
            await client.create({"apiVersion": "v1", "kind": "ConfigMap",
                                 "metadata": {"name": f"w{w}-{i}", "namespace": "default"}, "data": {"i": str(i)}})

    await asyncio.gather(*(writer(w) for w in range(4)))
    await asyncio.wait_for(watcher, 30)
    revisions = [rv for _, rv in seen]
    assert revisions == sorted(revisions)
    # Nothing else writes to this cluster here, so the revisions are consecutive.
    assert revisions == list(range(int(start) + 1, int(start) + 41))
    assert {name for name, _ in seen} == {f"w{w}-{i}" for w in range(4) for i in range(10)}
