"""The kubelet's probe loop: each running container's probes on the simulated clock.

A probe is the kubelet looking at its own container, not a message on the bus. Its timers are
background timers (a healthy Pod must not keep fast-forward running), except while the probes'
results are going to change soon (``ContainerProbes.change_within``): then they are foreground, so
fast-forward reaches the moment a container becomes ready or is restarted. What follows a result
(its events, a status write, a restart) goes through the kubelet as usual.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from clusterviz.api import clock
from clusterviz.api.component import Engine

from .probes import ContainerProbes, Judge, Step
from .runtime import Container, ContainerRuntime, Sandbox

Found = Callable[[Container, Step], Awaitable[None]]
Latest = Callable[[], dict[str, Any]]


def arm_probes(
    engine: Engine, runtime: ContainerRuntime, latest: Latest, sandbox: Sandbox, found: Found, owner: str
) -> None:
    """Start probing each started container of the sandbox that has probes (tasks named after ``owner``).

    ``latest`` gives the Pod's latest copy (its annotations can make probes fail); ``found`` applies
    what a round of probes found.
    """
    pod = latest()
    specs = {str(c.get("name", "")): c for c in (pod.get("spec") or {}).get("containers") or [] if isinstance(c, dict)}
    for container in sandbox.containers.values():
        spec = specs.get(container.name)
        if container.started_at is None or container.probes_armed or spec is None:
            continue
        container.probes_armed = True
        probes = ContainerProbes(spec)
        container.probed_started, container.probed_ready = probes.started, probes.ready
        if probes.next_due() is None:
            continue
        judge = Judge(pod, spec, sandbox.ip)
        engine.spawn(
            f"{owner}/probe/{container.name}",
            _probe_loop(engine, runtime, latest, container, probes, judge, found),
        )


def _probe_loop(
    engine: Engine,
    runtime: ContainerRuntime,
    latest: Latest,
    container: Container,
    probes: ContainerProbes,
    judge: Judge,
    found: Found,
) -> Callable[[], Awaitable[None]]:
    meta = latest().get("metadata") or {}
    uid = str(meta.get("uid", ""))

    def current() -> bool:
        # The same container, still running (a restart replaces it, a kill or an exit ends it).
        sandbox = runtime.sandboxes.get(uid)
        return (
            container.finished_at is None
            and sandbox is not None
            and sandbox.containers.get(container.name) is container
        )

    async def run() -> None:
        while (due := probes.next_due()) is not None and current() and container.started_at is not None:
            ran = (clock.now_precise() - container.started_at).total_seconds()
            judge.annotate(latest())
            soon = probes.change_within(judge)
            await engine.sleep(
                max(due - ran, 0.0),
                background=not soon,
                what=f'the kubelet probes container "{container.name}" of {meta.get("name")}',
            )
            if not current():
                return
            judge.annotate(latest())
            step = probes.step(judge)
            container.probed_started, container.probed_ready = probes.started, probes.ready
            if step.failures or step.changed or step.kill:
                await found(container, step)

    return run
