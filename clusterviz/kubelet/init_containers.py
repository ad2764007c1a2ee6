"""Init containers: each runs to success, in order, before the app containers start.

As upstream's kubelet does: a regular init container must exit 0 before the next one starts; one
that fails is restarted with the crash back-off (``Init:CrashLoopBackOff``), unless the Pod's
restartPolicy is Never, which fails the Pod (``Init:Error``). An init container with
``restartPolicy: Always`` is a sidecar: once it has started (and passed its startup probe) the next
one starts, it keeps running beside the app containers, is restarted whenever it exits, and does not
keep the Pod from completing. Pure functions over the Pod and its sandbox.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import probes
from .runtime import Sandbox


def init_specs(pod: dict[str, Any]) -> list[dict[str, Any]]:
    """The Pod's init containers, in order."""
    return [c for c in (pod.get("spec") or {}).get("initContainers") or [] if isinstance(c, dict)]


def is_sidecar(spec: dict[str, Any]) -> bool:
    """A restartable init container (``restartPolicy: Always``)."""
    return spec.get("restartPolicy") == "Always"


def init_spec(pod: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The init container ``name``, or None if it is an app container."""
    return next((spec for spec in init_specs(pod) if spec.get("name") == name), None)


def field_path(pod: dict[str, Any], name: str) -> str:
    """The container's place in the Pod, as events name it (``spec.initContainers{init-db}``)."""
    return f"spec.initContainers{{{name}}}" if init_spec(pod, name) is not None else f"spec.containers{{{name}}}"


@dataclass(frozen=True)
class InitProgress:
    """Where a Pod's initialisation stands."""

    # The init container to start now, if any.
    start: dict[str, Any] | None = None
    # Every regular init container succeeded and every sidecar started: the app containers may start.
    done: bool = False
    # A regular init container failed and will not be restarted: the Pod has failed.
    failed: bool = False
    # The init containers not yet complete, for the Initialized condition.
    incomplete: tuple[str, ...] = ()


def progress(pod: dict[str, Any], sandbox: Sandbox | None) -> InitProgress:
    """The next step of the Pod's initialisation (the kubelet's computeInitContainerActions)."""
    specs = init_specs(pod)
    containers = sandbox.containers if sandbox is not None else {}
    incomplete = tuple(str(s.get("name", "")) for s in specs if not _complete(s, containers.get(str(s.get("name", "")))))
    never = (pod.get("spec") or {}).get("restartPolicy") == "Never"
    for spec in specs:
        container = containers.get(str(spec.get("name", "")))
        if container is None or container.started_at is None:
            return InitProgress(start=spec, incomplete=incomplete)
        if is_sidecar(spec):
            if container.finished_at is None and not probes.started(spec, container):
                return InitProgress(incomplete=incomplete)  # its startup probe holds the next one back
            continue
        if container.finished_at is None:
            return InitProgress(incomplete=incomplete)  # still running
        if (container.exit_code or 0) != 0:
            return InitProgress(failed=never, incomplete=incomplete)  # failed: restarted after its back-off, or not
    return InitProgress(done=True, incomplete=incomplete)


def _complete(spec: dict[str, Any], container: Any) -> bool:
    if container is None or container.started_at is None:
        return False
    if is_sidecar(spec):
        return probes.started(spec, container)
    return container.finished_at is not None and (container.exit_code or 0) == 0


def incomplete(pod: dict[str, Any], sandbox: Sandbox | None) -> tuple[str, ...]:
    """The init containers the Initialized condition waits for: none once an app container has started, as a
    restarting sidecar does not undo a Pod's initialisation."""
    apps = [str(c.get("name", "")) for c in (pod.get("spec") or {}).get("containers") or [] if isinstance(c, dict)]
    if sandbox is not None and any((c := sandbox.containers.get(n)) is not None and c.started_at for n in apps):
        return ()
    return progress(pod, sandbox).incomplete
