"""Server-side ``meta.k8s.io/v1`` Table printing, as a real kube-apiserver does it.

kubectl draws nothing itself: for ``kubectl get`` it asks for a Table and
prints the cells it receives, adding only NAMESPACE/LABELS columns (taken from
``rows[].object``) and the ``kind/`` prefix (for columns with
``format: name``). So READY, STATUS, RESTARTS, AGE and friends must be computed
here, with the same column definitions and the same cell strings the upstream
printers produce.

The real server always prints with ``Wide: true`` and lets kubectl hide the
``priority: 1`` columns unless ``-o wide`` is given, so every row carries all
cells.

Objects are plain Kubernetes JSON dicts that may be incomplete or malformed;
the printers never raise on them and fall back to ``<none>``/``<unknown>`` (or
whatever upstream would print for a zero value). Where the real server applies
defaults before storing an object (``spec.replicas`` = 1, pod phase
``Pending``, service type ``ClusterIP``, port protocol ``TCP``, namespace
phase ``Active``) the printers assume those defaults for missing fields, so a
not-yet-defaulted object prints like its stored counterpart would.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from clusterviz.apimachinery.duration import human_duration_ns

__all__ = [
    "RESOURCES_WITH_TABLES",
    "PARTIAL_METADATA_FIELDS",
    "build_table",
    "column_definitions",
    "format_label_selector",
    "format_labels",
    "label_selector_string",
    "parse_timestamp_ns",
]

NONE = "<none>"
UNKNOWN = "<unknown>"

RESOURCES_WITH_TABLES: set[str] = {
    "pods",
    "nodes",
    "namespaces",
    "services",
    "endpoints",
    "events",
    "configmaps",
    "replicationcontrollers",
    "deployments",
    "replicasets",
}

# Metadata fields copied into each row's PartialObjectMetadata.
PARTIAL_METADATA_FIELDS: tuple[str, ...] = (
    "name",
    "generateName",
    "namespace",
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "deletionTimestamp",
    "labels",
    "annotations",
    "ownerReferences",
)

# API group each printed resource lives in, used to reject e.g. "events.events.k8s.io".
_GROUPS: dict[str, str] = {r: "" for r in RESOURCES_WITH_TABLES} | {"deployments": "apps", "replicasets": "apps"}

# (apiVersion, kind) filled into full objects that lack them (includeObject=Object).
_TYPE_META: dict[str, tuple[str, str]] = {
    "pods": ("v1", "Pod"),
    "nodes": ("v1", "Node"),
    "namespaces": ("v1", "Namespace"),
    "services": ("v1", "Service"),
    "endpoints": ("v1", "Endpoints"),
    "events": ("v1", "Event"),
    "configmaps": ("v1", "ConfigMap"),
    "replicationcontrollers": ("v1", "ReplicationController"),
    "deployments": ("apps/v1", "Deployment"),
    "replicasets": ("apps/v1", "ReplicaSet"),
}

# Singular names, short names and kinds kubectl users type, mapped to plurals.
_ALIASES: dict[str, str] = {
    "pod": "pods",
    "po": "pods",
    "node": "nodes",
    "no": "nodes",
    "namespace": "namespaces",
    "ns": "namespaces",
    "service": "services",
    "svc": "services",
    "ep": "endpoints",
    "event": "events",
    "ev": "events",
    "configmap": "configmaps",
    "cm": "configmaps",
    "replicationcontroller": "replicationcontrollers",
    "rc": "replicationcontrollers",
    "deployment": "deployments",
    "deploy": "deployments",
    "replicaset": "replicasets",
    "rs": "replicasets",
}

# --------------------------------------------------------------------------
# Column definitions
# --------------------------------------------------------------------------

_NAME_DESC = "Name of the object, unique within its namespace."
_AGE_DESC = "Time elapsed since the object was created."
_CONTAINERS_DESC = "Names of each container in the template."
_IMAGES_DESC = "Images referenced by each container in the template."


def _col(name: str, type_: str, description: str, priority: int = 0, fmt: str = "") -> dict[str, Any]:
    """One TableColumnDefinition; upstream serialises all five keys, even when empty."""
    return {"name": name, "type": type_, "format": fmt, "description": description, "priority": priority}


def _name_col() -> dict[str, Any]:
    return _col("Name", "string", _NAME_DESC, fmt="name")


def _age_col() -> dict[str, Any]:
    return _col("Age", "string", _AGE_DESC)


# Types follow upstream exactly, including its quirks: some columns are
# declared "string" although their cells are integers (deployment Up-to-date
# and Available, configmap Data, event Count).
_COLUMNS: dict[str, list[dict[str, Any]]] = {
    "pods": [
        _name_col(),
        _col("Ready", "string", "Ready containers out of all containers in the pod."),
        _col("Status", "string", "Summary of the pod phase and of its containers' states."),
        _col("Restarts", "string", "Container restarts in the pod, and how long ago the latest one happened."),
        _age_col(),
        _col("IP", "string", "IP address allocated to the pod.", 1),
        _col("Node", "string", "Node the pod is bound to.", 1),
        _col("Nominated Node", "string", "Node nominated for the pod while it preempts other pods.", 1),
        _col("Readiness Gates", "string", "Readiness gates whose condition is True, out of all gates.", 1),
    ],
    "nodes": [
        _name_col(),
        _col("Status", "string", "The status of the node."),
        _col("Roles", "string", "The roles of the node."),
        _age_col(),
        _col("Version", "string", "Kubelet version reported by the node."),
        _col("Internal-IP", "string", "First InternalIP address of the node.", 1),
        _col("External-IP", "string", "First ExternalIP address of the node.", 1),
        _col("OS-Image", "string", "OS image reported by the node.", 1),
        _col("Kernel-Version", "string", "Kernel version reported by the node.", 1),
        _col("Container-Runtime", "string", "Container runtime and version reported by the node.", 1),
    ],
    "namespaces": [
        _name_col(),
        _col("Status", "string", "The status of the namespace."),
        _age_col(),
    ],
    "services": [
        _name_col(),
        _col("Type", "string", "How the service is exposed."),
        _col("Cluster-IP", "string", "Cluster-internal virtual IP of the service."),
        _col("External-IP", "string", "Addresses the service is reachable at from outside the cluster."),
        _col("Port(s)", "string", "Ports exposed by the service."),
        _age_col(),
        _col("Selector", "string", "Labels of the pods that back the service.", 1),
    ],
    "endpoints": [
        _name_col(),
        _col("Endpoints", "string", "Addresses and ports of the endpoints."),
        _age_col(),
    ],
    "events": [
        _col("Last Seen", "string", "Time since the event was last observed."),
        _col("Type", "string", "Type of the event (Normal, Warning)."),
        _col("Reason", "string", "Short machine-readable reason for the event."),
        _col("Object", "string", "The object this event is about."),
        _col("Subobject", "string", "Part of the object the event is about, e.g. a container.", 1),
        _col("Source", "string", "Component (and host) that reported the event.", 1),
        _col("Message", "string", "Human-readable description of the event."),
        _col("First Seen", "string", "Time since the event was first observed.", 1),
        _col("Count", "string", "Number of times the event occurred.", 1),
        _col("Name", "string", _NAME_DESC, 1, "name"),
    ],
    "configmaps": [
        _name_col(),
        _col("Data", "string", "Number of entries in data and binaryData."),
        _age_col(),
    ],
    "replicationcontrollers": [
        _name_col(),
        _col("Desired", "integer", "Number of desired replicas."),
        _col("Current", "integer", "Number of replicas observed."),
        _col("Ready", "integer", "Number of ready replicas."),
        _age_col(),
        _col("Containers", "string", _CONTAINERS_DESC, 1),
        _col("Images", "string", _IMAGES_DESC, 1),
        _col("Selector", "string", "Label query over the pods the controller manages.", 1),
    ],
    "replicasets": [
        _name_col(),
        _col("Desired", "integer", "Number of desired replicas."),
        _col("Current", "integer", "Number of replicas observed."),
        _col("Ready", "integer", "Number of ready replicas."),
        _age_col(),
        _col("Containers", "string", _CONTAINERS_DESC, 1),
        _col("Images", "string", _IMAGES_DESC, 1),
        _col("Selector", "string", "Label query over the pods the replica set manages.", 1),
    ],
    "deployments": [
        _name_col(),
        _col("Ready", "string", "Ready replicas out of desired replicas."),
        _col("Up-to-date", "string", "Replicas running the latest pod template."),
        _col("Available", "string", "Replicas available to serve traffic."),
        _age_col(),
        _col("Containers", "string", _CONTAINERS_DESC, 1),
        _col("Images", "string", _IMAGES_DESC, 1),
        _col("Selector", "string", "Label query over the pods the deployment manages.", 1),
    ],
}

# Upstream's default convertor for resources without a printer.
_DEFAULT_COLUMNS: list[dict[str, Any]] = [
    _name_col(),
    _col("Created At", "date", "Time the object was created (RFC 3339, UTC)."),
]


def column_definitions(resource: str) -> list[dict[str, Any]]:
    """Return a fresh copy of the column definitions used for ``resource``."""
    return copy.deepcopy(_COLUMNS.get(_canonical_resource(resource), _DEFAULT_COLUMNS))


# --------------------------------------------------------------------------
# Safe accessors: never raise on wrong types, mimic Go zero values instead.
# --------------------------------------------------------------------------


def _d(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _l(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _s(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _i(value: Any) -> int:
    """An integer field; Go's zero for anything that would not decode into an int."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return 0


def _replicas(spec: dict[str, Any]) -> int:
    """spec.replicas, defaulted to 1 when absent as the API server does on create."""
    value = spec.get("replicas")
    return 1 if value is None else _i(value)


def _str_map(value: Any) -> dict[str, str]:
    """A map[string]string, keeping only string values."""
    return {k: v for k, v in _d(value).items() if isinstance(k, str) and isinstance(v, str)}


# --------------------------------------------------------------------------
# Timestamps
# --------------------------------------------------------------------------

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NS = 1_000_000_000
_RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})")
# Go's zero time.Time (0001-01-01T00:00:00Z), which prints as <unknown>.
_ZERO_TIME_NS = (datetime(1, 1, 1, tzinfo=UTC) - _EPOCH) // timedelta(microseconds=1) * 1000


def parse_timestamp_ns(value: Any) -> int | None:
    """Parse an RFC 3339 timestamp into Unix nanoseconds.

    Returns None for anything Go would treat as a zero or undecodable
    ``metav1.Time``: missing, null, not a string, malformed, or the zero time.
    Fractional seconds (``MicroTime``) and numeric offsets are accepted.
    """
    if not isinstance(value, str):
        return None
    m = _RFC3339.fullmatch(value)
    if m is None:
        return None
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    try:
        base = datetime(year, month, day, hour, minute, second, tzinfo=UTC)
    except ValueError:
        return None
    frac = m.group(7) or ""
    nanos = int((frac + "000000000")[:9])
    offset = 0
    zone = m.group(8)
    if zone not in ("Z", "z"):
        oh, om = int(zone[1:3]), int(zone[4:6])
        if oh > 23 or om > 59:
            return None
        offset = (oh * 3600 + om * 60) * (1 if zone[0] == "+" else -1)
    delta = base - _EPOCH
    seconds = delta.days * 86400 + delta.seconds - offset
    ns = seconds * _NS + nanos
    return None if ns == _ZERO_TIME_NS else ns


def _datetime_to_ns(now: datetime) -> int:
    """Unix nanoseconds of ``now``; naive datetimes are taken to be UTC."""
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    delta = now - _EPOCH
    return (delta.days * 86400 + delta.seconds) * _NS + delta.microseconds * 1000


def _since(value: Any, now_ns: int) -> str:
    """Upstream's translateTimestampSince: HumanDuration(now - t), ``<unknown>`` for zero times."""
    ts = parse_timestamp_ns(value)
    if ts is None:
        return UNKNOWN
    return human_duration_ns(now_ns - ts)


def _rfc3339(ns: int | None) -> str:
    """Format Unix nanoseconds as Go's ``Time.UTC().Format(time.RFC3339)`` (whole seconds)."""
    if ns is None:
        return "0001-01-01T00:00:00Z"
    try:
        t = _EPOCH + timedelta(seconds=ns // _NS)
    except OverflowError:
        return "0001-01-01T00:00:00Z"
    return f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}Z"


# --------------------------------------------------------------------------
# Labels and label selectors
# --------------------------------------------------------------------------

_QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")

# LabelSelector operators and how a Requirement prints them.
_SELECTOR_OPS = {"In": " in ", "NotIn": " notin ", "Exists": "", "DoesNotExist": ""}


def format_labels(labels: Any) -> str:
    """``labels.FormatLabels``: sorted ``k=v`` pairs joined by commas, ``<none>`` when empty."""
    pairs = _str_map(labels)
    text = ",".join(f"{k}={pairs[k]}" for k in sorted(pairs))
    return text or NONE


def _valid_label_key(key: str) -> bool:
    parts = key.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253 or not _DNS1123_SUBDOMAIN.fullmatch(prefix):
            return False
    else:
        return False
    return 0 < len(name) <= 63 and _QUALIFIED_NAME.fullmatch(name) is not None


def _valid_label_value(value: str) -> bool:
    return len(value) <= 63 and _LABEL_VALUE.fullmatch(value) is not None


def label_selector_string(selector: Any) -> str | None:
    """``metav1.LabelSelectorAsSelector(selector).String()``; None when the selector is invalid.

    A missing or empty selector gives ``""``. matchLabels become ``k=v``,
    matchExpressions ``k in (a,b)``, ``k notin (a)``, ``k`` and ``!k``;
    requirements are sorted by key and values inside parentheses are sorted.
    """
    if not isinstance(selector, dict):
        return ""
    match_labels = _d(selector.get("matchLabels"))
    expressions = _l(selector.get("matchExpressions"))
    if not match_labels and not expressions:
        return ""
    requirements: list[tuple[str, str]] = []
    for key, value in match_labels.items():
        if not isinstance(key, str) or not isinstance(value, str):
            return None
        if not _valid_label_key(key) or not _valid_label_value(value):
            return None
        requirements.append((key, f"{key}={value}"))
    for expr in expressions:
        expr = _d(expr)
        key, op = expr.get("key"), expr.get("operator")
        values = expr.get("values")
        values = [] if values is None else values
        if not isinstance(key, str) or op not in _SELECTOR_OPS or not isinstance(values, list):
            return None
        if not all(isinstance(v, str) for v in values) or not _valid_label_key(key):
            return None
        if not all(_valid_label_value(v) for v in values):
            return None
        if op in ("In", "NotIn"):
            if not values:
                return None
            text = f"{key}{_SELECTOR_OPS[op]}({','.join(sorted(values))})"
        else:
            if values:
                return None
            text = key if op == "Exists" else f"!{key}"
        requirements.append((key, text))
    # Selector.Add orders requirements by key.
    requirements.sort(key=lambda r: r[0])
    return ",".join(text for _, text in requirements)


def format_label_selector(selector: Any) -> str:
    """``metav1.FormatLabelSelector``: like the selector string, ``<none>`` when empty, ``<error>`` if invalid."""
    text = label_selector_string(selector)
    if text is None:
        return "<error>"
    return text or NONE


# --------------------------------------------------------------------------
# Per-resource printers: each returns (cells, row conditions).
# --------------------------------------------------------------------------

Printed = tuple[list[Any], list[dict[str, Any]]]

_POD_SUCCEEDED = [
    {"type": "Completed", "status": "True", "reason": "Succeeded", "message": "The pod has completed successfully."}
]
_POD_FAILED = [{"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}]


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    return _d(obj.get("metadata"))


def _container_cells(containers: Any) -> tuple[str, str]:
    """layoutContainerCells: container names and images, each joined by commas."""
    items = [_d(c) for c in _l(containers)]
    return ",".join(_s(c.get("name")) for c in items), ",".join(_s(c.get("image")) for c in items)


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
    terminated = _d(status.get("lastState")).get("terminated")
    if not isinstance(terminated, dict):
        return None
    return parse_timestamp_ns(terminated.get("finishedAt"))


def _state_part(state: dict[str, Any], name: str) -> dict[str, Any] | None:
    """A ContainerState member; present (even if empty) means the Go pointer is set."""
    value = state.get(name)
    return value if isinstance(value, dict) else None


def _condition_true(conditions: Any, type_: str) -> bool:
    return any(_d(c).get("type") == type_ and _d(c).get("status") == "True" for c in _l(conditions))


def _print_pod(pod: dict[str, Any], now_ns: int) -> Printed:
    meta, spec, status = _meta(pod), _d(pod.get("spec")), _d(pod.get("status"))
    init_specs = _l(spec.get("initContainers"))
    total = len(_l(spec.get("containers")))
    ready = 0
    restarts = 0
    sidecar_restarts = 0
    last_restart: int | None = None
    last_sidecar_restart: int | None = None

    # The server stores every pod with a phase; Pending is what it defaults to.
    phase = _s(status.get("phase")) or "Pending"
    reason = _s(status.get("reason")) or phase
    for cond in _l(status.get("conditions")):
        cond = _d(cond)
        if cond.get("type") == "PodScheduled" and cond.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"

    conditions: list[dict[str, Any]] = []
    if phase == "Succeeded":
        conditions = copy.deepcopy(_POD_SUCCEEDED)
    elif phase == "Failed":
        conditions = copy.deepcopy(_POD_FAILED)

    init_by_name: dict[str, Any] = {}
    for c in init_specs:
        c = _d(c)
        init_by_name[_s(c.get("name"))] = c
        if _is_restartable_init(c):
            total += 1

    initializing = False
    for index, cs in enumerate(_l(status.get("initContainerStatuses"))):
        cs = _d(cs)
        count = _i(cs.get("restartCount"))
        finished = _finished_at(cs)
        restarts += count
        last_restart = _later(last_restart, finished)
        sidecar = _is_restartable_init(init_by_name.get(_s(cs.get("name"))))
        if sidecar:
            sidecar_restarts += count
            last_sidecar_restart = _later(last_sidecar_restart, finished)
        state = _d(cs.get("state"))
        terminated = _state_part(state, "terminated")
        waiting = _state_part(state, "waiting")
        if terminated is not None and _i(terminated.get("exitCode")) == 0:
            continue
        if sidecar and cs.get("started") is True:
            if cs.get("ready") is True:
                ready += 1
            continue
        if terminated is not None:
            term_reason = _s(terminated.get("reason"))
            if term_reason:
                reason = "Init:" + term_reason
            elif _i(terminated.get("signal")) != 0:
                reason = f"Init:Signal:{_i(terminated.get('signal'))}"
            else:
                reason = f"Init:ExitCode:{_i(terminated.get('exitCode'))}"
        elif waiting is not None and _s(waiting.get("reason")) and waiting.get("reason") != "PodInitializing":
            reason = "Init:" + _s(waiting.get("reason"))
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
        for cs in reversed(_l(status.get("containerStatuses"))):
            cs = _d(cs)
            restarts += _i(cs.get("restartCount"))
            last_restart = _later(last_restart, _finished_at(cs))
            state = _d(cs.get("state"))
            waiting = _state_part(state, "waiting")
            terminated = _state_part(state, "terminated")
            if waiting is not None and _s(waiting.get("reason")):
                reason = _s(waiting.get("reason"))
            elif terminated is not None and _s(terminated.get("reason")):
                reason = _s(terminated.get("reason"))
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
    pod_ip = _s(status.get("podIP"))
    if not pod_ip:
        ips = _l(status.get("podIPs"))
        pod_ip = _s(_d(ips[0]).get("ip")) if ips else ""

    gates = _l(spec.get("readinessGates"))
    readiness_gates = NONE
    if gates:
        true_count = 0
        for gate in gates:
            gate_type = _d(gate).get("conditionType")
            for cond in _l(status.get("conditions")):
                cond = _d(cond)
                if cond.get("type") == gate_type:
                    if cond.get("status") == "True":
                        true_count += 1
                    break
        readiness_gates = f"{true_count}/{len(gates)}"

    cells = [
        _s(meta.get("name")),
        f"{ready}/{total}",
        reason,
        restarts_text,
        _since(meta.get("creationTimestamp"), now_ns),
        pod_ip or NONE,
        _s(spec.get("nodeName")) or NONE,
        _s(status.get("nominatedNodeName")) or NONE,
        readiness_gates,
    ]
    return cells, conditions


def _node_address(status: dict[str, Any], type_: str) -> str:
    for address in _l(status.get("addresses")):
        address = _d(address)
        if address.get("type") == type_:
            return _s(address.get("address"))
    return NONE


def _node_roles(labels: Any) -> str:
    roles: set[str] = set()
    for key, value in _d(labels).items():
        if not isinstance(key, str):
            continue
        if key.startswith("node-role.kubernetes.io/"):
            role = key[len("node-role.kubernetes.io/") :]
            if role:
                roles.add(role)
        elif key == "kubernetes.io/role" and isinstance(value, str) and value:
            roles.add(value)
    return ",".join(sorted(roles)) or NONE


def _print_node(node: dict[str, Any], now_ns: int) -> Printed:
    meta, spec, status = _meta(node), _d(node.get("spec")), _d(node.get("status"))
    by_type: dict[Any, dict[str, Any]] = {}
    for cond in _l(status.get("conditions")):
        cond = _d(cond)
        type_ = cond.get("type")
        if isinstance(type_, str):
            by_type[type_] = cond
    states: list[str] = []
    if "Ready" in by_type:
        states.append("Ready" if by_type["Ready"].get("status") == "True" else "NotReady")
    else:
        states.append("Unknown")
    if spec.get("unschedulable") is True:
        states.append("SchedulingDisabled")
    info = _d(status.get("nodeInfo"))
    cells = [
        _s(meta.get("name")),
        ",".join(states),
        _node_roles(meta.get("labels")),
        _since(meta.get("creationTimestamp"), now_ns),
        _s(info.get("kubeletVersion")),
        _node_address(status, "InternalIP"),
        _node_address(status, "ExternalIP"),
        _s(info.get("osImage")) or UNKNOWN,
        _s(info.get("kernelVersion")) or UNKNOWN,
        _s(info.get("containerRuntimeVersion")) or UNKNOWN,
    ]
    return cells, []


def _print_namespace(ns: dict[str, Any], now_ns: int) -> Printed:
    meta = _meta(ns)
    phase = _s(_d(ns.get("status")).get("phase")) or "Active"
    return [_s(meta.get("name")), phase, _since(meta.get("creationTimestamp"), now_ns)], []


def _service_external_ip(spec: dict[str, Any], status: dict[str, Any], svc_type: str) -> str:
    external = [ip for ip in _l(spec.get("externalIPs")) if isinstance(ip, str)]
    if svc_type in ("ClusterIP", "NodePort"):
        return ",".join(external) if external else NONE
    if svc_type == "LoadBalancer":
        found: set[str] = set()
        for ingress in _l(_d(status.get("loadBalancer")).get("ingress")):
            ingress = _d(ingress)
            if _s(ingress.get("ip")):
                found.add(_s(ingress.get("ip")))
            elif _s(ingress.get("hostname")):
                found.add(_s(ingress.get("hostname")))
        lb = ",".join(sorted(found))
        if external:
            return ",".join((lb.split(",") if lb else []) + external)
        return lb or "<pending>"
    if svc_type == "ExternalName":
        return _s(spec.get("externalName"))
    return UNKNOWN


def _service_ports(ports: Any) -> str:
    pieces = []
    for port in _l(ports):
        port = _d(port)
        protocol = _s(port.get("protocol")) or "TCP"
        number, node_port = _i(port.get("port")), _i(port.get("nodePort"))
        pieces.append(f"{number}:{node_port}/{protocol}" if node_port > 0 else f"{number}/{protocol}")
    return ",".join(pieces) or NONE


def _print_service(svc: dict[str, Any], now_ns: int) -> Printed:
    meta, spec, status = _meta(svc), _d(svc.get("spec")), _d(svc.get("status"))
    svc_type = _s(spec.get("type")) or "ClusterIP"
    cluster_ips = _l(spec.get("clusterIPs"))
    if cluster_ips:
        cluster_ip = _s(cluster_ips[0])
    else:
        cluster_ip = _s(spec.get("clusterIP")) or NONE
    cells = [
        _s(meta.get("name")),
        svc_type,
        cluster_ip,
        _service_external_ip(spec, status, svc_type),
        _service_ports(spec.get("ports")),
        _since(meta.get("creationTimestamp"), now_ns),
        format_labels(spec.get("selector")),
    ]
    return cells, []


def _join_host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _format_endpoints(subsets: Any) -> str:
    """formatEndpoints: at most three ``ip:port`` entries, then ``+ N more...``."""
    subsets = _l(subsets)
    if not subsets:
        return NONE
    limit = 3
    shown: list[str] = []
    more = False
    count = 0
    for subset in subsets:
        subset = _d(subset)
        addresses = [_d(a) for a in _l(subset.get("addresses"))]
        ports = _l(subset.get("ports"))
        if not ports:
            # Headless services may have addresses without ports.
            count += len(addresses)
            for address in addresses:
                if len(shown) == limit:
                    more = True
                    break
                shown.append(_s(address.get("ip")))
            continue
        for port in ports:
            count += len(addresses)
            for address in addresses:
                if len(shown) == limit:
                    more = True
                    break
                shown.append(_join_host_port(_s(address.get("ip")), _i(_d(port).get("port"))))
    text = ",".join(shown)
    if more:
        return f"{text} + {count - limit} more..."
    return text


def _print_endpoints(ep: dict[str, Any], now_ns: int) -> Printed:
    meta = _meta(ep)
    return [
        _s(meta.get("name")),
        _format_endpoints(ep.get("subsets")),
        _since(meta.get("creationTimestamp"), now_ns),
    ], []


def _print_event(ev: dict[str, Any], now_ns: int) -> Printed:
    meta = _meta(ev)
    if parse_timestamp_ns(ev.get("firstTimestamp")) is None:
        first_seen = _since(ev.get("eventTime"), now_ns)
    else:
        first_seen = _since(ev.get("firstTimestamp"), now_ns)
    if parse_timestamp_ns(ev.get("lastTimestamp")) is None:
        last_seen = first_seen
    else:
        last_seen = _since(ev.get("lastTimestamp"), now_ns)
    count = _i(ev.get("count"))
    series = ev.get("series")
    if isinstance(series, dict):
        last_seen = _since(series.get("lastObservedTime"), now_ns)
        count = _i(series.get("count"))
    elif count == 0:
        # Events from the events.k8s.io API leave count unset for singletons.
        count = 1
    involved = _d(ev.get("involvedObject"))
    kind = _s(involved.get("kind")).lower()
    name = _s(involved.get("name"))
    target = f"{kind}/{name}" if name else kind
    source = _d(ev.get("source"))
    component = _s(source.get("component")) or _s(ev.get("reportingComponent"))
    host = _s(source.get("host")) or _s(ev.get("reportingInstance"))
    cells = [
        last_seen,
        _s(ev.get("type")),
        _s(ev.get("reason")),
        target,
        _s(involved.get("fieldPath")),
        f"{component}, {host}" if host else component,
        _s(ev.get("message")).strip(),
        first_seen,
        count,
        _s(meta.get("name")),
    ]
    return cells, []


def _print_configmap(cm: dict[str, Any], now_ns: int) -> Printed:
    meta = _meta(cm)
    entries = len(_d(cm.get("data"))) + len(_d(cm.get("binaryData")))
    return [_s(meta.get("name")), entries, _since(meta.get("creationTimestamp"), now_ns)], []


def _print_replication_controller(rc: dict[str, Any], now_ns: int) -> Printed:
    meta, spec, status = _meta(rc), _d(rc.get("spec")), _d(rc.get("status"))
    names, images = _container_cells(_d(_d(spec.get("template")).get("spec")).get("containers"))
    cells = [
        _s(meta.get("name")),
        _replicas(spec),
        _i(status.get("replicas")),
        _i(status.get("readyReplicas")),
        _since(meta.get("creationTimestamp"), now_ns),
        names,
        images,
        format_labels(spec.get("selector")),
    ]
    return cells, []


def _print_replica_set(rs: dict[str, Any], now_ns: int) -> Printed:
    meta, spec, status = _meta(rs), _d(rs.get("spec")), _d(rs.get("status"))
    names, images = _container_cells(_d(_d(spec.get("template")).get("spec")).get("containers"))
    cells = [
        _s(meta.get("name")),
        _replicas(spec),
        _i(status.get("replicas")),
        _i(status.get("readyReplicas")),
        _since(meta.get("creationTimestamp"), now_ns),
        names,
        images,
        format_label_selector(spec.get("selector")),
    ]
    return cells, []


def _print_deployment(deploy: dict[str, Any], now_ns: int) -> Printed:
    meta, spec, status = _meta(deploy), _d(deploy.get("spec")), _d(deploy.get("status"))
    names, images = _container_cells(_d(_d(spec.get("template")).get("spec")).get("containers"))
    selector = label_selector_string(spec.get("selector"))
    cells = [
        _s(meta.get("name")),
        f"{_i(status.get('readyReplicas'))}/{_replicas(spec)}",
        _i(status.get("updatedReplicas")),
        _i(status.get("availableReplicas")),
        _since(meta.get("creationTimestamp"), now_ns),
        names,
        images,
        "<invalid>" if selector is None else selector,
    ]
    return cells, []


def _print_default(obj: dict[str, Any], now_ns: int) -> Printed:
    meta = _meta(obj)
    return [_s(meta.get("name")), _rfc3339(parse_timestamp_ns(meta.get("creationTimestamp")))], []


_PRINTERS: dict[str, Callable[[dict[str, Any], int], Printed]] = {
    "pods": _print_pod,
    "nodes": _print_node,
    "namespaces": _print_namespace,
    "services": _print_service,
    "endpoints": _print_endpoints,
    "events": _print_event,
    "configmaps": _print_configmap,
    "replicationcontrollers": _print_replication_controller,
    "replicasets": _print_replica_set,
    "deployments": _print_deployment,
}


# --------------------------------------------------------------------------
# Table assembly
# --------------------------------------------------------------------------


def _canonical_resource(resource: str) -> str:
    """Map ``pods``, ``pod``, ``po``, ``Pod`` or ``deployments.apps`` to the plural the printers use.

    Returns ``""`` when the resource has no dedicated printer (including a
    known name qualified with the wrong group), which selects the default table.
    """
    if not isinstance(resource, str):
        return ""
    name, _, group = resource.strip().lower().partition(".")
    name = _ALIASES.get(name, name)
    if name not in RESOURCES_WITH_TABLES:
        return ""
    if group and group != _GROUPS[name]:
        return ""
    return name


def _partial_metadata(obj: dict[str, Any]) -> dict[str, Any]:
    meta = _meta(obj)
    copied = {key: copy.deepcopy(meta[key]) for key in PARTIAL_METADATA_FIELDS if meta.get(key) is not None}
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": copied}


def _full_object(obj: dict[str, Any], resource: str) -> dict[str, Any]:
    full = copy.deepcopy(obj)
    if resource in _TYPE_META:
        api_version, kind = _TYPE_META[resource]
        if not full.get("apiVersion"):
            full["apiVersion"] = api_version
        if not full.get("kind"):
            full["kind"] = kind
    return full


def build_table(
    resource: str,
    objects: list[dict],
    now: datetime,
    include_object: str = "Metadata",
    resource_version: str = "",
) -> dict:
    """Render ``objects`` as the ``meta.k8s.io/v1`` Table a kube-apiserver returns for ``resource``.

    ``resource`` is the plural resource name (``pods``, ``deployments``...;
    singular and short names are accepted too). Resources outside
    ``RESOURCES_WITH_TABLES`` get upstream's default table: ``Name`` and a
    ``Created At`` date column. ``now`` is the reference time for AGE-like
    cells (naive datetimes are read as UTC). ``include_object`` mirrors the
    ``includeObject`` query parameter: ``Metadata`` (the default, also used
    for unrecognised values) embeds a PartialObjectMetadata per row,
    ``Object`` a copy of the full object, ``None`` nothing. A non-empty
    ``resource_version`` becomes ``metadata.resourceVersion``, which
    ``kubectl get -w`` watches from.
    """
    canonical = _canonical_resource(resource)
    printer = _PRINTERS.get(canonical, _print_default)
    now_ns = _datetime_to_ns(now)
    items: Iterable[Any] = (
        objects if isinstance(objects, Iterable) and not isinstance(objects, (str, bytes, dict)) else []
    )

    rows: list[dict[str, Any]] = []
    for item in items:
        obj = item if isinstance(item, dict) else {}
        cells, conditions = printer(obj, now_ns)
        row: dict[str, Any] = {"cells": cells}
        if conditions:
            row["conditions"] = conditions
        if include_object == "Object":
            row["object"] = _full_object(obj, canonical)
        elif include_object != "None":
            row["object"] = _partial_metadata(obj)
        rows.append(row)

    metadata: dict[str, Any] = {}
    if resource_version not in (None, ""):
        metadata["resourceVersion"] = str(resource_version)
    return {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": metadata,
        "columnDefinitions": column_definitions(canonical),
        "rows": rows,
    }
