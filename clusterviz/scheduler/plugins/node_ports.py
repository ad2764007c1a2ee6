"""NodePorts: two Pods cannot hold the same host port (protocol + port, overlapping IP).

Upstream: ``pkg/scheduler/framework/plugins/nodeports/node_ports.go`` and
``HostPortInfo.CheckConflict`` in the framework types.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from clusterviz.scheduler.framework import (
    ActionType,
    BasePlugin,
    ClusterEvent,
    ClusterEventWithHint,
    CycleState,
    EventResource,
    PreFilterResult,
    QueueingHint,
    Status,
)
from clusterviz.scheduler.nodeinfo import HostPort, HostPortInfo, NodeInfo, PodInfo, pod_host_ports

NAME = "NodePorts"
LEGACY_FILTER_NAME = "PodFitsHostPorts"

REASON = "node(s) didn't have free ports for the requested pod ports"

EXPLANATION_EN = "A host port (protocol + port) can be held by one Pod per node; 0.0.0.0 overlaps every IP."
EXPLANATION_ZH = "同一节点上，一个主机端口（协议 + 端口号）只能被一个 Pod 占用；0.0.0.0 与所有 IP 冲突。"


def fits_ports(wanted: Iterable[HostPort], used: HostPortInfo) -> bool:
    """Pure rule: no wanted port conflicts with one in use."""
    return not any(used.conflicts(hp) for hp in wanted)


def ports_in_use(ports: Iterable[HostPort]) -> HostPortInfo:
    """The given ports as one Pod's ports in use."""
    used = HostPortInfo()
    for hp in ports:
        used.add(hp)
    return used


def port_inputs(wanted: Iterable[HostPort], node: NodeInfo) -> list[dict[str, Any]]:
    """Each wanted host port and the Pod on the node already holding a clashing one (None when free)."""
    # The filter's conflict rule, one placed Pod at a time, to name the holder.
    held = [(other.key, ports_in_use(other.host_ports)) for other in node.pods.values() if other.host_ports]
    return [
        {
            "ip": hp.ip,
            "protocol": hp.protocol,
            "port": hp.port,
            "heldBy": next((key for key, used in held if used.conflicts(hp)), None),
        }
        for hp in wanted
    ]


class NodePorts(BasePlugin):
    """PreFilter (Skip without host ports) and Filter."""

    name = NAME
    legacy_names = {"filter": LEGACY_FILTER_NAME}
    explanation = {"en": EXPLANATION_EN, "zh": EXPLANATION_ZH}

    def pre_filter(self, state: CycleState, pod: PodInfo) -> tuple[Status, PreFilterResult | None]:
        """Skip Pods that ask for no host port."""
        if not pod.host_ports:
            return Status.skip(), None
        return Status(), None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        """Reject a node where one of the wanted ports is taken."""
        return Status() if fits_ports(pod.host_ports, node.used_ports) else Status.unschedulable(REASON)

    def explain_filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any]:
        """:func:`port_inputs` for the Pod's host ports on this node."""
        return {"ports": port_inputs(pod.host_ports, node)}

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A Pod holding a clashing port went away, or a node arrived."""
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE), hint_pod_deleted),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),
        ]


def hint_pod_deleted(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    """Queue when the deleted Pod was bound and held a port this Pod wants."""
    if not old or not (old.get("spec") or {}).get("nodeName"):
        return QueueingHint.SKIP
    used = ports_in_use(pod_host_ports(old))
    return QueueingHint.SKIP if fits_ports(pod_host_ports(pod), used) else QueueingHint.QUEUE
