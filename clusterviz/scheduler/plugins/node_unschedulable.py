"""NodeUnschedulable: a cordoned node (``spec.unschedulable``) takes no new Pods.

Upstream: ``pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
from clusterviz.scheduler.plugins.taint_toleration import hint_own_pod_update, tolerated_by_any

NAME = "NodeUnschedulable"
LEGACY_FILTER_NAME = "CheckNodeUnschedulable"

REASON_UNSCHEDULABLE = "node(s) were unschedulable"
REASON_UNKNOWN_CONDITION = "node(s) had unknown conditions"

EXPLANATION_EN = (
    "A cordoned node (kubectl cordon) accepts only Pods that tolerate the node.kubernetes.io/unschedulable taint."
)
EXPLANATION_ZH = "被禁止调度的节点只接受能容忍 node.kubernetes.io/unschedulable 污点的 Pod。"

# The taint the node lifecycle controller puts on cordoned nodes; a Pod
# tolerating it may still land there.
UNSCHEDULABLE_TAINT: Mapping[str, str] = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}


def node_unschedulable_fits(pod_spec: Mapping[str, Any], node_unschedulable: bool) -> bool:
    """Pure rule: a node passes unless it is cordoned and the Pod does not tolerate that."""
    if not node_unschedulable:
        return True
    return tolerated_by_any(UNSCHEDULABLE_TAINT, pod_spec.get("tolerations") or [])


class NodeUnschedulable(BasePlugin):
    """Filter-only plugin."""

    name = NAME
    legacy_names = {"filter": LEGACY_FILTER_NAME}
    explanation = {"en": EXPLANATION_EN, "zh": EXPLANATION_ZH}

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        """Reject cordoned nodes the Pod does not tolerate."""
        if not node.node:
            return Status.unresolvable(REASON_UNKNOWN_CONDITION)
        if node_unschedulable_fits(pod.spec, node.unschedulable):
            return Status()
        return Status.unresolvable(REASON_UNSCHEDULABLE)

    def explain_filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any] | None:
        """For a cordoned node, whether the Pod tolerates that; nothing to say about any other node."""
        if not node.unschedulable:
            return None
        return {
            "unschedulable": True,
            "tolerated": tolerated_by_any(UNSCHEDULABLE_TAINT, pod.spec.get("tolerations") or []),
        }

    def filter_nodes(self, state: CycleState, pod: PodInfo, nodes: NodeTable) -> NodeStatuses:
        """:meth:`filter` once for cordoned and once for schedulable nodes."""
        codes, verdicts = nodes.per_group(
            NAME, lambda node: (bool(node.node), node.unschedulable), lambda node: self.filter(state, pod, node)
        )
        return NodeStatuses.from_groups(codes, verdicts)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A node added or uncordoned (an uncordon counts as a taint update upstream)."""
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT), hint_node_change
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATION), hint_own_pod_update
            ),
        ]


def hint_node_change(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    """Queue when the new node admits the Pod and the old one did not."""
    spec = pod.get("spec") or {}

    def fits(node: Any) -> bool:
        return bool(node) and node_unschedulable_fits(spec, bool((node.get("spec") or {}).get("unschedulable")))

    if fits(new) and (old is None or not fits(old)):
        return QueueingHint.QUEUE
    return QueueingHint.SKIP
