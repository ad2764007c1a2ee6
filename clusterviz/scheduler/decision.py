"""The record of one scheduling attempt, as the browser's filter-and-score table shows it.

``DecisionRecord.to_dict()`` is the body of the ``schedulingdecisions`` resource:
for every node each filter's result and reason, for every feasible node each score
plugin's raw, normalised and weighted score, the totals, the winner and how a tie
was broken, or upstream's ``0/N nodes are available: ...`` message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class FilterResult:
    """One Filter plugin's verdict on one node."""

    plugin: str
    legacy_name: str
    status: str
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        """API shape: plugin, legacyName, status, reason."""
        return {"plugin": self.plugin, "legacyName": self.legacy_name, "status": self.status, "reason": self.reason}


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

    def to_dict(self) -> dict[str, Any]:
        """API shape: name, filters, scores, total, feasible."""
        return {
            "name": self.name,
            "filters": [f.to_dict() for f in self.filters],
            "scores": [s.to_dict() for s in self.scores],
            "total": self.total,
            "feasible": self.feasible,
        }


@dataclass(frozen=True)
class TieBreak:
    """How the winner was picked among the nodes sharing the best total.

    ``method`` is ``none`` (no feasible node), ``single-feasible`` (chosen without
    scoring), ``highest-total`` (one node had the best total) or ``reservoir``
    (upstream's uniform random pick, replayed with a seeded RNG over the tied
    nodes in name order; ``draws`` lists each ``rand.Intn(k)``).
    """

    method: str
    candidates: tuple[str, ...] = ()
    draws: tuple[tuple[str, int, int], ...] = ()
    text: str = ""

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
    nodes: tuple[NodeDecision, ...]
    selected: str | None
    tied: tuple[str, ...] = ()
    message: str = ""
    scoring_needed: bool = False
    tie_break: TieBreak = field(default_factory=lambda: TieBreak("none"))
    unschedulable_plugins: frozenset[str] = frozenset()
    error: str = ""
    nominated_node: str | None = None
    victims: tuple[str, ...] = ()
    next_start_index: int = 0

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
        return {
            "pod": self.pod.to_dict(),
            "attempt": self.attempt,
            "time": self.time,
            "profile": self.profile,
            "nodes": [n.to_dict() for n in self.nodes],
            "selected": self.selected,
            "tied": list(self.tied),
            "message": self.message,
            "scoringNeeded": self.scoring_needed,
            "tieBreak": self.tie_break.to_dict(),
        }
