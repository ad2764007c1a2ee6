"""The record of one scheduling attempt, as the browser's filter-and-score table shows it.

``DecisionRecord.to_dict()`` is the body of the ``schedulingdecisions`` resource:
for every node each filter's result and reason, for every feasible node each score
plugin's raw, normalised and weighted score, the totals, the winner and how a tie
was broken, or upstream's ``0/N nodes are available: ...`` message.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

import numpy as np

# Beyond this many nodes a record keeps full rows only for the best candidates
# (and the selected node); the other nodes are summarised as counts of reasons.
DETAIL_LIMIT = 500
TOP_CANDIDATES = 50


@dataclass(frozen=True)
class FilterResult:
    """One Filter plugin's verdict on one node."""

    plugin: str
    legacy_name: str
    status: str
    reason: str = ""
    # False on a node a PreFilter node set left out: upstream never runs this filter there.
    upstream: bool = True

    @cached_property
    def body(self) -> dict[str, Any]:
        """:meth:`to_dict`, made once and shared by every record row that holds this result (never change it)."""
        return self.to_dict()

    def to_dict(self) -> dict[str, Any]:
        """API shape: plugin, legacyName, status, reason (and ``upstreamRan: false`` where upstream skips it)."""
        body: dict[str, Any] = {
            "plugin": self.plugin,
            "legacyName": self.legacy_name,
            "status": self.status,
            "reason": self.reason,
        }
        if not self.upstream:
            body["upstreamRan"] = False
        return body


@dataclass(frozen=True)
class ScoreResult:
    """One Score plugin's contribution to one node's total.

    ``raw`` and ``normalized`` are None when the plugin skipped this Pod at PreScore
    (it then contributes 0). ``needed`` is False when upstream would not have
    scored at all (a single feasible node).
    """

    plugin: str
    legacy_name: str
    raw: int | None
    normalized: int | None
    weight: int
    weighted: int
    needed: bool = True

    def to_dict(self) -> dict[str, Any]:
        """API shape: plugin, legacyName, raw, normalized, weight, weighted, needed."""
        return {
            "plugin": self.plugin,
            "legacyName": self.legacy_name,
            "raw": self.raw,
            "normalized": self.normalized,
            "weight": self.weight,
            "weighted": self.weighted,
            "needed": self.needed,
        }


@dataclass(frozen=True)
class NodeDecision:
    """Everything the attempt concluded about one node."""

    name: str
    filters: tuple[FilterResult, ...]
    scores: tuple[ScoreResult, ...] = ()
    total: int | None = None
    feasible: bool = False


@dataclass(frozen=True)
class NodeInputs:
    """What each plugin computed its verdict (``filters``) and raw score (``scores``) on one node from."""

    filters: dict[str, dict[str, Any]]
    scores: dict[str, dict[str, Any]]


# One plugin's inputs on each listed node, in node order (None where it has nothing to show).
InputsColumn = list[dict[str, Any] | None]


@dataclass(frozen=True)
class Explanation:
    """Every explaining plugin's inputs on a record's listed nodes, by plugin name, in columns.

    A score column holds None on infeasible nodes. A plugin may hand one inputs object to
    several nodes (equal numbers): their record entries are then one shared dict too.
    """

    filters: dict[str, InputsColumn]
    scores: dict[str, InputsColumn]

    def node(self, i: int, scored: bool) -> NodeInputs:
        """Listed node ``i``'s inputs (score inputs only where ``scored``)."""
        return NodeInputs(
            {p: inputs for p, col in self.filters.items() if (inputs := col[i]) is not None},
            {p: inputs for p, col in self.scores.items() if (inputs := col[i]) is not None} if scored else {},
        )


class Explainer(Protocol):
    """Works out the :class:`Explanation` of an attempt's listed nodes when the record is first read."""

    def explain(self, columns: NodeColumns) -> Explanation | None:
        """The listed nodes' inputs; None when the cluster has changed since the attempt."""
        ...


@dataclass(frozen=True)
class FilterColumn:
    """One Filter plugin's results on a record's nodes: node ``i`` has ``results[index[i]]``.

    A plugin gives few distinct results across a cluster (pass, or one of a few
    reasons), so a column stores each once plus one small integer per node.
    """

    results: tuple[FilterResult, ...]
    index: np.ndarray

    def entries(self, inputs: InputsColumn | None) -> list[dict[str, Any]]:
        """Each node's record entry: the shared body of its result, or that body with the node's ``inputs``
        (one dict per distinct result and inputs object, so nodes with equal inputs share it)."""
        bodies = [r.body for r in self.results]
        if inputs is None:
            return [bodies[k] for k in self.index.tolist()]
        merged: dict[tuple[int, int], dict[str, Any]] = {}
        out = []
        for k, given in zip(self.index.tolist(), inputs, strict=True):
            if given is None:
                out.append(bodies[k])
                continue
            entry = merged.get((k, id(given)))
            if entry is None:
                entry = merged[(k, id(given))] = {**bodies[k], "inputs": given}
            out.append(entry)
        return out


@dataclass(frozen=True)
class ScoreColumn:
    """One Score plugin's raw and normalised scores on a record's nodes (None when it skipped at PreScore)."""

    plugin: str
    legacy_name: str
    weight: int
    raw: np.ndarray | None
    normalized: np.ndarray | None
    needed: bool = True


@dataclass(frozen=True)
class OmittedNodes:
    """What a big cluster's record says about the nodes it lists no rows for."""

    count: int
    feasible: int
    reasons: tuple[tuple[str, str, int], ...]  # (plugin, reason, nodes)

    def to_dict(self) -> dict[str, Any]:
        """API shape of ``omittedNodes``."""
        return {
            "count": self.count,
            "feasible": self.feasible,
            "reasons": [{"plugin": p, "reason": r, "nodes": n} for p, r, n in self.reasons],
        }


@dataclass(frozen=True)
class NodeColumns:
    """An attempt's per-node results in columns, one entry per listed node (in name order).

    ``totals`` and the score columns hold meaningful values only where ``feasible``.
    :meth:`decisions` turns the columns into :class:`NodeDecision` rows when
    someone reads the record, so an attempt costs no Python object per node.
    """

    names: tuple[str, ...]
    feasible: np.ndarray
    filters: tuple[FilterColumn, ...]
    scores: tuple[ScoreColumn, ...]
    totals: np.ndarray
    omitted: OmittedNodes | None = None

    def decisions(self) -> tuple[NodeDecision, ...]:
        """One :class:`NodeDecision` per listed node."""
        filter_rows = [[col.results[i] for i in col.index.tolist()] for col in self.filters]
        per_node_filters = list(zip(*filter_rows, strict=True)) if filter_rows else [()] * len(self.names)
        score_rows = [self._score_rows(col) for col in self.scores]
        per_node_scores = list(zip(*score_rows, strict=True)) if score_rows else [()] * len(self.names)
        out = []
        for i, (name, feasible, total) in enumerate(
            zip(self.names, self.feasible.tolist(), self.totals.tolist(), strict=True)
        ):
            if feasible:
                out.append(NodeDecision(name, per_node_filters[i], per_node_scores[i], total, True))
            else:
                out.append(NodeDecision(name, per_node_filters[i]))
        return tuple(out)

    def to_dicts(self, explanation: Explanation | None) -> list[dict[str, Any]]:
        """The API shape of every listed node's :class:`NodeDecision` (name, filters, scores, total, feasible),
        laid out column by column without building the rows; entries carry the ``explanation``'s inputs."""
        filter_inputs = explanation.filters if explanation is not None else {}
        score_inputs = explanation.scores if explanation is not None else {}
        filters = [col.entries(filter_inputs.get(col.results[0].plugin)) for col in self.filters]
        scores = [self._score_entries(col, score_inputs.get(col.plugin)) for col in self.scores]
        per_node_filters = zip(*filters, strict=True) if filters else [()] * len(self.names)
        per_node_scores = zip(*scores, strict=True) if scores else [()] * len(self.names)
        out = []
        for name, feasible, total, node_filters, node_scores in zip(
            self.names, self.feasible.tolist(), self.totals.tolist(), per_node_filters, per_node_scores, strict=True
        ):
            # An infeasible node shows no scores and no total.
            shown = [*node_scores] if feasible else []
            out.append(
                {
                    "name": name,
                    "filters": [*node_filters],
                    "scores": shown,
                    "total": total if feasible else None,
                    "feasible": feasible,
                }
            )
        return out

    def _score_rows(self, col: ScoreColumn) -> list[ScoreResult]:
        if col.raw is None or col.normalized is None:
            skipped = ScoreResult(col.plugin, col.legacy_name, None, None, col.weight, 0, col.needed)
            return [skipped] * len(self.names)
        # Equal (raw, normalised) pairs share one immutable row.
        shared: dict[tuple[int, int], ScoreResult] = {}
        rows = []
        for key in zip(col.raw.tolist(), col.normalized.tolist(), strict=True):
            row = shared.get(key)
            if row is None:
                row = shared[key] = ScoreResult(
                    col.plugin, col.legacy_name, key[0], key[1], col.weight, key[1] * col.weight, col.needed
                )
            rows.append(row)
        return rows

    def _score_entries(self, col: ScoreColumn, inputs: InputsColumn | None) -> list[dict[str, Any]]:
        """Each node's score entry (infeasible nodes get one they never show), shared as
        :meth:`FilterColumn.entries` shares them, by (raw, normalised) pair and inputs object."""
        if col.raw is None or col.normalized is None:
            skipped = ScoreResult(col.plugin, col.legacy_name, None, None, col.weight, 0, col.needed).to_dict()
            return [skipped] * len(self.names)
        given = inputs if inputs is not None else [None] * len(self.names)
        shared: dict[tuple[int, int, int], dict[str, Any]] = {}
        out = []
        for raw, normalized, node_inputs in zip(col.raw.tolist(), col.normalized.tolist(), given, strict=True):
            key = (raw, normalized, id(node_inputs))
            entry = shared.get(key)
            if entry is None:
                result = ScoreResult(
                    col.plugin, col.legacy_name, raw, normalized, col.weight, normalized * col.weight, col.needed
                )
                entry = result.to_dict()
                if node_inputs is not None:
                    entry["inputs"] = node_inputs
                shared[key] = entry
            out.append(entry)
        return out


def omitted_summary(feasible: np.ndarray, counts: Counter[tuple[str, str]]) -> OmittedNodes:
    """Summarise nodes left out of a big record: how many, how many feasible, and how often each
    (plugin, reason) was a node's first failure, most frequent first."""
    reasons = tuple(sorted(((p, r, n) for (p, r), n in counts.items()), key=lambda t: (-t[2], t[0], t[1])))
    return OmittedNodes(len(feasible), int(feasible.sum()), reasons)


@dataclass(frozen=True)
class TieBreak:
    """How the winner was picked among the nodes sharing the best total.

    ``method`` is ``none`` (no feasible node), ``single-feasible`` (chosen without
    scoring), ``nominated-node`` (the node an earlier preemption nominated, tried
    first and alone), ``highest-total`` (one node had the best total) or ``reservoir``
    (upstream's uniform random pick, replayed with a seeded RNG over the tied
    nodes in name order; ``draws`` lists each ``rand.Intn(k)``).
    ``tied`` holds the tied nodes' names as the cycle found them: a tuple, or a view of
    the node table's names by row (a big cluster's ties run to thousands of nodes, and
    looking each name up costs a cache miss); ``candidates`` makes it a tuple on first read.
    """

    method: str
    tied: Sequence[str] = field(default=(), compare=False)  # compared through ``draws`` and ``text``
    draws: tuple[tuple[str, int, int], ...] = ()
    text: str = ""

    @cached_property
    def candidates(self) -> tuple[str, ...]:
        """The tied nodes, in name order."""
        return tuple(self.tied)

    def to_dict(self) -> dict[str, Any]:
        """API shape of ``tieBreak``."""
        return {
            "method": self.method,
            "candidates": list(self.candidates),
            "draws": [{"node": n, "k": k, "draw": d} for n, k, d in self.draws],
            "text": self.text,
        }


@dataclass(frozen=True)
class PodRef:
    """The Pod an attempt was for."""

    namespace: str
    name: str
    uid: str = ""

    def to_dict(self) -> dict[str, Any]:
        """API shape: namespace, name, uid."""
        return {"namespace": self.namespace, "name": self.name, "uid": self.uid}


@dataclass(frozen=True)
class DecisionRecord:
    """One scheduling attempt. ``to_dict()`` is what the API serves; the other fields feed the scheduler loop.

    ``unschedulable_plugins`` (plugins that rejected the Pod) and ``error`` drive the
    queue; ``nominated_node``/``victims`` report a preemption that would help;
    ``next_start_index`` is the rotating start of the next attempt's node walk.
    """

    pod: PodRef
    attempt: int
    time: float
    profile: str
    columns: NodeColumns | None
    selected: str | None
    message: str = ""
    scoring_needed: bool = False
    tie_break: TieBreak = field(default_factory=lambda: TieBreak("none"))
    unschedulable_plugins: frozenset[str] = frozenset()
    error: str = ""
    nominated_node: str | None = None
    victims: tuple[str, ...] = ()
    # The PostFilter plugin's dry run and choice (candidates, their victims, why one won), already in API shape.
    post_filter: dict[str, Any] | None = field(default=None, compare=False)
    next_start_index: int = 0
    explainer: Explainer | None = field(default=None, compare=False, repr=False)

    @cached_property
    def nodes(self) -> tuple[NodeDecision, ...]:
        """The listed nodes' rows, built from the columns on first read."""
        return self.columns.decisions() if self.columns is not None else ()

    @cached_property
    def explanation(self) -> Explanation | None:
        """The plugins' inputs on the listed nodes (None for a big cluster's record, or once the cluster has
        moved on: worked out on first read)."""
        if self.explainer is None or self.columns is None:
            return None
        return self.explainer.explain(self.columns)

    @cached_property
    def inputs(self) -> dict[str, NodeInputs]:
        """Every listed node's plugin inputs, by node name (empty without an :attr:`explanation`)."""
        if self.explanation is None or self.columns is None:
            return {}
        scored = self.columns.feasible.tolist()
        return {name: self.explanation.node(i, scored[i]) for i, name in enumerate(self.columns.names)}

    def totals(self) -> dict[str, int]:
        """Total score of every listed feasible node, without building the rows."""
        if self.columns is None:
            return {}
        c = self.columns
        return {n: t for n, f, t in zip(c.names, c.feasible.tolist(), c.totals.tolist(), strict=True) if f}

    @property
    def tied(self) -> tuple[str, ...]:
        """The nodes that shared the best total (the selected one alone when there was no tie to break)."""
        return self.tie_break.candidates

    @property
    def scheduled(self) -> bool:
        """True when a node was selected."""
        return self.selected is not None

    def node(self, name: str) -> NodeDecision:
        """The entry of one node (KeyError if absent)."""
        for entry in self.nodes:
            if entry.name == name:
                return entry
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        """The ``schedulingdecisions`` body (camelCase keys)."""
        body = {
            "pod": self.pod.to_dict(),
            "attempt": self.attempt,
            "time": self.time,
            "profile": self.profile,
            "nodes": self.columns.to_dicts(self.explanation) if self.columns is not None else [],
            "selected": self.selected,
            "tied": list(self.tied),
            "message": self.message,
            "scoringNeeded": self.scoring_needed,
            "tieBreak": self.tie_break.to_dict(),
        }
        if self.columns is not None and self.columns.omitted is not None:
            body["omittedNodes"] = self.columns.omitted.to_dict()
        if self.post_filter is not None:
            body["postFilter"] = self.post_filter
        return body
