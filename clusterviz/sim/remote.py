"""Writes to a cluster whose simulation runs in another process are served by that process.

In scale-out the engines run in ``simworker`` processes while Daphne processes take kubectl's
requests. A write must still be hops 1-3 on its cluster's bus (and wait in step mode), so a web
process without the cluster's engine sends the request over the channel layer (Redis) to the
process holding the engine's lease, which serves it exactly as a local request and sends the
answer back. Reads never travel: they are answered from the store where they arrive.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import OrderedDict
from typing import Any

from django.conf import settings

from clusterviz.api import errors
from clusterviz.api.request import ApiRequest, ApiResponse
from clusterviz.store.notify import channel_layer
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
# Request ids a holder remembers, so that a request sent twice is served once.
REMEMBERED = 10_000


def group(cluster: str) -> str:
    """The channel-layer group of the process that runs ``cluster``'s engine."""
    return f"clusterviz-gate-{cluster}"


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

    The holder acknowledges a request as soon as it takes it. A request nobody took (the holder was
    just starting and not yet listening, or is busy) is sent again; the holder serves each request
    id once.
    """
    if not available() or not await in_thread(lease.held_elsewhere)(req.cluster, holder):
        return None
    layer = channel_layer()
    reply = await layer.new_channel()
    message = {"type": "gate.request", "id": uuid.uuid4().hex, "reply": reply, "request": _encode(req)}
    deadline = asyncio.get_running_loop().time() + FORWARD_TIMEOUT
    while asyncio.get_running_loop().time() < deadline:
        await layer.group_send(group(req.cluster), message)
        try:
            answer = await asyncio.wait_for(layer.receive(reply), ACK_SECONDS)
        except TimeoutError:
            if not await in_thread(lease.held_elsewhere)(req.cluster, holder):
                return None  # the holder went away: serve it here after all
            continue
        try:
            # Skip acknowledgements: a request sent twice is acknowledged twice.
            while answer["type"] == "gate.ack":
                answer = await asyncio.wait_for(layer.receive(reply), FORWARD_TIMEOUT)
        except TimeoutError:
            break
        return ApiResponse(
            answer["status"], answer["body"], headers=answer["headers"], content_type=answer["content_type"]
        )
    raise errors.service_unavailable(f'the process simulating cluster "{req.cluster}" did not answer; try again')


async def serve(cluster: str) -> None:
    """In the process running ``cluster``'s engine: answer the requests other processes forward."""
    from clusterviz.api.server import dispatch

    layer = channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(group(cluster), channel)
    answering: set[asyncio.Task[None]] = set()
    taken: OrderedDict[str, None] = OrderedDict()

    async def answer(message: dict[str, Any]) -> None:
        resp = await dispatch(ApiRequest(**message["request"]))
        await layer.send(
            message["reply"],
            {"type": "gate.response", "status": resp.status, "body": resp.body, "headers": resp.headers,
             "content_type": resp.content_type},
        )  # fmt: skip

    try:
        while True:
            message = await layer.receive(channel)
            await layer.send(message["reply"], {"type": "gate.ack"})
            if message["id"] in taken:
                continue  # sent again before our acknowledgement arrived: it is being served already
            taken[message["id"]] = None
            if len(taken) > REMEMBERED:
                taken.popitem(last=False)
            task = asyncio.get_running_loop().create_task(answer(message))
            answering.add(task)
            task.add_done_callback(answering.discard)
    finally:
        for task in answering:
            task.cancel()
        await layer.group_discard(group(cluster), channel)
