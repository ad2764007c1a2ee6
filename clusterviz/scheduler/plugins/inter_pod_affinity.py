"""InterPodAffinity: place a Pod near (affinity) or away from (anti-affinity) other Pods.

Upstream: ``pkg/scheduler/framework/plugins/interpodaffinity/{filtering,scoring,plugin}.go``.
Both directions count: the incoming Pod's terms against the Pods already placed,
and the placed Pods' terms against the incoming Pod (symmetry). Counts are kept
per topology pair ``(topologyKey, the node's value for it)``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

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
)
from clusterviz.scheduler.nodeinfo import AFFINITY, ANTI_AFFINITY, HARD, AffinityTerm, NodeInfo, PodInfo
from clusterviz.scheduler.nodetable import POD_GROUP, SCORE_TERM, NodeTable, at_rows

NAME = "InterPodAffinity"
LEGACY_FILTER_NAME = "MatchInterPodAffinity"
LEGACY_SCORE_NAME = "InterPodAffinityPriority"

REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"
REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"

EXPLANATION_EN = (
    "Places the Pod in the same topology domain as Pods it has affinity to and away from Pods it (or they) "
    "have anti-affinity to; preferred terms add or subtract their weights."
)
EXPLANATION_ZH = (
    "把 Pod 放到与其亲和的 Pod 相同的拓扑域，并远离与其（或对方声明）反亲和的 Pod；软策略按权重加分或减分。"
)

TopologyPair = tuple[str, str]


def _add_pair(counts: Counter[TopologyPair], node: NodeInfo, key: str, value: int) -> None:
    if key in node.labels:
        counts[(key, node.labels[key])] += value


def matches_all(terms: Sequence[AffinityTerm], pod: PodInfo, namespace_labels: Mapping[str, str]) -> bool:
    """True when ``pod`` matches every term (and there is at least one)."""
    return bool(terms) and all(t.matches(pod, namespace_labels) for t in terms)


@dataclass(frozen=True)
class AffinityCounts:
    """PreFilter's three counters (see the module docstring of upstream's filtering.go)."""

    existing_anti: Counter[TopologyPair]
    affinity: Counter[TopologyPair]
    anti: Counter[TopologyPair]


def compute_counts(pod: PodInfo, nodes: Sequence[NodeInfo], namespace_labels: Any) -> AffinityCounts:
    """Count, over all nodes, the topology pairs relevant to the incoming Pod.

    ``namespace_labels(ns)`` returns a namespace's labels (for namespaceSelector).
    """
    own_ns = namespace_labels(pod.namespace)
    existing_anti: Counter[TopologyPair] = Counter()
    affinity: Counter[TopologyPair] = Counter()
    anti: Counter[TopologyPair] = Counter()
    req_aff, req_anti = pod.required_affinity_terms, pod.required_anti_affinity_terms
    for node in nodes:
        # Without required terms of its own, only placed Pods with required anti-affinity count.
        placed = node.pods if req_aff or req_anti else node.pods_with_required_anti_affinity
        for existing in placed.values():
            for term in existing.required_anti_affinity_terms:
                if term.matches(pod, own_ns):
                    _add_pair(existing_anti, node, term.topology_key, 1)
            if not (req_aff or req_anti):
                continue
            their_ns = namespace_labels(existing.namespace)
            if matches_all(req_aff, existing, their_ns):
                for term in req_aff:
                    _add_pair(affinity, node, term.topology_key, 1)
            for term in req_anti:
                if term.matches(existing, their_ns):
                    _add_pair(anti, node, term.topology_key, 1)
    return AffinityCounts(existing_anti, affinity, anti)


def satisfies_pod_affinity(pod: PodInfo, counts: AffinityCounts, node: NodeInfo, own_ns: Mapping[str, str]) -> bool:
    """Every required term's domain holds a matching Pod, or this is the first Pod of its group."""
    pods_exist = True
    for term in pod.required_affinity_terms:
        value = node.labels.get(term.topology_key)
        if value is None:
            return False  # every topology key must exist on the node
        if counts.affinity[(term.topology_key, value)] <= 0:
            pods_exist = False
    if pods_exist:
        return True
    # No Pod anywhere matches and the Pod matches its own terms: let the group start.
    return not +counts.affinity and matches_all(pod.required_affinity_terms, pod, own_ns)


def satisfies_pod_anti_affinity(pod: PodInfo, counts: AffinityCounts, node: NodeInfo) -> bool:
    """No required anti-affinity term's domain on this node holds a matching Pod."""
    for term in pod.required_anti_affinity_terms:
        value = node.labels.get(term.topology_key)
        if value is not None and counts.anti[(term.topology_key, value)] > 0:
            return False
    return True


def satisfies_existing_anti_affinity(counts: AffinityCounts, node: NodeInfo) -> bool:
    """No placed Pod's required anti-affinity covers any of this node's topology pairs."""
    if not +counts.existing_anti:
        return True
    return not any(counts.existing_anti[(k, v)] > 0 for k, v in node.labels.items())


def affinity_inputs(pod: PodInfo, counts: AffinityCounts, node: NodeInfo, own_ns: Mapping[str, str]) -> dict[str, Any]:
    """The counters the filter reads on one node, for the decision record.

    Per required affinity and anti-affinity term of the Pod: the node's domain
    (None without the key) and the matching Pods in it; the placed Pods'
    anti-affinity terms that cover one of the node's labels; and whether the
    "first Pod of its group" rule applies.
    """

    def terms(terms: Sequence[AffinityTerm], counter: Counter[TopologyPair]) -> list[dict[str, Any]]:
        out = []
        for term in terms:
            value = node.labels.get(term.topology_key)
            pods = counter[(term.topology_key, value)] if value is not None else 0
            out.append(
                {"selector": str(term.selector), "topologyKey": term.topology_key, "domain": value, "pods": pods}
            )
        return out

    return {
        "affinity": terms(pod.required_affinity_terms, counts.affinity),
        "antiAffinity": terms(pod.required_anti_affinity_terms, counts.anti),
        "existingAntiAffinity": [
            {"topologyKey": k, "domain": v, "pods": counts.existing_anti[(k, v)]}
            for k, v in node.labels.items()
            if counts.existing_anti[(k, v)] > 0
        ],
        "firstOfGroup": not +counts.affinity and matches_all(pod.required_affinity_terms, pod, own_ns),
    }


@dataclass(frozen=True, eq=False)
class Contribution:
    """One term's pull (positive weight) or push (negative) on the topology domains of ``topology_key``.

    ``incoming`` is True for the Pod's own preferred terms matched by placed Pods,
    False for placed Pods' terms that match the Pod. ``per_value[i]`` counts the
    Pods (or placed terms) in the domain ``values[i]``; for a key with a value per node it is
    the node table's column itself, good while the snapshot stays as it is (never write it).
    """

    incoming: bool
    kind: str
    term: AffinityTerm
    weight: int
    values: tuple[str, ...]
    per_value: np.ndarray


def score_contributions(pod: PodInfo, snapshot: Any, hard_pod_affinity_weight: int) -> Iterator[Contribution]:
    """Every term that adds to InterPodAffinity's scores, both directions, counted from the snapshot's columns.

    Pods are tallied by (namespace, labels) and placed terms by term, so each
    distinct group and term is matched once, not every placed Pod.
    """
    table = snapshot.table()
    ns_labels = snapshot.namespace_labels

    def contribution(incoming: bool, kind: str, term: AffinityTerm, weight: int, counts: np.ndarray) -> Contribution:
        key = term.topology_key
        codes, values = table.labels(key)
        if table.value_per_row(key):
            per_value = counts  # the counts per node are the counts per value (read only: the table's column)
        elif not table.lacks(key):
            per_value = np.bincount(codes, weights=counts, minlength=len(values)).astype(np.int64)
        else:
            present = codes >= 0
            per_value = np.bincount(codes[present], weights=counts[present], minlength=len(values)).astype(np.int64)
        return Contribution(incoming, kind, term, weight, values, per_value)

    incoming = [(AFFINITY, wt, 1) for wt in pod.preferred_affinity_terms]
    incoming += [(ANTI_AFFINITY, wt, -1) for wt in pod.preferred_anti_affinity_terms]
    if incoming:
        for group, representative in snapshot.pods.representatives.items():
            their_ns = ns_labels(representative.namespace)
            for kind, wt, sign in incoming:
                if wt.term.matches(representative, their_ns):
                    yield contribution(True, kind, wt.term, wt.weight * sign, table.column(POD_GROUP, group))
    own_ns = ns_labels(pod.namespace)
    for key in snapshot.pods.score_terms:
        kind, term, weight = key
        if kind == HARD:
            if hard_pod_affinity_weight <= 0:
                continue
            weight = hard_pod_affinity_weight
        if term.matches(pod, own_ns):
            signed = -weight if kind == ANTI_AFFINITY else weight
            yield contribution(False, kind, term, signed, table.column(SCORE_TERM, key))


def contribution_inputs(contributions: Sequence[Contribution], node: NodeInfo) -> list[dict[str, Any]]:
    """The contributions in this node's domains, equal terms merged: the raw score is the sum of ``pods x weight``."""
    merged: dict[tuple[bool, str, AffinityTerm, int], dict[str, Any]] = {}
    for c in contributions:
        value = node.labels.get(c.term.topology_key)
        if value is None:
            continue
        pods = int(c.per_value[c.values.index(value)])
        key = (c.incoming, c.kind, c.term, c.weight)
        entry = merged.get(key)
        if entry is None:
            merged[key] = {
                "incoming": c.incoming,
                "kind": c.kind,
                "selector": str(c.term.selector),
                "topologyKey": c.term.topology_key,
                "domain": value,
                "pods": pods,
                "weight": c.weight,
            }
        else:
            entry["pods"] += pods
    return [entry for entry in merged.values() if entry["pods"]]


class PairScores:
    """PreScore's summed weights per topology pair, kept per key as an array over the key's label values.

    ``by_code`` has one slot per value code plus a last slot of 0, which is what
    code -1 (node without the label) picks. ``touched`` marks the pairs some
    Pod contributed to, even if the weights cancelled out.
    """

    def __init__(self) -> None:
        self.keys: dict[str, tuple[tuple[str, ...], np.ndarray, np.ndarray]] = {}

    def add(self, topology_key: str, values: tuple[str, ...], counts: np.ndarray, delta: int) -> None:
        """Add ``delta`` times the Pods counted per value."""
        entry = self.keys.get(topology_key)
        if entry is None:
            entry = self.keys[topology_key] = (values, np.zeros(len(values) + 1, np.int64), np.zeros(len(values), bool))
        entry[1][:-1] += delta * counts
        entry[2][:] |= counts > 0

    def __bool__(self) -> bool:
        return any(touched.any() for _, _, touched in self.keys.values())

    def as_dict(self) -> dict[str, dict[str, int]]:
        """``{topologyKey: {value: weight}}`` for the touched pairs."""
        return {
            key: {values[i]: int(by_code[i]) for i in np.flatnonzero(touched).tolist()}
            for key, (values, by_code, touched) in self.keys.items()
            if touched.any()
        }


class InterPodAffinity(BasePlugin):
    """PreFilter, Filter, PreScore, Score and NormalizeScore (min-max) of InterPodAffinity."""

    name = NAME
    legacy_names = {"filter": LEGACY_FILTER_NAME, "score": LEGACY_SCORE_NAME}
    explanation = {"en": EXPLANATION_EN, "zh": EXPLANATION_ZH}

    def __init__(
        self, hard_pod_affinity_weight: int = 1, ignore_preferred_terms_of_existing_pods: bool = False
    ) -> None:
        self.hard_pod_affinity_weight = hard_pod_affinity_weight
        self.ignore_preferred_terms_of_existing_pods = ignore_preferred_terms_of_existing_pods

    def pre_filter(self, state: CycleState, pod: PodInfo) -> tuple[Status, PreFilterResult | None]:
        """Build the counters; Skip when no rule is involved on either side."""
        if pod.parse_error:
            return Status.unresolvable(f"parsing pod: {pod.parse_error}"), None
        snapshot = state.snapshot
        has_required = bool(pod.required_affinity_terms or pod.required_anti_affinity_terms)
        if snapshot is not None and not has_required and not snapshot.pods.with_required_anti_affinity:
            return Status.skip(), None
        nodes = snapshot.list() if snapshot is not None else []
        ns_labels = snapshot.namespace_labels if snapshot is not None else (lambda _ns: {})
        counts = compute_counts(pod, nodes, ns_labels)
        if not +counts.existing_anti and not pod.required_affinity_terms and not pod.required_anti_affinity_terms:
            return Status.skip(), None
        state.write(NAME, (counts, ns_labels(pod.namespace)))
        return Status(), None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        """Affinity, then anti-affinity, then the placed Pods' anti-affinity; first failure wins."""
        counts, own_ns = state.read(NAME)
        if not satisfies_pod_affinity(pod, counts, node, own_ns):
            return Status.unresolvable(REASON_AFFINITY_RULES_NOT_MATCH)
        if not satisfies_pod_anti_affinity(pod, counts, node):
            return Status.unschedulable(REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
        if not satisfies_existing_anti_affinity(counts, node):
            return Status.unschedulable(REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
        return Status()

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status:
        """Sum term weights per topology pair (:func:`score_contributions`); Skip if nothing contributed."""
        has_preferred = bool(pod.preferred_affinity_terms or pod.preferred_anti_affinity_terms)
        if self.ignore_preferred_terms_of_existing_pods and not has_preferred and not pod.parse_error:
            return Status.skip()
        if pod.parse_error:
            # PreFilter normally refuses such a Pod first; upstream fails the attempt here too.
            return Status.error(f"failed to parse pod: {pod.parse_error}")
        snapshot = state.snapshot
        if snapshot is None or not (has_preferred or snapshot.pods.with_affinity):
            return Status.skip()
        scores = PairScores()
        for c in score_contributions(pod, snapshot, self.hard_pod_affinity_weight):
            scores.add(c.term.topology_key, c.values, c.per_value, c.weight)
        if not scores:
            return Status.skip()
        state.write(NAME + "/score", scores)
        return Status()

    def explain_filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any]:
        """:func:`affinity_inputs` on this node."""
        counts, own_ns = state.read(NAME)
        return affinity_inputs(pod, counts, node, own_ns)

    def explain_score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any]:
        """:func:`contribution_inputs` on this node (the contributions are worked out once per attempt)."""
        contributions = state.get(NAME + "/contributions")
        if contributions is None:
            contributions = list(score_contributions(pod, state.snapshot, self.hard_pod_affinity_weight))
            state.write(NAME + "/contributions", contributions)
        return {"terms": contribution_inputs(contributions, node)}

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        """Sum over the node's topology pairs; may be negative."""
        scores: PairScores = state.read(NAME + "/score")
        pairs = scores.as_dict()
        return sum(by_value.get(node.labels[key], 0) for key, by_value in pairs.items() if key in node.labels)

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: NodeTable, rows: np.ndarray) -> np.ndarray:
        """:meth:`score` for the given rows at once."""
        scores: PairScores = state.read(NAME + "/score")
        raw = np.zeros(len(rows), np.int64)
        for key, (_, by_code, _) in scores.keys.items():
            if nodes.value_per_row(key):
                raw += at_rows(by_code[:-1], rows)  # value i is row i's
            else:
                raw += by_code[at_rows(nodes.labels(key)[0], rows)]
        return raw

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: Mapping[str, int]) -> dict[str, int]:
        """Min-max over the scored nodes: ``int(100 * (raw - min) / (max - min))``, all 0 if equal."""
        if not scores:
            return {}
        low, high = min(scores.values()), max(scores.values())
        spread = high - low
        return {n: int(float(MAX_NODE_SCORE) * ((s - low) / spread)) if spread > 0 else 0 for n, s in scores.items()}

    def normalize_nodes(self, state: CycleState, pod: PodInfo, raw: np.ndarray) -> np.ndarray:
        """:meth:`normalize_score` over a column."""
        if not len(raw):
            return raw
        low, spread = int(raw.min()), int(raw.max()) - int(raw.min())
        if spread <= 0:
            return np.zeros(len(raw), np.int64)
        return (float(MAX_NODE_SCORE) * ((raw - low) / spread)).astype(np.int64)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Placed Pods added, relabelled or deleted; nodes added or relabelled."""
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE),
                hint_pod_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL), hint_node_change
            ),
        ]


def hint_pod_change(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    """Queue when a bound Pod that matches one of this Pod's terms, or whose anti-affinity names this Pod, changed."""
    target = PodInfo.from_pod(pod)
    for obj in (new, old):
        if not obj or not (obj.get("spec") or {}).get("nodeName"):
            continue
        other = PodInfo.from_pod(obj)
        terms = target.required_affinity_terms + target.required_anti_affinity_terms
        if any(t.matches(other, {}) for t in terms):
            return QueueingHint.QUEUE
        if any(t.matches(target, {}) for t in other.required_anti_affinity_terms):
            return QueueingHint.QUEUE
    return QueueingHint.SKIP


def hint_node_change(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    """Queue when the new node has a topology key this Pod's required terms use (or the Pod has none)."""
    target = PodInfo.from_pod(pod)
    keys = {t.topology_key for t in target.required_affinity_terms + target.required_anti_affinity_terms}
    labels = ((new or {}).get("metadata") or {}).get("labels") or {}
    if not keys or keys & set(labels):
        return QueueingHint.QUEUE
    return QueueingHint.SKIP
