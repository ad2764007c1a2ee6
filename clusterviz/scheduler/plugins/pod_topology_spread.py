"""PodTopologySpread: keep matching Pods evenly spread over topology domains (nodes, zones).

Upstream: ``pkg/scheduler/framework/plugins/podtopologyspread/{common,filtering,scoring}.go``
and ``helper.DefaultSelector``. ``DoNotSchedule`` constraints filter; ``ScheduleAnyway``
ones score. A Pod without constraints gets the system defaults (hostname maxSkew 3,
zone maxSkew 5) for scoring, with a selector taken from the Services,
ReplicationControllers, ReplicaSets and StatefulSets that select or own it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from clusterviz.apimachinery.labels import Requirement, Selector, SelectorError, selector_from_label_selector
from clusterviz.apimachinery.labels import selector_from_set as _selector_from_set
from clusterviz.scheduler.framework import (
    MAX_NODE_SCORE,
    ActionType,
    BasePlugin,
    ClusterEvent,
    ClusterEventWithHint,
    CycleState,
    EventResource,
    PreFilterResult,
    QueueingHint,
    Status,
    go_div,
    go_div_nodes,
    go_round,
)
from clusterviz.scheduler.nodeinfo import NodeInfo, PodInfo
from clusterviz.scheduler.nodetable import ABSENT, POD_GROUP, NodeTable, at_rows
from clusterviz.scheduler.plugins.node_affinity import RequiredNodeAffinity, required_node_affinity
from clusterviz.scheduler.plugins.taint_toleration import NO_EXECUTE, NO_SCHEDULE, find_untolerated_taint

NAME = "PodTopologySpread"
LEGACY_FILTER_NAME = "EvenPodsSpread"
LEGACY_SCORE_NAME = "EvenPodsSpreadPriority"

REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
REASON_NODE_LABEL_NOT_MATCH = REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

EXPLANATION_EN = (
    "Spreads Pods that match a selector evenly across nodes or zones: a hard constraint rejects a node "
    "that would make the spread uneven by more than maxSkew, a soft one prefers emptier domains."
)
EXPLANATION_ZH = (
    "让匹配选择器的 Pod 在节点或可用区之间均匀分布：硬策略的约束拒绝会使不均衡超过 maxSkew 的节点，"
    "软策略的约束偏向匹配 Pod 较少的拓扑域。"
)

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
SYSTEM_DEFAULT_CONSTRAINTS: tuple[Mapping[str, Any], ...] = (
    {"maxSkew": 3, "topologyKey": HOSTNAME, "whenUnsatisfiable": SCHEDULE_ANYWAY},
    {"maxSkew": 5, "topologyKey": ZONE, "whenUnsatisfiable": SCHEDULE_ANYWAY},
)
_MAX_INT32 = 2**31 - 1


@dataclass(frozen=True)
class SpreadConstraint:
    """A parsed TopologySpreadConstraint."""

    max_skew: int
    topology_key: str
    selector: Selector
    min_domains: int = 1
    node_affinity_policy: str = "Honor"
    node_taints_policy: str = "Ignore"

    def includes_node(self, pod: PodInfo, node: NodeInfo, required: RequiredNodeAffinity) -> bool:
        """Node inclusion policies: Honor node affinity (default) and, if asked, taints."""
        if self.node_affinity_policy == "Honor" and not required.matches(node.name, node.labels):
            return False
        if self.node_taints_policy == "Honor":
            tolerations = pod.spec.get("tolerations") or []
            if find_untolerated_taint(node.taints, tolerations, (NO_SCHEDULE, NO_EXECUTE)) is not None:
                return False
        return True


def parse_constraints(
    raw: Sequence[Mapping[str, Any]], pod_labels: Mapping[str, str], action: str
) -> list[SpreadConstraint]:
    """Upstream's ``filterTopologySpreadConstraints``: those with ``whenUnsatisfiable == action``.

    ``matchLabelKeys`` add ``key = <the Pod's value>`` requirements. Raises SelectorError.
    """
    out = []
    for c in raw:
        if (c.get("whenUnsatisfiable") or "") != action:
            continue
        selector = selector_from_label_selector(c.get("labelSelector"))
        extra = [Requirement(k, "=", (pod_labels[k],)) for k in c.get("matchLabelKeys") or [] if k in pod_labels]
        if extra:
            selector = selector.add(*extra)
        out.append(
            SpreadConstraint(
                max_skew=int(c.get("maxSkew") or 0),
                topology_key=c.get("topologyKey") or "",
                selector=selector,
                min_domains=int(c.get("minDomains") or 1),
                node_affinity_policy=c.get("nodeAffinityPolicy") or "Honor",
                node_taints_policy=c.get("nodeTaintsPolicy") or "Ignore",
            )
        )
    return out


def _controller_ref(pod: PodInfo) -> Mapping[str, Any] | None:
    for ref in (pod.pod.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return ref
    return None


def default_selector(pod: PodInfo, snapshot: Any) -> Selector:
    """Upstream's ``helper.DefaultSelector``: merge the selectors of what selects or owns the Pod."""
    label_set: dict[str, str] = {}
    for svc in snapshot.services(pod.namespace) if snapshot is not None else []:
        sel = (svc.get("spec") or {}).get("selector")
        # What _selector_from_set(sel).matches(pod.labels) answers (every pair present), without a Selector per
        # Service and Pod.
        if sel is not None and sel.items() <= pod.labels.items():
            label_set.update(sel)
    selector = _selector_from_set(label_set)
    ref = _controller_ref(pod)
    if ref is None or snapshot is None:
        return selector
    kind, name, api = ref.get("kind"), ref.get("name") or "", ref.get("apiVersion") or ""
    if kind == "ReplicationController" and api == "v1":
        rc = snapshot.workload(kind, pod.namespace, name)
        if rc is not None:
            label_set.update((rc.get("spec") or {}).get("selector") or {})
            selector = _selector_from_set(label_set)
    elif kind in ("ReplicaSet", "StatefulSet") and api == "apps/v1":
        obj = snapshot.workload(kind, pod.namespace, name)
        if obj is not None:
            try:
                other = selector_from_label_selector((obj.get("spec") or {}).get("selector"))
            except SelectorError:
                return selector
            if not other.matches_nothing:
                selector = selector.add(*other.requirements)
    return selector


def count_matching(node: NodeInfo, selector: Selector, namespace: str) -> int:
    """Matching, non-terminating Pods of ``namespace`` on the node."""
    return sum(
        1 for p in node.pods.values() if not p.terminating and p.namespace == namespace and selector.matches(p.labels)
    )


def matching_rows(snapshot: Any, table: NodeTable, selector: Selector, namespace: str) -> np.ndarray | None:
    """:func:`count_matching` for every row of ``table`` at once, summed from the snapshot's Pod groups.

    None while some counted Pod is terminating: the groups include it, so callers count node by node.
    The result may be the table's own column: read it, never write it.
    """
    if snapshot is None or snapshot.pods.terminating:
        return None
    matched = []
    for group in snapshot.pods.groups:
        group_namespace, labels = cast(tuple[str, tuple[tuple[str, str], ...]], group)
        if group_namespace == namespace and selector.matches(dict(labels)):
            matched.append(table.column(POD_GROUP, group))
    if len(matched) == 1:
        return matched[0]  # the usual selector, one app's Pods: no sum to make
    out = np.zeros(len(table), np.int64)
    for column in matched:
        out += column
    return out


def _all_nodes_included(pod: PodInfo, constraints: Sequence[SpreadConstraint]) -> bool:
    """True when no node inclusion policy can leave a node out (no required node affinity honoured, no taints)."""
    required = required_node_affinity(pod.spec)
    trivial = not required.node_selector and required.terms is None
    return all((trivial or c.node_affinity_policy != "Honor") and c.node_taints_policy != "Honor" for c in constraints)


def has_all_keys(node: NodeInfo, constraints: Sequence[SpreadConstraint]) -> bool:
    """True when the node carries every constraint's topology key."""
    return all(c.topology_key in node.labels for c in constraints)


@dataclass
class _FilterState:
    constraints: list[SpreadConstraint]
    counts: list[dict[str, int]]

    def min_match(self, i: int) -> int:
        counts = self.counts[i]
        if len(counts) < self.constraints[i].min_domains:
            return 0  # fewer eligible domains than minDomains: the global minimum is 0
        return min(counts.values(), default=_MAX_INT32)

    def skew(self, i: int, pod: PodInfo, value: str) -> dict[str, Any]:
        """Constraint ``i``'s skew in domain ``value``: matching Pods there + the Pod itself - the global minimum."""
        c = self.constraints[i]
        matching = self.counts[i].get(value, 0)
        self_match = int(c.selector.matches(pod.labels))
        global_min = self.min_match(i)
        return {
            "topologyKey": c.topology_key,
            "domain": value,
            "matching": matching,
            "selfMatch": self_match,
            "globalMin": global_min,
            "skew": matching + self_match - global_min,
            "maxSkew": c.max_skew,
        }


@dataclass
class _ScoreState:
    constraints: list[SpreadConstraint]
    ignored: set[str]
    counts: list[dict[str, int]]
    weights: list[float]
    # For the record only: whether the constraints are the defaults, the domains each weight counts,
    # and the scored nodes (the hostname minimum is worked out from them when someone reads it).
    defaulted: bool = False
    domains: list[int] = field(default_factory=list)
    nodes: Sequence[NodeInfo] = ()
    minimums: dict[int, int] = field(default_factory=dict)
    # Matching Pods per (hostname constraint, node), counted once for the minimum and the node's terms.
    on_node: dict[tuple[int, str], int] = field(default_factory=dict)
    # matching_rows per selector: the default constraints share one, counted once per attempt.
    matching: dict[Selector, np.ndarray | None] = field(default_factory=dict)

    def matching_rows(self, snapshot: Any, table: NodeTable, selector: Selector, namespace: str) -> np.ndarray | None:
        """:func:`matching_rows`, worked out once per selector in an attempt."""
        if selector not in self.matching:
            self.matching[selector] = matching_rows(snapshot, table, selector, namespace)
        return self.matching[selector]

    def _count_on(self, i: int, node: NodeInfo, pod: PodInfo) -> int:
        key = (i, node.name)
        if key not in self.on_node:
            self.on_node[key] = count_matching(node, self.constraints[i].selector, pod.namespace)
        return self.on_node[key]

    def minimum(self, i: int, pod: PodInfo, snapshot: Any) -> int:
        """The fewest matching Pods in any scored domain of constraint ``i`` (the base of its skew)."""
        if i not in self.minimums:
            c = self.constraints[i]
            if c.topology_key == HOSTNAME:
                self._count_scored(i, pod, snapshot)
                counted = (self._count_on(i, n, pod) for n in self.nodes if n.name not in self.ignored)
                self.minimums[i] = min(counted, default=0)
            else:
                self.minimums[i] = min(self.counts[i].values(), default=0)
        return self.minimums[i]

    def _count_scored(self, i: int, pod: PodInfo, snapshot: Any) -> None:
        """Note the matching Pods of hostname constraint ``i`` on every scored node from the per-row counts the
        scores were worked out from, where there are some: counting node by node matches every Pod's labels."""
        if snapshot is None:
            return
        table = snapshot.table()
        matching = self.matching_rows(snapshot, table, self.constraints[i].selector, pod.namespace)
        if matching is None:
            return
        counts = at_rows(matching, table.rows_of(self.nodes)).tolist()
        for node, count in zip(self.nodes, counts, strict=True):
            self.on_node.setdefault((i, node.name), count)

    def terms(self, pod: PodInfo, node: NodeInfo) -> list[dict[str, Any]]:
        """Per constraint the node has the key of: its domain, the matching Pods there, the weight and maxSkew.

        The raw score is ``round(sum of matching x weight + (maxSkew - 1))`` over these.
        """
        out = []
        for i, c in enumerate(self.constraints):
            value = node.labels.get(c.topology_key)
            if value is None:
                continue
            if c.topology_key == HOSTNAME:
                count = self._count_on(i, node, pod)
            else:
                count = self.counts[i].get(value, 0)
            out.append(
                {
                    "topologyKey": c.topology_key,
                    "domain": value,
                    "matching": count,
                    "weight": self.weights[i],
                    "maxSkew": c.max_skew,
                }
            )
        return out


class PodTopologySpread(BasePlugin):
    """PreFilter, Filter, PreScore, Score and NormalizeScore of PodTopologySpread."""

    name = NAME
    explanation = {"en": EXPLANATION_EN, "zh": EXPLANATION_ZH}

    def __init__(self, defaulting_type: str = "System", default_constraints: Sequence[Mapping[str, Any]] = ()) -> None:
        self.system_defaulted = defaulting_type == "System"
        self.default_constraints = SYSTEM_DEFAULT_CONSTRAINTS if self.system_defaulted else tuple(default_constraints)
        self.legacy_names = {"filter": LEGACY_FILTER_NAME, "score": LEGACY_SCORE_NAME}

    def constraints_for(self, pod: PodInfo, action: str, snapshot: Any) -> list[SpreadConstraint]:
        """The Pod's own constraints of that kind, or the defaults with the derived selector."""
        raw = pod.spec.get("topologySpreadConstraints") or []
        if raw:
            return parse_constraints(raw, pod.labels, action)
        constraints = parse_constraints(self.default_constraints, pod.labels, action)
        if not constraints:
            return []
        selector = default_selector(pod, snapshot)
        if selector.empty:
            return []  # a bare Pod nobody selects gets no default spreading
        return [SpreadConstraint(c.max_skew, c.topology_key, selector) for c in constraints]

    def pre_filter(self, state: CycleState, pod: PodInfo) -> tuple[Status, PreFilterResult | None]:
        """Count matching Pods per domain of every hard constraint; Skip when there is none."""
        try:
            constraints = self.constraints_for(pod, DO_NOT_SCHEDULE, state.snapshot)
        except SelectorError as err:
            return Status.error(f"obtaining pod's hard topology spread constraints: {err}"), None
        if not constraints:
            return Status.skip(), None
        counts: list[dict[str, int]] = [{} for _ in constraints]
        required = required_node_affinity(pod.spec)
        for node in state.snapshot.list() if state.snapshot is not None else []:
            if not has_all_keys(node, constraints):
                continue
            for i, c in enumerate(constraints):
                if c.includes_node(pod, node, required):
                    value = node.labels[c.topology_key]
                    counts[i][value] = counts[i].get(value, 0) + count_matching(node, c.selector, pod.namespace)
        state.write(NAME, _FilterState(constraints, counts))
        return Status(), None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        """``matching in domain + self-match - global minimum <= maxSkew`` for every hard constraint."""
        s: _FilterState | None = state.get(NAME)
        if s is None or not s.constraints:
            return Status()
        for i, c in enumerate(s.constraints):
            value = node.labels.get(c.topology_key)
            if value is None:
                return Status.unresolvable(REASON_NODE_LABEL_NOT_MATCH)
            if s.skew(i, pod, value)["skew"] > c.max_skew:
                return Status.unschedulable(REASON_CONSTRAINTS_NOT_MATCH)
        return Status()

    def explain_filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any]:
        """Each hard constraint's skew on this node (``domain`` None where the node lacks the key)."""
        s: _FilterState | None = state.get(NAME)
        if s is None:
            return {"constraints": []}
        out = []
        for i, c in enumerate(s.constraints):
            value = node.labels.get(c.topology_key)
            if value is None:
                out.append({"topologyKey": c.topology_key, "domain": None, "maxSkew": c.max_skew})
            else:
                out.append(s.skew(i, pod, value))
        return {"constraints": out}

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status:
        """Domain counts over all nodes, weights from the feasible ones; Skip without soft constraints."""
        snapshot = state.snapshot
        if snapshot is None or len(snapshot) == 0:
            return Status.skip()
        try:
            constraints = self.constraints_for(pod, SCHEDULE_ANYWAY, snapshot)
        except SelectorError as err:
            return Status.error(f"obtaining pod's soft topology spread constraints: {err}")
        if not constraints:
            return Status.skip()
        # Only explicit constraints demand every key; the defaults still spread by hostname without a zone.
        require_all = bool(pod.spec.get("topologySpreadConstraints")) or not self.system_defaulted
        s = _ScoreState(
            constraints, set(), [{} for _ in constraints], [], not pod.spec.get("topologySpreadConstraints")
        )
        s.nodes = nodes
        table = snapshot.table()
        rows = table.rows_of(nodes)
        # A node missing a key is ignored only where every key is required; otherwise it is in domain "".
        if require_all:
            present = np.ones(len(rows), bool)
            for c in constraints:
                present &= table.labels(c.topology_key)[0][rows] != ABSENT
            s.ignored.update(table.name_array[rows[~present]].tolist())
            rows = rows[present]
        for i, c in enumerate(constraints):
            if c.topology_key != HOSTNAME:
                s.counts[i] = dict.fromkeys(_domains(table, c.topology_key, rows), 0)
            size = len(rows) if c.topology_key == HOSTNAME else len(s.counts[i])
            s.domains.append(size)
            s.weights.append(math.log(size + 2))
        if not _count_by_columns(s, pod, require_all, snapshot):
            required = required_node_affinity(pod.spec)
            for node in snapshot.list():
                if require_all and not has_all_keys(node, constraints):
                    continue
                for i, c in enumerate(constraints):
                    if not c.includes_node(pod, node, required):
                        continue
                    value = node.labels.get(c.topology_key, "")
                    if c.topology_key != HOSTNAME and value in s.counts[i]:
                        s.counts[i][value] += count_matching(node, c.selector, pod.namespace)
        state.write(NAME + "/score", s)
        return Status()

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        """``round(sum over constraints of count x ln(domains + 2) + (maxSkew - 1))``; ignored nodes 0."""
        s: _ScoreState = state.read(NAME + "/score")
        if node.name in s.ignored:
            return 0
        total = 0.0
        for term in s.terms(pod, node):
            total += term["matching"] * term["weight"] + (term["maxSkew"] - 1)
        return go_round(total)

    def score_nodes(self, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray) -> np.ndarray:
        """:meth:`score` for the given rows at once, adding the terms in the same order (the same floats)."""
        s: _ScoreState = state.read(NAME + "/score")
        ignored = np.isin(table.name_array[rows], list(s.ignored)) if s.ignored else None
        state.write(NAME + "/ignoredRows", ignored)
        total = np.zeros(len(rows))
        for i, c in enumerate(s.constraints):
            codes, distinct = table.labels(c.topology_key)
            code = at_rows(codes, rows)
            if c.topology_key == HOSTNAME:
                matching = s.matching_rows(state.snapshot, table, c.selector, pod.namespace)
                if matching is None:
                    infos = table.infos
                    return np.fromiter((self.score(state, pod, infos[r]) for r in rows.tolist()), np.int64, len(rows))
                term = at_rows(matching, rows) * s.weights[i] + (c.max_skew - 1)
                total += np.where(code != ABSENT, term, 0.0) if table.lacks(c.topology_key) else term
            else:
                # One term per domain, and a trailing 0.0 that ABSENT (-1) picks.
                count = np.array([s.counts[i].get(v, 0) for v in distinct] + [0], np.int64)
                by_domain = count * s.weights[i] + (c.max_skew - 1)
                by_domain[-1] = 0.0
                total += by_domain[code]
        whole = np.floor(total)
        raw = (whole + (total - whole >= 0.5)).astype(np.int64)  # go_round of non-negative totals
        if ignored is not None:
            raw[ignored] = 0
        return raw

    def explain_score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any]:
        """:meth:`_ScoreState.terms` on this node, each with its selector, domain count, minimum and skew.

        ``defaulted``: the Pod has no constraints of its own, these are the defaults. An ignored
        node (missing a key) scores 0.
        """
        s: _ScoreState = state.read(NAME + "/score")
        if node.name in s.ignored:
            return {"ignored": True, "defaulted": s.defaulted, "constraints": []}
        terms = s.terms(pod, node)
        present = [i for i, c in enumerate(s.constraints) if c.topology_key in node.labels]
        for i, term in zip(present, terms, strict=True):
            minimum = s.minimum(i, pod, state.snapshot)
            term.update(
                selector=str(s.constraints[i].selector),
                domains=s.domains[i],
                minimum=minimum,
                skew=term["matching"] - minimum,
            )
        return {"ignored": False, "defaulted": s.defaulted, "constraints": terms}

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: Mapping[str, int]) -> dict[str, int]:
        """``100 * (max + min - raw) / max``; every counted node 100 when max is 0; ignored nodes 0."""
        s: _ScoreState = state.read(NAME + "/score")
        counted = {n: v for n, v in scores.items() if n not in s.ignored}
        max_score = max(counted.values(), default=0)
        min_score = min(counted.values(), default=0)
        out = {}
        for name, raw in scores.items():
            if name in s.ignored:
                out[name] = 0
            elif max_score == 0:
                out[name] = MAX_NODE_SCORE
            else:
                out[name] = go_div(MAX_NODE_SCORE * (max_score + min_score - raw), max_score)
        return out

    def normalize_nodes(self, state: CycleState, pod: PodInfo, raw: np.ndarray) -> np.ndarray:
        """:meth:`normalize_score` over the column :meth:`score_nodes` gave."""
        ignored = state.get(NAME + "/ignoredRows")
        if ignored is not None and len(ignored) != len(raw):
            ignored = None
        counted = raw if ignored is None else raw[~ignored]
        high, low = (int(counted.max()), int(counted.min())) if len(counted) else (0, 0)
        if high == 0:
            out = np.full(len(raw), MAX_NODE_SCORE, np.int64)
        else:
            out = go_div_nodes(MAX_NODE_SCORE * (high + low - raw), high).astype(np.int64)
        if ignored is not None:
            out[ignored] = 0
        return out

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Matching Pods added, relabelled or deleted; nodes added, removed, relabelled or re-tainted."""
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE),
                hint_pod_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.NODE,
                    ActionType.ADD | ActionType.DELETE | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT,
                ),
                hint_node_change,
            ),
        ]


def _domains(table: NodeTable, key: str, rows: np.ndarray) -> list[str]:
    """The values of label ``key`` on ``rows``, each once ("" where absent)."""
    codes, distinct = table.labels(key)
    if len(rows) == len(table):
        # Every node (the classroom default scores them all): every value, and "" for the nodes lacking the key.
        return [*distinct, ""] if table.lacks(key) else list(distinct)
    # Slot 0 counts ABSENT (-1), slot j + 1 the value distinct[j].
    present = np.bincount(codes[rows] + 1, minlength=len(distinct) + 1) > 0
    return [distinct[j - 1] if j else "" for j in np.flatnonzero(present).tolist()]


def _count_by_columns(s: _ScoreState, pod: PodInfo, require_all: bool, snapshot: Any) -> bool:
    """PreScore's per-domain counts over all nodes from the table's columns; False to count node by node.

    Only when no inclusion policy leaves a node out and no counted Pod is terminating.
    """
    constraints = s.constraints
    if snapshot.pods.terminating or not _all_nodes_included(pod, constraints):
        return False
    table = snapshot.table()
    eligible = None
    if require_all:
        eligible = np.ones(len(table), bool)
        for c in constraints:
            eligible &= table.labels(c.topology_key)[0] != ABSENT
    for i, c in enumerate(constraints):
        if c.topology_key == HOSTNAME or not s.counts[i]:
            continue
        matching = s.matching_rows(snapshot, table, c.selector, pod.namespace)
        assert matching is not None
        codes, distinct = table.labels(c.topology_key)
        slots = {value: j for j, value in enumerate(distinct)}
        # A node without the key is in domain "" (with any node labelled "").
        absent = slots.get("", len(distinct))
        index = np.where(codes == ABSENT, absent, codes) if table.lacks(c.topology_key) else codes
        if eligible is not None:
            index, matching = index[eligible], matching[eligible]
        totals = np.bincount(index, weights=matching, minlength=len(distinct) + 1)
        for value in s.counts[i]:
            s.counts[i][value] += int(totals[slots.get(value, absent)])
    return True


def _pod_constraints(pod: Mapping[str, Any]) -> list[SpreadConstraint]:
    info = PodInfo.from_pod(pod)
    try:
        return parse_constraints(info.spec.get("topologySpreadConstraints") or [], info.labels, DO_NOT_SCHEDULE)
    except SelectorError:
        return []


def hint_pod_change(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    """Queue when the changed Pod is in the same namespace and matches a hard constraint's selector."""
    namespace = (pod.get("metadata") or {}).get("namespace") or "default"
    constraints = _pod_constraints(pod)
    for obj in (old, new):
        if not obj or ((obj.get("metadata") or {}).get("namespace") or "default") != namespace:
            continue
        labels = (obj.get("metadata") or {}).get("labels") or {}
        if any(c.selector.matches(labels) for c in constraints):
            return QueueingHint.QUEUE
    return QueueingHint.SKIP


def hint_node_change(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    """Queue when a node carrying every topology key appears, disappears or changes those labels."""
    constraints = _pod_constraints(pod)
    if not constraints:
        return QueueingHint.SKIP

    def keys(node: Any) -> dict[str, str] | None:
        labels = ((node or {}).get("metadata") or {}).get("labels") or {}
        if not node or any(c.topology_key not in labels for c in constraints):
            return None
        return {c.topology_key: labels[c.topology_key] for c in constraints}

    before, after = keys(old), keys(new)
    if old is not None and new is not None:
        taints_changed = (old.get("spec") or {}).get("taints") != (new.get("spec") or {}).get("taints")
        honors_taints = any(c.node_taints_policy == "Honor" for c in constraints)
        return QueueingHint.QUEUE if before != after or (taints_changed and honors_taints) else QueueingHint.SKIP
    return QueueingHint.QUEUE if (before or after) else QueueingHint.SKIP
