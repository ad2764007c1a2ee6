"""The kubelet's probe loop: each running container's probes on the simulated clock.

A probe is the kubelet looking at its own container, not a message on the bus. Its timers are
background timers (a healthy Pod must not keep fast-forward running), except while the probes'
results are going to change soon (``ContainerProbes.change_within``): then they are foreground, so
fast-forward reaches the moment a container becomes ready or is restarted. What follows a result
(its events, a status write, a restart) goes through the kubelet as usual.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from clusterviz.api import clock
from clusterviz.api.component import Engine

from .init_containers import init_specs
from .probes import ContainerProbes, Judge, Step
from .runtime import Container, ContainerRuntime, Sandbox


class ProbeOwner(Protocol):
    """The Pod worker a container's probes report to."""

    @property
    def pod(self) -> dict[str, Any]:
        """The Pod's latest copy (its annotations can make probes fail)."""
        ...

    def probing(self) -> bool:
        """Whether it still probes (its kubelet runs and it still drives the Pod)."""
        ...

    async def probed(self, container: Container, step: Step) -> None:
        """Apply what a round of probes found."""
        ...


def arm_probes(engine: Engine, runtime: ContainerRuntime, sandbox: Sandbox, owner: ProbeOwner, name: str) -> None:
    """Start probing each started container of the sandbox that has probes (tasks named after ``name``)."""
    # Sidecars (restartable init containers) are probed as app containers are.
    specs = {
        str(c.get("name", "")): c
        for c in [*((owner.pod.get("spec") or {}).get("containers") or []), *init_specs(owner.pod)]
        if isinstance(c, dict)
    }
    for container in sandbox.containers.values():
        spec = specs.get(container.name)
        # A container another worker probed (before its kubelet restarted) is probed anew.
        if container.started_at is None or container.prober is owner or spec is None:
            continue
        container.prober = owner
        probes = ContainerProbes(spec)
        container.probed_started, container.probed_ready = probes.started, probes.ready
        if probes.next_due() is None:
            continue
        judge = Judge(owner.pod, spec, sandbox.ip)
        engine.spawn(f"{name}/probe/{container.name}", _probe_loop(engine, runtime, owner, container, probes, judge))


def _probe_loop(
    engine: Engine,
    runtime: ContainerRuntime,
    owner: ProbeOwner,
    container: Container,
    probes: ContainerProbes,
    judge: Judge,
) -> Callable[[], Awaitable[None]]:
    meta = owner.pod.get("metadata") or {}
    uid = str(meta.get("uid", ""))

    def current() -> bool:
        # Still its prober, and the same container still running (a restart replaces it, a kill or an exit ends it).
        sandbox = runtime.sandboxes.get(uid)
        return (
            owner.probing()
            and container.prober is owner
            and container.finished_at is None
            and sandbox is not None
            and sandbox.containers.get(container.name) is container
        )

    async def run() -> None:
        while (due := probes.next_due()) is not None and current() and container.started_at is not None:
            ran = (clock.now_precise() - container.started_at).total_seconds()
            judge.annotate(owner.pod)
            soon = probes.change_within(judge)
            await engine.sleep(
                max(due - ran, 0.0),
                background=not soon,
                what=f'the kubelet probes container "{container.name}" of {meta.get("name")}',
            )
            if not current():
                return
            judge.annotate(owner.pod)
            step = probes.step(judge)
            container.probed_started, container.probed_ready = probes.started, probes.ready
            if step.failures or step.changed or step.kill:
                await owner.probed(container, step)

    return run
