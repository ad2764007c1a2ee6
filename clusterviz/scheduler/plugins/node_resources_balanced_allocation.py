"""NodeResourcesBalancedAllocation: prefer nodes whose resource usage fractions are close together.

Upstream: ``pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go`` (v1.35):
``score = int((1 - std) * 100)`` over the fractions ``requested / allocatable``
(capped at 1), with *actual* requests (no 100m / 200Mi defaults), and a PreScore
Skip for Pods that request none of the configured resources.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from clusterviz.scheduler.framework import MAX_NODE_SCORE, BasePlugin, CycleState, Status
from clusterviz.scheduler.nodeinfo import CPU, MEMORY, NodeInfo, PodInfo
from clusterviz.scheduler.nodetable import NodeTable
from clusterviz.scheduler.plugins.node_resources_fit import resource_columns, resource_vectors

NAME = "NodeResourcesBalancedAllocation"
LEGACY_SCORE_NAME = "BalancedResourceAllocation"

EXPLANATION_EN = (
    "Prefers the node whose CPU and memory usage fractions would be closest to each other after placing "
    "the Pod (score = (1 - standard deviation) x 100)."
)
EXPLANATION_ZH = "放置 Pod 后，CPU 与内存使用比例越接近的节点得分越高（得分 =（1 − 标准差）× 100）。"

DEFAULT_RESOURCES: tuple[str, ...] = (CPU, MEMORY)


def balanced_score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """Upstream's ``balancedResourceScorer``.

    Fractions skip resources with allocatable 0 and are capped at 1. Two fractions:
    ``std = |f1 - f2| / 2``; more: the population standard deviation; fewer: 0.
    """
    fractions = [min(r / a, 1.0) for r, a in zip(requested, allocatable, strict=True) if a != 0]
    return int((1 - fraction_std(fractions)) * MAX_NODE_SCORE)


def fraction_std(fractions: Sequence[float]) -> float:
    """The standard deviation the score subtracts: ``|f1 - f2| / 2`` for two fractions, population std for more."""
    if len(fractions) == 2:
        return abs((fractions[0] - fractions[1]) / 2)
    if len(fractions) > 2:
        mean = sum(fractions) / len(fractions)
        return math.sqrt(sum((f - mean) * (f - mean) for f in fractions) / len(fractions))
    return 0.0


def balanced_inputs(node: NodeInfo, resources: Sequence[str], pod_request: Sequence[int]) -> dict[str, Any]:
    """The numbers behind one node's score, for the decision record.

    Per resource with allocatable: the Pod's actual request, what the node's Pods
    request before it, allocatable, and the fractions with and before the Pod
    (capped at 1); then the standard deviation of the fractions with the Pod.
    """
    requested, allocatable = resource_vectors(node, resources, pod_request, use_requested=True)
    entries, fractions = [], []
    for name, req, total, cap in zip(resources, pod_request, requested, allocatable, strict=True):
        if not cap:
            continue  # left out of the score, as upstream does
        fractions.append(min(total / cap, 1.0))
        entries.append(
            {
                "name": name,
                "podRequest": req,
                "nodeRequested": total - req,
                "allocatable": cap,
                "fraction": fractions[-1],
                "fractionBefore": min((total - req) / cap, 1.0),
            }
        )
    return {"resources": entries, "std": fraction_std(fractions)}


def balanced_score_nodes(requested: np.ndarray, allocatable: np.ndarray) -> np.ndarray:
    """:func:`balanced_score` over (resources, nodes) arrays, with the same float operations in the same order."""
    present = allocatable != 0
    fractions = np.where(present, np.minimum(requested / np.where(present, allocatable, 1), 1.0), 0.0)
    count = present.sum(axis=0)
    std = np.zeros(requested.shape[1])
    two = count == 2
    if two.any():
        high = np.where(present, fractions, -np.inf).max(axis=0)
        low = np.where(present, fractions, np.inf).min(axis=0)
        std[two] = ((high - low) / 2)[two]
    more = count > 2
    if more.any():
        n = np.maximum(count, 1)
        mean = fractions.sum(axis=0) / n
        deviation = np.where(present, fractions - mean, 0.0)
        std[more] = np.sqrt((deviation * deviation).sum(axis=0) / n)[more]
    return ((1 - std) * MAX_NODE_SCORE).astype(np.int64)


def fraction_score(fractions: Sequence[float]) -> int:
    """The same score from ready-made fractions (e.g. the seeds' 20%:60% -> 80)."""
    scale = 1_000_000
    return balanced_score([round(f * scale) for f in fractions], [scale] * len(fractions))


class NodeResourcesBalancedAllocation(BasePlugin):
    """PreScore and Score; no NormalizeScore."""

    name = NAME
    legacy_names = {"score": LEGACY_SCORE_NAME}
    explanation = {"en": EXPLANATION_EN, "zh": EXPLANATION_ZH}

    def __init__(self, resources: Sequence[str] = DEFAULT_RESOURCES) -> None:
        self.resources = tuple(resources)

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status:
        """Skip best-effort Pods (all configured requests 0), see kubernetes issue #129138."""
        requests = [pod.requests.get(name) for name in self.resources]
        if not any(requests):
            return Status.skip()
        state.write(NAME, requests)
        return Status()

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        """Balance of the node's actual requests plus the Pod's."""
        pod_request = state.get(NAME) or [pod.requests.get(name) for name in self.resources]
        requested, allocatable = resource_vectors(node, self.resources, pod_request, use_requested=True)
        return balanced_score(requested, allocatable)

    def explain_score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any]:
        """:func:`balanced_inputs` on this node."""
        pod_request = state.get(NAME) or [pod.requests.get(name) for name in self.resources]
        return balanced_inputs(node, self.resources, pod_request)

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: NodeTable, rows: np.ndarray) -> np.ndarray:
        """:meth:`score` for the given rows at once."""
        pod_request = state.get(NAME) or [pod.requests.get(name) for name in self.resources]

        def compute(some: np.ndarray) -> np.ndarray:
            requested, allocatable = resource_columns(nodes, some, self.resources, pod_request, use_requested=True)
            return balanced_score_nodes(requested, allocatable)

        # A node's score depends only on its own requests and allocatable, and the Pod's requests.
        return nodes.per_row((NAME, self.resources, tuple(pod_request)), rows, compute)
