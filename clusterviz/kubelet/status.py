"""What a kubelet writes to the API: Pod status, its node's status, and the timestamps in them.

Pure functions over plain objects; the kubelet decides when to write.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from clusterviz.api import clock

from . import init_containers, probes
from .runtime import Container, Sandbox
from .script import pod_phase, terminated_state

KUBELET_VERSION = "v1.32.0"
RUNTIME_VERSION = "containerd://1.7.24"
# What a node created without resources reports (the bootstrap nodes' machine).
DEFAULT_RESOURCES = {"cpu": "4", "memory": "8Gi", "pods": "110", "ephemeral-storage": "100Gi"}
PRESSURE_CONDITIONS = (
    ("MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    ("DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
)
READY_REASON, READY_MESSAGE = "KubeletReady", "kubelet is posting ready status"
CONTAINER_CREATING = "ContainerCreating"
POD_INITIALIZING = "PodInitializing"
CRASH_LOOP = "CrashLoopBackOff"
_BOOTSTRAP_CIDR = re.compile(r"^10\.244\.(\d+)\.0/24$")


def go_duration(seconds: float) -> str:
    """A duration truncated to milliseconds, printed as Go's ``time.Duration`` does (``313ms``, ``1.661s``, ``1m3.5s``)."""
    millis = int(round(seconds * 1_000_000)) // 1000
    if millis < 1000:
        return f"{millis}ms"
    hours, rest = divmod(millis, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs = f"{rest // 1000}.{rest % 1000:03d}".rstrip("0").rstrip(".")
    text = f"{secs}s"
    if hours or minutes:
        text = f"{minutes}m{text}"
    if hours:
        text = f"{hours}h{text}"
    return text


# --- Pod status ------------------------------------------------------------------------------


def condition(
    type_: str, status: str, now: str, previous: list[dict[str, Any]], reason: str = "", message: str = ""
) -> dict[str, Any]:
    """A Pod condition; its lastTransitionTime only moves when its status changes."""
    before = next((c for c in previous if c.get("type") == type_), None)
    moved = before is None or before.get("status") != status or not before.get("lastTransitionTime")
    out: dict[str, Any] = {
        "type": type_,
        "status": status,
        "lastProbeTime": None,
        "lastTransitionTime": now if moved or before is None else before["lastTransitionTime"],
    }
    if reason:
        out["reason"] = reason
    if message:
        out["message"] = message
    return out


def _known(
    container: Container, state: dict[str, Any], last: dict[str, Any], ready: bool = False, started: bool = False
) -> dict[str, Any]:
    """The status of a container the runtime has: its identity, readiness, restarts and states."""
    return {
        "name": container.name,
        "image": container.image,
        "imageID": container.image_id,
        "containerID": container.container_id,
        "ready": ready,
        "started": started,
        "restartCount": container.restart_count,
        "state": state,
        "lastState": last,
    }


def _container_status(
    spec: dict[str, Any], sandbox: Sandbox | None, waiting: tuple[str, str], init: bool = False
) -> dict[str, Any]:
    running = sandbox.containers.get(spec.get("name", "")) if sandbox is not None else None
    if running is not None and running.finished_at is not None:
        if waiting[0] == CRASH_LOOP:
            # Waiting out its back-off: the exit just seen is its last state.
            crashed = {"waiting": {"reason": waiting[0], "message": waiting[1]}}
            return _known(running, crashed, {"terminated": terminated_state(running)})
        # An init container that succeeded counts as ready, as the kubelet's prober reports it.
        done = init and not init_containers.is_sidecar(spec) and (running.exit_code or 0) == 0
        return _known(running, {"terminated": terminated_state(running)}, running.last_state, ready=done)
    if running is not None and running.started_at is not None:
        up = {"running": {"startedAt": clock.rfc3339(running.started_at)}}
        return _known(running, up, running.last_state, probes.ready(spec, running), probes.started(spec, running))
    reason, message = waiting
    state: dict[str, Any] = {"reason": reason}
    if message:
        state["message"] = message
    return {
        "name": spec.get("name", ""),
        "image": spec.get("image", ""),
        "imageID": "",
        "ready": False,
        "started": False,
        "restartCount": 0,
        "state": {"waiting": state},
        "lastState": {},
    }


def pod_status(
    pod: dict[str, Any],
    host_ip: str,
    sandbox: Sandbox | None,
    waiting: dict[str, tuple[str, str]] | None = None,
) -> dict[str, Any]:
    """The status the kubelet reports for an admitted Pod, from what its runtime has running.

    ``waiting`` gives a (reason, message) for containers that cannot start yet;
    the others wait as ``ContainerCreating``.
    """
    previous = (pod.get("status") or {}).get("conditions") or []
    now = clock.rfc3339()
    specs = (pod.get("spec") or {}).get("containers") or []
    inits = init_containers.init_specs(pod)
    # With init containers, what has not started yet waits as PodInitializing (the kubelet's default waiting state).
    default = (POD_INITIALIZING if inits else CONTAINER_CREATING, "")
    statuses = [_container_status(c, sandbox, (waiting or {}).get(c.get("name", ""), default)) for c in specs]
    init_statuses = [
        _container_status(c, sandbox, (waiting or {}).get(c.get("name", ""), default), init=True) for c in inits
    ]
    sidecars = [s for s, spec in zip(init_statuses, inits, strict=True) if init_containers.is_sidecar(spec)]
    unready = [s["name"] for s in [*sidecars, *statuses] if not s["ready"]]
    incomplete = init_containers.incomplete(pod, sandbox)
    phase = pod_phase(pod, sandbox)
    if phase is not None:
        # Every container is down for good: the Pod has completed (or failed), as the kubelet words it.
        done = "PodCompleted" if phase == "Succeeded" else "PodFailed"
        ready = [condition(t, "False", now, previous, done) for t in ("Ready", "ContainersReady")]
    elif unready:
        message = f"containers with unready status: [{' '.join(unready)}]"
        ready = [
            condition(t, "False", now, previous, "ContainersNotReady", message) for t in ("Ready", "ContainersReady")
        ]
    else:
        ready = [condition(t, "True", now, previous) for t in ("Ready", "ContainersReady")]
    scheduled = next((c for c in previous if c.get("type") == "PodScheduled"), None)
    conditions = [
        condition("PodReadyToStartContainers", "True" if sandbox is not None and not phase else "False", now, previous),
        condition("Initialized", "True", now, previous)
        if not incomplete
        else condition(
            "Initialized", "False", now, previous, "ContainersNotInitialized",
            f"containers with incomplete status: [{' '.join(incomplete)}]",
        ),
        *ready,
        scheduled or condition("PodScheduled", "True", now, previous),
    ]
    status: dict[str, Any] = {
        # getPhase: a container waiting out a restart has stopped, it is not waiting to start.
        "phase": phase
        or ("Running" if any("running" in s["state"] or "terminated" in s["state"] or s["lastState"] for s in statuses) else "Pending"),
        "conditions": conditions,
        "hostIP": host_ip,
        "hostIPs": [{"ip": host_ip}] if host_ip else [],
        "startTime": (pod.get("status") or {}).get("startTime") or now,
        "containerStatuses": statuses,
    }
    if inits:
        status["initContainerStatuses"] = init_statuses
    if sandbox is not None:
        status["podIP"] = sandbox.ip
        status["podIPs"] = [{"ip": sandbox.ip}]
    return status


def rejected_status(pod: dict[str, Any], reason: str, message: str) -> dict[str, Any]:
    """The status of a Pod the kubelet did not admit."""
    return {
        "phase": "Failed",
        "reason": reason,
        "message": "Pod was rejected: " + message,
        "startTime": (pod.get("status") or {}).get("startTime") or clock.rfc3339(),
    }


def is_running_and_ready(pod: dict[str, Any], sandbox: Sandbox) -> bool:
    """Does the Pod's stored status already say what its running sandbox says?"""
    status = pod.get("status") or {}
    ready: dict[str, Any] = next((c for c in status.get("conditions") or [] if c.get("type") == "Ready"), {})
    regular_inits = {str(s.get("name", "")) for s in init_containers.init_specs(pod) if not init_containers.is_sidecar(s)}
    # A completed init container has exited as it should.
    exited = any(c.finished_at is not None for c in sandbox.containers.values() if c.name not in regular_inits)
    specs = {
        str(c.get("name", "")): c
        for c in [*((pod.get("spec") or {}).get("containers") or []), *init_containers.init_specs(pod)]
        if isinstance(c, dict)
    }
    unready = any(not probes.ready(specs.get(c.name, {}), c) for c in sandbox.containers.values())
    return (
        status.get("phase") == "Running"
        and ready.get("status") == "True"
        and status.get("podIP") == sandbox.ip
        and not exited
        and not unready
    )


# --- Node status -----------------------------------------------------------------------------


def internal_ip(node: dict[str, Any]) -> str:
    """The node's InternalIP address, or "" if it has none yet."""
    for address in (node.get("status") or {}).get("addresses") or []:
        if address.get("type") == "InternalIP":
            return str(address.get("address", ""))
    return ""


def is_ready(node: dict[str, Any]) -> bool:
    """Is the node's Ready condition True?"""
    conditions = (node.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def needs_status(node: dict[str, Any]) -> bool:
    """Must the kubelet post node status: not Ready, or registered without what a kubelet reports?"""
    status = node.get("status") or {}
    missing = any(not status.get(k) for k in ("capacity", "allocatable", "addresses", "nodeInfo"))
    return missing or not is_ready(node)


def _default_address(node: dict[str, Any]) -> str:
    name = str((node.get("metadata") or {}).get("name", ""))
    match = _BOOTSTRAP_CIDR.match(str((node.get("spec") or {}).get("podCIDR", "")))
    index = int(match.group(1)) if match else 100 + int(hashlib.sha256(name.encode()).hexdigest(), 16) % 150
    return f"192.168.49.{10 + index}"


def _node_info(name: str) -> dict[str, str]:
    digest = hashlib.sha256(name.encode()).hexdigest()
    return {
        "machineID": digest[:32],
        "systemUUID": f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}",
        "bootID": digest[32:64],
        "kernelVersion": "6.1.0-18-amd64",
        "osImage": "Debian GNU/Linux 12 (bookworm)",
        "containerRuntimeVersion": RUNTIME_VERSION,
        "kubeletVersion": KUBELET_VERSION,
        "kubeProxyVersion": KUBELET_VERSION,
        "operatingSystem": "linux",
        "architecture": "amd64",
    }


def ready_node_status(node: dict[str, Any], now: str, images: list[dict[str, Any]]) -> dict[str, Any]:
    """The node status a healthy kubelet posts, keeping what the Node was created with."""
    name = str((node.get("metadata") or {}).get("name", ""))
    status = node.get("status") or {}
    previous = status.get("conditions") or []
    conditions = [
        {**condition(type_, "False", now, previous, reason, message), "lastHeartbeatTime": now}
        for type_, reason, message in PRESSURE_CONDITIONS
    ]
    conditions.append(
        {**condition("Ready", "True", now, previous, READY_REASON, READY_MESSAGE), "lastHeartbeatTime": now}
    )
    for c in conditions:
        c.pop("lastProbeTime")
    ours = {c["type"] for c in conditions}
    conditions += [c for c in previous if c.get("type") not in ours]  # others' conditions stay
    capacity = status.get("capacity") or status.get("allocatable") or dict(DEFAULT_RESOURCES)
    return {
        "capacity": capacity,
        "allocatable": status.get("allocatable") or dict(capacity),
        "conditions": conditions,
        "addresses": status.get("addresses")
        or [{"type": "InternalIP", "address": _default_address(node)}, {"type": "Hostname", "address": name}],
        "daemonEndpoints": status.get("daemonEndpoints") or {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": status.get("nodeInfo") or _node_info(name),
        "images": images,
    }


def effective_allocatable(node: dict[str, Any]) -> dict[str, Any]:
    """What admission may hand out: allocatable, else capacity, else the default machine."""
    status = node.get("status") or {}
    return dict(status.get("allocatable") or status.get("capacity") or DEFAULT_RESOURCES)
