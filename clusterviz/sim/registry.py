"""Which clusters this process simulates, and starting their engines on first use.

Daphne has no lifespan hook, so an engine starts the first time anything
touches its cluster (an API request, a websocket) and then runs as tasks in
the server's event loop.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from clusterviz.api.component import SimSettings
from clusterviz.store import kv, loops
from clusterviz.store.threads import in_thread, in_writer_thread

from . import lease, remote, trace
from .context import Context
from .engine import Engine
from .engine_gate import EngineGate

log = logging.getLogger(__name__)

ComponentFactory = Callable[[Context], Any]

# name -> factory of an object with ``async run()``; filled by the component packages.
COMPONENTS: dict[str, ComponentFactory] = {}


def register_component(name: str, factory: ComponentFactory) -> None:
    """Make every engine run this component (the controller manager, the scheduler, the kubelets)."""
    COMPONENTS[name] = factory


@dataclass
class Running:
    """A cluster simulated by this process."""

    cluster: str
    engine: Engine
    gate: EngineGate
    ctx: Context
    components: dict[str, Any] = field(default_factory=dict)
    # When this process last renewed the cluster's lease (time.monotonic()).
    renewed: float = field(default_factory=time.monotonic)


_running: dict[str, Running] = {}
# Engines start on first use only in processes that serve clusters (the ASGI server, workers).
_enabled = False
# This process's name in the engine lease table.
_holder = lease.holder_identity()
# Renew well within the lease, so one late renewal does not hand the cluster to another process.
RENEW_SECONDS = min(5.0, lease.LEASE_SECONDS / 3)
# Past this without a successful renewal (the database was unreachable), another process may soon
# take the cluster over, so this one stops its engine first: never two engines on one cluster.
GIVE_UP_SECONDS = lease.LEASE_SECONDS * 2 / 3


# Clusters this process handed to a process that joined later: not taken back on a request meanwhile
# (time.monotonic() until which), so the newcomer's next look for clusters finds them free.
_handed_off: dict[str, float] = {}


def set_holder(holder: str) -> None:
    global _holder
    _holder = holder


async def forward(req: Any) -> Any:
    """The API server's forwarder: a write for a cluster whose engine runs in another process goes there."""
    return await remote.forward(req, _holder)


async def runs_elsewhere(cluster: str) -> bool:
    """Whether another process runs ``cluster``'s engine (holds its live lease)."""
    return await in_thread(lease.held_elsewhere)(cluster, _holder)


def running_clusters() -> list[str]:
    """Clusters whose engines run in this process."""
    return list(_running)


def enable() -> None:
    """Let this process start engines on demand."""
    global _enabled
    _enabled = True


_locks: dict[asyncio.AbstractEventLoop, asyncio.Lock] = {}


def _lock() -> asyncio.Lock:
    return loops.entry(_locks, asyncio.Lock)


def get(cluster: str) -> Running | None:
    """The running simulation of ``cluster`` in this event loop, if any."""
    running = _running.get(cluster)
    if running is None:
        return None
    try:
        current = asyncio.get_running_loop()
    except RuntimeError:
        return running
    if running.engine._loop is not current:
        return None
    return running


_discovery: asyncio.Task[None] | None = None
DISCOVER_SECONDS = 2.0
HAND_OFF_SECONDS = 3 * DISCOVER_SECONDS


async def ensure(cluster: str) -> Running | None:
    """The cluster's running simulation, started here if this process runs engines."""
    global _discovery
    if _enabled and (_discovery is None or _discovery.done()):
        # From the first request on, this process also picks up clusters created elsewhere.
        _discovery = asyncio.get_running_loop().create_task(_discover_forever())
    running = get(cluster)
    if running is None and _enabled and _handed_off.get(cluster, 0.0) < time.monotonic():
        running = await start(cluster)
    return running


async def claim_all() -> None:
    """Run every cluster whose lease this process can hold; stop the ones that are gone.

    Simulation modes written by other processes (the simulations API in a web process) are followed.
    The clusters are shared out: a process claims clusters only up to its fair share among the live
    processes that run engines (``lease.live_hosts``). A round costs a few queries however many clusters
    there are, plus one claim per cluster taken.
    """
    names = await in_thread(kv.cluster_names)()
    idle = [name for name in names if get(name) is None]
    # Each process takes no more than its share, so that the engines' work is spread over every
    # process (and core) that runs engines rather than left to whichever looked first.
    hosts = await in_thread(lease.live_hosts)(_holder)
    room = lease.fair_share(len(names), hosts) - (len(names) - len(idle))
    for name in sorted(await in_thread(lease.claimable)(idle, _holder), key=lambda n: lease.preference(_holder, n)):
        if room <= 0:
            break
        if await start(name) is not None:
            room -= 1
    if room < 0:
        await _hand_off(-room)
    here = [name for name in names if get(name) is not None]
    for name, (mode, speed) in (await trace.saved_modes(here)).items():
        running = get(name)
        if running is not None and (mode, speed) != (running.engine.mode, running.engine.speed):
            running.engine.set_mode(mode, speed)
    for name in list(_running):
        if name not in names:
            await stop(name)


async def _hand_off(count: int) -> None:
    """Stop up to ``count`` engines beyond this process's share since another process joined, the clusters
    this process would have claimed last first; only engines with no message in flight, so no client's
    request is cut off on the way (a busy one goes at a later round)."""
    here = sorted(_running, key=lambda n: lease.preference(_holder, n), reverse=True)
    for name in [n for n in here if _running[n].engine.pending == 0][:count]:
        _handed_off[name] = time.monotonic() + HAND_OFF_SECONDS
        await stop(name)
        log.info("handed %s to another process", name)


async def _discover_forever() -> None:
    while True:
        try:
            await claim_all()
        except Exception:
            log.exception("could not look for clusters to simulate")
        await asyncio.sleep(DISCOVER_SECONDS)  # wall-clock: looking for new clusters, not simulated time


async def gate_for(cluster: str) -> EngineGate | None:
    """The API server's gate provider: start the cluster's engine on first use."""
    running = await ensure(cluster)
    return running.gate if running else None


async def start(cluster: str, *, mode: str | None = None, speed: float | None = None) -> Running | None:
    """Start simulating ``cluster`` here (idempotent); None if there is no such cluster."""
    async with _lock():
        running = get(cluster)
        if running is not None:
            if mode is not None:
                running.engine.set_mode(mode, speed)
            return running
        try:
            cid = await in_thread(kv.cluster_id)(cluster)
        except kv.ClusterNotFound:
            return None
        if not await in_thread(lease.claim)(cluster, _holder):
            return None  # another process runs this cluster's engine
        revision = await in_thread(kv.current_revision)(cid)
        state = await trace.load_state(cluster)
        engine = Engine(
            cluster, mode or state.mode, speed if speed is not None else state.speed, state.time, state.epoch
        )
        engine.last_seq = state.last_seq
        gate = EngineGate(engine, cid, revision)
        ctx = Context(cluster, engine, SimSettings(**state.settings))
        running = Running(cluster, engine, gate, ctx)
        _running[cluster] = running
        trace.attach(engine)
        loops.keep_running(_renewers, _renew_forever)
        if remote.available():
            # Writes other processes receive for this cluster are served here, as hops on its bus.
            engine.background.add(asyncio.get_running_loop().create_task(remote.serve(cluster)))
        engine.start()
        gate.start_tailer()
        for name, factory in COMPONENTS.items():
            component = factory(ctx)
            running.components[name] = component
            engine.spawn(name, component.run)
        return running


async def renew_leases() -> None:
    """Renew the leases of every cluster running in this loop, in one transaction; stop the lost ones.

    While the database cannot be reached, engines keep running until ``GIVE_UP_SECONDS`` have passed
    since their last renewal: then another process may soon take them over, so they stop here first.
    """
    mine = [name for name in list(_running) if get(name) is not None]
    if not mine:
        return
    try:
        held = await in_writer_thread(lease.renew)(mine, _holder)
    except kv.StoreUnavailable:
        for name in mine:
            running = _running.get(name)
            if running is not None and time.monotonic() - running.renewed >= GIVE_UP_SECONDS:
                log.warning("could not renew the engine lease of %s; stopping its engine here", name)
                await stop(name)
        return
    for name in mine:
        running = _running.get(name)
        if running is None:
            continue
        if name in held:
            running.renewed = time.monotonic()
        else:
            log.warning("lost the engine lease of %s; stopping its engine here", name)
            await stop(name)


_renewers: dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = {}


async def _renew_forever() -> None:
    """Keep this process's leases while it runs engines in this loop."""
    while any(get(name) is not None for name in list(_running)):
        await asyncio.sleep(RENEW_SECONDS)  # wall-clock: leases expire in real time, not simulated time
        try:
            await renew_leases()
        except Exception:
            log.exception("could not renew the engine leases")


async def stop(cluster: str) -> None:
    """Stop simulating ``cluster`` (saving its clock and trace)."""
    running = _running.pop(cluster, None)
    if running is None:
        return
    await running.gate.stop()
    await running.engine.stop()
    trace.detach(running.engine)
    try:
        await trace.save(running.engine)
        await in_thread(lease.release)([cluster], _holder)
    except kv.StoreUnavailable:
        # The clock's last second and the lease are left behind; the lease expires by itself.
        log.warning("could not save the engine of %s while stopping it", cluster)


async def stop_all() -> None:
    for cluster in list(_running):
        await stop(cluster)


async def delete_cluster(cluster: str) -> bool:
    """Stop ``cluster``'s engine here, then remove the cluster with its objects and trace; False if unknown.

    An engine another process runs stops there on its next look for clusters (``claim_all``).
    """
    await stop(cluster)
    await in_thread(trace.forget)(cluster)
    return await in_thread(kv.delete_cluster)(cluster)
