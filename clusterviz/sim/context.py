"""What every simulated component gets: its client, the engine's clock, the cluster's settings."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from clusterviz.api.client import Client
from clusterviz.api.record import EventRecorder

from .engine import Engine


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


@dataclass
class Context:
    """A component's view of its cluster."""

    cluster: str
    engine: Engine
    settings: SimSettings = field(default_factory=SimSettings)

    def client(self, component: str) -> Client:
        """An API client that names ``component`` as the sender of its hops."""
        return Client(self.cluster, component)

    def recorder(self, component: str, host: str = "") -> EventRecorder:
        return EventRecorder(self.client(component), component, host)

    def rng(self, purpose: str) -> random.Random:
        """A random source seeded per cluster and purpose."""
        return random.Random(f"{self.settings.seed}:{self.cluster}:{purpose}")
