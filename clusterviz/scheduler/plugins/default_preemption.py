"""DefaultPreemption (PostFilter): could evicting lower-priority Pods make room?

Upstream: ``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go`` and
``pkg/scheduler/framework/preemption/preemption.go``. clusterviz runs the dry run
to get upstream's message (``preemption: 0/3 nodes are available: 1 Preemption is
not helpful for scheduling, 2 No preemption victims found for incoming pod.``) and,
when preemption would help, names the node and the victims. Evicting them is the
caller's business. PodDisruptionBudgets are not modelled.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

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

_MAX_INT32 = 2**31 - 1

# Runs the profile's PreFilter and Filter plugins for one node of a snapshot.
FilterRunner = Callable[[Snapshot, NodeInfo], Status]


@dataclass(frozen=True)
class PostFilterOutcome:
    """A PostFilter plugin's result: its status, and for a successful preemption the node and victims."""

    status: Status
    nominated_node: str | None = None
    victims: tuple[str, ...] = ()


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


def select_victims_on_node(
    pod: PodInfo, node: NodeInfo, snapshot: Snapshot, run_filters: FilterRunner
) -> tuple[list[PodInfo], Status]:
    """Remove every lower-priority Pod, check the fit, then reprieve as many as possible (most important first)."""
    potential = [p for p in node.pods.values() if p.priority < pod.priority]
    if not potential:
        return [], Status.unresolvable(REASON_NO_VICTIMS)
    trial = node.clone()
    for victim in potential:
        trial.remove_pod(victim.key)
    status = run_filters(snapshot.with_node(trial), trial)
    if not status.is_success:
        return [], status
    victims: list[PodInfo] = []
    for candidate in more_important_first(potential):
        trial.add_pod(candidate)
        if not run_filters(snapshot.with_node(trial), trial).is_success:
            trial.remove_pod(candidate.key)
            victims.append(candidate)
    return victims, Status()


def pick_one_node(candidates: Mapping[str, list[PodInfo]]) -> str:
    """Upstream's ``pickOneNodeForPreemption`` without PDBs: lowest top victim priority, lowest sum,
    fewest victims, latest start of the top-priority victims; then the first name."""
    names = sorted(candidates)

    def narrow(names: list[str], key: Callable[[str], object]) -> list[str]:
        best = max(key(n) for n in names)  # type: ignore[type-var]
        return [n for n in names if key(n) == best]

    def top(n: str) -> PodInfo:
        return more_important_first(candidates[n])[0]

    for key in (
        lambda n: -top(n).priority,
        lambda n: -sum(p.priority + _MAX_INT32 + 1 for p in candidates[n]),
        lambda n: -len(candidates[n]),
        lambda n: min(_start_time(p) for p in candidates[n] if p.priority == top(n).priority),
    ):
        names = narrow(names, key)
        if len(names) == 1:
            break
    return names[0]


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
        """Dry-run preemption over the nodes that failed with a resolvable (Unschedulable) status."""
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
        dry_run: dict[str, Status] = {}
        candidates: dict[str, list[PodInfo]] = {}
        for node in potential:
            victims, status = select_victims_on_node(pod, node, snapshot, run_filters)
            if status.is_success and victims:
                candidates[node.name] = victims
            else:
                dry_run[node.name] = status
        if not candidates:
            message = fit_error_message(len(snapshot), dry_run, absent_reasons=(REASON_NOT_HELPFUL,))
            return PostFilterOutcome(Status.unschedulable(MESSAGE_PREFIX + message))
        best = pick_one_node(candidates)
        return PostFilterOutcome(Status(), best, tuple(p.key for p in more_important_first(candidates[best])))
