"""What the cluster page shows, computed from API objects (pure functions, no I/O)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clusterviz.api.tables.pods import pod_status_column
from clusterviz.apimachinery.quantity import QuantityError, format_bytes, format_cpu_millis, parse_quantity

# Phase (or kubectl-style status) -> CSS class; colours are chosen in the stylesheet (Okabe-Ito).
STATUS_CLASSES = {
    "Pending": "pending",
    "ContainerCreating": "creating",
    "Running": "running",
    "Terminating": "terminating",
    "Failed": "failed",
    "Succeeded": "succeeded",
    "Completed": "succeeded",
}


@dataclass
class PodChip:
    name: str
    namespace: str
    status: str
    css: str


@dataclass
class NodeCard:
    name: str
    ready: bool
    unschedulable: bool
    labels: list[str]
    taints: list[str]
    cpu_requested: str
    cpu_allocatable: str
    cpu_percent: int
    memory_requested: str
    memory_allocatable: str
    memory_percent: int
    images: list[str]
    pods: list[PodChip] = field(default_factory=list)
    kubelet_stopped: bool = False

    @property
    def phase_counts(self) -> list[tuple[str, str, int]]:
        """(status, css class, how many) of the node's Pods, most common first: a compact card's summary."""
        counts: dict[tuple[str, str], int] = {}
        for p in self.pods:
            counts[(p.status, p.css)] = counts.get((p.status, p.css), 0) + 1
        return [(status, css, n) for (status, css), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


# Past these a cluster does not fit the screen card by card: cards turn compact (counts instead of a
# chip per Pod, actions on the node's describe view) and the Pending list is cut short.
COMPACT_NODES = 24
COMPACT_PODS = 400
PENDING_SHOWN = 50


def compact(nodes: list[dict[str, Any]], pods: list[dict[str, Any]]) -> bool:
    """Whether the node grid shows compact cards."""
    return len(nodes) > COMPACT_NODES or len(pods) > COMPACT_PODS


def _quantity(value: Any, milli: bool) -> int:
    try:
        q = parse_quantity(value if value is not None else 0)
    except QuantityError:
        return 0
    return q.milli_value() if milli else q.value()


def pod_status(pod: dict[str, Any]) -> str:
    """The Pod's STATUS as kubectl prints it: Terminating, Init:0/1, ContainerCreating, Running, ..."""
    return pod_status_column(pod)


def chip(pod: dict[str, Any]) -> PodChip:
    meta = pod.get("metadata") or {}
    status = pod_status(pod)
    failed = status.removeprefix("Init:").startswith(("Out", "Err", "Crash", "OOM", "Signal", "ExitCode"))
    css = STATUS_CLASSES.get(status, "failed" if failed else "pending")
    return PodChip(str(meta.get("name")), str(meta.get("namespace", "")), status, css)


def _requests(pod: dict[str, Any]) -> tuple[int, int]:
    cpu = memory = 0
    for container in (pod.get("spec") or {}).get("containers") or []:
        requests = ((container.get("resources") or {}).get("requests")) or {}
        cpu += _quantity(requests.get("cpu"), milli=True)
        memory += _quantity(requests.get("memory"), milli=False)
    return cpu, memory


def node_cards(nodes: list[dict[str, Any]], pods: list[dict[str, Any]]) -> list[NodeCard]:
    """One card per node, with the Pods bound to it and requested-vs-allocatable bars."""
    by_node: dict[str, list[dict[str, Any]]] = {}
    for pod in pods:
        node_name = (pod.get("spec") or {}).get("nodeName")
        if node_name:
            by_node.setdefault(node_name, []).append(pod)
    cards = []
    for node in sorted(nodes, key=lambda n: n["metadata"]["name"]):
        meta, spec, status = node["metadata"], node.get("spec") or {}, node.get("status") or {}
        allocatable = status.get("allocatable") or {}
        cpu_alloc = _quantity(allocatable.get("cpu"), milli=True)
        mem_alloc = _quantity(allocatable.get("memory"), milli=False)
        placed = [
            p
            for p in by_node.get(meta["name"], [])
            if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
        ]
        cpu_req = sum(_requests(p)[0] for p in placed)
        mem_req = sum(_requests(p)[1] for p in placed)
        ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [])
        cards.append(
            NodeCard(
                name=meta["name"],
                ready=ready,
                unschedulable=bool(spec.get("unschedulable")),
                labels=[
                    f"{k}={v}"
                    for k, v in sorted((meta.get("labels") or {}).items())
                    if not k.startswith(("kubernetes.io/", "beta.kubernetes.io/"))
                ],
                taints=[
                    f"{t.get('key')}{'=' + t['value'] if t.get('value') else ''}:{t.get('effect')}"
                    for t in spec.get("taints") or []
                ],
                cpu_requested=format_cpu_millis(cpu_req),
                cpu_allocatable=format_cpu_millis(cpu_alloc),
                cpu_percent=min(100, cpu_req * 100 // cpu_alloc) if cpu_alloc else 0,
                memory_requested=format_bytes(mem_req),
                memory_allocatable=format_bytes(mem_alloc),
                memory_percent=min(100, mem_req * 100 // mem_alloc) if mem_alloc else 0,
                images=[names[-1] for img in status.get("images") or [] if (names := img.get("names"))],
                pods=[chip(p) for p in sorted(by_node.get(meta["name"], []), key=lambda p: p["metadata"]["name"])],
                kubelet_stopped=(meta.get("annotations") or {}).get("clusterviz.io/kubelet") == "stopped",
            )
        )
    return cards


def pending_pods(pods: list[dict[str, Any]]) -> list[tuple[PodChip, str]]:
    """Pods not bound to a node yet, with the scheduler's reason when it gave one."""
    out = []
    for pod in sorted(pods, key=lambda p: p["metadata"]["name"]):
        if (pod.get("spec") or {}).get("nodeName"):
            continue
        reason = ""
        for condition in (pod.get("status") or {}).get("conditions") or []:
            if condition.get("type") == "PodScheduled" and condition.get("status") == "False":
                reason = str(condition.get("message") or condition.get("reason") or "")
        out.append((chip(pod), reason))
    return out
