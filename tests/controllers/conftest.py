"""A demo cluster running only the controller manager and the fake kubelet (see helpers)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from clusterviz.controllers.manager import ControllerManager

from .helpers import Cluster, FakeKubelet


@pytest.fixture
async def cluster(transactional_db: Any, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Cluster]:
    """The demo cluster (node01-03) with only the controller manager and the fake kubelet, in fast-forward."""
    from clusterviz.sim import registry

    monkeypatch.setattr(registry, "COMPONENTS", {"controller-manager": ControllerManager, "fake-kubelet": FakeKubelet})
    running = await registry.start("demo", mode="fast-forward")
    assert running is not None
    cluster = Cluster(running)
    await cluster.settle()
    yield cluster
    await registry.stop_all()
