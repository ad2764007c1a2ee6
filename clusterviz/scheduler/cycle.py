"""One scheduling attempt: PreFilter -> Filter -> (PostFilter) -> PreScore -> Score -> select.

Upstream: ``pkg/scheduler/schedule_one.go`` and ``framework/runtime/framework.go``.
Two deliberate differences, both for display: every Filter plugin runs on every
node (a node is still infeasible as soon as one fails, and the failure message
counts only the first failing plugin in profile order, as upstream does; a node
a PreFilter node set left out counts only under the narrowing plugin, its other
verdicts flagged as not run upstream), and
with a single feasible node the scores are still computed but marked as not
needed. Ties are broken as upstream does (reservoir sampling with
``rand.Intn(k)``) over the tied nodes in name order with the caller's seeded RNG,
so a lesson replays identically.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from clusterviz.scheduler.decision import (
    DETAIL_LIMIT,
    TOP_CANDIDATES,
    DecisionRecord,
    FilterColumn,
    FilterResult,
    NodeColumns,
    PodRef,
    ScoreColumn,
    TieBreak,
    omitted_summary,
)
from clusterviz.scheduler.decision_inputs import Explainer
from clusterviz.scheduler.framework import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    NO_NODES_AVAILABLE,
    SUCCESS,
    Code,
    CycleState,
    NodeStatuses,
    PreFilterResult,
    Status,
    fit_error_message,
)
from clusterviz.scheduler.nodeinfo import NodeInfo, PodInfo, as_pod_info
from clusterviz.scheduler.nodetable import NodeTable, RowView, at_rows
from clusterviz.scheduler.plugins import FILTER, NORMALIZING, POST_FILTER, PRE_FILTER, PRE_SCORE, SCORE
from clusterviz.scheduler.profile import Profile
from clusterviz.scheduler.snapshot import Snapshot

LISTED_DRAWS = 32
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


# PreFilter plugins whose result depends on the other Pods (upstream gives them AddPod/RemovePod extensions):
# a preemption what-if runs them again; every other PreFilter runs once per attempt.
_POD_DEPENDENT_PRE_FILTERS = frozenset({"InterPodAffinity", "PodTopologySpread", "VolumeRestrictions"})
# Filters that read the Node object and the Pod alone: a what-if that moves Pods on or off a node cannot change
# their verdict there, so the runner judges each node once per attempt (a preemption tries each node many times).
_NODE_ONLY_FILTERS = frozenset({"NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity"})


def node_fit_runner(profile: Profile, pod: PodInfo, snapshot: Snapshot) -> Callable[[Snapshot, NodeInfo], Status]:
    """Upstream's filter run for one node of a what-if snapshot (the preemption dry run): PreFilter, then Filters
    until the first failure; the PreFilters that do not read other Pods run once, on the attempt's snapshot, and
    the Filters that read the Node object alone once per node."""
    base = CycleState(snapshot)
    pre_filters, filters = profile.at(PRE_FILTER), profile.at(FILTER)
    # Each PreFilter's outcome, or None for those run again on every what-if (a preemption runs thousands).
    once = [None if p.name in _POD_DEPENDENT_PRE_FILTERS else p.pre_filter(base, pod) for p in pre_filters]
    judged: dict[tuple[str, str], Status] = {}  # node-only verdicts by (plugin, node)

    def run(view: Snapshot, node: NodeInfo) -> Status:
        state = base.clone()
        state.snapshot = view
        skipped = state.skip_filter_plugins
        for plugin, outcome in zip(pre_filters, once, strict=True):
            status, result = outcome or plugin.pre_filter(state, pod)
            if status.code is Code.SKIP:
                skipped.add(plugin.name)
            elif status.code is not Code.SUCCESS:
                return status.with_plugin(plugin.name)
            elif result is not None and result.node_names is not None and node.name not in result.node_names:
                return Status.unresolvable(_set_reason([plugin.name])).with_plugin(plugin.name)
        for plugin in filters:
            if plugin.name in skipped:
                continue
            if plugin.name in _NODE_ONLY_FILTERS:
                key = (plugin.name, node.name)
                status = judged.get(key) or judged.setdefault(key, plugin.filter(state, pod, node))
            else:
                status = plugin.filter(state, pod, node)
            if status.code is not Code.SUCCESS:
                return status.with_plugin(plugin.name)
        return SUCCESS

    return run


def _with_nominated_pods(
    profile: Profile,
    pod: PodInfo,
    snapshot: Snapshot,
    table: NodeTable,
    verdicts: list[NodeStatuses | None],
    nominated: Sequence[Mapping[str, Any]],
) -> list[NodeStatuses | None]:
    """Upstream's RunFilterPluginsWithNominatedPods: a node that passes every filter must pass them again with
    the Pods of equal or higher priority nominated to it counted there; where it does not, the failing plugin's
    verdict on that node is that second run's status."""
    waiting: dict[str, list[PodInfo]] = {}
    for other in nominated:
        other_info = as_pod_info(other)
        node_name = str((other.get("status") or {}).get("nominatedNodeName") or "")
        if other_info.key != pod.key and other_info.priority >= pod.priority and node_name in table.rows:
            waiting.setdefault(node_name, []).append(other_info)
    if not waiting:
        return verdicts
    plugins = [p.name for p in profile.at(FILTER)]
    run = node_fit_runner(profile, pod, snapshot)
    out = list(verdicts)
    for node_name, others in sorted(waiting.items()):
        row, node = table.rows[node_name], snapshot.get(node_name)
        if node is None or any(v is not None and v.index[row] != 0 for v in out):
            continue  # it fails already
        trial = node.clone()
        for other_info in others:
            trial.add_pod(other_info)
        status = run(snapshot.with_node(trial), trial)
        verdict = out[plugins.index(status.plugin)] if status.plugin in plugins else None
        if status.is_success or verdict is None:
            continue
        index = verdict.index.copy()
        index[row] = len(verdict.statuses)
        out[plugins.index(status.plugin)] = NodeStatuses(index, (*verdict.statuses, replace(status, plugin="")))
    return out


@functools.lru_cache(maxsize=1024)
def _filter_results(
    plugin: str, legacy: str, statuses: tuple[Status, ...], upstream: bool = True
) -> tuple[FilterResult, ...]:
    # A plugin's statuses repeat across attempts (mostly Success alone): build their display rows once.
    return tuple(FilterResult(plugin, legacy, s.code.value, s.message, upstream) for s in statuses)


def _filter_all(plugin: Any, state: CycleState, pod: PodInfo, table: NodeTable) -> NodeStatuses:
    """The plugin's verdict on every node: its batch form if it has one, else node by node."""
    batch = getattr(plugin, "filter_nodes", None)
    if batch is not None:
        return batch(state, pod, table)
    interned: dict[Status, int] = {SUCCESS: 0}
    index = np.empty(len(table), np.int16)
    for row, node in enumerate(table.infos):
        index[row] = interned.setdefault(plugin.filter(state, pod, node), len(interned))
    return NodeStatuses(index, tuple(interned))


def _score_all(plugin: Any, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray) -> np.ndarray:
    batch = getattr(plugin, "score_nodes", None)
    if batch is not None:
        return batch(state, pod, table, rows)
    infos = table.infos
    return np.fromiter((plugin.score(state, pod, infos[r]) for r in rows.tolist()), np.int64, len(rows))


def _normalize_all(
    plugin: Any, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray, raw: np.ndarray
) -> np.ndarray:
    batch = getattr(plugin, "normalize_nodes", None)
    if batch is not None:
        return batch(state, pod, raw)
    names = [table.names[r] for r in rows.tolist()]
    normalized = plugin.normalize_score(state, pod, dict(zip(names, raw.tolist(), strict=True)))
    return np.fromiter((normalized[n] for n in names), np.int64, len(names))


def _reservoir(tied: Sequence[str], best: int, rng: random.Random) -> tuple[str, TieBreak]:
    """Upstream's uniform pick among ``tied`` (in name order): ``rand.Intn(k) == 0`` replaces the k-th.

    The draws come from one ``getrandbits`` call on ``rng`` per attempt (a
    thousand equal empty nodes tie often, and one call per node is slow). Past ``LISTED_DRAWS`` tied
    nodes the record lists only the draws that replaced the pick.
    """
    if len(tied) == 1:
        return tied[0], TieBreak("highest-total", tuple(tied), (), f"{tied[0]} has the highest total ({best}).")
    ks = np.arange(2, len(tied) + 1)
    # rand.Intn(k) for k = 2..len(tied), from one call to the seeded RNG: 53 random bits per draw.
    bits = np.frombuffer(rng.getrandbits(64 * len(ks)).to_bytes(8 * len(ks), "little"), np.uint64)
    # The draws before truncation: rand.Intn(k) is 0 exactly where this is below 1.
    scaled = (bits >> np.uint64(11)).astype(np.float64) * 2.0**-53 * ks
    replaced = np.flatnonzero(scaled < 1.0)
    selected = tied[int(replaced[-1]) + 1] if len(replaced) else tied[0]
    listed = range(len(ks)) if len(tied) <= LISTED_DRAWS else replaced.tolist()
    draws = [(tied[i + 1], i + 2, int(scaled[i])) for i in listed]
    text = (
        f"{len(tied)} nodes share the highest total ({best}); one was drawn uniformly at random "
        f"(reservoir sampling in name order, seeded): {selected}."
    )
    return selected, TieBreak("reservoir", tied, tuple(draws), text)


def select_host(totals: Mapping[str, int], rng: random.Random) -> tuple[str, tuple[str, ...], TieBreak]:
    """Pick the best total; ties are broken uniformly (``rand.Intn(k) == 0`` for the k-th tied node)."""
    best = max(totals.values())
    tied = tuple(sorted(name for name, total in totals.items() if total == best))
    selected, tie_break = _reservoir(tied, best, rng)
    return selected, tied, tie_break


class _Filtered:
    """Every Filter plugin's verdicts for one attempt, and what follows from them per node."""

    def __init__(
        self, profile: Profile, verdicts: list[NodeStatuses | None], n: int, excluded: tuple[int, np.ndarray] | None
    ) -> None:
        self.plugins = profile.at(FILTER)
        self.verdicts = verdicts
        # The first rejecting plugin of each node in profile order (-1: none): the one the message counts.
        first = np.full(n, -1, np.int16)
        for i, verdict in enumerate(verdicts):
            # statuses[0] is Success: a verdict of that alone (most plugins, most Pods) rejects no node.
            if verdict is not None and len(verdict.statuses) > 1:
                first[(first < 0) & verdict.failing()] = i
        # Nodes a PreFilter node set left out fail at the narrowing plugin alone: upstream filters them not at all.
        self.excluded = np.zeros(n, bool)
        self.narrowing = -1
        if excluded is not None:
            self.narrowing, self.excluded = excluded
            first[self.excluded] = self.narrowing
        self.first = first
        self.rejects_any = bool((first >= 0).any())

    def statuses(self, rows: np.ndarray) -> list[Status]:
        """The counted failure of each of ``rows`` (all failing ones): a Status per (plugin, reason), shared by the
        nodes it holds on, as a big cluster's failed attempt counts thousands."""
        out: list[Status] = [SUCCESS] * len(rows)
        first = self.first[rows]
        for i in np.unique(first).tolist():
            verdict = self.verdicts[i]
            assert verdict is not None
            named = [status.with_plugin(self.plugins[i].name) for status in verdict.statuses]
            at = np.flatnonzero(first == i)
            for position, k in zip(at.tolist(), verdict.index[rows[at]].tolist(), strict=True):
                out[position] = named[k]
        return out

    def first_failures(self, rows: np.ndarray) -> Counter[tuple[str, str]]:
        """How many of ``rows`` failed first at each (plugin, reason)."""
        counts: Counter[tuple[str, str]] = Counter()
        if not self.rejects_any:
            return counts
        first = self.first[rows]
        for i in np.unique(first[first >= 0]).tolist():
            verdict = self.verdicts[i]
            assert verdict is not None
            indexes, hits = np.unique(verdict.index[rows[first == i]], return_counts=True)
            for k, n in zip(indexes.tolist(), hits.tolist(), strict=True):
                counts[(self.plugins[i].name, verdict.statuses[k].message)] += n
        return counts

    def columns(self, rows: np.ndarray) -> tuple[FilterColumn, ...]:
        """The record's filter columns for the given rows."""
        out = []
        outside = self.excluded[rows]
        any_outside = bool(outside.any())
        for i, (plugin, verdict) in enumerate(zip(self.plugins, self.verdicts, strict=True)):
            legacy = plugin.legacy_name("filter")
            statuses: tuple[Status, ...]
            if verdict is None:
                statuses, index = (Status.skip(),), np.zeros(len(rows), np.int16)
            else:
                statuses, index = verdict.statuses, verdict.index[rows]
            results = _filter_results(plugin.name, legacy, statuses)
            if i != self.narrowing and any_outside:
                # The same verdicts, flagged where upstream never ran this filter.
                index = np.where(outside, index + len(results), index)
                results += _filter_results(plugin.name, legacy, statuses, False)
            out.append(FilterColumn(results, index))
        return tuple(out)


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
    nominated_pods: Sequence[Mapping[str, Any]] = (),
) -> DecisionRecord:
    """Run one scheduling attempt for ``pod`` against ``snapshot`` and record every decision.

    ``start_index`` is where the node walk starts (upstream rotates it between
    attempts; the record's ``next_start_index`` is the next value).
    ``global_percentage`` is the configuration-wide percentageOfNodesToScore,
    used when the profile sets none. ``nominated_pods`` are the waiting Pods earlier
    preemptions nominated to a node: those of equal or higher priority count
    there when this Pod is filtered. Every plugin judges all nodes at once over
    the snapshot's :class:`NodeTable`.
    """
    info = as_pod_info(pod)
    base: dict[str, Any] = {
        "pod": PodRef(info.namespace, info.name, info.uid),
        "attempt": attempt,
        "time": now,
        "profile": profile.scheduler_name,
    }
    table = snapshot.table()
    n = len(table)
    if not n:
        return DecisionRecord(**base, columns=None, selected=None, message=NO_NODES_AVAILABLE)

    state = CycleState(snapshot)
    pre_status: Status | None = None
    pre_rejected: set[str] = set()
    result = PreFilterResult()
    narrowing: list[str] = []
    for plugin in profile.at(PRE_FILTER):
        status, res = plugin.pre_filter(state, info)
        if status.is_skip:
            state.skip_filter_plugins.add(plugin.name)
        elif status.code is Code.ERROR:
            return DecisionRecord(**base, columns=None, selected=None, message=status.message, error=status.message)
        elif status.is_rejected:
            pre_rejected.add(plugin.name)
            pre_status = pre_status or status.with_plugin(plugin.name)
        elif res is not None and not res.all_nodes:
            narrowing.append(plugin.name)
            result = result.merge(res)
    if pre_status is None and result.node_names is not None and not result.node_names:
        pre_status = Status.unresolvable(_empty_set_reason(narrowing))

    # Rows a PreFilter node set leaves out count under the first narrowing plugin.
    candidates = np.arange(n)
    excluded_rows = np.zeros(n, bool)
    if pre_status is None and result.node_names is not None:
        inside = np.zeros(n, bool)
        inside[[table.rows[name] for name in result.node_names if name in table.rows]] = True
        candidates = np.flatnonzero(inside)
        excluded_rows = ~inside
    verdicts: list[NodeStatuses | None] = []
    narrowed: tuple[int, np.ndarray] | None = None
    for i, plugin in enumerate(profile.at(FILTER)):
        if pre_status is not None and plugin.name == pre_status.plugin:
            verdicts.append(NodeStatuses(np.ones(n, np.int16), (SUCCESS, replace(pre_status, plugin=""))))
        elif plugin.name in state.skip_filter_plugins:
            verdicts.append(None)
        else:
            verdict = _filter_all(plugin, state, info, table)
            if excluded_rows.any() and plugin.name == narrowing[0]:
                index = verdict.index.copy()
                index[excluded_rows] = len(verdict.statuses)
                verdict = NodeStatuses(index, (*verdict.statuses, Status.unresolvable(_set_reason(narrowing))))
                narrowed = (i, excluded_rows)
            verdicts.append(verdict)
    if nominated_pods and pre_status is None:
        verdicts = _with_nominated_pods(profile, info, snapshot, table, verdicts, nominated_pods)
    filtered = _Filtered(profile, verdicts, n, narrowed)

    evaluated = np.zeros(n, bool)
    nominated_row = table.rows.get(str((info.pod.get("status") or {}).get("nominatedNodeName") or ""))
    by_nomination = False
    if pre_status is not None:
        evaluated[:] = True
        feasible_rows = np.zeros(0, np.int64)
        processed = 0
    elif nominated_row is not None and filtered.first[nominated_row] < 0 and not excluded_rows[nominated_row]:
        # Upstream's evaluateNominatedNode: a Pod that preempted tries its nominated node first, and alone.
        evaluated[nominated_row] = True
        feasible_rows = np.array([nominated_row], np.int64)
        processed = 0
        by_nomination = True
    else:
        want = num_feasible_nodes_to_find(profile.percentage_of_nodes_to_score, global_percentage, len(candidates))
        passing = at_rows(filtered.first, candidates) < 0
        if not want or want == len(candidates) or int(passing.sum()) < want:
            # Every candidate is evaluated (as when every node is to be scored): the walk's order does not matter.
            processed = len(candidates)
            if len(candidates) == n:
                evaluated[:] = True
            else:
                evaluated[candidates] = True
        else:
            # Upstream stops filtering once it has found ``want`` feasible nodes, walking from ``start_index``.
            start = start_index % len(candidates)
            found = np.cumsum(np.concatenate([passing[start:], passing[:start]]))
            processed = int(np.searchsorted(found, want)) + 1
            evaluated[np.concatenate([candidates[start:], candidates[:start]])[:processed]] = True
        if processed == n and not filtered.rejects_any:
            feasible_rows = candidates  # the classroom default on free nodes: every node evaluated and feasible
        else:
            feasible_rows = np.flatnonzero(evaluated & (filtered.first < 0))  # in row order, without a sort
        evaluated |= excluded_rows
    next_start = (start_index + processed) % len(candidates) if len(candidates) else 0
    rejectors = frozenset(narrowing)
    if filtered.rejects_any:
        rejected = evaluated & (filtered.first >= 0)
        rejectors |= {filtered.plugins[i].name for i in np.unique(filtered.first[rejected]).tolist()}
    if pre_status is not None and pre_status.plugin:
        rejectors |= {pre_status.plugin}
    # Inputs only for records with a row per evaluated node (see _columns).
    explainer = Explainer(profile, state, info, frozenset(pre_rejected)) if evaluated.sum() <= DETAIL_LIMIT else None

    if not len(feasible_rows):
        failed = np.flatnonzero(evaluated)
        names = table.name_array[failed].tolist()
        if pre_status is not None:
            counted = dict.fromkeys(names, pre_status)
        else:
            counted = dict(zip(names, filtered.statuses(failed), strict=True))
        post_message, nominated, victims, post_filter = _post_filter(profile, state, info, counted)
        message = fit_error_message(
            n,
            counted,
            pre_filter_message=pre_status.message if pre_status else "",
            post_filter_message=post_message,
        )
        columns = _columns(table, filtered, np.flatnonzero(evaluated), np.zeros(n, bool), (), np.zeros(n, np.int64))
        return DecisionRecord(
            **base, columns=columns, selected=None, message=message, unschedulable_plugins=rejectors,
            nominated_node=nominated, victims=victims, next_start_index=next_start, explainer=explainer,
            post_filter=post_filter,
        )  # fmt: skip

    needed = len(feasible_rows) > 1
    scored, totals_feasible, error = _score(profile, state, info, table, feasible_rows, needed)
    # Every node feasible (the usual classroom cluster): the per-node columns are the feasible ones as they are.
    every = len(feasible_rows) == n
    if every:
        feasible = np.ones(n, bool)
    else:
        feasible = np.zeros(n, bool)
        feasible[feasible_rows] = True
    if error:
        columns = _columns(table, filtered, np.flatnonzero(evaluated), feasible, (), np.zeros(n, np.int64))
        return DecisionRecord(
            **base, columns=columns, selected=None, message=error, error=error, next_start_index=next_start
        )
    if every:
        totals = totals_feasible
    else:
        totals = np.zeros(n, np.int64)
        totals[feasible_rows] = totals_feasible
    if needed:
        best = int(totals_feasible.max())
        tied_rows = feasible_rows[totals_feasible == best]
        # The tied names are looked up when the record is read: thousands of them cost a cache miss each.
        selected, tie_break = _reservoir(RowView(table.names, tied_rows), best, rng)
    else:
        tied_rows = feasible_rows
        selected = table.names[int(feasible_rows[0])]
        tied = (selected,)
        if by_nomination:
            tie_break = TieBreak(
                "nominated-node", tied, (), f"{selected} is the node preemption nominated and it fits; upstream "
                "tries it first and skips the other nodes."
            )
        else:
            tie_break = TieBreak(
                "single-feasible", tied, (), f"{selected} is the only feasible node; upstream skips scoring."
            )
    columns = _columns(
        table, filtered, np.flatnonzero(evaluated), feasible, scored, totals, (table.rows[selected],), tied_rows
    )
    return DecisionRecord(
        **base, columns=columns, selected=selected, scoring_needed=needed, tie_break=tie_break,
        next_start_index=next_start, explainer=explainer,
    )  # fmt: skip


def _score(
    profile: Profile, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray, needed: bool
) -> tuple[tuple[tuple[Any, int, np.ndarray | None, np.ndarray | None, bool], ...], np.ndarray, str]:
    """Run PreScore, Score and NormalizeScore over the feasible ``rows``.

    Returns per plugin (plugin, weight, raw, normalised, needed) aligned with
    ``rows`` (None when the plugin skipped), the totals, and an error ("" if none).
    """
    nodes = RowView(table.infos, rows)  # the NodeInfos are looked up only when a PreScore plugin reads them
    for plugin in profile.at(PRE_SCORE):
        status = plugin.pre_score(state, pod, nodes)
        if status.is_skip:
            state.skip_score_plugins.add(plugin.name)
        elif not status.is_success:
            return (), np.zeros(0, np.int64), status.message
    out: list[tuple[Any, int, np.ndarray | None, np.ndarray | None, bool]] = []
    totals = np.zeros(len(rows), np.int64)
    for plugin in profile.at(SCORE):
        weight = profile.weight(plugin.name)
        if plugin.name in state.skip_score_plugins:
            out.append((plugin, weight, None, None, needed))
            continue
        raw = _score_all(plugin, state, pod, table, rows)
        normalized = _normalize_all(plugin, state, pod, table, rows, raw) if plugin.name in NORMALIZING else raw
        if len(normalized) and (normalized.min() < MIN_NODE_SCORE or normalized.max() > MAX_NODE_SCORE):
            bad = (normalized < MIN_NODE_SCORE) | (normalized > MAX_NODE_SCORE)
            value = int(normalized[np.flatnonzero(bad)[0]])
            return (
                (),
                totals,
                (
                    f'plugin "{plugin.name}" returns an invalid score {value}, it should in the range of '
                    f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
                ),
            )
        out.append((plugin, weight, raw, normalized, needed))
        totals += normalized * weight
    return tuple(out), totals, ""


def _highest(values: np.ndarray, among: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` positions of ``among`` with the highest ``values``, equal values going to the earlier position:
    the first ``k`` of a stable sort by value, found without sorting (a big cluster's record lists 50 of thousands)."""
    if len(among) <= k:
        return among
    candidates = values[among]
    at_top = np.flatnonzero(candidates == candidates.max())
    if len(at_top) >= k:
        return among[at_top[:k]]  # the usual big cluster: more nodes share the best total than are listed
    kth = np.partition(candidates, len(among) - k)[len(among) - k]
    above = among[candidates > kth]
    return np.concatenate([above, among[candidates == kth][: k - len(above)]])


def _columns(
    table: NodeTable,
    filtered: _Filtered,
    rows: np.ndarray,
    feasible: np.ndarray,
    scored: Sequence[tuple[Any, int, np.ndarray | None, np.ndarray | None, bool]],
    totals: np.ndarray,
    keep: Sequence[int] = (),
    tied: np.ndarray | None = None,
) -> NodeColumns:
    """The record's columns for the evaluated ``rows``; past DETAIL_LIMIT only the best candidates get rows.

    ``keep`` are rows (among ``rows``) listed in any case; ``tied``, when known, the rows sharing the best total
    in row order.
    """
    omitted = None
    if len(rows) > DETAIL_LIMIT:
        # Feasible rows by total (highest first, then name), then infeasible ones, plus the rows asked for.
        if tied is not None and len(tied) >= TOP_CANDIDATES:
            best = np.searchsorted(rows, tied[:TOP_CANDIDATES])  # the usual big cluster: the first tied rows
        else:
            listed, listed_totals = feasible[rows], totals[rows]
            best = _highest(listed_totals, np.flatnonzero(listed), TOP_CANDIDATES)
            if len(best) < TOP_CANDIDATES:
                best = np.concatenate(
                    [best, _highest(listed_totals, np.flatnonzero(~listed), TOP_CANDIDATES - len(best))]
                )
        shown = np.zeros(len(rows), bool)
        shown[best] = True
        shown[np.searchsorted(rows, np.asarray(keep, np.int64))] = True
        hidden = rows[~shown]
        omitted = omitted_summary(feasible[hidden], filtered.first_failures(hidden))
        rows = rows[shown]
    # Score arrays are aligned with the feasible rows; spread them over the listed rows (infeasible ones get
    # the first feasible row's, never read).
    at = np.where(feasible[rows], np.searchsorted(np.flatnonzero(feasible), rows), 0)
    scores = []
    for plugin, weight, raw, normalized, needed in scored:
        legacy = plugin.legacy_name("score")
        if raw is None or normalized is None:
            scores.append(ScoreColumn(plugin.name, legacy, weight, None, None, needed))
        else:
            scores.append(ScoreColumn(plugin.name, legacy, weight, raw[at], normalized[at], needed))
    return NodeColumns(
        tuple(table.name_array[rows]),
        feasible[rows],
        filtered.columns(rows),
        tuple(scores),
        totals[rows],
        omitted,
    )


def _post_filter(
    profile: Profile, state: CycleState, pod: PodInfo, counted: Mapping[str, Status]
) -> tuple[str, str | None, tuple[str, ...], dict[str, Any] | None]:
    """Upstream's ``RunPostFilterPlugins``: the first success wins (no message); otherwise reasons join.

    The last item is the preemption plugin's report of its dry run, for the record."""
    reasons: list[str] = []
    snapshot = state.snapshot
    assert snapshot is not None

    runner = node_fit_runner(profile, pod, snapshot)
    report: dict[str, Any] | None = None
    for plugin in profile.at(POST_FILTER):
        outcome = plugin.post_filter(state, pod, counted, runner)
        status = outcome.status
        report = outcome.report.to_dict() if outcome.report is not None else report
        if report is not None:
            report["message"] = status.message
        if status.is_success:
            return "", outcome.nominated_node, outcome.victims, report
        if status.code in (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.ERROR):
            return status.message, None, (), report
        reasons.extend(status.reasons)
    return ", ".join(reasons), None, (), report
