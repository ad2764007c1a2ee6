"""The scoring panel: one scheduling attempt laid out as the lesson tells it, in steps.

A ``schedulingdecisions`` object (``DecisionRecord.to_dict()``) becomes a filter
table (nodes x filter plugins), a score table (feasible nodes x score plugins),
a stacked bar chart of the totals, and a numbered list of steps: the filters
node by node, then the score plugins one by one, then the selection. Every
revealable piece of the page carries its step number, so the browser can step
through the decision without asking the server again.

Where the record carries the plugins' inputs, each cell also shows its
arithmetic (:mod:`clusterviz.web.arithmetic`); the plugin that decided between
the winner and the runner-up is named; plugins equal on every node can be
folded away; and a Pending Pod lists each node's first failing plugin.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from clusterviz.api.client import Client
from clusterviz.scheduler import plugins as registry
from clusterviz.scheduler.plugins import node_resources_fit
from clusterviz.web.arithmetic import default_notes, filter_lines, score_lines

from .language import beside_upstream, chinese
from .postfilter import PostFilterView, build_post_filter

SKIP = "Skip"
SUCCESS = "Success"
# A filter's status code (upstream's name for it) as the page says it.
STATUS_TITLES = {
    SUCCESS: gettext_lazy("passes"),
    SKIP: gettext_lazy("skipped: nothing to check"),
    "Unschedulable": gettext_lazy("rejected; may fit once the cluster changes"),
    "UnschedulableAndUnresolvable": gettext_lazy("rejected; only a change to the node or the Pod helps"),
    "Error": gettext_lazy("the plugin failed"),
}
# Okabe-Ito, without black: distinguishable with every common colour-vision deficiency.
PALETTE = ("#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7")


@cache
def _explanations(plugin: str) -> dict[str, str]:
    try:
        return dict(registry.build(plugin).explanation)
    except KeyError:  # a plugin of a custom profile the registry does not know
        return {}


def explanation(plugin: str) -> str:
    """The plugin's one-sentence explanation in the active language (English when Chinese is missing)."""
    texts = _explanations(plugin)
    return texts.get("zh" if chinese() else "en") or texts.get("en", "")


@dataclass(frozen=True)
class Plugin:
    """A column of one of the tables: the plugin, its legacy (Policy API) name, what it does."""

    name: str
    legacy: str
    explanation: str
    weight: int = 0
    colour: str = ""
    step: int = 0
    equal: bool = False  # the same weighted score on every feasible node: it cannot change the ranking
    decider: bool = False  # its weighted difference decided between the winner and the runner-up

    @property
    def css(self) -> str:
        """``equal`` and/or ``decider``, for the stylesheet and the fold toggle."""
        return " ".join(name for name, on in (("equal", self.equal), ("decider", self.decider)) if on)


@dataclass(frozen=True)
class FilterCell:
    """One filter's verdict on one node: pass, skip, or fail with upstream's reason."""

    status: str
    reason: str
    lines: list[str] = field(default_factory=list)
    # False on a node a PreFilter node set left out: upstream never runs this filter there.
    upstream: bool = True

    @property
    def css(self) -> str:
        """pass / skip / fail, for the stylesheet."""
        return {SUCCESS: "pass", SKIP: "skip"}.get(self.status, "fail")

    @property
    def title(self) -> str:
        """What the status code means, in the page's language."""
        title = str(STATUS_TITLES.get(self.status, self.status))
        if not self.upstream:
            return title + " " + str(_("(upstream never runs this filter here: a PreFilter left the node out)"))
        return title

    @property
    def verdict(self) -> SafeString:
        """Why the node failed: upstream's reason (or the code), translated with the English beside it."""
        return beside_upstream(self.reason or self.status)


@dataclass(frozen=True)
class FilterRow:
    """A node in the filter table; ``step`` reveals its verdicts."""

    node: str
    cells: list[FilterCell]
    feasible: bool
    step: int


@dataclass(frozen=True)
class ScoreCell:
    """One score plugin's contribution to one node; ``raw`` is None when the plugin skipped."""

    raw: int | None
    normalized: int | None
    weight: int
    weighted: int
    step: int
    colour: str
    percent: float
    percent_folded: float  # of the bar drawn without the plugins equal on every node
    css: str = ""
    lines: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ScoreRow:
    """A feasible node in the score table and the bar chart."""

    node: str
    cells: list[ScoreCell]
    total: int
    selected: bool
    tied: bool


@dataclass(frozen=True)
class Blocker:
    """Why a node cannot run a Pending Pod: its first failing filter (the one upstream counts) and the numbers."""

    node: str
    plugin: str
    reason: str
    lines: list[str]


@dataclass(frozen=True)
class Decider:
    """The plugin whose weighted difference decided between the winner and the runner-up."""

    plugin: str
    winner: str
    runner_up: str
    difference: int
    totals: tuple[int, int]

    @property
    def sentence(self) -> str:
        """``NodeResourcesBalancedAllocation decided: node02 +17 over node01 …`` in the page's language."""
        return _("%(plugin)s decided: %(winner)s +%(difference)d over %(runner)s (totals %(a)d and %(b)d).") % {
            "plugin": self.plugin,
            "winner": self.winner,
            "difference": self.difference,
            "runner": self.runner_up,
            "a": self.totals[0],
            "b": self.totals[1],
        }


@dataclass(frozen=True)
class Step:
    """One stop of the walk-through and what the teacher can say at it."""

    number: int
    title: str
    text: str | SafeString
    detail: str | SafeString = ""


@dataclass
class Panel:
    """Everything ``web/scoring.html`` draws for one decision record."""

    record: dict[str, Any]
    filters: list[Plugin]
    skipped_filters: list[Plugin]
    scores: list[Plugin]
    skipped_scores: list[Plugin]
    filter_rows: list[FilterRow]
    score_rows: list[ScoreRow]
    final_step: int
    steps: list[Step] = field(default_factory=list)
    decider: Decider | None = None
    notes: list[str] = field(default_factory=list)
    blockers: list[Blocker] = field(default_factory=list)
    post_filter: PostFilterView | None = None

    @property
    def equal_scores(self) -> list[tuple[Plugin, int]]:
        """The score plugins equal on every feasible node (folded away by default), with that weighted score."""
        if not self.score_rows:
            return []
        first = self.score_rows[0].cells
        return [(p, cell.weighted) for p, cell in zip(self.scores, first, strict=True) if p.equal]

    @property
    def scheduled(self) -> bool:
        """True when the attempt selected a node."""
        return bool(self.record.get("selected"))

    @property
    def tie_break(self) -> str:
        """How the winner was picked, in the page's language (the record's own text is English)."""
        tie = self.record.get("tieBreak") or {}
        method, selected = tie.get("method"), self.record.get("selected") or ""
        best = max((row.total for row in self.score_rows), default=0)
        if method == "reservoir":
            return _(
                "%(count)d nodes share the highest total (%(best)d); one was drawn uniformly at random "
                "(reservoir sampling in name order, seeded): %(node)s."
            ) % {"count": len(tie.get("candidates") or ()), "best": best, "node": selected}
        if method == "highest-total":
            return _("%(node)s has the highest total (%(best)d).") % {"node": selected, "best": best}
        if method == "single-feasible":
            return _("%(node)s is the only feasible node; upstream skips scoring.") % {"node": selected}
        if method == "nominated-node":
            return _(
                "%(node)s is the node preemption nominated and it fits; upstream tries it first and skips the other "
                "nodes."
            ) % {"node": selected}
        return str(tie.get("text") or "")


def _columns(nodes: list[dict[str, Any]], key: str) -> list[tuple[str, str, int]]:
    """(plugin, legacy name, weight) in the order the record lists them, each once."""
    seen: dict[str, tuple[str, str, int]] = {}
    for node in nodes:
        for entry in node.get(key) or []:
            seen.setdefault(
                entry["plugin"], (entry["plugin"], entry.get("legacyName", ""), int(entry.get("weight") or 0))
            )
    return list(seen.values())


def _names(plugins: list[Plugin]) -> str:
    return ", ".join(f"{p.name} ({p.legacy})" if p.legacy else p.name for p in plugins)


def build_panel(record: dict[str, Any]) -> Panel:
    """Lay out one decision record: tables, bars and the numbered walk-through."""
    nodes = record.get("nodes") or []
    filter_results = [{f["plugin"]: f for f in node.get("filters") or []} for node in nodes]
    filters: list[Plugin] = []
    skipped_filters: list[Plugin] = []
    for name, legacy, _weight in _columns(nodes, "filters"):
        ran = any(results.get(name, {}).get("status", SKIP) != SKIP for results in filter_results)
        (filters if ran else skipped_filters).append(Plugin(name, legacy, explanation(name)))

    filter_rows = []
    for index, (node, results) in enumerate(zip(nodes, filter_results, strict=True), start=1):
        verdicts = []
        for p in filters:
            entry = results.get(p.name, {})
            lines = filter_lines(entry) if entry else []
            verdicts.append(
                FilterCell(entry.get("status", SKIP), entry.get("reason", ""), lines, entry.get("upstreamRan", True))
            )
        filter_rows.append(FilterRow(node["name"], verdicts, bool(node.get("feasible")), index))

    feasible = [node for node in nodes if node.get("feasible")]
    score_results = [{s["plugin"]: s for s in node.get("scores") or []} for node in feasible]
    selected, tied = record.get("selected"), set(record.get("tied") or [])
    decider = _decider(feasible, score_results, selected, tied)
    scores: list[Plugin] = []
    skipped_scores: list[Plugin] = []
    for name, legacy, weight in _columns(feasible, "scores"):
        ran = any(results.get(name, {}).get("raw") is not None for results in score_results)
        if ran:
            step = len(nodes) + len(scores) + 1
            distinct = {int(results.get(name, {}).get("weighted") or 0) for results in score_results}
            colour = PALETTE[len(scores) % len(PALETTE)]
            equal = len(feasible) > 1 and len(distinct) == 1
            is_decider = decider is not None and decider.plugin == name
            scores.append(Plugin(name, legacy, explanation(name), weight, colour, step, equal, is_decider))
        else:
            skipped_scores.append(Plugin(name, legacy, explanation(name), weight))
    if all(p.equal for p in scores):
        # A full tie: folding would leave nothing to look at.
        scores = [replace(p, equal=False) for p in scores]
    final_step = len(nodes) + len(scores) + 1

    best = max((int(node.get("total") or 0) for node in feasible), default=0)
    # What every node gets from the equal plugins; the folded bars leave it out.
    common = (
        sum(int(score_results[0].get(p.name, {}).get("weighted") or 0) for p in scores if p.equal) if feasible else 0
    )
    score_rows = []
    for node, results in zip(feasible, score_results, strict=True):
        score_cells: list[ScoreCell] = []
        for plugin in scores:
            entry = results.get(plugin.name, {})
            weighted = int(entry.get("weighted") or 0)
            score_cells.append(
                ScoreCell(
                    entry.get("raw"),
                    entry.get("normalized"),
                    int(entry.get("weight") or plugin.weight),
                    weighted,
                    plugin.step,
                    plugin.colour,
                    _percent(weighted, best),
                    0.0 if plugin.equal else _percent(weighted, best - common),
                    plugin.css,
                    score_lines(entry) if entry else [],
                )
            )
        total = int(node.get("total") or 0)
        score_rows.append(
            ScoreRow(
                node["name"],
                score_cells,
                total,
                node["name"] == selected,
                len(tied) > 1 and node["name"] in tied,
            )
        )

    panel = Panel(record, filters, skipped_filters, scores, skipped_scores, filter_rows, score_rows, final_step)
    panel.decider = decider
    panel.notes = _notes(feasible)
    panel.blockers = [] if feasible else _blockers(panel)
    panel.post_filter = None if feasible else build_post_filter(record)
    panel.steps = _walkthrough(panel)
    return panel


def _decider(
    feasible: list[dict[str, Any]], score_results: list[dict[str, dict[str, Any]]], selected: str | None, tied: set[str]
) -> Decider | None:
    """The plugin with the largest weighted lead of the winner over the runner-up (None on a tie or a lone node)."""
    rows = {
        node["name"]: (int(node.get("total") or 0), results)
        for node, results in zip(feasible, score_results, strict=True)
    }
    if selected is None or selected not in rows or len(rows) < 2 or len(tied) > 1:
        return None
    winner_total, winner = rows[selected]
    # The runner-up: the best other total, the first by name among equals.
    runner_up = min((name for name in rows if name != selected), key=lambda name: (-rows[name][0], name))
    runner_total, runner = rows[runner_up]
    leads = [
        (int(entry.get("weighted") or 0) - int(runner.get(plugin, {}).get("weighted") or 0), plugin)
        for plugin, entry in winner.items()
    ]
    lead, plugin = max(leads, key=lambda t: t[0], default=(0, ""))
    if lead <= 0:
        return None
    return Decider(plugin, selected, runner_up, lead, (winner_total, runner_total))


def _notes(feasible: list[dict[str, Any]]) -> list[str]:
    """Sentences about the whole attempt: the non-zero defaults scoring gave the Pod (the same on every node)."""
    for node in feasible:
        for entry in node.get("scores") or []:
            if entry.get("inputs") and entry["plugin"] == node_resources_fit.NAME:
                return default_notes(entry["inputs"])
    return []


def _blockers(panel: Panel) -> list[Blocker]:
    """Each node's first failing filter in profile order, the one upstream's message counts for it."""
    out = []
    for row in panel.filter_rows:
        for plugin, cell in zip(panel.filters, row.cells, strict=True):
            if cell.css == "fail" and cell.upstream:
                out.append(Blocker(row.node, plugin.name, cell.reason or cell.status, cell.lines))
                break
    return out


def _percent(value: int, best: int) -> float:
    # Bars are drawn against the best total, so the winner's bar is full width.
    return round(max(value, 0) * 100 / best, 2) if best > 0 else 0.0


def _walkthrough(panel: Panel) -> list[Step]:
    """What to say at each step: 0 the start, then a node per filter step, a plugin per score step, the result."""
    pod = panel.record.get("pod") or {}
    steps = [
        Step(
            0,
            _("Filter, then score"),
            _(
                "The scheduler took %(pod)s from its queue. First it filters: which of the %(count)s nodes can run it at all?"
            )
            % {"pod": f"{pod.get('namespace', '')}/{pod.get('name', '')}", "count": len(panel.filter_rows)},
        )
    ]
    for row in panel.filter_rows:
        failed = [(plugin, cell) for plugin, cell in zip(panel.filters, row.cells, strict=True) if cell.css == "fail"]
        if failed:
            text = _("%(node)s is filtered out.") % {"node": row.node}
            detail: str | SafeString = format_html_join(
                " ",
                _("{plugin}: {reason}. {explanation}"),
                (
                    {
                        "plugin": p.name,
                        "reason": format_html("{}{}", c.verdict, " — " + "; ".join(c.lines) if c.lines else ""),
                        "explanation": p.explanation,
                    }
                    for p, c in failed
                ),
            )
        else:
            checked = sum(1 for cell in row.cells if cell.css == "pass")
            text = _("%(node)s passes all %(count)s filters that apply to this Pod.") % {
                "node": row.node,
                "count": checked,
            }
            detail = ""
        steps.append(Step(row.step, _("Filter · %(node)s") % {"node": row.node}, text, detail))
    for index, plugin in enumerate(panel.scores):
        values = ", ".join(f"{row.node} {row.cells[index].weighted}" for row in panel.score_rows)
        detail = _("Weighted scores (normalised × %(weight)s): %(values)s.") % {
            "weight": plugin.weight,
            "values": values,
        }
        if plugin.equal:
            detail += " " + _("Equal on every node, so it cannot change the ranking.")
        if plugin.decider and panel.decider is not None:
            detail += " " + panel.decider.sentence
        steps.append(
            Step(
                plugin.step,
                f"{plugin.name} ({plugin.legacy})" if plugin.legacy else plugin.name,
                plugin.explanation,
                detail,
            )
        )
    steps.append(_verdict(panel))
    return steps


def _verdict(panel: Panel) -> Step:
    record = panel.record
    if not panel.scheduled:
        return Step(
            panel.final_step,
            _("No node fits"),
            beside_upstream(record.get("message") or ""),
            panel.post_filter.summary
            if panel.post_filter is not None and panel.post_filter.nominated
            else _("The Pod stays Pending; the scheduler tries again when a node, a label or a Pod changes."),
        )
    tie = panel.tie_break
    if not record.get("scoringNeeded"):
        text = _("Only %(node)s passed the filters, so it is chosen without scoring.") % {"node": record["selected"]}
    else:
        text = _("The highest total wins: %(node)s is selected.") % {"node": record["selected"]}
    detail = f"{tie} {panel.decider.sentence}" if panel.decider is not None else tie
    return Step(panel.final_step, _("Selected: %(node)s") % {"node": record["selected"]}, text, detail)


async def scoring(request: HttpRequest, cluster: str, namespace: str, name: str) -> HttpResponse:
    """The scoring panel of one Pod from its decision records; ``?attempt=N`` picks an earlier attempt."""
    client = Client(cluster, "dashboard")
    listed = await client.list("schedulingdecisions", namespace, label_selector=f"clusterviz.io/pod={name}")
    decisions = sorted(listed["items"], key=lambda d: d.get("attempt", 0))
    wanted = request.GET.get("attempt")
    record = next((d for d in decisions if str(d.get("attempt")) == wanted), decisions[-1] if decisions else None)
    return render(
        request,
        "web/scoring.html",
        {
            "cluster": cluster,
            "namespace": namespace,
            "name": name,
            "record": record,
            "attempts": [d.get("attempt") for d in decisions],
            "panel": build_panel(record) if record else None,
        },
    )
