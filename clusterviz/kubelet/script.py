"""What a simulated container does once started: a small script read from its Pod's annotations.

Real containers end when their process exits. Here a Pod says when, on the
simulated clock, and with which exit code:

``clusterviz.io/exit-after``
    A Go duration (``10s``, ``1m30s``, ``500ms``): each container of the Pod
    exits that long after it started. Absent (or unreadable): a Pod meant to
    end (restartPolicy ``Never`` or ``OnFailure``, a Job's) runs its command
    for 5 simulated seconds; any other runs until it is stopped.
``clusterviz.io/exit-code``
    The exit code (0-255, default 0). 0 ends as reason ``Completed``, anything
    else as ``Error``, as containerd reports them.

The container's exit is the runtime telling the kubelet (a hop from
``runtime/<node>`` to ``kubelet/<node>``, like the runtime's container events).
The Pod's phase then follows its restartPolicy as upstream's kubelet decides it:
with ``Never`` every exit is final, with ``OnFailure`` an exit 0 is; once all
containers are down for good the Pod is ``Succeeded`` (all exited 0) or
``Failed``. A container the policy would restart stays terminated for now:
restarts and their back-off (CrashLoopBackOff) build on this module later.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from clusterviz.api import clock
from clusterviz.api.component import Engine
from clusterviz.apimachinery.duration import parse_go_duration

from .runtime import Container, ContainerRuntime, Sandbox

EXIT_AFTER_ANNOTATION: Final = "clusterviz.io/exit-after"
EXIT_CODE_ANNOTATION: Final = "clusterviz.io/exit-code"
MAX_EXIT_CODE: Final = 255
# How long a Pod meant to end runs when its script does not say (its command is taken to be short).
BATCH_RUN_SECONDS: Final = 5.0


@dataclass(frozen=True)
class Script:
    """When a Pod's containers exit (None: never by themselves) and with which code."""

    exit_after: float | None = None
    exit_code: int = 0


def script_of(pod: dict[str, Any]) -> Script:
    """The Pod's script from its annotations; what cannot be read is left out (the default applies)."""
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    batch = (pod.get("spec") or {}).get("restartPolicy") in ("Never", "OnFailure")
    after: float | None = BATCH_RUN_SECONDS if batch else None
    try:
        after = max(parse_go_duration(str(annotations[EXIT_AFTER_ANNOTATION])), 0.0)
    except (KeyError, ValueError):
        pass
    try:
        code = int(str(annotations.get(EXIT_CODE_ANNOTATION, "0")))
    except ValueError:
        code = 0
    return Script(after, code if 0 <= code <= MAX_EXIT_CODE else 0)


def exit_reason(code: int) -> str:
    """containerd's reason for a process that exited by itself."""
    return "Completed" if code == 0 else "Error"


def terminated_state(container: Container) -> dict[str, Any]:
    """``state.terminated`` of an exited container."""
    code = container.exit_code or 0
    return {
        "exitCode": code,
        "reason": exit_reason(code),
        "startedAt": clock.rfc3339(container.started_at) if container.started_at else None,
        "finishedAt": clock.rfc3339(container.finished_at) if container.finished_at else None,
        "containerID": container.container_id,
    }


def _stays_down(restart_policy: str, code: int) -> bool:
    return restart_policy == "Never" or (restart_policy == "OnFailure" and code == 0)


def pod_phase(pod: dict[str, Any], sandbox: Sandbox | None) -> str | None:
    """Succeeded or Failed once every container has exited for good (getPhase); None while the Pod runs on."""
    if sandbox is None:
        return None
    policy = str((pod.get("spec") or {}).get("restartPolicy") or "Always")
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
    """Let each started container of the sandbox exit when the script says; ``exited`` is called after each exit."""
    script = script_of(pod)
    if script.exit_after is None:
        return
    for container in sandbox.containers.values():
        if container.started_at is None or container.exit_armed:
            continue
        container.exit_armed = True
        # Measured from its start, so a container adopted after a restart of the simulation keeps its time.
        ran = (clock.now_precise() - container.started_at).total_seconds()
        delay = max(script.exit_after - ran, 0.0)
        engine.spawn(
            f"{runtime.name}/exit/{container.name}",
            _exit_later(engine, runtime, pod, container, delay, script.exit_code, exited),
        )


def _exit_later(
    engine: Engine,
    runtime: ContainerRuntime,
    pod: dict[str, Any],
    container: Container,
    delay: float,
    code: int,
    exited: Callable[[], None],
) -> Callable[[], Any]:
    async def run() -> None:
        meta = pod.get("metadata") or {}
        await engine.sleep(delay, what=f'container "{container.name}" of {meta.get("name")} exits')
        if container.finished_at is None and container.name in _containers_of(runtime, meta.get("uid")):
            await runtime.container_exited(pod, container, code)
            exited()

    return run


def _containers_of(runtime: ContainerRuntime, uid: Any) -> dict[str, Container]:
    sandbox = runtime.sandboxes.get(str(uid or ""))
    return sandbox.containers if sandbox is not None else {}
