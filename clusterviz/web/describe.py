"""``kubectl describe`` text for the objects the dashboard shows (pure functions over API objects).

kubectl builds describe output on the client side from the object and a few
related lists; this does the same with the same headings, so the page reads
like the terminal. The Events table under it is rendered by the page from the
API's own Event Table.
"""

from __future__ import annotations

from typing import Any

from clusterviz.api import clock
from clusterviz.api.tables import format_label_selector

from .cluster_view import pod_status

# kubectl describe leaves this annotation out: it is a copy of the whole manifest.
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


class Text:
    """Lines of ``Key:  value`` at increasing indents, aligned as kubectl's tabwriter aligns them.

    Consecutive ``Key: value`` lines at one indent (with the continuation lines
    of multi-line values) form a block whose values start in one column; a
    heading (a key without a value) or a free line ends the block.
    """

    def __init__(self) -> None:
        # (indent level, key — "" for a continuation, None for a free line — and the value or the line)
        self.entries: list[tuple[int, str | None, str]] = []

    def add(self, level: int, key: str, value: Any = "") -> None:
        """``Key:  value``, or a heading ``Key:`` when there is no value."""
        self.entries.append((level, key, str(value)))

    def more(self, level: int, value: str) -> None:
        """Another line of the previous key's value, aligned under it."""
        self.entries.append((level, "", value))

    def raw(self, level: int, text: str) -> None:
        """A line kept as it is (table rows, list items)."""
        self.entries.append((level, None, text))

    def mapping(self, level: int, key: str, values: dict[str, Any] | None, skip: tuple[str, ...] = ()) -> None:
        """A map as kubectl prints labels: first pair beside the key, the rest aligned under it."""
        pairs = [f"{k}={v}" for k, v in sorted((values or {}).items()) if k not in skip]
        self.add(level, key, pairs[0] if pairs else "<none>")
        for pair in pairs[1:]:
            self.more(level, pair)

    def __str__(self) -> str:
        lines: list[str] = []
        i = 0
        while i < len(self.entries):
            level, key, value = self.entries[i]
            indent = "  " * level
            if key is None or not value:
                lines.append(indent + (value if key is None else f"{key}:"))
                i += 1
                continue
            j = i
            while (
                j < len(self.entries)
                and self.entries[j][0] == level
                and self.entries[j][1] is not None
                and self.entries[j][2]
            ):
                j += 1
            width = max(len(k) + 1 for _, k, _ in self.entries[i:j] if k is not None)
            for _, k, v in self.entries[i:j]:
                lines.append(f"{indent}{(k + ':') if k else '':<{width}}  {v}")
            i = j
        return "\n".join(lines)


def timestamp(value: Any) -> str:
    """RFC 3339 as kubectl describe prints times (RFC 1123 with a numeric zone)."""
    moment = clock.parse(value) if isinstance(value, str) else None
    return moment.strftime("%a, %d %b %Y %H:%M:%S %z") if moment else "<unset>"


def _header(text: Text, obj: dict[str, Any]) -> None:
    meta = obj.get("metadata") or {}
    text.add(0, "Name", meta.get("name", ""))
    if meta.get("namespace"):
        text.add(0, "Namespace", meta["namespace"])
    text.mapping(0, "Labels", meta.get("labels"))
    text.mapping(0, "Annotations", meta.get("annotations"), skip=(LAST_APPLIED,))
    text.add(0, "CreationTimestamp", timestamp(meta.get("creationTimestamp")))


def _controller(obj: dict[str, Any]) -> str:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return f"{ref.get('kind')}/{ref.get('name')}"
    return ""


def _port(port: dict[str, Any], field: str = "containerPort") -> str:
    return f"{port.get(field, 0)}/{port.get('protocol', 'TCP')}"


def _containers(
    text: Text, level: int, containers: list[dict[str, Any]], statuses: list[dict[str, Any]] | None
) -> None:
    by_name = {s.get("name"): s for s in statuses or []}
    text.add(level, "Containers")
    for container in containers:
        text.add(level + 1, container.get("name", ""))
        text.add(level + 2, "Image", container.get("image", ""))
        ports = container.get("ports") or []
        text.add(level + 2, "Port", ", ".join(_port(p) for p in ports) or "<none>")
        text.add(level + 2, "Host Port", ", ".join(_port(p, "hostPort") for p in ports) or "<none>")
        for heading in ("requests", "limits"):
            values = (container.get("resources") or {}).get(heading)
            if values:
                text.add(level + 2, heading.capitalize())
                for key, value in sorted(values.items()):
                    text.add(level + 3, key, value)
        status = by_name.get(container.get("name"))
        if statuses is not None and status:
            state = status.get("state") or {}
            phase = next(iter(state), "Waiting")
            text.add(level + 2, "State", phase.capitalize())
            detail = state.get(phase) or {}
            if detail.get("reason"):
                text.add(level + 3, "Reason", detail["reason"])
            if detail.get("startedAt"):
                text.add(level + 3, "Started", timestamp(detail["startedAt"]))
            text.add(level + 2, "Ready", str(bool(status.get("ready"))))
            text.add(level + 2, "Restart Count", status.get("restartCount", 0))


def _conditions(text: Text, conditions: list[dict[str, Any]], with_reason: bool) -> None:
    text.add(0, "Conditions")
    if not conditions:
        text.raw(1, "<none>")
        return
    rows = [("Type", "Status", "Reason") if with_reason else ("Type", "Status")]
    rows += [
        (c.get("type", ""), c.get("status", ""), c.get("reason", ""))
        if with_reason
        else (c.get("type", ""), c.get("status", ""))
        for c in conditions
    ]
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        text.raw(1, "  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())


def _pod_template(text: Text, template: dict[str, Any]) -> None:
    text.add(0, "Pod Template")
    text.mapping(1, "Labels", (template.get("metadata") or {}).get("labels"))
    _containers(text, 1, (template.get("spec") or {}).get("containers") or [], None)


def describe_pod(pod: dict[str, Any]) -> Text:
    """``kubectl describe pod``: where it runs, its containers' states and its conditions."""
    text = Text()
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    _header(text, pod)
    node = spec.get("nodeName")
    text.add(0, "Node", f"{node}/{status['hostIP']}" if node and status.get("hostIP") else node or "<none>")
    text.add(0, "Start Time", timestamp(status.get("startTime")))
    text.add(0, "Status", pod_status(pod))
    text.add(0, "IP", status.get("podIP") or "")
    if _controller(pod):
        text.add(0, "Controlled By", _controller(pod))
    _containers(text, 0, spec.get("containers") or [], status.get("containerStatuses") or [])
    _conditions(text, status.get("conditions") or [], with_reason=False)
    text.mapping(0, "Node-Selectors", spec.get("nodeSelector"))
    tolerations = [
        f"{t.get('key', '')}{':' + t['effect'] if t.get('effect') else ''} op={t.get('operator', 'Equal')}"
        for t in spec.get("tolerations") or []
    ]
    text.add(0, "Tolerations", ", ".join(tolerations) or "<none>")
    return text


def describe_deployment(deployment: dict[str, Any], replicasets: list[dict[str, Any]]) -> Text:
    """``kubectl describe deployment``, with its old and new ReplicaSets from ``replicasets``."""
    text = Text()
    spec, status = deployment.get("spec") or {}, deployment.get("status") or {}
    _header(text, deployment)
    text.add(0, "Selector", format_label_selector(spec.get("selector")))
    replicas = status.get("replicas", 0)
    text.add(
        0,
        "Replicas",
        f"{spec.get('replicas', 1)} desired | {status.get('updatedReplicas', 0)} updated | "
        f"{replicas} total | {status.get('availableReplicas', 0)} available | "
        f"{status.get('unavailableReplicas', 0)} unavailable",
    )
    strategy = spec.get("strategy") or {}
    text.add(0, "StrategyType", strategy.get("type", "RollingUpdate"))
    text.add(0, "MinReadySeconds", spec.get("minReadySeconds", 0))
    if strategy.get("type", "RollingUpdate") == "RollingUpdate":
        rolling = strategy.get("rollingUpdate") or {}
        text.add(
            0,
            "RollingUpdateStrategy",
            f"{rolling.get('maxUnavailable', '25%')} max unavailable, {rolling.get('maxSurge', '25%')} max surge",
        )
    _pod_template(text, spec.get("template") or {})
    _conditions(text, status.get("conditions") or [], with_reason=True)
    owned = [rs for rs in replicasets if _controller(rs) == f"Deployment/{deployment['metadata']['name']}"]
    owned.sort(
        key=lambda rs: int((rs["metadata"].get("annotations") or {}).get("deployment.kubernetes.io/revision", 0))
    )

    def created(rs: dict[str, Any]) -> str:
        return (
            f"{rs['metadata']['name']} ({(rs.get('status') or {}).get('replicas', 0)}/"
            f"{(rs.get('spec') or {}).get('replicas', 1)} replicas created)"
        )

    old = [
        created(rs)
        for rs in owned[:-1]
        if (rs.get("spec") or {}).get("replicas") or (rs.get("status") or {}).get("replicas")
    ]
    text.add(0, "OldReplicaSets", ", ".join(old) or "<none>")
    text.add(0, "NewReplicaSet", created(owned[-1]) if owned else "<none>")
    return text


def describe_replicated(workload: dict[str, Any], pods: list[dict[str, Any]]) -> Text:
    """A ReplicaSet or ReplicationController, with its Pods' phases counted as kubectl counts them."""
    text = Text()
    spec, status = workload.get("spec") or {}, workload.get("status") or {}
    _header(text, workload)
    selector = spec.get("selector") or {}
    text.add(
        0,
        "Selector",
        format_label_selector(selector)
        if "matchLabels" in selector or "matchExpressions" in selector
        else ",".join(f"{k}={v}" for k, v in sorted(selector.items())) or "<none>",
    )
    if _controller(workload):
        text.add(0, "Controlled By", _controller(workload))
    text.add(0, "Replicas", f"{status.get('replicas', 0)} current / {spec.get('replicas', 1)} desired")
    owned = [
        p
        for p in pods
        if (p.get("metadata") or {}).get("ownerReferences")
        and any(r.get("uid") == workload["metadata"].get("uid") for r in p["metadata"]["ownerReferences"])
    ]
    phases = [(p.get("status") or {}).get("phase", "Pending") for p in owned]
    text.add(
        0,
        "Pods Status",
        f"{phases.count('Running')} Running / {phases.count('Pending')} Waiting / "
        f"{phases.count('Succeeded')} Succeeded / {phases.count('Failed')} Failed",
    )
    _pod_template(text, spec.get("template") or {})
    return text


def _endpoint_addresses(endpoints: dict[str, Any] | None) -> str:
    addresses: list[str] = []
    for subset in (endpoints or {}).get("subsets") or []:
        for address in subset.get("addresses") or []:
            addresses.extend(f"{address.get('ip')}:{port.get('port')}" for port in subset.get("ports") or [{}])
    return ",".join(addresses) or "<none>"


def describe_service(service: dict[str, Any], endpoints: dict[str, Any] | None) -> Text:
    """``kubectl describe service``, with the addresses of its Endpoints object."""
    text = Text()
    spec = service.get("spec") or {}
    _header(text, service)
    text.add(0, "Selector", ",".join(f"{k}={v}" for k, v in sorted((spec.get("selector") or {}).items())) or "<none>")
    text.add(0, "Type", spec.get("type", "ClusterIP"))
    text.add(0, "IP", spec.get("clusterIP") or "None")
    for port in spec.get("ports") or []:
        text.add(0, "Port", f"{port.get('name') or '<unset>'}  {port.get('port')}/{port.get('protocol', 'TCP')}")
        text.add(0, "TargetPort", f"{port.get('targetPort', port.get('port'))}/{port.get('protocol', 'TCP')}")
        text.add(0, "Endpoints", _endpoint_addresses(endpoints))
    text.add(0, "Session Affinity", spec.get("sessionAffinity", "None"))
    return text


def describe_endpoints(endpoints: dict[str, Any]) -> Text:
    """``kubectl describe endpoints``: ready and not-ready addresses, and ports, per subset."""
    text = Text()
    _header(text, endpoints)
    text.add(0, "Subsets")
    for subset in endpoints.get("subsets") or []:
        text.add(1, "Addresses", ",".join(a.get("ip", "") for a in subset.get("addresses") or []) or "<none>")
        text.add(
            1, "NotReadyAddresses", ",".join(a.get("ip", "") for a in subset.get("notReadyAddresses") or []) or "<none>"
        )
        text.add(1, "Ports")
        for port in subset.get("ports") or []:
            text.raw(2, f"{port.get('name') or '<unset>'}  {port.get('port')}  {port.get('protocol', 'TCP')}")
    return text


def describe_node(node: dict[str, Any], pods: list[dict[str, Any]]) -> Text:
    """``kubectl describe node``: taints, conditions, resources and the Pods running there."""
    text = Text()
    spec, status = node.get("spec") or {}, node.get("status") or {}
    _header(text, node)
    taints = [
        f"{t.get('key')}{'=' + t['value'] if t.get('value') else ''}:{t.get('effect')}"
        for t in spec.get("taints") or []
    ]
    text.add(0, "Taints", taints[0] if taints else "<none>")
    for taint in taints[1:]:
        text.more(0, taint)
    text.add(0, "Unschedulable", str(bool(spec.get("unschedulable"))).lower())
    _conditions(text, status.get("conditions") or [], with_reason=True)
    text.add(0, "Addresses")
    for address in status.get("addresses") or []:
        text.add(1, address.get("type", ""), address.get("address", ""))
    for heading in ("capacity", "allocatable"):
        text.add(0, heading.capitalize())
        for key, value in sorted((status.get(heading) or {}).items()):
            text.add(1, key, value)
    info = status.get("nodeInfo") or {}
    text.add(0, "System Info")
    for label, key in (
        ("OS Image", "osImage"),
        ("Container Runtime Version", "containerRuntimeVersion"),
        ("Kubelet Version", "kubeletVersion"),
    ):
        text.add(1, label, info.get(key, ""))
    text.add(0, "PodCIDR", spec.get("podCIDR", ""))
    running = [
        p
        for p in pods
        if (p.get("spec") or {}).get("nodeName") == node["metadata"]["name"]
        and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
    ]
    text.add(0, "Non-terminated Pods", f"({len(running)} in total)")
    for pod in sorted(running, key=lambda p: (p["metadata"].get("namespace", ""), p["metadata"]["name"])):
        text.raw(1, f"{pod['metadata'].get('namespace', '')}/{pod['metadata']['name']}")
    return text


def describe_other(obj: dict[str, Any]) -> Text:
    """Any other object: its header, then its top-level fields as kubectl's generic describer lists them."""
    text = Text()
    _header(text, obj)
    for key, value in obj.items():
        if key in ("apiVersion", "kind", "metadata"):
            continue
        text.add(0, key, value if not isinstance(value, (dict, list)) else "")
        if isinstance(value, dict):
            for sub, sub_value in value.items():
                text.add(1, sub, sub_value)
    return text
