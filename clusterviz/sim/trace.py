"""Keeping the trace and the clock: delivered messages are saved in batches, the clock with them.

One flusher per event loop saves every engine of that loop in one transaction a second, so a
class of 100 idle clusters costs one small write a second, not a hundred; a clock with no
messages is saved only every CLOCK_SAVE_SECONDS.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from clusterviz.store import kv, loops, sql
from clusterviz.store.threads import in_thread, in_writer_thread

from .bus import Message
from .engine import Engine
from .models import FlowMessage, Simulation

log = logging.getLogger(__name__)

FLUSH_SECONDS = 1.0

_buffers: weakref.WeakKeyDictionary[Engine, list[Message]] = weakref.WeakKeyDictionary()
# The engines of each event loop, saved together by that loop's one flusher.
_attached: dict[asyncio.AbstractEventLoop, weakref.WeakSet[Engine]] = {}
_flushers: dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = {}
# The simulated time each engine's row last had written.
_saved_clock: weakref.WeakKeyDictionary[Engine, float] = weakref.WeakKeyDictionary()

Batch = tuple[str, list[Message], dict[str, Any]]


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
    """The saved state of ``cluster``, re-anchored for an engine about to run it here."""
    return await in_thread(_load)(cluster)


def _peek(cluster: str) -> State:
    sim = Simulation.objects.filter(cluster=cluster).first()
    if sim is None:
        return State(settings.CLUSTERVIZ.get("DEFAULT_MODE", "live"))
    return State(sim.mode, sim.speed, sim.time, sim.last_seq, dict(sim.settings), sim.epoch)


async def peek_state(cluster: str) -> State:
    """The saved state of a cluster whose engine runs elsewhere (read only: its epoch stays)."""
    return await in_thread(_peek)(cluster)


def _modes(clusters: list[str]) -> dict[str, tuple[str, float]]:
    rows = Simulation.objects.filter(cluster__in=clusters).values_list("cluster", "mode", "speed")
    return {cluster: (mode, speed) for cluster, mode, speed in rows}


async def saved_modes(clusters: list[str]) -> dict[str, tuple[str, float]]:
    """Mode and speed of each cluster as last set (by any process), in one query."""
    return await in_thread(_modes)(clusters)


def _write(batches: list[Batch]) -> None:
    """Every engine's messages and clock in one transaction, the clocks as one prepared UPDATE."""
    with kv.exclusive(), transaction.atomic():
        rows = [
            (cluster, m.seq, m.time, m.sender, m.to, m.verb, m.kind, m.namespace, m.name, m.step, m.summary)
            for cluster, messages, _ in batches
            for m in messages
        ]
        clocks = [(state["time"], state["last_seq"], cluster) for cluster, _, state in batches]
        # The store's cursor: bound on the server and kept out of DEBUG's query log, as the store's writes are.
        with sql.cursor() as cursor:
            if rows and connection.vendor == "postgresql":
                cursor.execute(_insert_messages(arrays=True), [list(column) for column in zip(*rows, strict=True)])
            elif rows:
                cursor.executemany(_insert_messages(arrays=False), rows)
            cursor.executemany(_SAVE_CLOCK, clocks)
            changed = cursor.rowcount
        if changed != len(clocks):
            # An engine whose row went (its cluster was reset meanwhile): made again, as before.
            known = set(Simulation.objects.filter(cluster__in=[c for _, _, c in clocks]).values_list("cluster", flat=True))
            for cluster, _, state in batches:
                if cluster not in known:
                    Simulation.objects.create(cluster=cluster, **state)


def _insert_messages(arrays: bool) -> str:
    """One prepared INSERT of trace rows, skipping any already saved (a message is saved once).

    A class's burst of applies saves thousands of messages a second; the ORM's bulk_create built each
    row's SQL in Python, and that alone was 8% of the server's time. With ``arrays`` (PostgreSQL) the
    rows come as one array per column, one statement per flush rather than a bind and an execute each.
    """
    quote = connection.ops.quote_name
    table = quote(FlowMessage._meta.db_table)
    columns = ", ".join(quote(c) for c in _MESSAGE_COLUMNS)
    if arrays:
        rows = f"SELECT * FROM unnest({', '.join(f'%s::{kind}[]' for kind in _MESSAGE_TYPES)})"
    else:
        rows = f"VALUES ({', '.join(['%s'] * len(_MESSAGE_COLUMNS))})"
    return f"INSERT INTO {table} ({columns}) {rows} ON CONFLICT ({quote('cluster')}, {quote('seq')}) DO NOTHING"


_MESSAGE_COLUMNS = ("cluster", "seq", "time", "sender", "to", "verb", "kind", "namespace", "name", "step", "summary")
# The PostgreSQL type of each column, for its array.
_MESSAGE_TYPES = ("text", "bigint", "float8", "text", "text", "text", "text", "text", "text", "int4", "text")
_SAVE_CLOCK = (
    f'UPDATE "{Simulation._meta.db_table}" SET "time" = %s, "last_seq" = %s WHERE "cluster" = %s'
)
# A live clock with nothing else new is saved this often (its moments are epoch + time, so a restart that
# reads a slightly older time loses only this much of a quiet cluster's history).
CLOCK_SAVE_SECONDS = 10.0


def _take(engine: Engine) -> Batch:
    """What ``engine`` has to save: its buffered messages (taken out of the buffer) and its clock."""
    buffer = _buffers.get(engine, [])
    taken, buffer[:] = list(buffer), []
    return engine.cluster, taken, {"time": engine.now, "last_seq": engine.last_seq}


async def save_all(engines: list[Engine]) -> None:
    """Write out the engines' buffered messages and clocks (mode and speed are saved when they are set)."""
    batches = [_take(engine) for engine in engines]
    try:
        await in_writer_thread(_write)(batches)
        for engine, (_, _, state) in zip(engines, batches, strict=True):
            _saved_clock[engine] = state["time"]
    except kv.StoreUnavailable:
        for engine, (_, taken, _) in zip(engines, batches, strict=True):
            buffer = _buffers.get(engine)
            if buffer is not None:
                buffer[:0] = taken  # kept for the next flush, in order
        raise


async def save(engine: Engine) -> None:
    """Write out one engine's buffered messages and clock."""
    await save_all([engine])


def attach(engine: Engine) -> None:
    """Buffer every delivered message of ``engine``; its loop's flusher saves it with the others."""
    buffer: list[Message] = []
    _buffers[engine] = buffer
    engine.listeners.append(buffer.append)
    loops.entry(_attached, weakref.WeakSet).add(engine)
    loop = asyncio.get_running_loop()
    loops.keep_running(_flushers, lambda: _flush_forever(loop))


def detach(engine: Engine) -> None:
    """Stop saving ``engine`` regularly (it has stopped; ``save`` writes its last state)."""
    for engines in _attached.values():
        engines.discard(engine)


async def _flush_forever(loop: asyncio.AbstractEventLoop) -> None:
    """Save every engine of this loop with news (messages, or a live clock) in one transaction per round."""
    while _attached.get(loop):
        await asyncio.sleep(FLUSH_SECONDS)  # wall-clock: persistence batching, not simulated time
        due = [e for e in list(_attached.get(loop, ())) if _buffers.get(e) or _clock_due(e)]
        if not due:
            continue
        try:
            await save_all(due)
        except kv.StoreUnavailable:
            pass  # the database is briefly away; the buffers are written at the next flush
        except Exception:  # noqa: BLE001 - one bad round must not end persistence for every cluster
            log.exception("could not save the engines' traces")


def _clock_due(engine: Engine) -> bool:
    """A live clock that has moved on by CLOCK_SAVE_SECONDS since it was last saved."""
    saved = _saved_clock.get(engine)
    return engine.mode == "live" and (saved is None or engine.now - saved >= CLOCK_SAVE_SECONDS)


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
