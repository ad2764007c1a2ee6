"""The contract between a cluster's simulation and the components it runs.

The controller manager, the scheduler and the kubelets are written against
these protocols only; ``clusterviz.sim`` implements them (its ``Engine`` and
``Context``). A component never imports the simulation, so the layers read as
the real control plane's: components talk to the API server and wait on a
clock, and nothing else.

Time has one source: simulated seconds are ``Engine.now``, and timestamps are
``clusterviz.api.clock``, which the engine points at its own clock for every
task it runs.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from .client import Client
from .record import EventRecorder


class Waiter(Protocol):
    """What a component waits through: a future resolved by ``wake``, during which it counts as idle."""

    async def wait_for(
        self, future: asyncio.Future[Any], timeout: float | None = None, *, background: bool = False, what: str = ""
    ) -> Any:
        """Wait on ``future``, or until ``timeout`` simulated seconds pass (``what`` says what happens then)."""
        ...

    def wake(self, future: asyncio.Future[Any], value: Any = None) -> None:
        """Resolve a future a component waits on (counting it running again)."""
        ...


class Engine(Waiter, Protocol):
    """A cluster's bus and clock, as the components use them."""

    @property
    def now(self) -> float:
        """Simulated seconds since the cluster's simulation began."""
        ...

    def wall(self) -> datetime:
        """Simulated time as a timestamp."""
        ...

    async def sleep(self, seconds: float, *, background: bool = False, what: str = "") -> None:
        """Wait ``seconds`` of simulated time; ``background`` timers do not keep fast-forward going; ``what``
        says what happens then, for the simulation's status (what is due next)."""
        ...

    def spawn(self, name: str, factory: Callable[[], Awaitable[None]]) -> asyncio.Task[None]:
        """Run ``factory()`` as simulated work of this cluster."""
        ...

    async def hop(
        self, sender: str, to: str, verb: str, kind: str, namespace: str, name: str, step: int | None, summary: str
    ) -> object:
        """Send a message on the bus (one not through the API server) and wait until it is delivered."""
        ...


@dataclass
class SimSettings:
    """Timings of one cluster, settable so a lesson need not wait five minutes."""

    # kube-controller-manager --node-monitor-grace-period (v1.32 default 40 s).
    node_monitor_grace_period: float = 40.0
    # How often the node lifecycle controller looks at nodes (--node-monitor-period).
    node_monitor_period: float = 5.0
    # tolerationSeconds the API server adds for not-ready/unreachable taints (default 300 s).
    pod_eviction_timeout: float = 300.0
    # Kubelet heartbeat (Lease renewal) interval.
    heartbeat_interval: float = 10.0
    # Image pull bandwidth of every node, bytes per simulated second.
    image_pull_bandwidth: float = 50 * 1024 * 1024
    # Time from "container created" to "started".
    container_start_seconds: float = 0.5
    # Seed of every random choice (tie-breaks, names), so runs repeat.
    seed: int = 1


class Context(Protocol):
    """What every component is given: its cluster, that cluster's engine and settings, and API clients."""

    @property
    def cluster(self) -> str:
        """The cluster's name."""
        ...

    @property
    def engine(self) -> Engine:
        """The cluster's bus and clock."""
        ...

    @property
    def settings(self) -> SimSettings:
        """The cluster's timings."""
        ...

    def client(self, component: str) -> Client:
        """An API client that names ``component`` as the sender of its hops."""
        ...

    def recorder(self, component: str, host: str = "") -> EventRecorder:
        """An event recorder writing as ``component`` (on ``host``)."""
        ...

    def rng(self, purpose: str) -> random.Random:
        """A random source seeded per cluster and purpose, so runs repeat."""
        ...
