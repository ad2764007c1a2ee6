"""One watch path per process: the engine's components, HTTP watches and the page share one reader of
a cluster's log, and a write made in this process reaches them without the log being read back.

A class of 100 idle clusters used to cost a core: each cluster's engine read its log after every
write, polled it every second, and saved its clock and renewed its lease on its own.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from clusterviz.api import watchcache
from clusterviz.api.client import Client
from clusterviz.sim import trace

pytestmark = pytest.mark.django_db(transaction=True)


def configmap(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}}


async def test_the_engine_and_an_http_watch_share_one_reader_and_local_writes_are_not_read_back(sim, monkeypatch):
    reads: list[int] = []
    read_log = watchcache._events_since

    async def events_since(cid: int, revision: int, limit: int) -> Any:
        reads.append(revision)
        return await read_log(cid, revision, limit)

    monkeypatch.setattr(watchcache, "_events_since", events_since)
    await sim.engine.until_settled()
    client = Client("demo", "kubectl")
    listed = await client.list("configmaps", "default")
    resp = await client.request(
        "GET", "/api/v1/namespaces/default/configmaps",
        query={"watch": "true", "resourceVersion": listed["metadata"]["resourceVersion"]},
    )
    assert resp.status == 200 and resp.stream is not None
    # The HTTP watch found the follower the engine's gate opened: one per cluster and loop.
    assert [key for key in watchcache._followers if key[1] == sim.gate.cid] == [(sim.gate.follower.loop, sim.gate.cid)]
    reads.clear()

    created = await client.create(configmap("shared"))
    await sim.engine.until_settled()
    try:
        event = await asyncio.wait_for(anext(resp.stream), 10)
    finally:
        await resp.stream.aclose()
    assert (event["type"], event["object"]["metadata"]["resourceVersion"]) == (
        "ADDED", created["metadata"]["resourceVersion"]
    )
    # The write's event was handed over at commit: neither the engine nor the watch read the log.
    assert reads == []


async def test_every_engine_of_a_process_is_saved_in_one_write(sim, monkeypatch):
    batches: list[list[str]] = []
    write = trace._write

    def counted(rounds: list[trace.Batch]) -> None:
        batches.append([cluster for cluster, _, _ in rounds])
        write(rounds)

    monkeypatch.setattr(trace, "_write", counted)
    await Client("demo", "kubectl").create(configmap("saved"))
    await sim.engine.until_settled()
    await trace.save_all([sim.engine, sim.engine])
    assert batches == [["demo", "demo"]]
    saved = await sync_to_async(trace.saved_messages)("demo", 0, 10_000)
    assert [m["seq"] for m in saved] == list(range(1, sim.engine.last_seq + 1))
