"""A lesson's reset leaves no DaemonSet behind: its Pods would come back on the new nodes otherwise."""

from __future__ import annotations

from typing import Any

from clusterviz.api.client import Client
from clusterviz.lessons import runner
from tests.controllers.test_daemonset import DAEMON_SET


async def test_a_reset_removes_daemon_sets_their_revisions_and_pods(sim: Any) -> None:
    client = Client("demo", "kubectl")
    await client.create(DAEMON_SET)
    await sim.engine.until_settled()
    assert len((await client.list("pods", "default", label_selector="app=agent"))["items"]) == 3
    await runner.reset("demo")
    await sim.engine.until_settled()
    assert (await client.list("daemonsets"))["items"] == []
    assert (await client.list("controllerrevisions"))["items"] == []
    assert (await client.list("pods", "default", label_selector="app=agent"))["items"] == []
