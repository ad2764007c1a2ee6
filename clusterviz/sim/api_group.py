"""The clusterviz.io/v1 API group: simulations (controls), flowmessages (the trace), schedulingdecisions."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

from clusterviz.api import clock, errors, handlers, resources, virtual
from clusterviz.api.component import SimSettings
from clusterviz.api.request import ApiRequest, ApiResponse, ResourcePath
from clusterviz.apimachinery.field import invalid, not_supported
from clusterviz.apimachinery.unstructured import deep_copy
from clusterviz.store.threads import in_thread

from . import registry, trace
from .bus import Message
from .engine import MAX_SPEED, MIN_SPEED, MODES, Due

GROUP, VERSION = "clusterviz.io", "v1"
API_VERSION = f"{GROUP}/{VERSION}"

SIMULATIONS = resources.Resource(
    GROUP, VERSION, "simulations", "Simulation", False, ("sim",), (), ("get", "list", "patch", "update"), ("step",)
)
FLOW_MESSAGES = resources.Resource(
    GROUP, VERSION, "flowmessages", "FlowMessage", False, ("fm",), (), ("get", "list", "watch")
)
SCHEDULING_DECISIONS = resources.Resource(
    GROUP, VERSION, "schedulingdecisions", "SchedulingDecision", True, ("sd",), (), resources.ALL_VERBS
)

# spec field -> settings attribute, for the timings a lesson may change.
TIMINGS = {
    "nodeMonitorGracePeriodSeconds": "node_monitor_grace_period",
    "nodeMonitorPeriodSeconds": "node_monitor_period",
    "podEvictionTimeoutSeconds": "pod_eviction_timeout",
    "heartbeatIntervalSeconds": "heartbeat_interval",
    "imagePullBytesPerSecond": "image_pull_bandwidth",
    "containerStartSeconds": "container_start_seconds",
    "seed": "seed",
}


def register() -> None:
    for resource in (SIMULATIONS, FLOW_MESSAGES, SCHEDULING_DECISIONS):
        resources.register(resource)
    virtual.register(SIMULATIONS, simulations)
    virtual.register(FLOW_MESSAGES, flow_messages)


def message_object(item: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": API_VERSION, "kind": "FlowMessage", "metadata": {"name": str(item["seq"])}, **item}


async def _simulation_object(cluster: str) -> dict[str, Any]:
    running = await registry.ensure(cluster)
    if running is not None:
        engine, settings = running.engine, running.ctx.settings
        state: dict[str, Any] = {
            "mode": engine.mode,
            "speed": engine.speed,
            "time": engine.now,
            "last_seq": engine.last_seq,
            "pending": engine.pending,
            "wall": engine.wall(),
        }
        due = engine.next_due()
        ahead = {
            "next": due.as_dict() if due is not None else None,
            "waiting": [_waiting_write(m) for m in engine.waiting_writes()],
        }
    else:
        saved = await trace.peek_state(cluster)
        settings = SimSettings(**saved.settings)
        state = {"mode": saved.mode, "speed": saved.speed, "time": saved.time, "last_seq": saved.last_seq, "pending": 0,
                 "wall": saved.epoch + timedelta(seconds=saved.time) if saved.epoch else clock.now()}
        ahead = {}  # only the process that runs the engine knows what is due
    spec: dict[str, Any] = {"mode": state["mode"], "speed": state["speed"]}
    for field_name, attr in TIMINGS.items():
        spec[field_name] = getattr(settings, attr)
    return {
        "apiVersion": API_VERSION,
        "kind": "Simulation",
        "metadata": {"name": "default", "resourceVersion": str(state["last_seq"])},
        "spec": spec,
        "status": {
            "time": round(state["time"], 3),
            # The simulated time as the cluster's timestamps give it (countdowns compare against it).
            "wall": clock.rfc3339_micro(state["wall"]),
            "lastSeq": state["last_seq"],
            "pending": state["pending"],
            **ahead,
        },
    }


def _waiting_write(msg: Message) -> dict[str, Any]:
    """One write held on the bus, as ``status.waiting`` lists it: which hop it waits at, and what it is."""
    where = f"{msg.namespace}/{msg.name}" if msg.namespace else msg.name
    return {"hop": msg.step, "from": msg.sender, "to": msg.to, "verb": msg.verb, "object": f"{msg.kind}/{where}"}


def _check_spec(spec: Any) -> dict[str, Any]:
    if not isinstance(spec, dict):
        raise errors.invalid("Simulation", GROUP, "default", [invalid("spec", spec, "must be an object")])
    problems = []
    if spec.get("mode") not in MODES:
        problems.append(not_supported("spec.mode", spec.get("mode"), list(MODES)))
    speed = spec.get("speed")
    if isinstance(speed, bool) or not isinstance(speed, (int, float)) or not MIN_SPEED <= speed <= MAX_SPEED:
        problems.append(invalid("spec.speed", speed, f"must be a number between {MIN_SPEED} and {MAX_SPEED}"))
    for field_name in TIMINGS:
        value = spec.get(field_name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            problems.append(invalid(f"spec.{field_name}", value, "must be a number greater than or equal to 0"))
    if problems:
        raise errors.invalid("Simulation", GROUP, "default", problems)
    return spec


async def simulations(req: ApiRequest, rp: ResourcePath) -> ApiResponse:
    """GET / PATCH / PUT simulations/default, and POST simulations/default/step (``?untilTimer=true``: skip)."""
    if rp.name and rp.name != "default":
        raise errors.not_found("simulations", GROUP, rp.name)
    if req.method in ("GET", "HEAD"):
        current = await _simulation_object(req.cluster)
        if rp.name:
            return ApiResponse(200, current)
        return ApiResponse(
            200,
            {
                "apiVersion": API_VERSION,
                "kind": "SimulationList",
                "metadata": {"resourceVersion": current["metadata"]["resourceVersion"]},
                "items": [current],
            },
        )
    if req.method == "POST" and rp.sub == "step":
        return await _step(req)
    if req.method in ("PATCH", "PUT") and rp.name and not rp.sub:
        current = await _simulation_object(req.cluster)
        if req.method == "PATCH":
            kind, body = handlers.decode_patch(req)
            changed = handlers.apply_patch(kind if kind != "apply" else "strategic", deep_copy(current), body)
        else:
            changed = (
                req.payload
                if isinstance(req.payload, dict)
                else handlers.codec.decode_object(req.body, req.content_type)
            )
        spec = _check_spec(changed.get("spec"))
        if req.query.get("dryRun") == "All":
            # Checked and answered as it would be, but nothing changes.
            return ApiResponse(200, {**current, "spec": {**current["spec"], **spec}})
        running = await registry.ensure(req.cluster)
        values = {attr: float(spec[f]) if attr != "seed" else int(spec[f]) for f, attr in TIMINGS.items()}
        if running is not None:
            running.engine.set_mode(spec["mode"], float(spec["speed"]))
            for attr, value in values.items():
                setattr(running.ctx.settings, attr, value)
        await in_thread(trace.save_settings)(
            req.cluster, mode=spec["mode"], speed=float(spec["speed"]), settings=values
        )
        return ApiResponse(200, await _simulation_object(req.cluster))
    raise errors.method_not_allowed(req.method.lower(), "simulations", GROUP)


async def _step(req: ApiRequest) -> ApiResponse:
    running = await registry.ensure(req.cluster)
    if running is None:
        raise errors.service_unavailable("no process runs this cluster's simulation")
    if running.engine.mode != "step":
        # Stepping switches to step mode; saved, so other processes (and this one's discovery) agree.
        await in_thread(trace.save_settings)(req.cluster, mode="step")
    if req.flag("untilTimer"):
        return _skipped(await running.engine.skip())
    until_numbered = req.flag("untilNumbered")
    for _ in range(10_000):
        msg = await running.engine.step()
        if msg is None:
            return _success("NothingPending", "no message is waiting to be delivered")
        if not until_numbered or msg.step is not None:
            return ApiResponse(200, message_object(msg.as_dict()))
    raise errors.service_unavailable("no numbered hop within 10000 messages")


def _success(reason: str, message: str, **details: Any) -> ApiResponse:
    status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "reason": reason,
              "message": message}
    if details:
        status["details"] = details
    return ApiResponse(200, status)


def _skipped(due: Due | None) -> ApiResponse:
    """The answer to a skip: what happened (``status.next`` as it was, in ``details.next``), or nothing pending."""
    if due is None:
        return _success("NothingPending", "no message or timer is pending")
    return _success(
        "TimerFired" if due.type == "timer" else "MessageDelivered", f"t={due.time:.3f} s: {due.what}",
        name="default", group=GROUP, kind="simulations", next=due.as_dict(),
    )


def _since(req: ApiRequest) -> int:
    text = req.query.get("sinceSeq") or req.query.get("resourceVersion") or "0"
    try:
        return max(int(text), 0)
    except ValueError:
        raise errors.bad_request(f"invalid sinceSeq: {text!r}") from None


# Messages one list of the trace (or one round of a watch's backlog) returns at most.
PAGE = 5000
# How often a process without the cluster's engine looks for messages the engine's process saved.
SAVED_POLL_SECONDS = 0.5


async def _messages(cluster: str, since: int, limit: int) -> list[dict[str, Any]]:
    running = registry.get(cluster)
    items = await in_thread(trace.saved_messages)(cluster, since, limit)
    seen = {i["seq"] for i in items}
    if running is not None:
        # The engine's own trace, read after the database: a message that a flush took out of the unsaved
        # buffer but has not committed yet is in neither of those, and would be a gap in a watch.
        for m in reversed(running.engine.trace):
            if m.seq <= since:
                break
            if m.seq not in seen:
                items.append(m.as_dict())
    items.sort(key=lambda i: i["seq"])
    return items[:limit]


async def flow_messages(req: ApiRequest, rp: ResourcePath) -> ApiResponse:
    """The trace: list (``?sinceSeq=N``), get by seq, and watch."""
    if req.method not in ("GET", "HEAD"):
        raise errors.method_not_allowed(req.method.lower(), "flowmessages", GROUP)
    if rp.name:
        try:
            seq = int(rp.name)
        except ValueError:
            raise errors.not_found("flowmessages", GROUP, rp.name) from None
        found = await _messages(req.cluster, seq - 1, 1)
        if not found or found[0]["seq"] != seq:
            raise errors.not_found("flowmessages", GROUP, rp.name)
        return ApiResponse(200, message_object(found[0]))
    since = _since(req)
    if req.flag("watch"):
        return ApiResponse(200, stream=_watch(req.cluster, since))
    items = await _messages(req.cluster, since, PAGE)
    last = items[-1]["seq"] if items else since
    return ApiResponse(
        200,
        {
            "apiVersion": API_VERSION,
            "kind": "FlowMessageList",
            "metadata": {"resourceVersion": str(last)},
            "items": [message_object(i) for i in items],
        },
    )


async def _watch(cluster: str, since: int) -> AsyncIterator[dict[str, Any]]:
    running = await registry.ensure(cluster)
    queue: asyncio.Queue[Message] = asyncio.Queue()
    if running is not None:
        running.engine.listeners.append(queue.put_nowait)
    try:
        last = since
        while True:
            # The whole backlog, a page at a time, before the live messages: stopping after one page would
            # skip from its last message to whatever is delivered next.
            backlog = await _messages(cluster, last, PAGE)
            for item in backlog:
                last = item["seq"]
                yield {"type": "ADDED", "object": message_object(item)}
            if len(backlog) < PAGE:
                break
        while running is not None:
            msg = await queue.get()
            if msg.seq > last:
                last = msg.seq
                yield {"type": "ADDED", "object": message_object(msg.as_dict())}
        while True:
            # The engine runs in another process (a simworker): follow the trace it saves in batches.
            await asyncio.sleep(SAVED_POLL_SECONDS)  # wall-clock: waiting for another process's saves
            for item in await _messages(cluster, last, PAGE):
                last = item["seq"]
                yield {"type": "ADDED", "object": message_object(item)}
    finally:
        if running is not None and queue.put_nowait in running.engine.listeners:
            running.engine.listeners.remove(queue.put_nowait)
