"""NodeName: a Pod that names a node (``spec.nodeName``) fits only that node.

Upstream: ``pkg/scheduler/framework/plugins/nodename/node_name.go``. In practice
such a Pod never reaches the scheduler (the kubelet runs it directly); the
filter still exists and clusterviz shows it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from clusterviz.scheduler.framework import (
    ActionType,
    BasePlugin,
    ClusterEvent,
    ClusterEventWithHint,
    CycleState,
    EventResource,
    NodeStatuses,
    QueueingHint,
    Status,
)
from clusterviz.scheduler.nodeinfo import NodeInfo, PodInfo
from clusterviz.scheduler.nodetable import NodeTable

NAME = "NodeName"
LEGACY_FILTER_NAME = "PodFitsHost"

REASON = "node(s) didn't match the requested node name"

EXPLANATION_EN = "If the Pod sets spec.nodeName, only the node with exactly that name fits."
EXPLANATION_ZH = "如果 Pod 设置了 spec.nodeName，只有名称完全相同的节点才符合。"


def fits(pod_spec: Mapping[str, Any], node_name: str) -> bool:
    """Pure rule: no nodeName, or the same name."""
    wanted = pod_spec.get("nodeName") or ""
    return not wanted or wanted == node_name


class NodeName(BasePlugin):
    """Filter-only plugin."""

    name = NAME
    legacy_names = {"filter": LEGACY_FILTER_NAME}
    explanation = {"en": EXPLANATION_EN, "zh": EXPLANATION_ZH}

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        """Reject every node but the named one."""
        return Status() if fits(pod.spec, node.name) else Status.unresolvable(REASON)

    def explain_filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any] | None:
        """The name the Pod asks for; nothing to say when it names none."""
        wanted = pod.spec.get("nodeName") or ""
        return {"nodeName": wanted} if wanted else None

    def filter_nodes(self, state: CycleState, pod: PodInfo, nodes: NodeTable) -> NodeStatuses:
        """Only the named row passes (every row when the Pod names none)."""
        wanted = pod.spec.get("nodeName") or ""
        passes = np.ones(len(nodes), bool)
        if wanted:
            passes[:] = False
            if wanted in nodes.rows:
                passes[nodes.rows[wanted]] = True
        return NodeStatuses.where(passes, Status.unresolvable(REASON))

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Only the arrival of the named node can help."""
        return [ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD), hint_node_add)]


def hint_node_add(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    """Queue when the added node is the one the Pod names."""
    name = ((new or {}).get("metadata") or {}).get("name") or ""
    return QueueingHint.QUEUE if fits(pod.get("spec") or {}, name) else QueueingHint.SKIP
