"""NodeResourcesFit: the Pod's requests must fit; scoring prefers emptier (or fuller) nodes.

Upstream: ``pkg/scheduler/framework/plugins/noderesources/{fit,least_allocated,
most_allocated,requested_to_capacity_ratio,resource_allocation}.go`` and
``helper/shape_score.go``. The filter uses actual requests; scoring counts a
container without a cpu/memory request as 100m / 200Mi.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
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
    NodeStatuses,
    PreFilterResult,
    QueueingHint,
    Status,
    go_div,
    go_div_nodes,
    go_round,
)
from clusterviz.scheduler.nodeinfo import (
    CPU,
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    EPHEMERAL_STORAGE,
    MEMORY,
    PODS,
    NodeInfo,
    PodInfo,
    Resource,
    pod_requests,
)
from clusterviz.scheduler.nodetable import ALLOCATABLE, NON_ZERO_REQUESTED, POD_COUNT, REQUESTED, NodeTable

NAME = "NodeResourcesFit"
LEGACY_FILTER_NAME = "PodFitsResources"
LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
LEGACY_SCORE_NAMES = {
    LEAST_ALLOCATED: "LeastRequestedPriority",
    MOST_ALLOCATED: "MostRequestedPriority",
    REQUESTED_TO_CAPACITY_RATIO: "RequestedToCapacityRatioPriority",
}
SCORING_STRATEGY_TYPES = tuple(LEGACY_SCORE_NAMES)

REASON_TOO_MANY_PODS = "Too many pods"
REASON_INSUFFICIENT_CPU = "Insufficient cpu"
REASON_INSUFFICIENT_MEMORY = "Insufficient memory"
REASON_INSUFFICIENT_EPHEMERAL_STORAGE = "Insufficient ephemeral-storage"

EXPLANATION_EN = (
    "The node's free allocatable CPU and memory must cover the Pod's requests; "
    "by default the node with the most room left scores highest."
)
EXPLANATION_ZH = "节点剩余的可分配 CPU 和内存必须满足 Pod 的请求；默认情况下剩余资源越多的节点得分越高。"

MAX_UTILIZATION = 100
MAX_CUSTOM_PRIORITY_SCORE = 10
DEFAULT_RESOURCES: tuple[tuple[str, int], ...] = ((CPU, 1), (MEMORY, 1))


def insufficient_reason(resource: str) -> str:
    """``Insufficient <resource>``, the reason for any resource that does not fit."""
    return f"Insufficient {resource}"


def is_extended_resource_name(name: str) -> bool:
    """A domain-prefixed resource outside ``kubernetes.io/`` (for example ``nvidia.com/gpu``)."""
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


@dataclass(frozen=True)
class InsufficientResource:
    """One resource that does not fit: the reason plus the numbers behind it."""

    resource: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool = False


def checked_resources(
    pod_request: Resource, ignored_resources: frozenset[str] = frozenset(), ignored_groups: frozenset[str] = frozenset()
) -> list[tuple[str, str, int]]:
    """The (resource, reason, request) triples the filter compares, in upstream's order (pods aside).

    cpu, memory, ephemeral-storage, then the other resources (in name order here, map order
    upstream); nothing at all for a Pod requesting nothing, and no ignored extended resource.
    """
    if not (pod_request.milli_cpu or pod_request.memory or pod_request.ephemeral_storage or pod_request.scalar):
        return []
    out = [
        (name, reason, pod_request.get(name))
        for name, reason in (
            (CPU, REASON_INSUFFICIENT_CPU),
            (MEMORY, REASON_INSUFFICIENT_MEMORY),
            (EPHEMERAL_STORAGE, REASON_INSUFFICIENT_EPHEMERAL_STORAGE),
        )
        if pod_request.get(name) > 0
    ]
    for name in sorted(pod_request.scalar):
        req = pod_request.scalar[name]
        if req == 0:
            continue
        if is_extended_resource_name(name) and (name in ignored_resources or name.split("/")[0] in ignored_groups):
            continue
        out.append((name, insufficient_reason(name), req))
    return out


def fits_request(
    pod_request: Resource,
    node: NodeInfo,
    ignored_resources: frozenset[str] = frozenset(),
    ignored_groups: frozenset[str] = frozenset(),
) -> list[InsufficientResource]:
    """Upstream's ``fitsRequest``: every resource that does not fit, in upstream's order.

    Pod count first (even for a Pod requesting nothing), then :func:`checked_resources`. A
    request larger than the node's whole allocatable is unresolvable.
    """
    out: list[InsufficientResource] = []
    alloc, used = node.allocatable, node.requested
    if len(node.pods) + 1 > alloc.allowed_pod_number:
        out.append(InsufficientResource(PODS, REASON_TOO_MANY_PODS, 1, len(node.pods), alloc.allowed_pod_number))
    for name, reason, req in checked_resources(pod_request, ignored_resources, ignored_groups):
        cap, have = alloc.get(name), used.get(name)
        if req > cap - have:
            out.append(InsufficientResource(name, reason, req, have, cap, req > cap))
    return out


def fit_inputs(
    pod_request: Resource,
    node: NodeInfo,
    ignored_resources: frozenset[str] = frozenset(),
    ignored_groups: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """The numbers :func:`fits_request` compares on one node, for the decision record.

    The Pod slots, then each checked resource's request, what the node's Pods
    already request and the node's allocatable (free = allocatable - used).
    """
    alloc, used = node.allocatable, node.requested
    return {
        "pods": {"used": len(node.pods), "allocatable": alloc.allowed_pod_number},
        "resources": [
            {"name": name, "request": req, "used": used.get(name), "allocatable": alloc.get(name)}
            for name, _, req in checked_resources(pod_request, ignored_resources, ignored_groups)
        ],
    }


def fits_request_nodes(
    pod_request: Resource,
    nodes: NodeTable,
    ignored_resources: frozenset[str] = frozenset(),
    ignored_groups: frozenset[str] = frozenset(),
) -> NodeStatuses:
    """:func:`fits_request` on every node at once, as the Filter's statuses.

    Each node gets a key: one bit per insufficient resource (in upstream's
    order) plus a high bit when one of them exceeds the whole node.
    """
    checks = checked_resources(pod_request, ignored_resources, ignored_groups)
    reasons = [REASON_TOO_MANY_PODS] + [reason for _, reason, _ in checks]

    def keys_at(rows: np.ndarray) -> np.ndarray:
        keys = (nodes.column_at(POD_COUNT, "", rows) + 1 > nodes.column_at(ALLOCATABLE, PODS, rows)).astype(np.int64)
        unresolvable = np.zeros(len(rows), bool)
        for bit, (name, _, req) in enumerate(checks, start=1):
            cap = nodes.column_at(ALLOCATABLE, name, rows)
            keys |= (req > cap - nodes.column_at(REQUESTED, name, rows)).astype(np.int64) << bit
            unresolvable |= req > cap
        return keys | (unresolvable & (keys > 1)).astype(np.int64) << 62

    # A node's key depends on its own Pods and allocatable alone, so it is kept between attempts.
    keys = nodes.per_row((NAME, tuple(checks)), np.arange(len(nodes)), keys_at)

    def status_of(key: int) -> Status:
        missing = tuple(reason for bit, reason in enumerate(reasons) if key >> bit & 1)
        return Status.unresolvable(*missing) if key >> 62 else Status.unschedulable(*missing)

    return NodeStatuses.from_keys(keys, status_of)


# --- scoring ------------------------------------------------------------------------


def allocatable_and_requested(node: NodeInfo, resource: str, pod_request: int, use_requested: bool) -> tuple[int, int]:
    """Upstream's ``calculateResourceAllocatableRequest``: (allocatable, node total incl. the Pod).

    cpu and memory use the non-zero-defaulted sums unless ``use_requested``.
    An extended resource the Pod does not request gives (0, 0), i.e. "leave out".
    """
    if pod_request == 0 and resource not in (CPU, MEMORY, EPHEMERAL_STORAGE, PODS):
        return 0, 0
    requested = node.requested if use_requested else node.non_zero_requested
    if resource == CPU:
        return node.allocatable.milli_cpu, requested.milli_cpu + pod_request
    if resource == MEMORY:
        return node.allocatable.memory, requested.memory + pod_request
    if resource == EPHEMERAL_STORAGE:
        return node.allocatable.ephemeral_storage, node.requested.ephemeral_storage + pod_request
    if resource in node.allocatable.scalar:
        return node.allocatable.scalar[resource], node.requested.scalar.get(resource, 0) + pod_request
    return 0, 0


def resource_vectors(
    node: NodeInfo, resources: Sequence[str], pod_request: Sequence[int], use_requested: bool
) -> tuple[list[int], list[int]]:
    """(requested, allocatable) lists aligned with ``resources``; left-out resources are (0, 0)."""
    requested, allocatable = [], []
    sums = node.requested if use_requested else node.non_zero_requested
    for name, req in zip(resources, pod_request, strict=True):
        # cpu and memory inline: this runs for every node twice per attempt.
        if name == CPU:
            alloc, total = node.allocatable.milli_cpu, sums.milli_cpu + req
        elif name == MEMORY:
            alloc, total = node.allocatable.memory, sums.memory + req
        else:
            alloc, total = allocatable_and_requested(node, name, req, use_requested)
        requested.append(total if alloc else 0)
        allocatable.append(alloc)
    return requested, allocatable


def resource_columns(
    nodes: NodeTable, rows: np.ndarray, resources: Sequence[str], pod_request: Sequence[int], use_requested: bool
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`resource_vectors` for the given rows: (requested, allocatable) arrays of shape (resources, rows)."""
    kind = REQUESTED if use_requested else NON_ZERO_REQUESTED
    requested = np.zeros((len(resources), len(rows)), np.int64)
    allocatable = np.zeros((len(resources), len(rows)), np.int64)
    for i, (name, req) in enumerate(zip(resources, pod_request, strict=True)):
        if name == PODS or (req == 0 and name not in (CPU, MEMORY, EPHEMERAL_STORAGE)):
            continue  # left out, as allocatable_and_requested gives (0, 0)
        alloc = nodes.column_at(ALLOCATABLE, name, rows)
        used = nodes.column_at(kind if name in (CPU, MEMORY) else REQUESTED, name, rows)
        allocatable[i] = alloc
        requested[i] = np.where(alloc != 0, used + req, 0)
    return requested, allocatable


def _weighted_mean_nodes(scores: np.ndarray, allocatable: np.ndarray, weights: Sequence[int]) -> np.ndarray:
    w = np.asarray(weights, np.int64)[:, None] * (allocatable != 0)
    total, weight_sum = (scores * w).sum(axis=0), w.sum(axis=0)
    return np.where(weight_sum > 0, total // np.maximum(weight_sum, 1), 0)


def least_requested_score(requested: int, capacity: int) -> int:
    """``(capacity - requested) * 100 / capacity``, 0 when over capacity."""
    if capacity == 0 or requested > capacity:
        return 0
    return (capacity - requested) * MAX_NODE_SCORE // capacity


def most_requested_score(requested: int, capacity: int) -> int:
    """``min(requested, capacity) * 100 / capacity``."""
    if capacity == 0:
        return 0
    return min(requested, capacity) * MAX_NODE_SCORE // capacity


def _weighted_mean(per_resource: Sequence[tuple[int, int]]) -> int:
    total = sum(score * weight for score, weight in per_resource)
    weights = sum(weight for _, weight in per_resource)
    return total // weights if weights else 0


def least_allocated(requested: Sequence[int], allocatable: Sequence[int], weights: Sequence[int]) -> int:
    """LeastAllocated (legacy LeastRequestedPriority): weighted integer mean of per-resource scores."""
    return _weighted_mean(
        [(least_requested_score(r, a), w) for r, a, w in zip(requested, allocatable, weights, strict=True) if a]
    )


def most_allocated(requested: Sequence[int], allocatable: Sequence[int], weights: Sequence[int]) -> int:
    """MostAllocated (legacy MostRequestedPriority)."""
    return _weighted_mean(
        [(most_requested_score(r, a), w) for r, a, w in zip(requested, allocatable, weights, strict=True) if a]
    )


def least_allocated_nodes(requested: np.ndarray, allocatable: np.ndarray, weights: Sequence[int]) -> np.ndarray:
    """:func:`least_allocated` over (resources, nodes) arrays."""
    cap = np.maximum(allocatable, 1)
    scores = np.where(
        (allocatable == 0) | (requested > allocatable), 0, (allocatable - requested) * MAX_NODE_SCORE // cap
    )
    return _weighted_mean_nodes(scores, allocatable, weights)


def most_allocated_nodes(requested: np.ndarray, allocatable: np.ndarray, weights: Sequence[int]) -> np.ndarray:
    """:func:`most_allocated` over (resources, nodes) arrays."""
    cap = np.maximum(allocatable, 1)
    scores = np.where(allocatable == 0, 0, np.minimum(requested, allocatable) * MAX_NODE_SCORE // cap)
    return _weighted_mean_nodes(scores, allocatable, weights)


def broken_linear(shape: Sequence[tuple[int, int]], p: int) -> int:
    """Upstream's ``BuildBrokenLinearFunction``: piecewise linear, Go integer division."""
    for i, (utilization, score) in enumerate(shape):
        if p <= utilization:
            if i == 0:
                return score
            prev_u, prev_s = shape[i - 1]
            return prev_s + go_div((score - prev_s) * (p - prev_u), utilization - prev_u)
    return shape[-1][1]


def utilization(requested: int, capacity: int) -> int:
    """``requested * 100 / capacity`` (integer division), 100 when over capacity."""
    return MAX_UTILIZATION if requested > capacity else requested * MAX_UTILIZATION // capacity


def ratio_resource_score(requested: int, capacity: int, shape: Sequence[tuple[int, int]]) -> int:
    """One resource's RequestedToCapacityRatio score: the shape (scores 0..10, times 10) at its utilisation."""
    scaled = [(u, s * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE)) for u, s in shape]
    return broken_linear(scaled, utilization(requested, capacity))


def requested_to_capacity_ratio(
    requested: Sequence[int], allocatable: Sequence[int], weights: Sequence[int], shape: Sequence[tuple[int, int]]
) -> int:
    """RequestedToCapacityRatio: shape scores (0..10, times 10) of utilisation, rounded weighted mean.

    Only resources whose shape score is above 0 take part.
    """
    total = weight_sum = 0
    for req, cap, weight in zip(requested, allocatable, weights, strict=True):
        if cap == 0:
            continue
        score = ratio_resource_score(req, cap, shape)
        if score > 0:
            total += score * weight
            weight_sum += weight
    return 0 if weight_sum == 0 else go_round(total / weight_sum)


def broken_linear_nodes(shape: Sequence[tuple[int, int]], p: np.ndarray) -> np.ndarray:
    """:func:`broken_linear` elementwise."""
    out = np.full(p.shape, shape[-1][1], np.int64)
    done = np.zeros(p.shape, bool)
    for i, (utilization, score) in enumerate(shape):
        here = ~done & (p <= utilization)
        if i == 0:
            out[here] = score
        else:
            prev_u, prev_s = shape[i - 1]
            out[here] = prev_s + go_div_nodes((score - prev_s) * (p[here] - prev_u), utilization - prev_u)
        done |= here
    return out


def requested_to_capacity_ratio_nodes(
    requested: np.ndarray, allocatable: np.ndarray, weights: Sequence[int], shape: Sequence[tuple[int, int]]
) -> np.ndarray:
    """:func:`requested_to_capacity_ratio` over (resources, nodes) arrays."""
    scaled = [(u, s * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE)) for u, s in shape]
    cap = np.maximum(allocatable, 1)
    utilization = np.where(requested > allocatable, MAX_UTILIZATION, requested * MAX_UTILIZATION // cap)
    scores = broken_linear_nodes(scaled, utilization)
    w = np.asarray(weights, np.int64)[:, None] * ((allocatable != 0) & (scores > 0))
    total, weight_sum = (scores * w).sum(axis=0), w.sum(axis=0)
    # Go's math.Round(total / weightSum) on non-negative integers: halves round up.
    return np.where(weight_sum > 0, (2 * total + weight_sum) // np.maximum(2 * weight_sum, 1), 0)


NON_ZERO_DEFAULTS = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST}


def score_inputs(
    strategy: ScoringStrategy, node: NodeInfo, pod_actual: Resource, pod_scoring: Sequence[int]
) -> dict[str, Any]:
    """The numbers behind one node's score, for the decision record.

    Per resource (as :func:`resource_vectors` lines them up): the Pod's scoring
    request, the node's non-zero requested sum before the Pod, allocatable,
    weight and the resource's score. ``nonZeroDefault`` is present where the Pod's
    scoring request differs from its actual one, i.e. where a container without a
    cpu/memory request was counted as 100m / 200Mi; ``nodeRequestedActual`` where the
    node's Pods include such containers.
    """
    names = [name for name, _ in strategy.resources]
    requested, allocatable = resource_vectors(node, names, pod_scoring, use_requested=False)
    resources = []
    for (name, weight), total, cap, pod_request in zip(
        strategy.resources, requested, allocatable, pod_scoring, strict=True
    ):
        if not cap:
            continue  # left out of the score, as upstream does
        entry = {
            "name": name,
            "weight": weight,
            "podRequest": pod_request,
            "nodeRequested": total - pod_request,
            "allocatable": cap,
            "score": strategy.resource_score(total, cap),
        }
        if name in NON_ZERO_DEFAULTS and pod_actual.get(name) != pod_request:
            entry["podRequestActual"] = pod_actual.get(name)
            entry["nonZeroDefault"] = NON_ZERO_DEFAULTS[name]
        if name in NON_ZERO_DEFAULTS and node.requested.get(name) != entry["nodeRequested"]:
            entry["nodeRequestedActual"] = node.requested.get(name)
        resources.append(entry)
    return {"strategy": strategy.type, "resources": resources}


@dataclass(frozen=True)
class ScoringStrategy:
    """``NodeResourcesFitArgs.scoringStrategy``: type, (resource, weight) pairs and the ratio shape."""

    type: str = LEAST_ALLOCATED
    resources: tuple[tuple[str, int], ...] = DEFAULT_RESOURCES
    shape: tuple[tuple[int, int], ...] = field(default=())

    def score(self, requested: Sequence[int], allocatable: Sequence[int]) -> int:
        """Apply the strategy to aligned vectors."""
        weights = [w for _, w in self.resources]
        if self.type == MOST_ALLOCATED:
            return most_allocated(requested, allocatable, weights)
        if self.type == REQUESTED_TO_CAPACITY_RATIO:
            return requested_to_capacity_ratio(requested, allocatable, weights, self.shape)
        return least_allocated(requested, allocatable, weights)

    def resource_score(self, requested: int, capacity: int) -> int:
        """One resource's score under the strategy, before the weighted mean."""
        if self.type == MOST_ALLOCATED:
            return most_requested_score(requested, capacity)
        if self.type == REQUESTED_TO_CAPACITY_RATIO:
            return ratio_resource_score(requested, capacity, self.shape)
        return least_requested_score(requested, capacity)

    def score_nodes(self, requested: np.ndarray, allocatable: np.ndarray) -> np.ndarray:
        """:meth:`score` over (resources, nodes) arrays."""
        weights = [w for _, w in self.resources]
        if self.type == MOST_ALLOCATED:
            return most_allocated_nodes(requested, allocatable, weights)
        if self.type == REQUESTED_TO_CAPACITY_RATIO:
            return requested_to_capacity_ratio_nodes(requested, allocatable, weights, self.shape)
        return least_allocated_nodes(requested, allocatable, weights)


class NodeResourcesFit(BasePlugin):
    """PreFilter, Filter, PreScore and Score; no NormalizeScore (the score is already 0..100)."""

    name = NAME
    explanation = {"en": EXPLANATION_EN, "zh": EXPLANATION_ZH}

    def __init__(
        self,
        strategy: ScoringStrategy | None = None,
        ignored_resources: frozenset[str] = frozenset(),
        ignored_resource_groups: frozenset[str] = frozenset(),
    ) -> None:
        self.strategy = strategy or ScoringStrategy()
        self.ignored_resources = ignored_resources
        self.ignored_resource_groups = ignored_resource_groups
        self.legacy_names = {"filter": LEGACY_FILTER_NAME, "score": LEGACY_SCORE_NAMES[self.strategy.type]}
        self._score_resources = tuple(name for name, _ in self.strategy.resources)

    def pre_filter(self, state: CycleState, pod: PodInfo) -> tuple[Status, PreFilterResult | None]:
        """Never skips: even a Pod requesting nothing needs a free Pod slot."""
        state.write(NAME, pod.requests)
        return Status(), None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        """All insufficient resources at once; unresolvable if one exceeds the whole node."""
        missing = fits_request(
            state.get(NAME) or pod.requests, node, self.ignored_resources, self.ignored_resource_groups
        )
        if not missing:
            return Status()
        reasons = tuple(m.reason for m in missing)
        if any(m.unresolvable for m in missing):
            return Status.unresolvable(*reasons)
        return Status.unschedulable(*reasons)

    def filter_nodes(self, state: CycleState, pod: PodInfo, nodes: NodeTable) -> NodeStatuses:
        """:meth:`filter` on every node at once."""
        request = state.get(NAME) or pod.requests
        return fits_request_nodes(request, nodes, self.ignored_resources, self.ignored_resource_groups)

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status:
        """Compute the Pod's scoring requests once (with the non-zero defaults)."""
        state.write(NAME + "/score", [pod.non_zero_requests.get(name) for name, _ in self.strategy.resources])
        return Status()

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        """The strategy's score for this node."""
        names = self._score_resources
        pod_request = state.get(NAME + "/score") or [pod.non_zero_requests.get(n) for n in names]
        requested, allocatable = resource_vectors(node, names, pod_request, use_requested=False)
        return self.strategy.score(requested, allocatable)

    def explain_filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any]:
        """:func:`fit_inputs` on this node."""
        request = state.get(NAME) or pod.requests
        return fit_inputs(request, node, self.ignored_resources, self.ignored_resource_groups)

    def explain_score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any]:
        """:func:`score_inputs` on this node."""
        names = self._score_resources
        pod_request = state.get(NAME + "/score") or [pod.non_zero_requests.get(n) for n in names]
        return score_inputs(self.strategy, node, pod.requests, pod_request)

    def explain_key(self, state: CycleState, pod: PodInfo, scoring: bool) -> Hashable:
        """What the inputs on a node depend on besides the node: the requests the filter checks, or the
        scoring requests and actual requests of the scored resources."""
        if not scoring:
            request = state.get(NAME) or pod.requests
            return tuple(checked_resources(request, self.ignored_resources, self.ignored_resource_groups))
        names = self._score_resources
        pod_request = state.get(NAME + "/score") or [pod.non_zero_requests.get(n) for n in names]
        return tuple(pod_request), tuple(pod.requests.get(n) for n in names)

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: NodeTable, rows: np.ndarray) -> np.ndarray:
        """:meth:`score` for the given rows at once."""
        names = self._score_resources
        pod_request = state.get(NAME + "/score") or [pod.non_zero_requests.get(n) for n in names]

        def compute(some: np.ndarray) -> np.ndarray:
            requested, allocatable = resource_columns(nodes, some, names, pod_request, use_requested=False)
            return self.strategy.score_nodes(requested, allocatable)

        # A node's score depends only on its own requests and allocatable, and the Pod's scoring requests.
        return nodes.per_row((NAME, self.strategy, tuple(pod_request)), rows, compute)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A bound Pod deleted (or scaled down), a node added or given more allocatable."""
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.DELETE | ActionType.UPDATE_POD_SCALE_DOWN), hint_pod_event
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE), hint_node_change
            ),
        ]


def hint_pod_event(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    """Queue when a bound Pod is deleted or scaled down."""
    changed = new if new is not None else old
    if not changed or not (changed.get("spec") or {}).get("nodeName"):
        return QueueingHint.SKIP
    return QueueingHint.QUEUE


def hint_node_change(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    """Queue when the Pod would fit on the (empty) new node and the node is new or its allocatable changed."""
    if not new:
        return QueueingHint.SKIP
    empty = NodeInfo(new)
    if any(m.resource != PODS for m in fits_request(pod_requests(pod), empty)):
        return QueueingHint.SKIP
    if old is not None and (old.get("status") or {}).get("allocatable") == (new.get("status") or {}).get("allocatable"):
        return QueueingHint.SKIP
    return QueueingHint.QUEUE
