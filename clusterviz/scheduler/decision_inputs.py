"""A decision record's inputs: what each plugin decided with on each listed node, worked out when the record is read.

The inputs of a plugin whose inputs on a node depend on that node alone (``NodeLocalExplanation``:
NodeResourcesFit, ImageLocality) are kept with the node (``NodeInfo.explained``) and taken again by the
next attempt while the node's NodeInfo generation and the plugin's key (the Pod's requests, its images)
are the same: from one attempt to the next only the node the last Pod went to changed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from clusterviz.scheduler.decision import Explanation, NodeColumns
from clusterviz.scheduler.framework import CycleState, ExplainFilterPlugin, ExplainScorePlugin, NodeLocalExplanation
from clusterviz.scheduler.nodeinfo import NodeInfo, PodInfo
from clusterviz.scheduler.plugins import FILTER, SCORE
from clusterviz.scheduler.profile import Profile


class Explainer:
    """What an attempt decided with, so that each plugin can lay out its inputs when the record is read.

    Plugins explain from the attempt's own CycleState and the snapshot's nodes, so
    the inputs are worked out only while the snapshot is still the one the attempt
    saw (the scheduler stores the record before it assumes the Pod). Nothing is
    computed for a record nobody reads, which keeps the cycle as fast as before.
    """

    def __init__(self, profile: Profile, state: CycleState, pod: PodInfo, pre_rejected: frozenset[str]) -> None:
        assert state.snapshot is not None
        self.profile, self.state, self.pod = profile, state, pod
        self.generation = state.snapshot.generation
        # A plugin that rejected at PreFilter wrote no state for its Filter to explain from.
        self.skip_filters = frozenset(state.skip_filter_plugins) | pre_rejected

    def explain(self, columns: NodeColumns) -> Explanation | None:
        """The listed nodes' inputs: every Filter that ran, and every Score plugin that scored, on feasible nodes."""
        snapshot, state = self.state.snapshot, self.state
        if snapshot is None or snapshot.generation != self.generation:
            return None
        filters = [
            p for p in self.profile.at(FILTER) if p.name not in self.skip_filters and isinstance(p, ExplainFilterPlugin)
        ]
        scores = [
            p
            for p in self.profile.at(SCORE)
            if p.name not in state.skip_score_plugins and isinstance(p, ExplainScorePlugin)
        ]
        nodes = [snapshot.get(name) for name in columns.names]
        scored = [node if feasible else None for node, feasible in zip(nodes, columns.feasible.tolist(), strict=True)]
        # Many nodes have equal inputs (equal capacity, equal Pods): each distinct one is kept once, and the
        # nodes showing it share it and its record entry. Equal JSON text means an equal entry in the record.
        distinct: dict[bytes, dict[str, Any]] = {}

        def shared(inputs: dict[str, Any] | None) -> dict[str, Any] | None:
            return None if inputs is None else distinct.setdefault(orjson.dumps(inputs), inputs)

        pod = self.pod

        def column(
            plugin: Any, scoring: bool, explain: Callable[[CycleState, PodInfo, NodeInfo], dict[str, Any] | None],
            listed: list[NodeInfo | None],
        ) -> list[dict[str, Any] | None]:
            key = plugin.explain_key(state, pod, scoring) if isinstance(plugin, NodeLocalExplanation) else None
            if key is None:
                return [shared(explain(state, pod, n)) if n is not None else None for n in listed]
            out: list[dict[str, Any] | None] = []
            for n in listed:
                if n is None:
                    out.append(None)
                    continue
                kept = n.explained.get((plugin.name, scoring))
                if kept is None or kept[0] is not plugin or kept[1] != n.generation or kept[2] != key:
                    inputs = explain(state, pod, n)
                    kept = (plugin, n.generation, key, inputs, b"" if inputs is None else orjson.dumps(inputs))
                    n.explained[(plugin.name, scoring)] = kept
                out.append(None if kept[3] is None else distinct.setdefault(kept[4], kept[3]))
            return out

        return Explanation(
            {p.name: column(p, False, p.explain_filter, nodes) for p in filters},
            {p.name: column(p, True, p.explain_score, scored) for p in scores},
        )
