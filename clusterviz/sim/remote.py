"""Writes to a cluster whose simulation runs in another process are served by that process.

In scale-out the engines run in ``simworker`` processes while Daphne processes take kubectl's
requests. A write must still be hops 1-3 on its cluster's bus (and wait in step mode), so a web
process without the cluster's engine publishes the request on the Redis channel of the process
holding the engine's lease, which serves it exactly as a local request and publishes the answer
on the channel of the forwarding event loop. Reads never travel: they are answered from the store
where they arrive. Pub/sub costs one Redis command per message, where the channel layer's send and
receive cost four each; it keeps nothing for a process that is not listening, which the
forwarder's sending again (below) covers as it covers any message lost on the way.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import logging
import uuid
from collections import OrderedDict
from collections.abc import Coroutine
from typing import Any

from django.conf import settings

from clusterviz.api import errors
from clusterviz.api.request import ApiRequest, ApiResponse
from clusterviz.store import loops
from clusterviz.store.notify import Listening, redis_client
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
# How long a forwarder trusts the lease holders it read (the holder of a cluster changes only when
# a worker stops, dies or hands clusters to a newcomer; a holder that does not take a request in
# time makes the forwarder read them again at once).
HOLDERS_SECONDS = 2.0


def channel(holder: str) -> str:
    """The Redis channel of the process called ``holder`` in the lease table."""
    return f"clusterviz-gate-{hashlib.sha1(holder.encode()).hexdigest()}"


def available() -> bool:
    """Only Redis reaches other processes."""
    return bool(settings.REDIS_URL)


def _encode(req: ApiRequest) -> dict[str, Any]:
    return {
        "cluster": req.cluster, "method": req.method, "path": req.path, "query": req.query,
        "body": base64.b64encode(req.body).decode(), "content_type": req.content_type, "accept": req.accept,
        "client": req.client, "host": req.host,
    }  # fmt: skip


def _decode(request: dict[str, Any]) -> ApiRequest:
    return ApiRequest(**{**request, "body": base64.b64decode(request["body"])})


def _body(body: Any) -> dict[str, Any]:
    """An answer's body as JSON: raw bytes in base64, anything else as it is."""
    return {"base64": base64.b64encode(body).decode()} if isinstance(body, bytes) else {"value": body}


def _unbody(body: dict[str, Any]) -> Any:
    return base64.b64decode(body["base64"]) if "base64" in body else body["value"]


async def send(holder: str, message: dict[str, Any]) -> None:
    """Publish ``message`` on the channel of the process called ``holder``."""
    await redis_client().publish(channel(holder), json.dumps(message))


class _Holders:
    """The live lease holders of every cluster, as one event loop's forwarder last read them."""

    def __init__(self) -> None:
        self.holders: dict[str, str] = {}
        self.read_at = -HOLDERS_SECONDS

    async def of(self, cluster: str, holder: str) -> str | None:
        """The process other than ``holder`` that runs ``cluster``'s engine, or None.

        Read again when stale, or when nobody held ``cluster``: a worker may have claimed it since, and a
        write served here instead would skip its hops on the bus.
        """
        now = asyncio.get_running_loop().time()
        if now - self.read_at >= HOLDERS_SECONDS or cluster not in self.holders:
            self.holders = await in_thread(lease.live_holders)()
            self.read_at = now
        serving = self.holders.get(cluster)
        return serving if serving != holder else None

    def forget(self) -> None:
        """Read the holders again on the next request (one did not answer)."""
        self.read_at = -HOLDERS_SECONDS


class _Replies:
    """One event loop's channel for the answers to the writes it forwards, handed to each request's queue."""

    def __init__(self) -> None:
        self.channel = f"clusterviz-reply-{uuid.uuid4().hex}"
        self.waiting: dict[str, asyncio.Queue[dict[str, Any]]] = {}
        self.listening = Listening(self.channel, self._take)

    def _take(self, data: bytes) -> None:
        answer = json.loads(data)
        waiting = self.waiting.get(answer["id"])
        if waiting is not None:  # else an answer sent again after the first one came
            waiting.put_nowait(answer)


_holders: dict[asyncio.AbstractEventLoop, _Holders] = {}
_replies: dict[asyncio.AbstractEventLoop, _Replies] = {}


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
    holders = loops.entry(_holders, _Holders)
    replies = loops.entry(_replies, _Replies)
    if not replies.listening.subscribed.is_set():
        # Answers published before the channel is subscribed would be lost (and the request sent again).
        try:
            await asyncio.wait_for(replies.listening.subscribed.wait(), ACK_SECONDS)
        except TimeoutError:
            pass  # Redis is slow or away: sending again covers it
    request_id = uuid.uuid4().hex
    message = {"type": "gate.request", "id": request_id, "reply": replies.channel, "request": _encode(req)}
    answers = replies.waiting[request_id] = asyncio.Queue()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + FORWARD_TIMEOUT
    taken = False
    try:
        while loop.time() < deadline:
            serving = await holders.of(req.cluster, holder)
            if serving is None:
                if taken:
                    break  # the process that took it stopped: whether it was served is unknown
                return None  # nobody else runs it (any more): serve it here
            await send(serving, message)
            try:
                answer = await asyncio.wait_for(answers.get(), ANSWER_SECONDS if taken else ACK_SECONDS)
                # Skip acknowledgements: a request sent twice is acknowledged twice.
                while answer["type"] == "gate.ack":
                    taken = True
                    answer = await asyncio.wait_for(answers.get(), ANSWER_SECONDS)
            except TimeoutError:
                holders.forget()  # the holder may have changed meanwhile
                continue
            return ApiResponse(answer["status"], _unbody(answer["body"]), headers=answer["headers"],
                               content_type=answer["content_type"])  # fmt: skip
    finally:
        del replies.waiting[request_id]
    raise errors.service_unavailable(f'the process simulating cluster "{req.cluster}" did not answer; try again')


class _Gate:
    """One event loop's channel for the writes other processes forward to it, whatever their cluster.

    It is the only listener of this process's channel (``channel``), and serves the requests of the
    clusters whose engines run in its loop; a request for another cluster is left for the forwarder
    to send again, to the cluster's holder.
    """

    def __init__(self) -> None:
        self.clusters: set[str] = set()
        self.answering: set[asyncio.Task[None]] = set()
        # The answer of each request taken, by id (None while it is served), so that a request sent
        # again is served once, and once served is answered again: the forwarder may have missed
        # the first answer (pub/sub keeps nothing for a forwarder that was not listening).
        self.taken: OrderedDict[str, dict[str, Any] | None] = OrderedDict()
        self.listening = Listening(channel(lease.holder_identity()), lambda data: self._take(json.loads(data)))

    def close(self) -> None:
        """Stop taking requests, and serving those taken."""
        self.listening.close()
        for task in self.answering:
            task.cancel()

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

        serving = asyncio.ensure_future(dispatch(_decode(message["request"])))
        try:
            # Most writes are answered within their three hops: their answer alone tells the forwarder
            # that they were taken, one message less each way on a busy loop.
            if not (await asyncio.wait({serving}, timeout=ACK_AFTER_SECONDS))[0]:
                await _reply(message, {"type": "gate.ack"})
            resp = await serving
        finally:
            serving.cancel()  # the gate stopped meanwhile (nothing once served)
        answer = {"type": "gate.response", "status": resp.status, "body": _body(resp.body), "headers": resp.headers,
                  "content_type": resp.content_type}  # fmt: skip
        if message["id"] in self.taken:
            self.taken[message["id"]] = answer
        await _reply(message, answer)


async def _reply(message: dict[str, Any], content: dict[str, Any]) -> None:
    """Send ``content`` to the forwarder of ``message``."""
    await redis_client().publish(message["reply"], json.dumps({**content, "id": message["id"]}))


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
            gate.close()
