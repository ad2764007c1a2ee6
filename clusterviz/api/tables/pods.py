"""The Pod printer: READY, STATUS, RESTARTS and the other pod columns."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.duration import human_duration_ns
from clusterviz.apimachinery.unstructured import deep_copy, dict_or_empty, list_or_empty, str_or_empty

from .common import NONE, Printed, _i, _meta, _since, parse_timestamp_ns

_POD_SUCCEEDED = [
    {"type": "Completed", "status": "True", "reason": "Succeeded", "message": "The pod has completed successfully."}
]
_POD_FAILED = [{"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}]


def _is_restartable_init(container: Any) -> bool:
    """A sidecar: an init container with ``restartPolicy: Always``."""
    return isinstance(container, dict) and container.get("restartPolicy") == "Always"


def _later(current: int | None, candidate: int | None) -> int | None:
    """Keep the later of two times, treating None as Go's zero time."""
    if candidate is None:
        return current
    if current is None or current < candidate:
        return candidate
    return current


def _finished_at(status: dict[str, Any]) -> int | None:
    """lastState.terminated.finishedAt of a container status, or None."""
    terminated = dict_or_empty(status.get("lastState")).get("terminated")
    if not isinstance(terminated, dict):
        return None
    return parse_timestamp_ns(terminated.get("finishedAt"))


def _state_part(state: dict[str, Any], name: str) -> dict[str, Any] | None:
    """A ContainerState member; present (even if empty) means the Go pointer is set."""
    value = state.get(name)
    return value if isinstance(value, dict) else None


def _condition_true(conditions: Any, type_: str) -> bool:
    return any(dict_or_empty(c).get("type") == type_ and dict_or_empty(c).get("status") == "True" for c in list_or_empty(conditions))


def _print_pod(pod: dict[str, Any], now_ns: int) -> Printed:
    meta, spec, status = _meta(pod), dict_or_empty(pod.get("spec")), dict_or_empty(pod.get("status"))
    init_specs = list_or_empty(spec.get("initContainers"))
    total = len(list_or_empty(spec.get("containers")))
    ready = 0
    restarts = 0
    sidecar_restarts = 0
    last_restart: int | None = None
    last_sidecar_restart: int | None = None

    # The server stores every pod with a phase; Pending is what it defaults to.
    phase = str_or_empty(status.get("phase")) or "Pending"
    reason = str_or_empty(status.get("reason")) or phase
    for cond in list_or_empty(status.get("conditions")):
        cond = dict_or_empty(cond)
        if cond.get("type") == "PodScheduled" and cond.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"

    conditions: list[dict[str, Any]] = []
    if phase == "Succeeded":
        conditions = deep_copy(_POD_SUCCEEDED)
    elif phase == "Failed":
        conditions = deep_copy(_POD_FAILED)

    init_by_name: dict[str, Any] = {}
    for c in init_specs:
        c = dict_or_empty(c)
        init_by_name[str_or_empty(c.get("name"))] = c
        if _is_restartable_init(c):
            total += 1

    initializing = False
    for index, cs in enumerate(list_or_empty(status.get("initContainerStatuses"))):
        cs = dict_or_empty(cs)
        count = _i(cs.get("restartCount"))
        finished = _finished_at(cs)
        restarts += count
        last_restart = _later(last_restart, finished)
        sidecar = _is_restartable_init(init_by_name.get(str_or_empty(cs.get("name"))))
        if sidecar:
            sidecar_restarts += count
            last_sidecar_restart = _later(last_sidecar_restart, finished)
        state = dict_or_empty(cs.get("state"))
        terminated = _state_part(state, "terminated")
        waiting = _state_part(state, "waiting")
        if terminated is not None and _i(terminated.get("exitCode")) == 0:
            continue
        if sidecar and cs.get("started") is True:
            if cs.get("ready") is True:
                ready += 1
            continue
        if terminated is not None:
            term_reason = str_or_empty(terminated.get("reason"))
            if term_reason:
                reason = "Init:" + term_reason
            elif _i(terminated.get("signal")) != 0:
                reason = f"Init:Signal:{_i(terminated.get('signal'))}"
            else:
                reason = f"Init:ExitCode:{_i(terminated.get('exitCode'))}"
        elif waiting is not None and str_or_empty(waiting.get("reason")) and waiting.get("reason") != "PodInitializing":
            reason = "Init:" + str_or_empty(waiting.get("reason"))
        else:
            reason = f"Init:{index}/{len(init_specs)}"
        initializing = True
        break

    if not initializing or _condition_true(status.get("conditions"), "Initialized"):
        # Init containers are done: only sidecar restarts carry over.
        restarts = sidecar_restarts
        last_restart = last_sidecar_restart
        has_running = False
        # Walk backwards so the first container's reason wins, as upstream does.
        for cs in reversed(list_or_empty(status.get("containerStatuses"))):
            cs = dict_or_empty(cs)
            restarts += _i(cs.get("restartCount"))
            last_restart = _later(last_restart, _finished_at(cs))
            state = dict_or_empty(cs.get("state"))
            waiting = _state_part(state, "waiting")
            terminated = _state_part(state, "terminated")
            if waiting is not None and str_or_empty(waiting.get("reason")):
                reason = str_or_empty(waiting.get("reason"))
            elif terminated is not None and str_or_empty(terminated.get("reason")):
                reason = str_or_empty(terminated.get("reason"))
            elif terminated is not None:
                signal = _i(terminated.get("signal"))
                reason = f"Signal:{signal}" if signal != 0 else f"ExitCode:{_i(terminated.get('exitCode'))}"
            elif cs.get("ready") is True and _state_part(state, "running") is not None:
                has_running = True
                ready += 1
        # A pod whose sidecar still runs after the main containers completed.
        if reason == "Completed" and has_running:
            reason = "Running" if _condition_true(status.get("conditions"), "Ready") else "NotReady"

    if meta.get("deletionTimestamp") is not None:
        if status.get("reason") == "NodeLost":
            reason = "Unknown"
        elif phase not in ("Succeeded", "Failed"):
            reason = "Terminating"

    restarts_text = str(restarts)
    if restarts != 0 and last_restart is not None:
        restarts_text = f"{restarts} ({human_duration_ns(now_ns - last_restart)} ago)"

    # podIP wins over podIPs, as in the v1 -> internal conversion.
    pod_ip = str_or_empty(status.get("podIP"))
    if not pod_ip:
        ips = list_or_empty(status.get("podIPs"))
        pod_ip = str_or_empty(dict_or_empty(ips[0]).get("ip")) if ips else ""

    gates = list_or_empty(spec.get("readinessGates"))
    readiness_gates = NONE
    if gates:
        true_count = 0
        for gate in gates:
            gate_type = dict_or_empty(gate).get("conditionType")
            for cond in list_or_empty(status.get("conditions")):
                cond = dict_or_empty(cond)
                if cond.get("type") == gate_type:
                    if cond.get("status") == "True":
                        true_count += 1
                    break
        readiness_gates = f"{true_count}/{len(gates)}"

    cells = [
        str_or_empty(meta.get("name")),
        f"{ready}/{total}",
        reason,
        restarts_text,
        _since(meta.get("creationTimestamp"), now_ns),
        pod_ip or NONE,
        str_or_empty(spec.get("nodeName")) or NONE,
        str_or_empty(status.get("nominatedNodeName")) or NONE,
        readiness_gates,
    ]
    return cells, conditions


def pod_status_column(pod: dict[str, Any]) -> str:
    """The STATUS kubectl prints for a Pod (Running, Init:0/2, CrashLoopBackOff, Terminating, ...)."""
    cells, _conditions = _print_pod(pod, 0)
    return str(cells[2])
