"""What crosses processes through Redis, in one process: wake-ups, and writes forwarded to a cluster's holder.

Every process's wake-ups share one group, one message per batch of writes naming each cluster's
revision; a listener wakes only the clusters watched where it runs. Members join their groups again
every few seconds, so one that Redis forgot is back and one whose process died is dropped. A forwarded write goes to the
one channel of the process holding the cluster's lease, which serves the write once, acknowledges it
if its answer is not ready at once and every copy sent while it is served, and answers a copy that
comes after the answer with that answer again.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.layers import channel_layers
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


@pytest.fixture(autouse=True)
def fresh_layer() -> Any:
    """A channel layer of this test's own: channels_redis binds its locks to the event loop that first used
    them, and each test runs a loop of its own."""
    channel_layers.backends.pop("default", None)
    yield
    channel_layers.backends.pop("default", None)


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


async def joined(group: str, channel: str | None = None) -> None:
    """Wait until ``channel`` (or, without one, anybody) is a member of ``group``: joining takes a moment."""
    layer = notify.channel_layer()
    redis = layer.connection(layer.consistent_hash(group))
    for _ in range(200):
        if await (redis.zscore(layer._group_key(group), channel) if channel else redis.zcard(layer._group_key(group))):
            return
        await asyncio.sleep(0.05)  # wall-clock: Redis answers in real time
    raise AssertionError(f"{channel or 'nobody'} joined {group}")


async def listener_channel() -> str:
    """This event loop's channel in the wake-up group, once the listener has one."""
    for _ in range(200):
        channel = notify._listeners[asyncio.get_running_loop()].channel
        if channel:
            return channel
        await asyncio.sleep(0.05)  # wall-clock: Redis answers in real time
    raise AssertionError("the listener has no channel")


async def gate_of(cluster: str) -> asyncio.Task[None]:
    """Serve ``cluster``'s forwarded writes here, once the gate listens (the group is WORKER's, only tests')."""
    layer = notify.channel_layer()
    await layer.connection(layer.consistent_hash(remote.group(WORKER))).delete(layer._group_key(remote.group(WORKER)))
    task = asyncio.get_running_loop().create_task(remote.serve(cluster))
    await joined(remote.group(WORKER))
    return task


async def request(message_id: str) -> tuple[str, dict[str, Any]]:
    """The message ``remote.forward`` sends for CREATE, and the channel its answers come back on."""
    reply = await notify.channel_layer().new_channel()
    return reply, {"type": "gate.request", "id": message_id, "reply": reply, "request": remote._encode(CREATE)}


async def test_a_write_forwarded_to_the_holder_is_answered_from_there(served: list[ApiRequest]) -> None:
    gate = await gate_of("demo")
    try:
        resp = await remote.forward(CREATE, WEB)
    finally:
        gate.cancel()
    assert resp is not None and resp.status == 201
    assert [req.path for req in served] == [CREATE.path]


async def test_a_write_sent_again_while_it_is_served_is_acknowledged_and_served_once(served: list[ApiRequest]) -> None:
    gate = await gate_of("demo")
    layer = notify.channel_layer()
    reply, message = await request("once")
    try:
        await layer.group_send(remote.group(WORKER), message)
        await layer.group_send(remote.group(WORKER), message)
        got = [await asyncio.wait_for(layer.receive(reply), 10) for _ in range(2)]
    finally:
        gate.cancel()
    assert [answer["type"] for answer in got] == ["gate.ack", "gate.response"]
    assert len(served) == 1


async def test_a_write_not_answered_at_once_is_acknowledged_before_its_answer(
    served: list[ApiRequest], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(remote, "ACK_AFTER_SECONDS", 0.05)
    gate = await gate_of("demo")
    layer = notify.channel_layer()
    reply, message = await request("slow")
    try:
        await layer.group_send(remote.group(WORKER), message)
        got = [await asyncio.wait_for(layer.receive(reply), 10) for _ in range(2)]
    finally:
        gate.cancel()
    assert [answer["type"] for answer in got] == ["gate.ack", "gate.response"]


async def test_a_write_sent_again_after_its_answer_is_answered_again_and_not_served_again(
    served: list[ApiRequest],
) -> None:
    gate = await gate_of("demo")
    layer = notify.channel_layer()
    reply, message = await request("answered")
    try:
        await layer.group_send(remote.group(WORKER), message)
        # Answered within ACK_AFTER_SECONDS: the answer comes alone.
        first = await asyncio.wait_for(layer.receive(reply), 10)
        # As if the answer had been lost on its way, the forwarder sends the request again.
        await layer.group_send(remote.group(WORKER), message)
        again = await asyncio.wait_for(layer.receive(reply), 10)
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


async def test_a_write_for_a_cluster_not_run_here_is_left_for_its_holder(served: list[ApiRequest]) -> None:
    gate = await gate_of("other")
    layer = notify.channel_layer()
    reply, message = await request("elsewhere")
    try:
        await layer.group_send(remote.group(WORKER), message)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(layer.receive(reply), 1)
    finally:
        gate.cancel()
    assert served == []


async def test_one_wake_up_names_every_cluster_and_wakes_only_those_watched_here() -> None:
    watched, unwatched = [await sync_to_async(kv.create_cluster)(name) for name in ("watched", "unwatched")]
    subscription = notify.Subscription(watched)
    try:
        # Other processes (a server left running) may be members too: wait for this loop's channel.
        await joined(notify.GROUP, await listener_channel())
        message = {"type": "revisions.written", "revisions": [[watched, 7], [unwatched, 9]]}
        await notify.channel_layer().group_send(notify.GROUP, message)
        assert await subscription.wait(10)
    finally:
        subscription.close()
    assert subscription.revision == 7
    assert notify._known.get(unwatched) is None


async def test_a_member_that_redis_forgot_joins_its_group_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(notify, "RENEW_SECONDS", 0.1)
    subscription = notify.Subscription(await sync_to_async(kv.create_cluster)("forgotten"))
    layer = notify.channel_layer()
    try:
        channel = await listener_channel()
        await joined(notify.GROUP, channel)
        # As after a restart of Redis: the group is gone.
        await layer.connection(layer.consistent_hash(notify.GROUP)).delete(layer._group_key(notify.GROUP))
        await joined(notify.GROUP, channel)
    finally:
        subscription.close()


async def test_the_channel_of_a_process_that_died_gets_no_more_wake_ups() -> None:
    cid = await sync_to_async(kv.create_cluster)("alive")
    subscription = notify.Subscription(cid)
    layer = notify.channel_layer()
    redis = layer.connection(layer.consistent_hash(notify.GROUP))
    dead = await layer.new_channel()
    try:
        await joined(notify.GROUP, await listener_channel())
        # A member that last joined a minute ago and never again: its process is gone.
        await redis.zadd(layer._group_key(notify.GROUP), {dead: time.time() - 61})
        await layer.group_send(notify.GROUP, {"type": "revisions.written", "revisions": [[cid, 3]]})
        assert await subscription.wait(10)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(layer.receive(dead), 1)
    finally:
        subscription.close()
