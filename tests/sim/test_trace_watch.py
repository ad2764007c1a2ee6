"""A watch of the trace (what every open cluster page follows) gets every message once, in order.

Found by the websocket load test (tests/load): pages that opened while the trace was being flushed to
the database missed the messages of that flush.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from clusterviz.api.client import Client
from clusterviz.sim import api_group, trace

pytestmark = pytest.mark.django_db(transaction=True)

FLOW = "/apis/clusterviz.io/v1/flowmessages"


async def some_traffic(sim: Any) -> int:
    """A few hops on the bus; returns the last sequence number."""
    kubectl = Client("demo", "kubectl")
    for name in ("one", "two"):
        await kubectl.create(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}}
        )
    await sim.engine.until_settled()
    assert sim.engine.last_seq > 4
    return sim.engine.last_seq


async def test_messages_being_flushed_are_still_listed(sim, monkeypatch):
    last = await some_traffic(sim)
    writing, release = threading.Event(), threading.Event()
    write = trace._write

    def slow_write(*args: Any) -> None:
        # Hold the flush between taking the buffer and committing it.
        writing.set()
        release.wait(10)
        write(*args)

    monkeypatch.setattr(trace, "_write", slow_write)
    flush = asyncio.ensure_future(trace.save(sim.engine))
    try:
        assert await asyncio.to_thread(writing.wait, 10)
        listed = await api_group._messages("demo", 0, api_group.PAGE)
    finally:
        release.set()
        await flush
    assert [m["seq"] for m in listed] == list(range(1, last + 1))


async def test_a_watch_replays_a_backlog_longer_than_a_page_without_a_gap(sim, monkeypatch):
    last = await some_traffic(sim)
    monkeypatch.setattr(api_group, "PAGE", 2)
    resp = await Client("demo", "dashboard").request("GET", FLOW, query={"watch": "true", "sinceSeq": "0"})
    assert resp.stream is not None
    seen: list[int] = []

    async def collect() -> None:
        async for event in resp.stream:
            seen.append(event["object"]["seq"])
            if len(seen) == last:
                return

    try:
        await asyncio.wait_for(collect(), 10)
    finally:
        await resp.stream.aclose()
    assert seen == list(range(1, last + 1))


async def test_a_process_without_the_engine_follows_the_trace_its_worker_saves(monkeypatch):
    """In scale-out, pages are served by web processes while a simworker runs the engine and saves its trace."""
    from asgiref.sync import sync_to_async

    from clusterviz.sim import registry
    from clusterviz.sim.models import FlowMessage

    async def no_engine_here(cluster: str) -> None:
        return None

    monkeypatch.setattr(registry, "ensure", no_engine_here)
    monkeypatch.setattr(api_group, "SAVED_POLL_SECONDS", 0.01)
    resp = await Client("demo", "dashboard").request("GET", FLOW, query={"watch": "true", "sinceSeq": "0"})
    stream = resp.stream
    assert stream is not None

    def saved(seq: int) -> None:
        FlowMessage.objects.create(
            cluster="demo", seq=seq, time=seq / 10, sender="kubectl", to="API server", verb="create",
            kind="ConfigMap", namespace="default", name=f"cm{seq}", step=1, summary=f"create cm{seq}",
        )  # fmt: skip

    for seq in (1, 2, 3):
        await sync_to_async(saved)(seq)
    seen = [(await asyncio.wait_for(anext(stream), 5))["object"]["seq"] for _ in range(3)]
    await sync_to_async(saved)(4)
    seen.append((await asyncio.wait_for(anext(stream), 5))["object"]["seq"])
    assert seen == [1, 2, 3, 4]
    await stream.aclose()
