"""The scoring panel's PostFilter section: what DefaultPreemption tried when no node fit.

The record's ``postFilter`` (``PreemptionReport.to_dict()``) becomes one row per
candidate node with its victims (the fewest the Pod needs gone, most important
first) and the numbers upstream's ``pickOneNodeForPreemption`` compares, in its
order: PodDisruptionBudgets broken, the highest victim priority, the sum of
victim priorities, the number of victims, the victims' start; the column that
decided is marked, and each losing node says at which criterion it fell behind.
Nodes where evicting could not help say why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from clusterviz.scheduler.plugins import default_preemption as dp

from .language import beside_upstream

# Each criterion as the page names it, in upstream's order.
CRITERIA = {
    dp.BY_PDB_VIOLATIONS: gettext_lazy("fewest PodDisruptionBudget violations"),
    dp.BY_HIGHEST_PRIORITY: gettext_lazy("its most important victim has the lowest priority"),
    dp.BY_PRIORITY_SUM: gettext_lazy("smallest sum of victim priorities"),
    dp.BY_VICTIM_COUNT: gettext_lazy("fewest victims"),
    dp.BY_START_TIME: gettext_lazy("victims started most recently"),
    dp.BY_ORDER: gettext_lazy("first of the tied nodes"),
}


@dataclass(frozen=True)
class VictimView:
    """One Pod the node would lose."""

    name: str
    priority: int
    violates_budget: bool


@dataclass(frozen=True)
class CandidateRow:
    """A candidate node, its victims and the numbers it is compared by."""

    node: str
    victims: list[VictimView]
    pdb_violations: int
    highest: int
    total: int
    chosen: bool
    verdict: str

    @property
    def count(self) -> int:
        """How many Pods would be evicted."""
        return len(self.victims)


@dataclass(frozen=True)
class PostFilterView:
    """Everything the PostFilter section draws."""

    nominated: str | None
    decided_by: str
    candidates: list[CandidateRow]
    not_candidates: list[tuple[str, SafeString]]

    @property
    def summary(self) -> str:
        """One sentence: whom preemption evicts where, or that it cannot help."""
        chosen = next((c for c in self.candidates if c.chosen), None)
        if chosen is None:
            return _("Preemption cannot help: no node has lower-priority Pods whose eviction would make room.")
        return _("%(victims)s will be evicted from %(node)s; the Pod waits nominated to %(node)s until they are gone.") % {
            "victims": ", ".join(v.name for v in chosen.victims),
            "node": chosen.node,
        }


def _upstream(reason: str) -> SafeString:
    """A scheduler reason translated with upstream's English beside it; marked English when there is no translation."""
    shown = beside_upstream(reason)
    return format_html('<span lang="en">{}</span>', reason) if shown == reason else shown


def _verdict(node: str, chosen: bool, decided_by: str, eliminated: str, alone: bool) -> str:
    if chosen:
        if alone:
            return _("chosen: the only candidate")
        return _("chosen: %(criterion)s") % {"criterion": CRITERIA.get(decided_by, decided_by)}
    return _("not chosen: %(criterion)s") % {"criterion": CRITERIA.get(eliminated, eliminated)}


def build_post_filter(record: dict[str, Any]) -> PostFilterView | None:
    """The PostFilter section of a decision record, or None when the attempt ran no PostFilter."""
    section = record.get("postFilter")
    if not isinstance(section, dict):
        return None
    raw = section.get("candidates") or []
    rows = []
    for entry in raw:
        victims = [VictimView(v["name"], int(v["priority"]), bool(v.get("violatesBudget"))) for v in entry["victims"]]
        rows.append(
            CandidateRow(
                entry["node"],
                victims,
                int(entry.get("pdbViolations") or 0),
                max((v.priority for v in victims), default=0),
                sum(v.priority for v in victims),
                bool(entry.get("chosen")),
                _verdict(entry["node"], bool(entry.get("chosen")), section.get("decidedBy") or "",
                         entry.get("eliminatedBy") or "", len(raw) == 1),
            )
        )
    others = [(n["node"], _upstream(n["reason"])) for n in section.get("notCandidates") or []]
    return PostFilterView(
        section.get("nominatedNode"),
        section.get("decidedBy") or "",
        rows,
        others,
    )
