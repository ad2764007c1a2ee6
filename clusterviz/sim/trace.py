"""Keeping the trace and the clock: delivered messages are saved in batches, the clock with them."""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from clusterviz.store import kv
from clusterviz.store.threads import in_thread

from .bus import Message
from .engine import Engine
from .models import FlowMessage, Simulation

FLUSH_SECONDS = 1.0

_buffers: weakref.WeakKeyDictionary[Engine, list[Message]] = weakref.WeakKeyDictionary()


@dataclass
class State:
    mode: str = "live"
    speed: float = 1.0
    time: float = 0.0
    last_seq: int = 0
    settings: dict[str, Any] = field(default_factory=dict)
    epoch: datetime | None = None


def _load(cluster: str) -> State:
    sim, _ = Simulation.objects.get_or_create(
        cluster=cluster, defaults={"mode": settings.CLUSTERVIZ.get("DEFAULT_MODE", "live")}
    )
    # Time stood still while no engine ran; re-anchor so simulated "now" is the wall clock's now again
    # (objects written meanwhile carry wall-clock timestamps and must not look like they are from the future).
    sim.epoch = timezone.now() - timedelta(seconds=sim.time)
    sim.save(update_fields=["epoch"])
    return State(sim.mode, sim.speed, sim.time, sim.last_seq, dict(sim.settings), sim.epoch)


async def load_state(cluster: str) -> State:
    return await in_thread(_load)(cluster)


def _write(cluster: str, messages: list[Message], state: dict[str, Any]) -> None:
    with transaction.atomic():
        if messages:
            FlowMessage.objects.bulk_create(
                [
                    FlowMessage(cluster=cluster, seq=m.seq, time=m.time, sender=m.sender, to=m.to, verb=m.verb,
                                kind=m.kind, namespace=m.namespace, name=m.name, step=m.step, summary=m.summary)
                    for m in messages
                ],
                ignore_conflicts=True,
            )
        Simulation.objects.update_or_create(cluster=cluster, defaults=state)


async def save(engine: Engine) -> None:
    """Write out buffered messages and the engine's clock (mode and speed are saved when they are set)."""
    buffer = _buffers.get(engine, [])
    batch, buffer[:] = list(buffer), []
    state = {"time": engine.now, "last_seq": engine.last_seq}
    try:
        await in_thread(_write)(engine.cluster, batch, state)
    except kv.StoreUnavailable:
        buffer[:0] = batch  # kept for the next flush, in order
        raise


def attach(engine: Engine) -> None:
    """Buffer every delivered message of ``engine`` and save the buffer regularly."""
    buffer: list[Message] = []
    _buffers[engine] = buffer
    engine.listeners.append(buffer.append)

    async def flush_forever() -> None:
        while True:
            await asyncio.sleep(FLUSH_SECONDS)  # wall-clock: persistence batching, not simulated time
            if buffer or engine.mode == "live":
                try:
                    await save(engine)
                except kv.StoreUnavailable:
                    pass  # the database is briefly away; the buffer is written at the next flush

    task = asyncio.get_running_loop().create_task(flush_forever())
    engine.background.add(task)


def saved_messages(cluster: str, since_seq: int, limit: int) -> list[dict[str, Any]]:
    rows = FlowMessage.objects.filter(cluster=cluster, seq__gt=since_seq).order_by("seq")[:limit]
    return [
        {"seq": r.seq, "time": round(r.time, 3), "from": r.sender, "to": r.to, "verb": r.verb,
         "object": {"kind": r.kind, "namespace": r.namespace, "name": r.name}, "step": r.step, "summary": r.summary}
        for r in rows
    ]


def save_settings(cluster: str, **values: Any) -> None:
    Simulation.objects.update_or_create(cluster=cluster, defaults=values)


def forget(cluster: str) -> None:
    """Drop a deleted cluster's clock, settings and trace, so a new cluster of that name starts afresh."""
    with transaction.atomic():
        FlowMessage.objects.filter(cluster=cluster).delete()
        Simulation.objects.filter(cluster=cluster).delete()
