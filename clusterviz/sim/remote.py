"""Writes to a cluster whose simulation runs in another process are served by that process.

In scale-out the engines run in ``simworker`` processes while Daphne processes take kubectl's
requests. A write must still be hops 1-3 on its cluster's bus (and wait in step mode), so a web
process without the cluster's engine sends the request over the channel layer (Redis) to the
process holding the engine's lease, which serves it exactly as a local request and sends the
answer back. Reads never travel: they are answered from the store where they arrive.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import uuid
from collections import OrderedDict
from collections.abc import Coroutine
from typing import Any

from django.conf import settings

from clusterviz.api import errors
from clusterviz.api.request import ApiRequest, ApiResponse
from clusterviz.store import loops
from clusterviz.store.notify import channel_layer, membership
from clusterviz.store.threads import in_thread

from . import lease

log = logging.getLogger(__name__)

# Step mode may hold a write for as long as the teacher talks.
FORWARD_TIMEOUT = 900.0
# How long to wait for the holder to take a request before sending it again. A busy holder may
# take longer; the request is sent again for as long as the holder keeps its lease, never answered
# "try again" meanwhile: the client would send the write a second time while the first may still
# be served (a create would then fail with AlreadyExists).
ACK_SECONDS = 2.0
# How long a holder serves a request before it acknowledges it (well within ``ACK_SECONDS``).
ACK_AFTER_SECONDS = 0.5
# How long to wait for the answer of a request the holder took before sending it again: the holder
# answers a copy with the answer it sent, or, while it still serves the request (a write held in
# step mode), with another acknowledgement.
ANSWER_SECONDS = 10.0
# Request ids a holder remembers, so that a request sent twice is served once.
REMEMBERED = 10_000
# How long a holder that lost Redis waits before listening again.
RETRY_SECONDS = 1.0


def group(holder: str) -> str:
    """The channel-layer group of the process called ``holder`` in the lease table.

    Group names allow only letters, digits, ``-``, ``_`` and ``.``; a holder name has a colon.
    """
    return f"clusterviz-gate-{hashlib.sha1(holder.encode()).hexdigest()}"


def available() -> bool:
    """Only a shared channel layer (Redis) reaches other processes."""
    return "Redis" in settings.CHANNEL_LAYERS["default"]["BACKEND"]


def _encode(req: ApiRequest) -> dict[str, Any]:
    return {
        "cluster": req.cluster, "method": req.method, "path": req.path, "query": req.query, "body": req.body,
        "content_type": req.content_type, "accept": req.accept, "client": req.client, "host": req.host,
    }  # fmt: skip


async def forward(req: ApiRequest, holder: str) -> ApiResponse | None:
    """Send ``req`` to the process holding its cluster's engine; None when no other process holds it.

    The holder acknowledges a request it has not answered within ``ACK_AFTER_SECONDS``. A request
    nobody took (the holder was just starting and not yet listening, is busy, or no longer runs the cluster) is sent again, to
    whichever process holds the lease by then; a process serves each request id once, and answers
    a copy of a request it has served with that answer again. So a taken request whose answer has
    not come within ``ANSWER_SECONDS`` is sent again too: the answer may have been lost on the way.
    """
    if not available():
        return None
    layer = channel_layer()
    reply = await layer.new_channel()
    message = {"type": "gate.request", "id": uuid.uuid4().hex, "reply": reply, "request": _encode(req)}
    loop = asyncio.get_running_loop()
    deadline = loop.time() + FORWARD_TIMEOUT
    taken = False
    while loop.time() < deadline:
        serving = await in_thread(lease.holder_elsewhere)(req.cluster, holder)
        if serving is None:
            if taken:
                break  # the process that took it stopped: whether it was served is unknown
            return None  # nobody else runs it (any more): serve it here
        await layer.group_send(group(serving), message)
        try:
            answer = await asyncio.wait_for(layer.receive(reply), ANSWER_SECONDS if taken else ACK_SECONDS)
            # Skip acknowledgements: a request sent twice is acknowledged twice.
            while answer["type"] == "gate.ack":
                taken = True
                answer = await asyncio.wait_for(layer.receive(reply), ANSWER_SECONDS)
        except TimeoutError:
            continue
        return ApiResponse(
            answer["status"], answer["body"], headers=answer["headers"], content_type=answer["content_type"]
        )
    raise errors.service_unavailable(f'the process simulating cluster "{req.cluster}" did not answer; try again')


class _Gate:
    """One event loop's channel for the writes other processes forward to it, whatever their cluster.

    It is the only member of this process's group (``group``), and serves the requests of the
    clusters whose engines run in its loop; a request for another cluster is left for the forwarder
    to send again, to the cluster's holder.
    """

    def __init__(self) -> None:
        self.clusters: set[str] = set()
        self.answering: set[asyncio.Task[None]] = set()
        # The answer of each request taken, by id (None while it is served), so that a request sent
        # again is served once, and once served is answered again: the forwarder may have missed
        # the first answer (channels_redis drops what reaches a receive given up on as it arrives).
        self.taken: OrderedDict[str, dict[str, Any] | None] = OrderedDict()
        self.task = asyncio.get_running_loop().create_task(self._receive())

    async def _receive(self) -> None:
        """Take requests until cancelled, joining again after a failure of Redis."""
        try:
            while True:
                try:
                    await self._listen()
                except asyncio.CancelledError:
                    raise
                except Exception:  # noqa: BLE001 - forwarders send again meanwhile
                    log.warning("lost the channel layer; serving forwarded writes again shortly", exc_info=True)
                    await asyncio.sleep(RETRY_SECONDS)  # wall-clock: waiting for Redis to come back
        finally:
            for task in self.answering:
                task.cancel()

    async def _listen(self) -> None:
        """Join this process's group on a fresh channel and take its requests until Redis fails."""
        layer = channel_layer()
        channel = await layer.new_channel()
        name = group(lease.holder_identity())
        renewing = asyncio.get_running_loop().create_task(membership(name, channel))
        try:
            while True:
                self._take(await layer.receive(channel))
        finally:
            renewing.cancel()
            with contextlib.suppress(Exception):  # Redis may be the failure; the membership then expires
                await layer.group_discard(name, channel)

    def _take(self, message: dict[str, Any]) -> None:
        """Acknowledge and serve ``message``, or answer it again; nothing if it is another cluster's."""
        if message["request"]["cluster"] not in self.clusters:
            return
        if message["id"] in self.taken:
            self._spawn(_reply(message, self.taken[message["id"]] or {"type": "gate.ack"}))
            return
        self.taken[message["id"]] = None
        if len(self.taken) > REMEMBERED:
            self.taken.popitem(last=False)
        self._spawn(self._serve(message))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` as a task, so that a slow write or Redis holds up no other request."""
        task = asyncio.get_running_loop().create_task(work)
        self.answering.add(task)
        task.add_done_callback(self.answering.discard)

    async def _serve(self, message: dict[str, Any]) -> None:
        """Serve ``message``, acknowledging it if its answer is not ready at once; remember the answer and send it back."""
        from clusterviz.api.server import dispatch

        serving = asyncio.ensure_future(dispatch(ApiRequest(**message["request"])))
        try:
            # Most writes are answered within their three hops: their answer alone tells the forwarder
            # that they were taken, one message less each way on a busy loop.
            if not (await asyncio.wait({serving}, timeout=ACK_AFTER_SECONDS))[0]:
                await _reply(message, {"type": "gate.ack"})
            resp = await serving
        finally:
            serving.cancel()  # the gate stopped meanwhile (nothing once served)
        answer = {"type": "gate.response", "status": resp.status, "body": resp.body, "headers": resp.headers,
                  "content_type": resp.content_type}  # fmt: skip
        if message["id"] in self.taken:
            self.taken[message["id"]] = answer
        await _reply(message, answer)


async def _reply(message: dict[str, Any], content: dict[str, Any]) -> None:
    """Send ``content`` to the forwarder of ``message``."""
    await channel_layer().send(message["reply"], content)


_gates: dict[asyncio.AbstractEventLoop, _Gate] = {}


async def serve(cluster: str) -> None:
    """In the process running ``cluster``'s engine: answer, until cancelled, the requests other processes forward.

    The clusters of an event loop share its gate, which stops with the last of them.
    """
    gate = loops.entry(_gates, _Gate)
    gate.clusters.add(cluster)
    try:
        await asyncio.get_running_loop().create_future()  # done only by cancellation, with the engine
    finally:
        gate.clusters.discard(cluster)
        if not gate.clusters and _gates.get(asyncio.get_running_loop()) is gate:
            del _gates[asyncio.get_running_loop()]
            gate.task.cancel()
