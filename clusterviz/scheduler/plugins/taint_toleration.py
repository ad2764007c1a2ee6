"""TaintToleration: hard taints filter nodes, soft (PreferNoSchedule) taints lower the score.

Upstream: ``pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from clusterviz.scheduler.framework import (
    SUCCESS,
    ActionType,
    BasePlugin,
    ClusterEvent,
    ClusterEventWithHint,
    CycleState,
    EventResource,
    NodeStatuses,
    QueueingHint,
    Status,
    default_normalize_score,
    normalize_nodes,
)
from clusterviz.scheduler.nodeinfo import NodeInfo, PodInfo
from clusterviz.scheduler.nodetable import NodeTable

NAME = "TaintToleration"
LEGACY_FILTER_NAME = "PodToleratesNodeTaints"
LEGACY_SCORE_NAME = "TaintTolerationPriority"

# v1.35 (PR #134740) names no taint in the reason; the taint goes to the log only.
REASON_UNTOLERATED_TAINT = "node(s) had untolerated taint(s)"
# What releases up to v1.34 printed, for old screenshots: "... taint {key: value}".
LEGACY_REASON_FORMAT = "node(s) had untolerated taint {{{key}: {value}}}"

EXPLANATION_EN = (
    "A node's NoSchedule/NoExecute taints keep out every Pod that does not tolerate them; "
    "PreferNoSchedule taints only lower the node's score."
)
EXPLANATION_ZH = "节点的 NoSchedule/NoExecute 污点会拒绝不能容忍它们的 Pod；PreferNoSchedule 污点只降低该节点的得分。"

NO_SCHEDULE = "NoSchedule"
NO_EXECUTE = "NoExecute"
PREFER_NO_SCHEDULE = "PreferNoSchedule"


def legacy_reason(taint: Mapping[str, Any]) -> str:
    """The pre-v1.35 reason naming the taint, e.g. ``node(s) had untolerated taint {node.kubernetes.io/unreachable: }``."""
    return LEGACY_REASON_FORMAT.format(key=taint.get("key", ""), value=taint.get("value", ""))


def tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """Upstream's ``Toleration.ToleratesTaint``.

    Effect and key must match when set (an empty key with Exists tolerates all);
    Exists ignores the value, Equal (or no operator) needs equal values. The
    alpha Gt/Lt operators are off in v1.35, so they tolerate nothing.
    """
    effect = toleration.get("effect") or ""
    if effect and effect != (taint.get("effect") or ""):
        return False
    key = toleration.get("key") or ""
    if key and key != (taint.get("key") or ""):
        return False
    operator = toleration.get("operator") or ""
    if operator in ("", "Equal"):
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return operator == "Exists"


def tolerated_by_any(taint: Mapping[str, Any], tolerations: Iterable[Mapping[str, Any]]) -> bool:
    """True when some toleration tolerates ``taint``."""
    return any(tolerates(t, taint) for t in tolerations)


def find_untolerated_taint(
    taints: Iterable[Mapping[str, Any]], tolerations: Sequence[Mapping[str, Any]], effects: tuple[str, ...]
) -> Mapping[str, Any] | None:
    """The first taint with one of ``effects`` that no toleration tolerates, or None."""
    for taint in taints:
        if taint.get("effect") in effects and not tolerated_by_any(taint, tolerations):
            return taint
    return None


def intolerable_prefer_no_schedule(
    taints: Iterable[Mapping[str, Any]], tolerations: Sequence[Mapping[str, Any]]
) -> list[Mapping[str, Any]]:
    """The PreferNoSchedule taints not tolerated by the given (soft) tolerations."""
    return [
        taint
        for taint in taints
        if taint.get("effect") == PREFER_NO_SCHEDULE and not tolerated_by_any(taint, tolerations)
    ]


def count_intolerable_prefer_no_schedule(
    taints: Iterable[Mapping[str, Any]], tolerations: Sequence[Mapping[str, Any]]
) -> int:
    """Raw score: how many :func:`intolerable_prefer_no_schedule` taints there are."""
    return len(intolerable_prefer_no_schedule(taints, tolerations))


def taint_entry(taint: Mapping[str, Any]) -> dict[str, str]:
    """A taint as the decision record lists it: key, value, effect."""
    return {"key": taint.get("key") or "", "value": taint.get("value") or "", "effect": taint.get("effect") or ""}


def taints_key(node: NodeInfo) -> str:
    """A node's taints as one hashable value: nodes with equal taints get equal verdicts."""
    return json.dumps(node.taints, sort_keys=True) if node.taints else ""


def pod_tolerations(pod: PodInfo) -> list[Mapping[str, Any]]:
    """The Pod's tolerations list."""
    return list(pod.spec.get("tolerations") or [])


class TaintToleration(BasePlugin):
    """Filter, PreScore, Score and NormalizeScore (reverse) of the TaintToleration plugin."""

    name = NAME
    legacy_names = {"filter": LEGACY_FILTER_NAME, "score": LEGACY_SCORE_NAME}
    explanation = {"en": EXPLANATION_EN, "zh": EXPLANATION_ZH}

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        """Reject when a NoSchedule or NoExecute taint is not tolerated."""
        if not node.taints:
            return SUCCESS  # most nodes: nothing to tolerate
        taint = find_untolerated_taint(node.taints, pod_tolerations(pod), (NO_SCHEDULE, NO_EXECUTE))
        if taint is None:
            return Status()
        return Status.unresolvable(REASON_UNTOLERATED_TAINT)

    def explain_filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any]:
        """The first NoSchedule/NoExecute taint no toleration tolerates (None when all are tolerated)."""
        taint = find_untolerated_taint(node.taints, pod_tolerations(pod), (NO_SCHEDULE, NO_EXECUTE))
        return {"untoleratedTaint": taint_entry(taint) if taint is not None else None, "taints": len(node.taints)}

    def filter_nodes(self, state: CycleState, pod: PodInfo, nodes: NodeTable) -> NodeStatuses:
        """:meth:`filter` once per distinct taint set, spread over the nodes."""
        codes, verdicts = nodes.per_group("taints", taints_key, lambda node: self.filter(state, pod, node))
        return NodeStatuses.from_groups(codes, verdicts)

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status:
        """Keep only the tolerations that can matter for PreferNoSchedule (effect empty or PreferNoSchedule)."""
        soft = [t for t in pod_tolerations(pod) if (t.get("effect") or "") in ("", PREFER_NO_SCHEDULE)]
        state.write(NAME, soft)
        return Status()

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        """Count the intolerable PreferNoSchedule taints (lower is better after normalising)."""
        if not node.taints:
            return 0
        return count_intolerable_prefer_no_schedule(node.taints, state.get(NAME, []))

    def explain_score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any]:
        """The intolerable PreferNoSchedule taints the raw score counts."""
        return {
            "intolerableTaints": [
                taint_entry(t) for t in intolerable_prefer_no_schedule(node.taints, state.get(NAME, []))
            ]
        }

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: NodeTable, rows: np.ndarray) -> np.ndarray:
        """:meth:`score` once per distinct taint set, for the given rows."""
        codes, scores = nodes.per_group("taints", taints_key, lambda node: self.score(state, pod, node))
        if len(set(scores)) == 1:
            return np.full(len(rows), scores[0], np.int64)  # mostly no PreferNoSchedule taint anywhere: all 0
        return np.asarray(scores, np.int64)[codes[rows]]

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: Mapping[str, int]) -> dict[str, int]:
        """DefaultNormalizeScore in reverse: 0 intolerable taints -> 100."""
        return default_normalize_score(scores, reverse=True)

    def normalize_nodes(self, state: CycleState, pod: PodInfo, raw: np.ndarray) -> np.ndarray:
        """:meth:`normalize_score` over a column."""
        return normalize_nodes(raw, reverse=True)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Node added or re-tainted; the Pod's own tolerations changed."""
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT), hint_node_change
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATION), hint_own_pod_update
            ),
        ]


def _hard_taints_tolerated(pod: Mapping[str, Any], node: Mapping[str, Any] | None) -> bool:
    if not node:
        return False
    taints = (node.get("spec") or {}).get("taints") or []
    tolerations = (pod.get("spec") or {}).get("tolerations") or []
    return find_untolerated_taint(taints, tolerations, (NO_SCHEDULE, NO_EXECUTE)) is None


def hint_node_change(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    """Queue when the new node's hard taints are tolerated and the old one's were not."""
    if not _hard_taints_tolerated(pod, new):
        return QueueingHint.SKIP
    if old is not None and _hard_taints_tolerated(pod, old):
        return QueueingHint.SKIP
    return QueueingHint.QUEUE


def hint_own_pod_update(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    """Queue when the update is to the waiting Pod itself."""
    return QueueingHint.QUEUE if same_pod(pod, new) else QueueingHint.SKIP


def same_pod(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    """Compare Pods by uid when both have one, else by namespace/name."""
    if not a or not b:
        return False
    ma, mb = a.get("metadata") or {}, b.get("metadata") or {}
    if ma.get("uid") and mb.get("uid"):
        return bool(ma["uid"] == mb["uid"])
    return (ma.get("namespace"), ma.get("name")) == (mb.get("namespace"), mb.get("name"))
