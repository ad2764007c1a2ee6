"""ImageLocality: prefer nodes that already hold the Pod's images, weighted by size and spread.

Upstream: ``pkg/scheduler/framework/plugins/imagelocality/image_locality.go``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from clusterviz.scheduler.framework import MAX_NODE_SCORE, BasePlugin, CycleState, go_div, go_div_nodes
from clusterviz.scheduler.nodeinfo import ImageStateSummary, NodeInfo, PodInfo
from clusterviz.scheduler.nodetable import NodeTable, at_rows

NAME = "ImageLocality"
LEGACY_SCORE_NAME = "ImageLocalityPriority"

MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB

EXPLANATION_EN = (
    "Prefers nodes that already have the Pod's images; bigger images count more, "
    "images present on few nodes count less (to avoid piling Pods onto one node)."
)
EXPLANATION_ZH = (
    "优先选择已有 Pod 所需镜像的节点；镜像越大加分越多，只存在于少数节点上的镜像加分较少（避免 Pod 扎堆）。"
)


def normalized_image_name(name: str) -> str:
    """Append ``:latest`` when the reference has no tag; no registry prefix is added."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def scaled_image_score(state: ImageStateSummary, total_num_nodes: int) -> int:
    """``int(size * (numNodes / totalNumNodes))`` in float64, truncated, as upstream computes it."""
    spread = state.num_nodes / total_num_nodes
    return int(state.size * spread)


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    """Clamp the sum into [23 MB, 1000 MB x containers] and map linearly onto 0..100 (integer division)."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    # The if/elif order matters for a Pod without containers (max below min): score 0.
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return go_div(MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD), max_threshold - MIN_THRESHOLD)


def calculate_priority_nodes(sum_scores: np.ndarray, num_containers: int) -> np.ndarray:
    """:func:`calculate_priority` elementwise."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    clamped = np.where(
        sum_scores < MIN_THRESHOLD, MIN_THRESHOLD, np.where(sum_scores > max_threshold, max_threshold, sum_scores)
    )
    return go_div_nodes(MAX_NODE_SCORE * (clamped - MIN_THRESHOLD), max_threshold - MIN_THRESHOLD)


def pod_images(spec: Mapping[str, Any]) -> tuple[tuple[str, ...], int]:
    """The normalised image names of the Pod's containers (init containers too) and their count."""
    containers = list(spec.get("initContainers") or []) + list(spec.get("containers") or [])
    return tuple(normalized_image_name(c.get("image") or "") for c in containers), len(containers)


def sum_image_scores(node: NodeInfo, images: Sequence[str], total_num_nodes: int) -> int:
    """Sum of the spread-scaled sizes of the given images present on the node."""
    total = 0
    for name in images:
        state = node.image_state(name)
        if state is not None:
            total += scaled_image_score(state, total_num_nodes)
    return total


def image_inputs(node: NodeInfo, images: Sequence[str], num_containers: int, total_num_nodes: int) -> dict[str, Any]:
    """The numbers behind one node's score, for the decision record.

    Every image of the Pod with, where the node has it, its size, on how many of
    the snapshot's nodes it is, and its spread-scaled size; then the sum and the
    thresholds it is clamped into.
    """
    entries, total = [], 0
    for name in images:
        state = node.image_state(name)
        if state is None:
            entries.append({"name": name, "present": False})
            continue
        scaled = scaled_image_score(state, total_num_nodes)
        total += scaled
        entries.append(
            {"name": name, "present": True, "size": state.size, "numNodes": state.num_nodes, "scaled": scaled}
        )
    return {
        "images": entries,
        "totalNodes": total_num_nodes,
        "sum": total,
        "minThreshold": MIN_THRESHOLD,
        "maxThreshold": MAX_CONTAINER_THRESHOLD * num_containers,
    }


class ImageLocality(BasePlugin):
    """Score only; no PreScore (so it never skips) and no NormalizeScore."""

    name = NAME
    legacy_names = {"score": LEGACY_SCORE_NAME}
    explanation = {"en": EXPLANATION_EN, "zh": EXPLANATION_ZH}

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        """Spread counts every node of the snapshot, not only the feasible ones."""
        total = len(state.snapshot) if state.snapshot is not None else 1
        images, count = self._images(state, pod)
        return calculate_priority(sum_image_scores(node, images, max(total, 1)), count)

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: NodeTable, rows: np.ndarray) -> np.ndarray:
        """:meth:`score` for the given rows: an image's scaled size is the same on every node holding it."""
        snapshot = state.snapshot
        assert snapshot is not None
        images, count = self._images(state, pod)
        total = max(len(snapshot), 1)
        summaries = ((name, snapshot.images.summary(name)) for name in images)
        scaled = tuple((name, scaled_image_score(summary, total)) for name, summary in summaries if summary is not None)

        def build(table: NodeTable) -> np.ndarray:
            sums = np.zeros(len(table), np.int64)
            for name, score in scaled:
                sums += table.has_image(name) * score
            return calculate_priority_nodes(sums, count)

        # The nodes' images, not their Pods, decide: the scores last until a node changes.
        return at_rows(nodes.derived((NAME, scaled, count), build), rows)

    def explain_score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any]:
        """:func:`image_inputs` on this node."""
        total = len(state.snapshot) if state.snapshot is not None else 1
        images, count = self._images(state, pod)
        return image_inputs(node, images, count, max(total, 1))

    def explain_key(self, state: CycleState, pod: PodInfo, scoring: bool) -> Hashable | None:
        """Besides the node's own images: the Pod's images, how many nodes each is on and the node count."""
        if state.snapshot is None:
            return None
        images, count = self._images(state, pod)
        index = state.snapshot.images
        return images, count, len(state.snapshot), tuple(index.summary(name) for name in images)

    def _images(self, state: CycleState, pod: PodInfo) -> tuple[tuple[str, ...], int]:
        images = state.get(NAME)
        if images is None:
            # The Pod's images are the same on every node: work them out once per attempt.
            images = pod_images(pod.spec)
            state.write(NAME, images)
        return images
