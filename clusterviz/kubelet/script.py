"""How the kubelet follows its containers' processes: their exits, restarts and the Pod's phase.

What each process does (how long it runs, its exit code) is ``behaviour.behaviour_of``. The
container's exit is the runtime telling the kubelet (a hop from ``runtime/<node>`` to
``kubelet/<node>``, like the runtime's container events). Then the Pod's restartPolicy decides, as
upstream's kubelet does: with ``Always`` every exit is restarted, with ``OnFailure`` a non-zero one;
a restart waits out the container's back-off (CrashLoopBackOff: none the first time, then 10 s
doubling to 5 minutes, forgotten after 10 minutes without a failure). Once every container is down
for good the Pod is ``Succeeded`` (all exited 0) or ``Failed``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from clusterviz.api import clock
from clusterviz.api.component import Engine

from .behaviour import EXIT_AFTER_ANNOTATION, EXIT_CODE_ANNOTATION, behaviour_of
from .init_containers import init_spec, init_specs, is_sidecar
from .runtime import Container, ContainerRuntime, Sandbox

__all__ = [
    "EXIT_AFTER_ANNOTATION", "EXIT_CODE_ANNOTATION", "RestartBackOff", "arm_exits", "pod_phase", "restarts",
    "terminated_state",
]


# The kubelet's crash back-off: client-go's flowcontrol.Backoff with 10 s initial and 5 min maximum.
BACKOFF_INITIAL, BACKOFF_MAX = 10.0, 300.0


class RestartBackOff:
    """Per container: how long a restart waits after its last exit, doubling with each restart."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[float, datetime]] = {}  # key -> (back-off, last update)

    @staticmethod
    def _expired(at: datetime, last: datetime) -> bool:
        # Ten minutes without a failure and the back-off starts over.
        return (at - last).total_seconds() > 2 * BACKOFF_MAX

    def remaining(self, key: str, finished: datetime, now: datetime) -> float:
        """IsInBackOffSince: seconds until the container may start again (0: now)."""
        entry = self._entries.get(key)
        if entry is None or self._expired(now, entry[1]):
            return 0.0
        return max(entry[0] - (now - finished).total_seconds(), 0.0)

    def current(self, key: str) -> float:
        """The back-off now in force for ``key``."""
        entry = self._entries.get(key)
        return entry[0] if entry else BACKOFF_INITIAL

    def next(self, key: str, at: datetime) -> None:
        """A restart happens: the next one waits twice as long (at most five minutes)."""
        entry = self._entries.get(key)
        duration = BACKOFF_INITIAL if entry is None or self._expired(at, entry[1]) else min(entry[0] * 2, BACKOFF_MAX)
        self._entries[key] = (duration, at)


def exit_reason(code: int) -> str:
    """containerd's reason for a process that exited by itself."""
    return "Completed" if code == 0 else "Error"


def terminated_state(container: Container) -> dict[str, Any]:
    """``state.terminated`` of an exited container."""
    code = container.exit_code or 0
    return {
        "exitCode": code,
        "reason": container.reason or exit_reason(code),
        "startedAt": clock.rfc3339(container.started_at) if container.started_at else None,
        "finishedAt": clock.rfc3339(container.finished_at) if container.finished_at else None,
        "containerID": container.container_id,
    }


def _stays_down(restart_policy: str, code: int) -> bool:
    return restart_policy == "Never" or (restart_policy == "OnFailure" and code == 0)


def restarts(pod: dict[str, Any], code: int, name: str = "") -> bool:
    """Whether the kubelet starts container ``name`` again after it exited with ``code``: the Pod's restartPolicy
    decides for app containers; a regular init container is restarted only when it failed (and the policy is not
    Never); a sidecar always."""
    policy = str((pod.get("spec") or {}).get("restartPolicy") or "Always")
    init = init_spec(pod, name) if name else None
    if init is not None:
        return is_sidecar(init) or (code != 0 and policy != "Never")
    return not _stays_down(policy, code)


def pod_phase(pod: dict[str, Any], sandbox: Sandbox | None) -> str | None:
    """Succeeded or Failed once every container has exited for good (getPhase); None while the Pod runs on."""
    if sandbox is None:
        return None
    policy = str((pod.get("spec") or {}).get("restartPolicy") or "Always")
    if policy == "Never":
        for spec in init_specs(pod):
            container = sandbox.containers.get(str(spec.get("name", "")))
            if container is not None and container.finished_at is not None and (container.exit_code or 0) != 0 \
                    and not is_sidecar(spec):
                return "Failed"  # an init container failed, and nothing restarts it
    codes = []
    for spec in (pod.get("spec") or {}).get("containers") or []:
        container = sandbox.containers.get(str(spec.get("name", "")))
        if container is None or container.finished_at is None or not _stays_down(policy, container.exit_code or 0):
            return None
        codes.append(container.exit_code or 0)
    if not codes:
        return None
    return "Succeeded" if all(code == 0 for code in codes) else "Failed"


def arm_exits(
    engine: Engine, runtime: ContainerRuntime, pod: dict[str, Any], sandbox: Sandbox, exited: Callable[[], None]
) -> None:
    """Let each started container of the sandbox exit when its behaviour says; ``exited`` is called after each exit."""
    specs = {
        str(c.get("name", "")): c
        for c in [*((pod.get("spec") or {}).get("containers") or []), *init_specs(pod)]
        if isinstance(c, dict)
    }
    for container in sandbox.containers.values():
        if container.started_at is None or container.exit_armed or container.name not in specs:
            continue
        container.exit_armed = True
        behaviour = behaviour_of(pod, specs[container.name], container.env)
        if behaviour.exit_after is None:
            continue
        # Measured from its start, so a container adopted after a restart of the simulation keeps its time.
        ran = (clock.now_precise() - container.started_at).total_seconds()
        delay = max(behaviour.exit_after - ran, 0.0)
        container.exit_task = engine.spawn(
            f"{runtime.name}/exit/{container.name}",
            _exit_later(engine, runtime, pod, container, delay, behaviour.exit_code, behaviour.reason, exited),
        )


def _exit_later(
    engine: Engine,
    runtime: ContainerRuntime,
    pod: dict[str, Any],
    container: Container,
    delay: float,
    code: int,
    reason: str,
    exited: Callable[[], None],
) -> Callable[[], Any]:
    async def run() -> None:
        meta = pod.get("metadata") or {}
        # A restarted container's exit waits in the background: a crash loop must let fast-forward settle
        # (its first exit still keeps it going, so a Job's Pods and a first crash are always seen).
        what = f'container "{container.name}" of {meta.get("name")} exits'
        await engine.sleep(delay, background=container.restart_count > 0, what=what)
        # The same container, not a later one of the same name (a restart replaces it).
        if container.finished_at is None and _containers_of(runtime, meta.get("uid")).get(container.name) is container:
            await runtime.container_exited(pod, container, code, reason)
            exited()

    return run


def _containers_of(runtime: ContainerRuntime, uid: Any) -> dict[str, Container]:
    sandbox = runtime.sandboxes.get(str(uid or ""))
    return sandbox.containers if sandbox is not None else {}
