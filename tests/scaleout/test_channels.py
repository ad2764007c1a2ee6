"""What crosses processes through Redis, in one process: wake-ups, and writes forwarded to a cluster's holder.

Every process's wake-ups share one pub/sub channel, one message per batch of writes naming each cluster's
revision; a listener wakes only the clusters watched where it runs, and one whose connection Redis dropped
subscribes again. A forwarded write goes to the one channel of the process holding the cluster's lease,
which serves the write once, acknowledges it if its answer is not ready at once and every copy sent while
it is served, and answers a copy that comes after the answer with that answer again.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from clusterviz.api import server
from clusterviz.api.request import ApiRequest, ApiResponse
from clusterviz.sim import lease, remote
from clusterviz.sim.models import EngineLease
from clusterviz.store import kv, notify

pytestmark = pytest.mark.django_db(transaction=True)

WORKER = "worker-a:101"
WEB = "web-b:202"
CREATE = ApiRequest("demo", "POST", "/api/v1/namespaces/default/configmaps", body=b'{"metadata": {"name": "x"}}')


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[ApiRequest]:
    """The requests this process's gate serves, as if it were WORKER holding demo's lease."""
    requests: list[ApiRequest] = []

    async def dispatch(req: ApiRequest) -> ApiResponse:
        requests.append(req)
        await asyncio.sleep(0.2)  # wall-clock: a write taking its time, so that a copy arrives meanwhile
        return ApiResponse(201, b'{"kind": "ConfigMap"}', content_type="application/json")

    monkeypatch.setattr(server, "dispatch", dispatch)
    monkeypatch.setattr(lease, "holder_identity", lambda: WORKER)
    EngineLease.objects.create(cluster="demo", holder=WORKER, renewed=timezone.now())
    return requests


async def subscribed(listening: notify.Listening) -> None:
    """Wait until ``listening`` hears its channel: subscribing takes a moment."""
    await asyncio.wait_for(listening.subscribed.wait(), 10)


async def gate_of(cluster: str) -> asyncio.Task[None]:
    """Serve ``cluster``'s forwarded writes here, once the gate listens on WORKER's channel."""
    task = asyncio.get_running_loop().create_task(remote.serve(cluster))
    await asyncio.sleep(0)  # the gate is made as the task starts
    await subscribed(remote._gates[asyncio.get_running_loop()].listening)
    return task


class Forwarder:
    """The channel answers come back on, as ``remote.forward`` listens to them, and what came."""

    def __init__(self) -> None:
        self.answers: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.listening = notify.Listening(f"test-reply-{os.getpid()}", lambda data: self.answers.put_nowait(json.loads(data)))

    def request(self, message_id: str) -> dict[str, Any]:
        """The message ``remote.forward`` sends for CREATE."""
        return {"type": "gate.request", "id": message_id, "reply": self.listening.channel, "request": remote._encode(CREATE)}

    async def answer(self) -> dict[str, Any]:
        return await asyncio.wait_for(self.answers.get(), 10)


@pytest.fixture
async def forwarder() -> Any:
    forwarder = Forwarder()
    await subscribed(forwarder.listening)
    yield forwarder
    forwarder.listening.close()


async def test_a_write_forwarded_to_the_holder_is_answered_from_there(served: list[ApiRequest]) -> None:
    gate = await gate_of("demo")
    try:
        resp = await remote.forward(CREATE, WEB)
    finally:
        gate.cancel()
    assert resp is not None and resp.status == 201
    assert [req.path for req in served] == [CREATE.path]


async def test_a_write_for_a_cluster_claimed_since_the_holders_were_read_goes_to_its_holder(
    served: list[ApiRequest],
) -> None:
    await sync_to_async(EngineLease.objects.filter(cluster="demo").delete)()
    assert await remote.forward(CREATE, WEB) is None  # nobody runs demo: the write is served where it arrives
    await sync_to_async(EngineLease.objects.create)(cluster="demo", holder=WORKER, renewed=timezone.now())
    gate = await gate_of("demo")
    try:
        resp = await remote.forward(CREATE, WEB)
    finally:
        gate.cancel()
    assert resp is not None and resp.status == 201
    assert len(served) == 1


async def test_a_write_sent_again_while_it_is_served_is_acknowledged_and_served_once(
    served: list[ApiRequest], forwarder: Forwarder
) -> None:
    gate = await gate_of("demo")
    message = forwarder.request("once")
    try:
        await remote.send(WORKER, message)
        await remote.send(WORKER, message)
        got = [await forwarder.answer() for _ in range(2)]
    finally:
        gate.cancel()
    assert [answer["type"] for answer in got] == ["gate.ack", "gate.response"]
    assert len(served) == 1


async def test_a_write_not_answered_at_once_is_acknowledged_before_its_answer(
    served: list[ApiRequest], forwarder: Forwarder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(remote, "ACK_AFTER_SECONDS", 0.05)
    gate = await gate_of("demo")
    try:
        await remote.send(WORKER, forwarder.request("slow"))
        got = [await forwarder.answer() for _ in range(2)]
    finally:
        gate.cancel()
    assert [answer["type"] for answer in got] == ["gate.ack", "gate.response"]


async def test_a_write_sent_again_after_its_answer_is_answered_again_and_not_served_again(
    served: list[ApiRequest], forwarder: Forwarder
) -> None:
    gate = await gate_of("demo")
    message = forwarder.request("answered")
    try:
        await remote.send(WORKER, message)
        # Answered within ACK_AFTER_SECONDS: the answer comes alone.
        first = await forwarder.answer()
        # As if the answer had been lost on its way, the forwarder sends the request again.
        await remote.send(WORKER, message)
        again = await forwarder.answer()
    finally:
        gate.cancel()
    assert first["type"] == "gate.response"
    assert again == first
    assert len(served) == 1


async def test_a_forwarded_write_whose_answer_was_lost_gets_it_by_sending_the_request_again(
    served: list[ApiRequest], monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = remote._reply
    lost: list[dict[str, Any]] = []

    async def losing_the_first_answer(message: dict[str, Any], content: dict[str, Any]) -> None:
        if content["type"] == "gate.response" and not lost:
            lost.append(content)
            return
        await sent(message, content)

    monkeypatch.setattr(remote, "_reply", losing_the_first_answer)
    monkeypatch.setattr(remote, "ANSWER_SECONDS", 1.0)
    gate = await gate_of("demo")
    try:
        resp = await asyncio.wait_for(remote.forward(CREATE, WEB), 30)
    finally:
        gate.cancel()
    assert lost, "the first answer was not lost"
    assert resp is not None and resp.status == 201
    assert len(served) == 1


async def test_a_write_for_a_cluster_not_run_here_is_left_for_its_holder(
    served: list[ApiRequest], forwarder: Forwarder
) -> None:
    gate = await gate_of("other")
    try:
        await remote.send(WORKER, forwarder.request("elsewhere"))
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(forwarder.answers.get(), 1)
    finally:
        gate.cancel()
    assert served == []


async def wake_up(
    subscription: notify.Subscription, revisions: list[list[int]], rows: dict[int, list[notify.Row]] | None = None,
) -> bool:
    """Publish a wake-up as another process's publisher would, until it wakes ``subscription`` (this loop's
    listener subscribes in a moment); whether it did."""
    message = notify._message(dict(revisions), rows or {}).replace(notify.SENDER.encode(), b"another-process", 1)
    for _ in range(100):
        await notify.redis_client().publish(notify.wake_up_channel(), message)
        if await subscription.wait(0.1):
            return True
    return False


async def test_one_wake_up_names_every_cluster_and_wakes_only_those_watched_here() -> None:
    watched, unwatched = [await sync_to_async(kv.create_cluster)(name) for name in ("watched", "unwatched")]
    subscription = notify.Subscription(watched)
    try:
        assert await wake_up(subscription, [[watched, 7], [unwatched, 9]])
    finally:
        subscription.close()
    assert subscription.revision == 7
    assert notify._known.get(unwatched) is None


def pod_row(revision: int, kind: str, name: str, phase: str, previous_phase: str | None = None) -> notify.Row:
    """A Pod's event as a worker's publisher sends it."""
    def pod(at: str) -> str:
        return json.dumps({"kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "status": {"phase": at}})

    return (revision, kind, "pods", "default", name, pod(phase), None if previous_phase is None else pod(previous_phase))


async def test_a_wake_up_hands_over_the_events_another_process_wrote_so_they_need_not_be_read_back() -> None:
    cid = await sync_to_async(kv.create_cluster)("carried")
    subscription = notify.Subscription(cid)
    rows = [pod_row(1, "ADDED", "web-0", "Pending"), pod_row(2, "MODIFIED", "web-0", "Running", "Pending")]
    try:
        assert await wake_up(subscription, [[cid, 2]], {cid: rows})
    finally:
        subscription.close()
    events = subscription.take()
    assert [(e.revision, e.type, e.name) for e in events] == [(1, "ADDED", "web-0"), (2, "MODIFIED", "web-0")]
    assert events[1].object["status"]["phase"] == "Running"
    assert events[1].previous is not None and events[1].previous["status"]["phase"] == "Pending"
    assert events[0].previous is None


async def test_a_wake_up_too_big_to_carry_its_events_still_names_the_revision(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(notify, "EVENTS_MAX_BYTES", 1)
    first, second = [await sync_to_async(kv.create_cluster)(name) for name in ("first", "second")]
    subscription = notify.Subscription(second)
    rows = {cid: [pod_row(1, "ADDED", "web-0", "Pending")] for cid in (first, second)}
    try:
        assert await wake_up(subscription, [[first, 1], [second, 1]], rows)
    finally:
        subscription.close()
    # The first cluster's events filled the message: the second's watchers read theirs from the log.
    assert subscription.revision == 1
    assert subscription.take() == []


async def test_a_process_skips_its_own_wake_ups_whose_events_reached_its_watchers_at_commit() -> None:
    cid = await sync_to_async(kv.create_cluster)("own")
    subscription = notify.Subscription(cid)
    try:
        assert await wake_up(subscription, [[cid, 1]])  # the listener hears the channel now
        own = notify._message({cid: 2}, {cid: [pod_row(2, "ADDED", "web-0", "Pending")]})
        await notify.redis_client().publish(notify.wake_up_channel(), own)
        assert await wake_up(subscription, [[cid, 3]])  # comes after the process's own on the channel
    finally:
        subscription.close()
    assert subscription.revision == 3
    assert subscription.take() == []


async def test_a_listener_whose_connection_redis_dropped_subscribes_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(notify, "RETRY_SECONDS", 0.1)
    subscription = notify.Subscription(await sync_to_async(kv.create_cluster)("dropped"))
    listening = notify._listeners[asyncio.get_running_loop()].listening
    redis = notify.redis_client()
    try:
        await subscribed(listening)
        # As after a restart of Redis: its subscribed connections of this process are gone.
        mine = [c["id"] for c in await redis.client_list(_type="pubsub") if c["name"] == f"clusterviz-{os.getpid()}"]
        assert mine
        for client in mine:
            await redis.client_kill_filter(_id=client)
        assert await wake_up(subscription, [[subscription.cid, 3]])
    finally:
        subscription.close()
    assert subscription.revision == 3
