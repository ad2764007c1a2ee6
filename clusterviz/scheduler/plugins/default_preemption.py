"""DefaultPreemption (PostFilter): evict lower-priority Pods from one node so that the Pod fits there.

Upstream: ``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go`` and
``pkg/scheduler/framework/preemption/preemption.go``. The nodes that failed with a
resolvable (Unschedulable) status are dry-run from a rotating offset: each loses every
lower-priority Pod, and if the Pod then fits, as many as possible are given back, most
important first, those whose PodDisruptionBudget would be broken considered first. The
candidate nodes are compared as ``pickOneNodeForPreemption`` does (fewest budget
violations, lowest highest victim priority, smallest sum of priorities, fewest victims,
latest start), and the outcome names the chosen node and its victims together with the
whole comparison, for the decision record. Deleting the victims and nominating the node
is the scheduler's business (``scheduler/preemption.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from clusterviz.apimachinery import labels
from clusterviz.scheduler.framework import (
    BasePlugin,
    Code,
    CycleState,
    Status,
    fit_error_message,
)
from clusterviz.scheduler.nodeinfo import NodeInfo, PodInfo
from clusterviz.scheduler.snapshot import Snapshot

NAME = "DefaultPreemption"

REASON_NOT_HELPFUL = "Preemption is not helpful for scheduling"
REASON_NO_VICTIMS = "No preemption victims found for incoming pod"
REASON_POLICY_NEVER = "not eligible due to preemptionPolicy=Never."
REASON_TERMINATING_ON_NOMINATED = "not eligible due to a terminating pod on the nominated node."
MESSAGE_PREFIX = "preemption: "

EXPLANATION_EN = "When no node fits, checks whether evicting lower-priority Pods from some node would make the Pod fit."
EXPLANATION_ZH = "当没有节点合适时，检查驱逐某个节点上优先级更低的 Pod 能否让该 Pod 放得下。"

# DefaultPreemptionArgs' defaults: dry-run at least 10% of the nodes, and at least 100.
MIN_CANDIDATE_NODES_PERCENTAGE = 10
MIN_CANDIDATE_NODES_ABSOLUTE = 100

# pickOneNodeForPreemption's criteria, in order; the last one is "the first candidate left".
BY_PDB_VIOLATIONS = "pdbViolations"
BY_HIGHEST_PRIORITY = "highestPriority"
BY_PRIORITY_SUM = "prioritySum"
BY_VICTIM_COUNT = "victimCount"
BY_START_TIME = "startTime"
BY_ORDER = "order"
CRITERIA = (BY_PDB_VIOLATIONS, BY_HIGHEST_PRIORITY, BY_PRIORITY_SUM, BY_VICTIM_COUNT, BY_START_TIME, BY_ORDER)

_MAX_INT32 = 2**31 - 1

# Runs the profile's PreFilter and Filter plugins for one node of a snapshot.
FilterRunner = Callable[[Snapshot, NodeInfo], Status]


@dataclass(frozen=True)
class Victim:
    """A Pod preemption would evict, and whether evicting it breaks its PodDisruptionBudget."""

    key: str
    priority: int
    start_time: str
    violates_budget: bool = False

    @property
    def name(self) -> str:
        """The Pod's name (its key is ``namespace/name``)."""
        return self.key.split("/", 1)[-1]


@dataclass(frozen=True)
class Candidate:
    """A node where the Pod fits once ``victims`` are gone (most important first)."""

    node: str
    victims: tuple[Victim, ...]
    pdb_violations: int = 0


@dataclass(frozen=True)
class PreemptionReport:
    """The dry run and the choice, for the decision record.

    ``rejected`` gives why each other evaluated node could not be a candidate;
    ``eliminated`` the criterion at which each losing candidate fell behind,
    ``decided_by`` the one that left the chosen node alone.
    """

    candidates: tuple[Candidate, ...] = ()
    rejected: Mapping[str, str] = field(default_factory=dict)
    chosen: str | None = None
    decided_by: str = ""
    eliminated: Mapping[str, str] = field(default_factory=dict)

    def chosen_candidate(self) -> Candidate | None:
        """The chosen node's candidate entry."""
        return next((c for c in self.candidates if c.node == self.chosen), None)

    def to_dict(self) -> dict[str, Any]:
        """The decision record's ``postFilter`` section (camelCase keys)."""
        return {
            "plugin": NAME,
            "nominatedNode": self.chosen,
            "decidedBy": self.decided_by,
            "candidates": [
                {
                    "node": c.node,
                    "chosen": c.node == self.chosen,
                    "eliminatedBy": self.eliminated.get(c.node, ""),
                    "pdbViolations": c.pdb_violations,
                    "victims": [
                        {
                            "namespace": v.key.split("/", 1)[0],
                            "name": v.name,
                            "priority": v.priority,
                            "startTime": "" if v.start_time == "~" else v.start_time,
                            "violatesBudget": v.violates_budget,
                        }
                        for v in c.victims
                    ],
                }
                for c in self.candidates
            ],
            "notCandidates": [{"node": n, "reason": r} for n, r in sorted(self.rejected.items())],
        }


@dataclass(frozen=True)
class PostFilterOutcome:
    """A PostFilter plugin's result: its status, and for a successful preemption the node and victims."""

    status: Status
    nominated_node: str | None = None
    victims: tuple[str, ...] = ()
    report: PreemptionReport | None = None


def _start_time(pod: PodInfo) -> str:
    # RFC 3339 strings order like the times they spell; a Pod not started yet counts as newest.
    return str((pod.pod.get("status") or {}).get("startTime") or "~")


def more_important_first(pods: list[PodInfo]) -> list[PodInfo]:
    """Upstream's ``MoreImportantPod`` order: higher priority first, then the one started earlier."""
    return sorted(pods, key=lambda p: (-p.priority, _start_time(p)))


def _terminating_by_preemption(pod: PodInfo) -> bool:
    if not pod.terminating:
        return False
    for cond in (pod.pod.get("status") or {}).get("conditions") or []:
        if cond.get("type") == "DisruptionTarget":
            return cond.get("status") == "True" and cond.get("reason") == "PreemptionByScheduler"
    return False


def _part(obj: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = obj.get(name)
    return value if isinstance(value, Mapping) else {}


def _selector(pdb: Mapping[str, Any]) -> labels.Selector | None:
    selector_obj = _part(pdb, "spec").get("selector")
    try:
        selector = labels.selector_from_label_selector(selector_obj if isinstance(selector_obj, Mapping) else None)
    except labels.SelectorError:
        return None
    # A budget with a nil or empty selector covers nothing.
    return None if selector.empty else selector


def split_by_budget_violation(
    pods: Sequence[PodInfo], pdbs: Sequence[Mapping[str, Any]]
) -> tuple[list[PodInfo], list[PodInfo]]:
    """Upstream's ``filterPodsWithPDBViolation``: (violating, non-violating), each keeping ``pods``' order.

    Every matching budget's ``disruptionsAllowed`` is spent Pod by Pod; a Pod that
    takes one below zero violates it. Pods the budget already lists in
    ``disruptedPods`` were counted by the API server and spend nothing.
    """
    counts = [_part(pdb, "status").get("disruptionsAllowed") for pdb in pdbs]
    allowed = [c if isinstance(c, int) and not isinstance(c, bool) else 0 for c in counts]
    selectors = [_selector(pdb) for pdb in pdbs]
    violating: list[PodInfo] = []
    fine: list[PodInfo] = []
    for pod in pods:
        violated = False
        for i, pdb in enumerate(pdbs):
            selector = selectors[i]
            if not pod.labels or selector is None or _part(pdb, "metadata").get("namespace") != pod.namespace:
                continue
            if not selector.matches(pod.labels):
                continue
            if pod.name in _part(_part(pdb, "status"), "disruptedPods"):
                continue
            allowed[i] -= 1
            if allowed[i] < 0:
                violated = True
        (violating if violated else fine).append(pod)
    return violating, fine


def select_victims_with_budgets(
    pod: PodInfo,
    node: NodeInfo,
    snapshot: Snapshot,
    run_filters: FilterRunner,
    pdbs: Sequence[Mapping[str, Any]] = (),
) -> tuple[list[PodInfo], int, Status]:
    """Upstream's ``SelectVictimsOnNode``: the fewest victims (most important first) and how many break a budget."""
    potential = [p for p in node.pods.values() if p.priority < pod.priority]
    if not potential:
        return [], 0, Status.unresolvable(REASON_NO_VICTIMS)
    trial = node.clone()
    for victim in potential:
        trial.remove_pod(victim.key)
    # One view for all of this node's what-ifs: ``trial`` changes in place.
    view = snapshot.with_node(trial)
    status = run_filters(view, trial)
    if not status.is_success:
        return [], 0, status
    violating, fine = split_by_budget_violation(more_important_first(potential), pdbs)
    victims: list[PodInfo] = []
    violations = 0

    def reprieve(candidate: PodInfo) -> bool:
        trial.add_pod(candidate)
        view.node_changed_in_place(trial.name)
        if run_filters(view, trial).is_success:
            return True
        trial.remove_pod(candidate.key)
        view.node_changed_in_place(trial.name)
        victims.append(candidate)
        return False

    for candidate in violating:
        if not reprieve(candidate):
            violations += 1
    for candidate in fine:
        reprieve(candidate)
    if violating and fine:
        victims = more_important_first(victims)
    return victims, violations, Status()


def select_victims_on_node(
    pod: PodInfo, node: NodeInfo, snapshot: Snapshot, run_filters: FilterRunner
) -> tuple[list[PodInfo], Status]:
    """Victims on one node when no PodDisruptionBudget is in play."""
    victims, _, status = select_victims_with_budgets(pod, node, snapshot, run_filters)
    return victims, status


def candidates_to_find(node_count: int) -> int:
    """Upstream's ``GetOffsetAndNumCandidates`` count: 10% of the nodes, at least 100, at most all."""
    return min(max(node_count * MIN_CANDIDATE_NODES_PERCENTAGE // 100, MIN_CANDIDATE_NODES_ABSOLUTE), node_count)


def _victim(pod: PodInfo, violating: set[str]) -> Victim:
    return Victim(pod.key, pod.priority, _start_time(pod), pod.key in violating)


def dry_run_preemption(
    pod: PodInfo,
    nodes: Sequence[NodeInfo],
    snapshot: Snapshot,
    run_filters: FilterRunner,
    pdbs: Sequence[Mapping[str, Any]] = (),
    *,
    offset: int = 0,
    num_candidates: int | None = None,
) -> tuple[list[Candidate], dict[str, Status]]:
    """Upstream's ``DryRunPreemption``: walk ``nodes`` from ``offset``; stop once ``num_candidates`` are found
    and one of them breaks no budget. Returns the candidates (by node name) and each other node's status."""
    wanted = len(nodes) if num_candidates is None else num_candidates
    found: list[Candidate] = []
    statuses: dict[str, Status] = {}
    clean = 0
    for i in range(len(nodes)):
        node = nodes[(offset + i) % len(nodes)]
        victims, violations, status = select_victims_with_budgets(pod, node, snapshot, run_filters, pdbs)
        if not status.is_success or not victims:
            statuses[node.name] = status
            continue
        # The victims that came from the budget-breaking group: as many as ``violations`` counts.
        breaking: set[str] = set()
        if violations:
            lower = more_important_first([p for p in node.pods.values() if p.priority < pod.priority])
            breaking = {p.key for p in split_by_budget_violation(lower, pdbs)[0]}
        found.append(Candidate(node.name, tuple(_victim(p, breaking) for p in victims), violations))
        clean += violations == 0
        if clean and len(found) >= wanted:
            break
    return sorted(found, key=lambda c: c.node), statuses


def choose_candidate(candidates: Sequence[Candidate]) -> tuple[str, str, dict[str, str]]:
    """Upstream's ``pickOneNodeForPreemption``: (the node, the criterion that decided, when each other fell behind)."""

    def top(c: Candidate) -> int:
        return c.victims[0].priority

    def latest_start(c: Candidate) -> str:
        # The earliest start among the top-priority victims; the later that is, the better.
        return min(v.start_time for v in c.victims if v.priority == top(c))

    keys: dict[str, Callable[[Candidate], Any]] = {
        BY_PDB_VIOLATIONS: lambda c: -c.pdb_violations,
        BY_HIGHEST_PRIORITY: lambda c: -top(c),
        BY_PRIORITY_SUM: lambda c: -sum(v.priority + _MAX_INT32 + 1 for v in c.victims),
        BY_VICTIM_COUNT: lambda c: -len(c.victims),
        BY_START_TIME: latest_start,
    }
    left = list(candidates)
    eliminated: dict[str, str] = {}
    decided_by = BY_ORDER
    for criterion, key in keys.items():
        if len(left) == 1:
            break
        best = max(key(c) for c in left)
        for c in left:
            if key(c) != best:
                eliminated[c.node] = criterion
        left = [c for c in left if key(c) == best]
        decided_by = criterion
    if len(left) > 1:
        decided_by = BY_ORDER
        for c in left[1:]:
            eliminated[c.node] = BY_ORDER
    return left[0].node, decided_by if len(candidates) > 1 else "", eliminated


def pick_one_node(candidates: Mapping[str, list[PodInfo]]) -> str:
    """``pickOneNodeForPreemption`` over victims that break no budget; ties go to the first name."""
    entries = [
        Candidate(name, tuple(_victim(p, set()) for p in more_important_first(pods)))
        for name, pods in sorted(candidates.items())
    ]
    return choose_candidate(entries)[0]


class DefaultPreemption(BasePlugin):
    """PostFilter only."""

    name = NAME
    explanation = {"en": EXPLANATION_EN, "zh": EXPLANATION_ZH}

    def post_filter(
        self,
        state: CycleState,
        pod: PodInfo,
        node_statuses: Mapping[str, Status],
        run_filters: FilterRunner,
    ) -> PostFilterOutcome:
        """Preemption over the nodes that failed with a resolvable (Unschedulable) status."""
        snapshot = state.snapshot
        assert snapshot is not None
        if pod.spec.get("preemptionPolicy") == "Never":
            return PostFilterOutcome(Status.unschedulable(MESSAGE_PREFIX + REASON_POLICY_NEVER))
        nominated = (pod.pod.get("status") or {}).get("nominatedNodeName")
        nominated_status = node_statuses.get(nominated or "")
        if nominated and (nominated_status is None or nominated_status.code is not Code.UNSCHEDULABLE_AND_UNRESOLVABLE):
            node = snapshot.get(nominated)
            if node is not None and any(
                p.priority < pod.priority and _terminating_by_preemption(p) for p in node.pods.values()
            ):
                return PostFilterOutcome(Status.unschedulable(MESSAGE_PREFIX + REASON_TERMINATING_ON_NOMINATED))
        potential = [n for n in snapshot.list() if (s := node_statuses.get(n.name)) and s.code is Code.UNSCHEDULABLE]
        pdbs = list(snapshot.workloads.get("PodDisruptionBudget", {}).values())
        found, dry_run = dry_run_preemption(
            pod, potential, snapshot, run_filters, pdbs, num_candidates=candidates_to_find(len(potential))
        )
        rejected = {name: status.message for name, status in dry_run.items()}
        for name, status in node_statuses.items():
            if status.code is not Code.UNSCHEDULABLE and not status.is_success:
                rejected.setdefault(name, REASON_NOT_HELPFUL)
        if not found:
            message = fit_error_message(len(snapshot), dry_run, absent_reasons=(REASON_NOT_HELPFUL,))
            report = PreemptionReport(rejected=rejected)
            return PostFilterOutcome(Status.unschedulable(MESSAGE_PREFIX + message), report=report)
        best, decided_by, eliminated = choose_candidate(found)
        report = PreemptionReport(tuple(found), rejected, best, decided_by, eliminated)
        chosen = report.chosen_candidate()
        assert chosen is not None
        return PostFilterOutcome(Status(), best, tuple(v.key for v in chosen.victims), report)
