"""The plugin registry: plugin name -> how to build it and which extension points it serves.

One module per simulated plugin (``node_resources_fit.py``, ...). The default
profile also lists DynamicResources, which clusterviz does not model because
the simulated cluster has no DRA devices; it is registered here as
:class:`NotSimulated` and always Skips, exactly what the real one does for Pods
without resource claims.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clusterviz.scheduler.framework import (
    ActionType,
    BasePlugin,
    ClusterEvent,
    ClusterEventWithHint,
    CycleState,
    EventResource,
    PreFilterResult,
    Status,
)
from clusterviz.scheduler.nodeinfo import NodeInfo, PodInfo
from clusterviz.scheduler.plugins import (
    default_preemption,
    image_locality,
    inter_pod_affinity,
    node_affinity,
    node_name,
    node_ports,
    node_resources_balanced_allocation,
    node_resources_fit,
    node_unschedulable,
    node_volume_limits,
    pod_topology_spread,
    taint_toleration,
    volume_binding,
    volume_restrictions,
    volume_zone,
)
from clusterviz.scheduler.plugins.default_preemption import PostFilterOutcome

PRE_ENQUEUE = "preEnqueue"
QUEUE_SORT = "queueSort"
PRE_FILTER = "preFilter"
FILTER = "filter"
POST_FILTER = "postFilter"
PRE_SCORE = "preScore"
SCORE = "score"
RESERVE = "reserve"
PERMIT = "permit"
PRE_BIND = "preBind"
BIND = "bind"
POST_BIND = "postBind"
EXTENSION_POINTS = (
    PRE_ENQUEUE,
    QUEUE_SORT,
    PRE_FILTER,
    FILTER,
    POST_FILTER,
    PRE_SCORE,
    SCORE,
    RESERVE,
    PERMIT,
    PRE_BIND,
    BIND,
    POST_BIND,
)


class NotSimulated(BasePlugin):
    """A default plugin without a model here: PreFilter Skips, Filter passes, PostFilter has nothing to free."""

    def __init__(self, name: str, en: str, zh: str, post_filter_reason: str = "") -> None:
        self.name = name  # type: ignore[misc]
        self.explanation = {"en": en, "zh": zh}  # type: ignore[misc]
        self.post_filter_reason = post_filter_reason

    def pre_filter(self, state: CycleState, pod: PodInfo) -> tuple[Status, PreFilterResult | None]:
        """Always Skip: no volume, claim or device of this kind exists in the simulation."""
        return Status.skip(), None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        """Never rejects."""
        return Status()

    def post_filter(
        self, state: CycleState, pod: PodInfo, node_statuses: Mapping[str, Status], run_filters: Any
    ) -> PostFilterOutcome:
        """DynamicResources' answer for a Pod without claims (it precedes DefaultPreemption's)."""
        return PostFilterOutcome(Status.unschedulable(self.post_filter_reason))


class SchedulingGates(BasePlugin):
    """PreEnqueue: a Pod with ``spec.schedulingGates`` waits outside the active queue."""

    name = "SchedulingGates"
    explanation = {
        "en": "A Pod with scheduling gates is not tried until every gate has been removed.",
        "zh": "带有调度门控（schedulingGates）的 Pod 要等所有门控被移除后才会被调度。",
    }

    def pre_enqueue(self, pod: Mapping[str, Any]) -> Status:
        """Reject while gates remain (message as upstream prints the Go slice)."""
        gates = [g.get("name", "") for g in (pod.get("spec") or {}).get("schedulingGates") or []]
        if not gates:
            return Status()
        return Status.unresolvable(f"waiting for scheduling gates: [{' '.join(gates)}]")

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """The Pod's own update that removes its last gate."""
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED),
                taint_toleration.hint_own_pod_update,
            )
        ]


class PrioritySort(BasePlugin):
    """QueueSort: higher ``spec.priority`` first, then the earlier queue timestamp."""

    name = "PrioritySort"
    explanation = {
        "en": "The queue hands out Pods by priority, then by the time they were queued.",
        "zh": "调度队列先按优先级、再按入队时间取出 Pod。",
    }


class DefaultBinder(BasePlugin):
    """Bind: writes the Binding through the API (done by the scheduler loop, not here)."""

    name = "DefaultBinder"
    explanation = {"en": "Writes the Pod's binding to the chosen node.", "zh": "把 Pod 绑定到选中的节点。"}


@dataclass(frozen=True)
class PluginSpec:
    """A registry entry: a factory taking the plugin's args, and the extension points it implements."""

    name: str
    factory: Callable[[Mapping[str, Any]], Any]
    points: frozenset[str]


def _fit(args: Mapping[str, Any]) -> node_resources_fit.NodeResourcesFit:
    strategy = args.get("scoringStrategy") or {}
    shape = ((strategy.get("requestedToCapacityRatio") or {}).get("shape")) or []
    resources = strategy.get("resources") or [{"name": n, "weight": w} for n, w in node_resources_fit.DEFAULT_RESOURCES]
    return node_resources_fit.NodeResourcesFit(
        node_resources_fit.ScoringStrategy(
            type=strategy.get("type") or node_resources_fit.LEAST_ALLOCATED,
            resources=tuple((r["name"], int(r.get("weight") or 1)) for r in resources),
            shape=tuple((int(p.get("utilization", 0)), int(p.get("score", 0))) for p in shape),
        ),
        frozenset(args.get("ignoredResources") or ()),
        frozenset(args.get("ignoredResourceGroups") or ()),
    )


def _balanced(args: Mapping[str, Any]) -> node_resources_balanced_allocation.NodeResourcesBalancedAllocation:
    resources = [r["name"] for r in args.get("resources") or []] or list(
        node_resources_balanced_allocation.DEFAULT_RESOURCES
    )
    return node_resources_balanced_allocation.NodeResourcesBalancedAllocation(resources)


def _not_simulated(name: str, en: str, zh: str, post: str = "") -> Callable[[Mapping[str, Any]], NotSimulated]:
    return lambda _args: NotSimulated(name, en, zh, post)


def _points(*names: str) -> frozenset[str]:
    return frozenset(names)


_FILTER_ONLY = _points(FILTER)
REGISTRY: dict[str, PluginSpec] = {
    spec.name: spec
    for spec in (
        PluginSpec("SchedulingGates", lambda _a: SchedulingGates(), _points(PRE_ENQUEUE)),
        PluginSpec("PrioritySort", lambda _a: PrioritySort(), _points(QUEUE_SORT)),
        PluginSpec(node_unschedulable.NAME, lambda _a: node_unschedulable.NodeUnschedulable(), _FILTER_ONLY),
        PluginSpec(node_name.NAME, lambda _a: node_name.NodeName(), _FILTER_ONLY),
        PluginSpec(
            taint_toleration.NAME, lambda _a: taint_toleration.TaintToleration(), _points(FILTER, PRE_SCORE, SCORE)
        ),
        PluginSpec(
            node_affinity.NAME,
            lambda a: node_affinity.NodeAffinity(a.get("addedAffinity")),
            _points(PRE_FILTER, FILTER, PRE_SCORE, SCORE),
        ),
        PluginSpec(node_ports.NAME, lambda _a: node_ports.NodePorts(), _points(PRE_FILTER, FILTER)),
        PluginSpec(node_resources_fit.NAME, _fit, _points(PRE_FILTER, FILTER, PRE_SCORE, SCORE)),
        PluginSpec(
            volume_restrictions.NAME, lambda _a: volume_restrictions.VolumeRestrictions(), _points(PRE_FILTER, FILTER)
        ),
        PluginSpec(
            node_volume_limits.NAME, lambda _a: node_volume_limits.NodeVolumeLimits(), _points(PRE_FILTER, FILTER)
        ),
        PluginSpec(
            volume_binding.NAME,
            lambda _a: volume_binding.VolumeBinding(),
            _points(PRE_FILTER, FILTER, PRE_SCORE, SCORE, RESERVE, PRE_BIND),
        ),
        PluginSpec(volume_zone.NAME, lambda _a: volume_zone.VolumeZone(), _points(PRE_FILTER, FILTER)),
        PluginSpec(
            pod_topology_spread.NAME,
            lambda a: pod_topology_spread.PodTopologySpread(
                a.get("defaultingType") or "System", a.get("defaultConstraints") or ()
            ),
            _points(PRE_FILTER, FILTER, PRE_SCORE, SCORE),
        ),
        PluginSpec(
            inter_pod_affinity.NAME,
            lambda a: inter_pod_affinity.InterPodAffinity(
                int(a.get("hardPodAffinityWeight", 1)), bool(a.get("ignorePreferredTermsOfExistingPods", False))
            ),
            _points(PRE_FILTER, FILTER, PRE_SCORE, SCORE),
        ),
        PluginSpec(
            "DynamicResources",
            _not_simulated(
                "DynamicResources",
                "Allocates DRA devices (ResourceClaims) to the Pod.",
                "为 Pod 分配动态资源（ResourceClaim）设备。",
                "no new claims to deallocate",
            ),
            _points(PRE_FILTER, FILTER, POST_FILTER, RESERVE, PRE_BIND),
        ),
        PluginSpec(default_preemption.NAME, lambda _a: default_preemption.DefaultPreemption(), _points(POST_FILTER)),
        PluginSpec(node_resources_balanced_allocation.NAME, _balanced, _points(PRE_SCORE, SCORE)),
        PluginSpec(image_locality.NAME, lambda _a: image_locality.ImageLocality(), _points(SCORE)),
        PluginSpec("DefaultBinder", lambda _a: DefaultBinder(), _points(BIND)),
    )
}

# Score plugins whose raw scores go through a NormalizeScore step.
NORMALIZING = frozenset({taint_toleration.NAME, node_affinity.NAME, pod_topology_spread.NAME, inter_pod_affinity.NAME})


def build(name: str, args: Mapping[str, Any] | None = None) -> Any:
    """Instantiate a registered plugin with its (already validated) args."""
    return REGISTRY[name].factory(args or {})


def names() -> Sequence[str]:
    """All registered plugin names."""
    return tuple(REGISTRY)
