"""The "class of 100" scenario: many open cluster pages while many clients write, measured from outside.

One cluster's page websocket is opened by ``clients`` sockets (as a classroom of browsers would), and
``writers`` concurrent HTTP clients write to the same cluster for ``duration`` seconds: half create
ConfigMaps, half patch the labels of a ConfigMap of their own. Every socket checks that the flow
messages it receives (JSON frames ``{"flows": [{"flow": {"seq": ...}}, ...]}``) come in order without a gap, and notes
when the etcd -> apiserver acknowledgement of each write reaches it, which gives the delivery latency.

Used by tests/load/test_websocket_load.py (fixed figures, assertions) and bench/websocket_load.py
(parameters, printed figures). Loopback only; memory is one float per (socket, write) at most.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import aiohttp

# Every object the scenario writes starts with this, so its acknowledgements are told from the rest.
PREFIX = "load-"
READY = f"{PREFIX}ready"
# Bounded waits for the server process (wall-clock): sockets to open, the barrier write to reach every
# socket, and the last messages to drain after the writers stop.
CONNECT_SECONDS = 60.0
BARRIER_SECONDS = 60.0
DRAIN_SECONDS = 60.0
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def configmap(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"from": "load"}}


@dataclass
class Page:
    """One open cluster page: what its socket received."""

    number: int
    last_seq: int | None = None
    flow_messages: int = 0
    html_frames: int = 0
    # "expected N, got M" for every break in the sequence.
    gaps: list[str] = field(default_factory=list)
    # Arrival times (time.monotonic) of the acknowledgements of the scenario's writes, by object name.
    acks: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    closed: str = ""

    def receive(self, text: str) -> None:
        if not text.startswith('{"flows"'):
            self.html_frames += 1  # htmx fragments: the node cards, the timeline rows, the objects panel
            return
        now = time.monotonic()
        for entry in json.loads(text)["flows"]:
            message = entry["flow"]
            seq = message["seq"]
            if self.last_seq is not None and seq != self.last_seq + 1:
                self.gaps.append(f"expected {self.last_seq + 1}, got {seq}")
            self.last_seq = seq
            self.flow_messages += 1
            obj = message.get("object") or {}
            if (
                message.get("from") == "etcd"
                and obj.get("kind") == "ConfigMap"
                and obj.get("name", "").startswith(PREFIX)
            ):
                self.acks[obj["name"]].append(now)


@dataclass
class Figures:
    """What a run measured."""

    clients: int
    writers: int
    duration: float
    writes: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    flow_messages: int = 0
    html_frames: int = 0
    gaps: list[str] = field(default_factory=list)
    # Pages that had not received everything by the end of the drain, or whose socket closed early.
    lagging: list[str] = field(default_factory=list)
    # Milliseconds from a write's response (and from its request) to one page receiving its acknowledgement.
    after_response_ms: list[float] = field(default_factory=list)
    after_request_ms: list[float] = field(default_factory=list)
    missing_acks: int = 0
    # Milliseconds from sending a write to its response.
    write_ms: list[float] = field(default_factory=list)

    @property
    def server_errors(self) -> int:
        return sum(n for code, n in self.statuses.items() if code >= 500)

    @property
    def writes_per_second(self) -> float:
        return self.writes / self.duration

    @property
    def messages_per_second(self) -> float:
        """Flow messages delivered per second, summed over every page."""
        return self.flow_messages / self.duration

    @staticmethod
    def percentile(values: list[float], p: float) -> float:
        if not values:
            return float("nan")
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))]

    def lines(self) -> list[str]:
        return [
            f"pages (websockets)                 {self.clients}",
            f"writers                            {self.writers}",
            f"duration s                         {self.duration:.1f}",
            f"writes                             {self.writes}",
            f"writes/s                           {self.writes_per_second:.1f}",
            f"write statuses                     {dict(sorted(self.statuses.items()))}",
            f"flow messages delivered/s (all)    {self.messages_per_second:.1f}",
            f"flow messages per page             {self.flow_messages / max(self.clients, 1):.0f}",
            f"html frames delivered (all)        {self.html_frames}",
            f"gaps / lagging pages               {len(self.gaps)} / {len(self.lagging)}",
            f"acks not received                  {self.missing_acks}",
            f"latency after response p50/p99 ms  {self.percentile(self.after_response_ms, 50):.1f} / "
            f"{self.percentile(self.after_response_ms, 99):.1f}",
            f"latency after request p50/p99 ms   {self.percentile(self.after_request_ms, 50):.1f} / "
            f"{self.percentile(self.after_request_ms, 99):.1f}",
            f"write round trip p50/p99 ms        {self.percentile(self.write_ms, 50):.1f} / "
            f"{self.percentile(self.write_ms, 99):.1f}",
        ]


class Scenario:
    """One run against a server at ``base`` (``http://127.0.0.1:PORT``) on ``cluster``."""

    def __init__(self, base: str, cluster: str, clients: int, writers: int, duration: float) -> None:
        self.base = base
        self.cluster = cluster
        self.clients = clients
        self.writers = writers
        self.duration = duration
        self.pages = [Page(i) for i in range(clients)]
        # (request sent, response received) of every successful write, by object name, in order.
        self.done: dict[str, list[tuple[float, float]]] = defaultdict(list)
        self.figures = Figures(clients, writers, duration)

    @property
    def api(self) -> str:
        return f"{self.base}/c/{self.cluster}"

    async def run(self) -> Figures:
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=30)
        async with (
            aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), timeout=timeout) as sockets,
            aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=self.writers), timeout=timeout) as http,
        ):
            for w in range(1, self.writers, 2):
                await self.write(http, "POST", CONFIGMAPS, configmap(self.patched(w)), record=False)
            opened = [asyncio.Event() for _ in self.pages]
            readers = [asyncio.ensure_future(self.read(sockets, page, opened[page.number])) for page in self.pages]
            try:
                await asyncio.wait_for(asyncio.gather(*(o.wait() for o in opened)), CONNECT_SECONDS)
                await self.barrier(http)
                start = time.monotonic()
                stop_at = start + self.duration
                await asyncio.gather(*(self.writer(http, w, stop_at) for w in range(self.writers)))
                # Writes in flight at the deadline still count, so the window runs to the last response.
                self.figures.duration = time.monotonic() - start
                await self.drain(http)
            finally:
                for reader in readers:
                    reader.cancel()
                await asyncio.gather(*readers, return_exceptions=True)
        self.collect()
        return self.figures

    async def read(self, session: aiohttp.ClientSession, page: Page, opened: asyncio.Event) -> None:
        url = f"{self.base.replace('http', 'ws', 1)}/ws/c/{self.cluster}/"
        # Channels' AllowedHostsOriginValidator accepts a page served by the same host.
        try:
            async with session.ws_connect(url, headers={"Origin": self.base}, autoping=True) as ws:
                opened.set()
                async for msg in ws:
                    if msg.type == aiohttp.WSMsgType.TEXT:
                        page.receive(msg.data)
                    elif msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.ERROR):
                        break
                page.closed = f"closed by the server ({ws.close_code})"
        except Exception as exc:  # a refused socket or a frame it could not read: reported as a lagging page
            page.closed = f"{type(exc).__name__}: {exc}"
            opened.set()

    async def barrier(self, http: aiohttp.ClientSession) -> None:
        """Write once and wait until every page has heard of it: from then on every page is watching."""
        await self.write(http, "POST", CONFIGMAPS, configmap(READY), record=False)
        deadline = time.monotonic() + BARRIER_SECONDS
        while any(READY not in page.acks for page in self.pages) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # wall-clock: waiting for the server process to reach every socket
        late = [page.number for page in self.pages if READY not in page.acks]
        if late:
            raise AssertionError(f"{len(late)} pages never received the first write: {late[:10]}")

    @staticmethod
    def patched(w: int) -> str:
        return f"{PREFIX}w{w}"

    async def writer(self, http: aiohttp.ClientSession, w: int, stop_at: float) -> None:
        i = 0
        while time.monotonic() < stop_at:
            if w % 2 == 0:
                await self.write(http, "POST", CONFIGMAPS, configmap(f"{PREFIX}w{w}-{i}"))
            else:
                patch = {"metadata": {"labels": {"tick": str(i)}}}
                await self.write(
                    http, "PATCH", f"{CONFIGMAPS}/{self.patched(w)}", patch, content_type="application/merge-patch+json"
                )
            i += 1

    async def write(
        self,
        http: aiohttp.ClientSession,
        method: str,
        path: str,
        body: dict[str, Any],
        *,
        content_type: str = "application/json",
        record: bool = True,
    ) -> None:
        sent = time.monotonic()
        async with http.request(
            method, self.api + path, data=json.dumps(body), headers={"Content-Type": content_type}
        ) as resp:
            reply = await resp.read()
            answered = time.monotonic()
        if not record:
            if resp.status >= 300:
                raise AssertionError(f"set-up write failed: {resp.status} {reply[:300]!r}")
            return
        self.figures.statuses[resp.status] += 1
        if resp.status < 300:
            self.figures.writes += 1
            self.done[json.loads(reply)["metadata"]["name"]].append((sent, answered))

    async def drain(self, http: aiohttp.ClientSession) -> None:
        """Wait until every page has received every message delivered up to the last write."""
        async with http.get(f"{self.api}/apis/clusterviz.io/v1/simulations/default") as resp:
            last = (await resp.json())["status"]["lastSeq"]
        deadline = time.monotonic() + DRAIN_SECONDS
        while time.monotonic() < deadline and any(
            not page.closed and (page.last_seq or 0) < last for page in self.pages
        ):
            await asyncio.sleep(0.1)  # wall-clock: waiting for the server process to catch up
        for page in self.pages:
            if page.closed:
                self.figures.lagging.append(f"page {page.number}: {page.closed}")
            elif (page.last_seq or 0) < last:
                self.figures.lagging.append(f"page {page.number}: at seq {page.last_seq}, server at {last}")

    def collect(self) -> None:
        figures = self.figures
        for page in self.pages:
            figures.flow_messages += page.flow_messages
            figures.html_frames += page.html_frames
            figures.gaps += [f"page {page.number}: {gap}" for gap in page.gaps]
        figures.write_ms = [(answered - sent) * 1000 for writes in self.done.values() for sent, answered in writes]
        for page in self.pages:
            for name, writes in self.done.items():
                arrivals = page.acks.get(name, [])
                figures.missing_acks += max(0, len(writes) - len(arrivals))
                # One writer writes each object, one write at a time, so its acknowledgements come in order.
                for (sent, answered), arrived in zip(writes, arrivals, strict=False):
                    figures.after_response_ms.append((arrived - answered) * 1000)
                    figures.after_request_ms.append((arrived - sent) * 1000)
