"""One scheduling attempt: PreFilter -> Filter -> (PostFilter) -> PreScore -> Score -> select.

Upstream: ``pkg/scheduler/schedule_one.go`` and ``framework/runtime/framework.go``.
Two deliberate differences, both for display: every Filter plugin runs on every
node (a node is still infeasible as soon as one fails, and the failure message
counts only the first failing plugin in profile order, as upstream does), and
with a single feasible node the scores are still computed but marked as not
needed. Ties are broken as upstream does (reservoir sampling with
``rand.Intn(k)``) over the tied nodes in name order with the caller's seeded RNG,
so a lesson replays identically.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from clusterviz.scheduler.decision import DecisionRecord, FilterResult, NodeDecision, PodRef, ScoreResult, TieBreak
from clusterviz.scheduler.framework import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    NO_NODES_AVAILABLE,
    SUCCESS,
    Code,
    CycleState,
    PreFilterResult,
    Status,
    fit_error_message,
)
from clusterviz.scheduler.nodeinfo import NodeInfo, PodInfo, as_pod_info
from clusterviz.scheduler.plugins import FILTER, NORMALIZING, POST_FILTER, PRE_FILTER, PRE_SCORE, SCORE
from clusterviz.scheduler.profile import Profile
from clusterviz.scheduler.snapshot import Snapshot

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


def num_feasible_nodes_to_find(percentage: int | None, global_percentage: int, num_all_nodes: int) -> int:
    """How many feasible nodes the filter stage looks for (``numFeasibleNodesToFind``).

    Below 100 nodes: all. Otherwise the profile's percentage, else the global one;
    0 means adaptive ``50 - N/125`` with a floor of 5 %; never fewer than 100.
    """
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    pct = percentage if percentage is not None else global_percentage
    if pct == 0:
        pct = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    return max(num_all_nodes * pct // 100, MIN_FEASIBLE_NODES_TO_FIND)


def _set_reason(plugins: Sequence[str]) -> str:
    """Reason for nodes a PreFilter node set left out (upstream lists the plugins sorted)."""
    return "node(s) didn't satisfy plugin(s) [" + " ".join(sorted(plugins)) + "]"


def _empty_set_reason(plugins: Sequence[str]) -> str:
    """PreFilter message when the plugins' node sets do not overlap at all."""
    if len(plugins) == 1:
        return f"node(s) didn't satisfy plugin {plugins[0]}"
    return "node(s) didn't satisfy plugin(s) [" + " ".join(plugins) + "] simultaneously"


def evaluate_node_fit(profile: Profile, pod: PodInfo, snapshot: Snapshot, node: NodeInfo) -> Status:
    """Upstream's filter run for one node (PreFilter on ``snapshot``, Filters until the first failure)."""
    state = CycleState(snapshot)
    for plugin in profile.at(PRE_FILTER):
        status, result = plugin.pre_filter(state, pod)
        if status.is_skip:
            state.skip_filter_plugins.add(plugin.name)
        elif not status.is_success:
            return status.with_plugin(plugin.name)
        elif result is not None and result.node_names is not None and node.name not in result.node_names:
            return Status.unresolvable(_set_reason([plugin.name])).with_plugin(plugin.name)
    for plugin in profile.at(FILTER):
        if plugin.name in state.skip_filter_plugins:
            continue
        status = plugin.filter(state, pod, node)
        if not status.is_success:
            return status.with_plugin(plugin.name)
    return Status()


def _filter_row(plugin: Any, status: Status) -> FilterResult:
    return FilterResult(plugin.name, plugin.legacy_name("filter"), status.code.value, status.message)


class _FilterTable:
    """The profile's Filter plugins with their display rows for Success and Skip built once per attempt."""

    def __init__(self, profile: Profile) -> None:
        self.entries = [
            (plugin, _filter_row(plugin, SUCCESS), _filter_row(plugin, Status.skip())) for plugin in profile.at(FILTER)
        ]


def _evaluate_filters(
    table: _FilterTable, state: CycleState, pod: PodInfo, node: NodeInfo, overrides: Mapping[str, Status]
) -> tuple[tuple[FilterResult, ...], Status | None]:
    """Every Filter plugin's result on one node, and the first failure (None if all pass)."""
    rows: list[FilterResult] = []
    first = None
    skipped = state.skip_filter_plugins
    for plugin, ok_row, skip_row in table.entries:
        name = plugin.name
        if overrides and name in overrides:
            status = overrides[name]
        elif name in skipped:
            rows.append(skip_row)
            continue
        else:
            status = plugin.filter(state, pod, node)
        if status.code is Code.SUCCESS:
            rows.append(ok_row)
            continue
        rows.append(_filter_row(plugin, status))
        if first is None and status.code is not Code.SKIP:
            first = status.with_plugin(name)
    return tuple(rows), first


def select_host(totals: Mapping[str, int], rng: random.Random) -> tuple[str, tuple[str, ...], TieBreak]:
    """Pick the best total; ties are broken uniformly (``rand.Intn(k) == 0`` for the k-th tied node)."""
    best = max(totals.values())
    tied = tuple(sorted(name for name, total in totals.items() if total == best))
    if len(tied) == 1:
        return tied[0], tied, TieBreak("highest-total", tied, (), f"{tied[0]} has the highest total ({best}).")
    selected, draws = tied[0], []
    for k, name in enumerate(tied[1:], start=2):
        draw = rng.randrange(k)
        draws.append((name, k, draw))
        if draw == 0:
            selected = name
    text = (
        f"{len(tied)} nodes share the highest total ({best}); one was drawn uniformly at random "
        f"(reservoir sampling in name order, seeded): {selected}."
    )
    return selected, tied, TieBreak("reservoir", tied, tuple(draws), text)


def _score(
    profile: Profile, state: CycleState, pod: PodInfo, feasible: Sequence[NodeInfo], needed: bool
) -> tuple[dict[str, tuple[ScoreResult, ...]], dict[str, int], str]:
    """Run PreScore, Score and NormalizeScore; return rows per node, totals and an error ("" if none)."""
    for plugin in profile.at(PRE_SCORE):
        status = plugin.pre_score(state, pod, feasible)
        if status.is_skip:
            state.skip_score_plugins.add(plugin.name)
        elif not status.is_success:
            return {}, {}, status.message
    names = [node.name for node in feasible]
    rows: list[list[ScoreResult]] = [[] for _ in feasible]
    totals = [0] * len(feasible)
    for plugin in profile.at(SCORE):
        weight = profile.weight(plugin.name)
        legacy = plugin.legacy_name("score")
        if plugin.name in state.skip_score_plugins:
            skipped = ScoreResult(plugin.name, legacy, None, None, weight, 0, needed)
            for node_rows in rows:
                node_rows.append(skipped)
            continue
        raw = {node.name: plugin.score(state, pod, node) for node in feasible}
        normalized = plugin.normalize_score(state, pod, raw) if plugin.name in NORMALIZING else raw
        # Rows are immutable, so nodes with the same (raw, normalized) share one: far fewer
        # objects to build and keep when every Pod's record stays in memory.
        shared: dict[tuple[int, int], ScoreResult] = {}
        for i, name in enumerate(names):
            value = normalized[name]
            if not MIN_NODE_SCORE <= value <= MAX_NODE_SCORE:
                return (
                    {},
                    {},
                    (
                        f'plugin "{plugin.name}" returns an invalid score {value}, it should in the range of '
                        f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
                    ),
                )
            key = (raw[name], value)
            row = shared.get(key)
            if row is None:
                row = shared[key] = ScoreResult(plugin.name, legacy, key[0], value, weight, value * weight, needed)
            rows[i].append(row)
            totals[i] += value * weight
    return dict(zip(names, map(tuple, rows), strict=True)), dict(zip(names, totals, strict=True)), ""


def schedule(
    pod: Mapping[str, Any] | PodInfo,
    snapshot: Snapshot,
    profile: Profile,
    rng: random.Random,
    attempt: int = 1,
    now: float = 0.0,
    *,
    start_index: int = 0,
    global_percentage: int = 0,
) -> DecisionRecord:
    """Run one scheduling attempt for ``pod`` against ``snapshot`` and record every decision.

    ``start_index`` is where the node walk starts (upstream rotates it between
    attempts; the record's ``next_start_index`` is the next value).
    ``global_percentage`` is the configuration-wide percentageOfNodesToScore,
    used when the profile sets none.
    """
    info = as_pod_info(pod)
    base: dict[str, Any] = {
        "pod": PodRef(info.namespace, info.name, info.uid),
        "attempt": attempt,
        "time": now,
        "profile": profile.scheduler_name,
    }
    all_nodes = snapshot.list()
    if not all_nodes:
        return DecisionRecord(**base, nodes=(), selected=None, message=NO_NODES_AVAILABLE, tie_break=TieBreak("none"))

    state = CycleState(snapshot)
    pre_status: Status | None = None
    result = PreFilterResult()
    narrowing: list[str] = []
    for plugin in profile.at(PRE_FILTER):
        status, res = plugin.pre_filter(state, info)
        if status.is_skip:
            state.skip_filter_plugins.add(plugin.name)
        elif status.code is Code.ERROR:
            return DecisionRecord(**base, nodes=(), selected=None, message=status.message, error=status.message)
        elif status.is_rejected:
            pre_status = pre_status or status.with_plugin(plugin.name)
        elif res is not None and not res.all_nodes:
            narrowing.append(plugin.name)
            result = result.merge(res)
    if pre_status is None and result.node_names is not None and not result.node_names:
        pre_status = Status.unresolvable(_empty_set_reason(narrowing))
    excluded = None if result.all_nodes else Status.unresolvable(_set_reason(narrowing))

    table = _FilterTable(profile)
    decisions: dict[str, NodeDecision] = {}
    counted: dict[str, Status] = {}
    feasible: list[NodeInfo] = []
    candidates = all_nodes if result.node_names is None else [n for n in all_nodes if n.name in result.node_names]
    if pre_status is not None:
        overrides = {pre_status.plugin: pre_status} if pre_status.plugin else {}
        for node in all_nodes:
            rows, _ = _evaluate_filters(table, state, info, node, overrides)
            decisions[node.name] = NodeDecision(node.name, rows)
            counted[node.name] = pre_status
        walk: list[NodeInfo] = []
        want = 0
    else:
        want = num_feasible_nodes_to_find(profile.percentage_of_nodes_to_score, global_percentage, len(candidates))
        start = start_index % len(candidates) if candidates else 0
        walk = candidates[start:] + candidates[:start]
        if excluded is not None:
            for node in all_nodes:
                if node.name not in (result.node_names or ()):
                    rows, _ = _evaluate_filters(table, state, info, node, {narrowing[0]: excluded})
                    decisions[node.name] = NodeDecision(node.name, rows)
                    counted[node.name] = excluded.with_plugin(narrowing[0])
    processed = 0
    for node in walk:
        if len(feasible) >= want:
            break
        processed += 1
        rows, failure = _evaluate_filters(table, state, info, node, {})
        decisions[node.name] = NodeDecision(node.name, rows, feasible=failure is None)
        if failure is None:
            feasible.append(node)
        else:
            counted[node.name] = failure
    next_start = (start_index + processed) % len(candidates) if candidates else 0
    rejectors = frozenset({s.plugin for s in counted.values() if s.plugin} | set(narrowing))
    ordered = tuple(decisions[n.name] for n in all_nodes if n.name in decisions)

    if not feasible:
        post_message, nominated, victims = _post_filter(profile, state, info, counted)
        message = fit_error_message(
            len(all_nodes),
            counted,
            pre_filter_message=pre_status.message if pre_status else "",
            post_filter_message=post_message,
        )
        return DecisionRecord(
            **base, nodes=ordered, selected=None, message=message, unschedulable_plugins=rejectors,
            nominated_node=nominated, victims=victims, next_start_index=next_start,
        )  # fmt: skip

    needed = len(feasible) > 1
    rows_by_node, totals, error = _score(profile, state, info, feasible, needed)
    if error:
        return DecisionRecord(
            **base, nodes=ordered, selected=None, message=error, error=error, next_start_index=next_start
        )
    for name, score_rows in rows_by_node.items():
        d = decisions[name]
        decisions[name] = NodeDecision(name, d.filters, score_rows, totals[name], True)
    ordered = tuple(decisions[n.name] for n in all_nodes if n.name in decisions)
    if needed:
        selected, tied, tie_break = select_host(totals, rng)
    else:
        selected, tied = feasible[0].name, (feasible[0].name,)
        tie_break = TieBreak(
            "single-feasible", tied, (), f"{selected} is the only feasible node; upstream skips scoring."
        )
    return DecisionRecord(
        **base, nodes=ordered, selected=selected, tied=tied, scoring_needed=needed, tie_break=tie_break,
        next_start_index=next_start,
    )  # fmt: skip


def _post_filter(
    profile: Profile, state: CycleState, pod: PodInfo, counted: Mapping[str, Status]
) -> tuple[str, str | None, tuple[str, ...]]:
    """Upstream's ``RunPostFilterPlugins``: the first success wins (no message); otherwise reasons join."""
    reasons: list[str] = []
    snapshot = state.snapshot
    assert snapshot is not None

    def runner(view: Snapshot, node: NodeInfo) -> Status:
        return evaluate_node_fit(profile, pod, view, node)

    for plugin in profile.at(POST_FILTER):
        outcome = plugin.post_filter(state, pod, counted, runner)
        status = outcome.status
        if status.is_success:
            return "", outcome.nominated_node, outcome.victims
        if status.code in (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.ERROR):
            return status.message, None, ()
        reasons.extend(status.reasons)
    return ", ".join(reasons), None, ()
