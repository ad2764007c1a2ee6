"""What every simulated component gets: its client, the engine's clock, the cluster's settings.

This is the simulation's side of ``clusterviz.api.component.Context``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from clusterviz.api.client import Client
from clusterviz.api.component import SimSettings
from clusterviz.api.record import EventRecorder

from .engine import Engine


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
        """An event recorder writing as ``component`` (on ``host``)."""
        return EventRecorder(self.client(component), component, host)

    def rng(self, purpose: str) -> random.Random:
        """A random source seeded per cluster and purpose."""
        return random.Random(f"{self.settings.seed}:{self.cluster}:{purpose}")
