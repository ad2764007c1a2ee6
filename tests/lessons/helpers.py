"""Playing a lesson in an in-process simulation, as a class would: load it, then press every button."""

from __future__ import annotations

from typing import Any

from clusterviz.api.client import Client
from clusterviz.lessons import BY_SLUG, Action
from clusterviz.lessons.runner import Outcome, load, run

CLUSTER = "demo"


def kubectl() -> Client:
    return Client(CLUSTER, "kubectl")


async def start(sim: Any, slug: str) -> int:
    """Load the lesson and let the simulation run in fast-forward, as tests do; returns load's lastSeq."""
    seq = await load(CLUSTER, BY_SLUG[slug])
    sim.engine.set_mode("fast-forward")
    return seq


async def press(sim: Any, slug: str, action: Action) -> Outcome:
    """Run one of the lesson's actions and wait until the cluster is quiet again."""
    outcome = await run(CLUSTER, action, BY_SLUG[slug].manifest)
    assert outcome.ok, outcome.message
    assert outcome.kubectl == action.kubectl()
    await sim.engine.until_settled()
    return outcome


async def pods(selector: str = "") -> list[dict[str, Any]]:
    return (await kubectl().list("pods", "default", label_selector=selector))["items"]


async def decisions(pod: str) -> list[dict[str, Any]]:
    """The scheduling decision records of one Pod, oldest first."""
    found = await kubectl().list("schedulingdecisions", "default", label_selector=f"clusterviz.io/pod={pod}")
    return sorted(found["items"], key=lambda d: d["attempt"])


def node_row(record: dict[str, Any], node: str) -> dict[str, Any]:
    return next(n for n in record["nodes"] if n["name"] == node)


def failed(record: dict[str, Any], node: str) -> dict[str, str]:
    """plugin -> reason of the filters that failed on ``node``."""
    return {f["plugin"]: f["reason"] for f in node_row(record, node)["filters"] if f["status"] not in ("Success", "Skip")}


def score(record: dict[str, Any], node: str, plugin: str) -> dict[str, Any]:
    return next(s for s in node_row(record, node)["scores"] if s["plugin"] == plugin)
