"""The scheduling framework's shared vocabulary, after kube-scheduler's ``framework`` package.

A plugin answers at one or more *extension points* (PreFilter, Filter, PreScore,
Score, NormalizeScore, ...) with a :class:`Status`. Per-attempt data that one
extension point computes for the next lives in a :class:`CycleState`. The
cluster events a plugin declares (:class:`ClusterEventWithHint`) tell the
scheduling queue when a Pod that plugin rejected is worth another try.

Everything here is plain data: no database, no clock, no I/O.
"""

from __future__ import annotations

import enum
import math
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from clusterviz.scheduler.nodeinfo import NodeInfo, PodInfo
    from clusterviz.scheduler.nodetable import NodeTable
    from clusterviz.scheduler.snapshot import Snapshot

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0


class Code(enum.StrEnum):
    """A plugin's verdict; the values are the words upstream logs and clusterviz displays."""

    SUCCESS = "Success"
    ERROR = "Error"
    UNSCHEDULABLE = "Unschedulable"
    UNSCHEDULABLE_AND_UNRESOLVABLE = "UnschedulableAndUnresolvable"
    SKIP = "Skip"


@dataclass(frozen=True)
class Status:
    """The result of one plugin at one extension point: a code, its reasons, the plugin's name."""

    code: Code = Code.SUCCESS
    reasons: tuple[str, ...] = ()
    plugin: str = ""

    @classmethod
    def unschedulable(cls, *reasons: str) -> Status:
        """A rejection that preemption might resolve (for example ``Insufficient cpu``)."""
        return cls(Code.UNSCHEDULABLE, tuple(reasons))

    @classmethod
    def unresolvable(cls, *reasons: str) -> Status:
        """A rejection that evicting Pods cannot fix (for example a node selector mismatch)."""
        return cls(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, tuple(reasons))

    @classmethod
    def skip(cls) -> Status:
        """PreFilter/PreScore: this plugin has nothing to say about this Pod."""
        return _SKIP

    @classmethod
    def error(cls, message: str) -> Status:
        """An internal failure; the whole attempt fails."""
        return cls(Code.ERROR, (message,))

    @property
    def is_success(self) -> bool:
        """True for Success (and nothing else)."""
        return self.code is Code.SUCCESS

    @property
    def is_skip(self) -> bool:
        """True for Skip."""
        return self.code is Code.SKIP

    @property
    def is_rejected(self) -> bool:
        """True for Unschedulable and UnschedulableAndUnresolvable."""
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    @property
    def message(self) -> str:
        """The reasons joined as upstream's ``Status.Message()`` does."""
        return ", ".join(self.reasons)

    def with_plugin(self, name: str) -> Status:
        """Return a copy naming the plugin that produced it."""
        return replace(self, plugin=name)


SUCCESS = Status()
_SKIP = Status(Code.SKIP)


def default_normalize_score(scores: Mapping[str, int], reverse: bool = False) -> dict[str, int]:
    """Upstream's ``helper.DefaultNormalizeScore`` with MaxNodeScore 100.

    Scales every raw score by ``100*s/max`` (integer division). With ``reverse``
    the result is ``100 - 100*s/max``. When the largest score is 0, reverse gives
    everyone 100 and forward leaves everyone at 0.
    """
    max_count = max(scores.values(), default=0)
    if max_count == 0:
        return {name: MAX_NODE_SCORE if reverse else 0 for name in scores}
    out: dict[str, int] = {}
    for name, raw in scores.items():
        score = go_div(MAX_NODE_SCORE * raw, max_count)
        out[name] = MAX_NODE_SCORE - score if reverse else score
    return out


def normalize_nodes(raw: np.ndarray, reverse: bool = False) -> np.ndarray:
    """:func:`default_normalize_score` over a column of raw scores (same integer results)."""
    max_count = int(raw.max()) if len(raw) else 0
    if max_count == 0:
        return np.full(len(raw), MAX_NODE_SCORE if reverse else 0, np.int64)
    score = go_div_nodes(MAX_NODE_SCORE * raw, max_count)
    return MAX_NODE_SCORE - score if reverse else score


def go_div_nodes(a: np.ndarray, b: np.ndarray | int) -> np.ndarray:
    """:func:`go_div` elementwise: integer division truncating toward zero."""
    q = np.abs(a) // np.abs(b)
    return np.where((a >= 0) == (np.asarray(b) > 0), q, -q)


@dataclass(frozen=True, eq=False)
class NodeStatuses:
    """A Filter plugin's verdict on every row of a :class:`NodeTable`: row ``r`` gets ``statuses[index[r]]``.

    ``statuses[0]`` is always Success. A plugin returns few distinct statuses across
    a cluster, so this costs one small integer per node instead of one object.
    """

    index: np.ndarray
    statuses: tuple[Status, ...]

    @classmethod
    def where(cls, passes: np.ndarray, failure: Status) -> NodeStatuses:
        """Success where ``passes`` is true, ``failure`` elsewhere."""
        if passes.all():
            return cls(np.zeros(len(passes), np.int16), (SUCCESS,))  # the failure holds on no node: leave it out
        return cls((~passes).astype(np.int16), (SUCCESS, failure))

    @classmethod
    def from_keys(cls, keys: np.ndarray, status_of: Callable[[int], Status]) -> NodeStatuses:
        """Rows with equal integer keys share a status; key 0 means Success, ``status_of(key)`` the others."""
        if not keys.any():
            return cls(np.zeros(len(keys), np.int16), (SUCCESS,))  # every node passes: no need to sort the keys
        distinct, inverse = np.unique(keys, return_inverse=True)
        statuses = [status_of(int(k)) if k else SUCCESS for k in distinct.tolist()]
        if len(distinct) and distinct[0] == 0:
            return cls(inverse.astype(np.int16), tuple(statuses))
        return cls((inverse + 1).astype(np.int16), (SUCCESS, *statuses))

    @classmethod
    def from_groups(cls, codes: np.ndarray, verdicts: Sequence[Status]) -> NodeStatuses:
        """Rows of group ``g`` (see ``NodeTable.per_group``) get ``verdicts[g]``."""
        interned: dict[Status, int] = {SUCCESS: 0}
        group_index = np.array([interned.setdefault(v, len(interned)) for v in verdicts], np.int16)
        if len(interned) == 1 or not len(codes):
            return cls(np.zeros(len(codes), np.int16), tuple(interned))  # every group passes: nothing to look up
        return cls(group_index[codes], tuple(interned))

    def failing(self) -> np.ndarray:
        """Rows whose status rejects the node (neither Success nor Skip)."""
        rejects = np.array([s.code not in (Code.SUCCESS, Code.SKIP) for s in self.statuses])
        return rejects[self.index]


def go_round(x: float) -> int:
    """Go's ``math.Round``: nearest integer, halves away from zero (exact, unlike ``floor(x + 0.5)``)."""
    whole = math.floor(abs(x))
    rounded = whole + 1 if abs(x) - whole >= 0.5 else whole
    return int(rounded if x >= 0 else -rounded)


def go_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, as Go's ``/`` on integers does."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


@dataclass(frozen=True)
class PreFilterResult:
    """What PreFilter may narrow: ``node_names`` None means every node is still a candidate."""

    node_names: frozenset[str] | None = None

    @property
    def all_nodes(self) -> bool:
        """True when no plugin narrowed the node set."""
        return self.node_names is None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        """Intersect two results, as the framework does across PreFilter plugins."""
        if other is None or other.all_nodes:
            return self
        if self.all_nodes:
            return other
        assert self.node_names is not None and other.node_names is not None
        return PreFilterResult(self.node_names & other.node_names)


class CycleState:
    """Per-attempt scratch space shared by a profile's plugins.

    ``snapshot`` is the cluster view of this attempt; plugins that need the
    whole cluster (spreading, inter-pod affinity, image spread) read it here.
    """

    def __init__(self, snapshot: Snapshot | None = None) -> None:
        self.snapshot = snapshot
        self._data: dict[str, Any] = {}
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()

    def write(self, key: str, value: Any) -> None:
        """Store a plugin's data under its key (conventionally the plugin name)."""
        self._data[key] = value

    def read(self, key: str) -> Any:
        """Return stored data; a missing key raises KeyError, as upstream's ErrNotFound."""
        return self._data[key]

    def get(self, key: str, default: Any = None) -> Any:
        """Return stored data or ``default``."""
        return self._data.get(key, default)

    def clone(self) -> CycleState:
        """A shallow copy: values are shared, the containers are not."""
        copy = CycleState(self.snapshot)
        copy._data = dict(self._data)
        copy.skip_filter_plugins = set(self.skip_filter_plugins)
        copy.skip_score_plugins = set(self.skip_score_plugins)
        return copy


NO_NODE_AVAILABLE_FORMAT = "0/{} nodes are available"
NO_NODES_AVAILABLE = "no nodes available to schedule pods"


def fit_error_message(
    num_all_nodes: int,
    node_statuses: Mapping[str, Status],
    *,
    absent_reasons: Sequence[str] = (),
    pre_filter_message: str = "",
    post_filter_message: str = "",
) -> str:
    """Upstream's ``FitError.Error()``.

    ``0/N nodes are available: <body>.`` where the body is the PreFilter message,
    or every reason of every failed node counted once per node, as
    ``"<count> <reason>"`` strings sorted as strings and joined with ", ".
    Nodes without an explicit status count under ``absent_reasons``. A PostFilter
    message follows after a space (it carries its own final period).
    """
    message = NO_NODE_AVAILABLE_FORMAT.format(num_all_nodes) + ":"
    if pre_filter_message:
        message += f" {pre_filter_message}."
    else:
        counts: Counter[str] = Counter()
        for status in node_statuses.values():
            for reason in status.reasons:
                counts[reason] += 1
        absent = num_all_nodes - len(node_statuses)
        if absent > 0:
            for reason in absent_reasons:
                counts[reason] += absent
        histogram = sorted(f"{count} {reason}" for reason, count in counts.items())
        if histogram:
            message += " " + ", ".join(histogram) + "."
    if post_filter_message:
        message += " " + post_filter_message
    return message


# --- cluster events and queueing hints ------------------------------------------------


class ActionType(enum.IntFlag):
    """What happened to an object. The bit order mirrors upstream's so comparisons agree."""

    ADD = 1
    DELETE = 2
    UPDATE_NODE_ALLOCATABLE = 4
    UPDATE_NODE_LABEL = 8
    UPDATE_NODE_TAINT = 16
    UPDATE_NODE_CONDITION = 32
    UPDATE_NODE_ANNOTATION = 64
    UPDATE_POD_LABEL = 128
    UPDATE_POD_SCALE_DOWN = 256
    UPDATE_POD_TOLERATION = 512
    UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1024
    UPDATE_POD_GENERATED_RESOURCE_CLAIM = 2048
    UPDATE_POD_OTHER = 4096
    ALL = 8191
    UPDATE = 8188


class EventResource(enum.StrEnum):
    """The kind of object an event is about. ``Pod`` covers assigned and unscheduled Pods."""

    POD = "Pod"
    ASSIGNED_POD = "AssignedPod"
    UNSCHEDULED_POD = "UnscheduledPod"
    NODE = "Node"
    PERSISTENT_VOLUME = "PersistentVolume"
    PERSISTENT_VOLUME_CLAIM = "PersistentVolumeClaim"
    STORAGE_CLASS = "storage.k8s.io/StorageClass"
    CSI_NODE = "storage.k8s.io/CSINode"
    CSI_DRIVER = "storage.k8s.io/CSIDriver"
    CSI_STORAGE_CAPACITY = "storage.k8s.io/CSIStorageCapacity"
    NAMESPACE = "Namespace"
    WILDCARD = "*"


@dataclass(frozen=True)
class ClusterEvent:
    """One kind of change in the cluster, such as ``Node/Add`` or ``AssignedPod/Delete``."""

    resource: EventResource
    action: ActionType
    label: str = ""

    @property
    def is_wildcard(self) -> bool:
        """True for the catch-all event that moves every rejected Pod."""
        return self.resource == EventResource.WILDCARD and self.action == ActionType.ALL

    def matches(self, incoming: ClusterEvent) -> bool:
        """Upstream's ``ClusterEvent.Match``: does ``incoming`` fall under this registration?

        A registration for ``Pod`` also covers ``AssignedPod`` and ``UnscheduledPod``.
        The incoming action must overlap and be no broader than the registered one.
        """
        if self.is_wildcard:
            return True
        resource_ok = (
            self.resource == EventResource.WILDCARD
            or self.resource == incoming.resource
            or (
                self.resource == EventResource.POD
                and incoming.resource in (EventResource.ASSIGNED_POD, EventResource.UNSCHEDULED_POD)
            )
        )
        return resource_ok and bool(self.action & incoming.action) and int(incoming.action) <= int(self.action)

    def __str__(self) -> str:
        if self.label:
            return self.label
        names = [flag.name or "" for flag in ActionType if flag & self.action and flag.value & (flag.value - 1) == 0]
        return f"{self.resource.value}/{'|'.join(n.title().replace('_', '') for n in names)}"


NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD, "NodeAdd")
NODE_DELETE = ClusterEvent(EventResource.NODE, ActionType.DELETE, "NodeDelete")
ASSIGNED_POD_ADD = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD, "AssignedPodAdd")
ASSIGNED_POD_DELETE = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE, "AssignedPodDelete")
FORCE_ACTIVATE = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, "ForceActivate")


class QueueingHint(enum.Enum):
    """A plugin's answer to "could this event make the Pod I rejected schedulable?"."""

    QUEUE = "Queue"
    SKIP = "QueueSkip"


# (pod being requeued, old object or None, new object or None) -> hint
HintFn = Callable[[Mapping[str, Any], Any, Any], QueueingHint]


@dataclass(frozen=True)
class ClusterEventWithHint:
    """An event a plugin registers, with an optional function that filters it per Pod."""

    event: ClusterEvent
    hint: HintFn | None = None


def _changed(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None, *path: str) -> bool:
    def dig(obj: Mapping[str, Any] | None) -> Any:
        for key in path:
            if not isinstance(obj, Mapping):
                return None
            obj = obj.get(key)
        return obj or None

    return dig(old) != dig(new)


def _conditions(node: Mapping[str, Any]) -> dict[str, Any]:
    # Heartbeat timestamps change every few seconds; only the status matters.
    return {c.get("type"): c.get("status") for c in (node.get("status") or {}).get("conditions") or []}


def node_update_events(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[ClusterEvent]:
    """The Node events of one update, as upstream's ``NodeSchedulingPropertiesChange``.

    Making a node schedulable again (uncordon) counts as a taint update, as upstream does.
    """
    actions: list[ActionType] = []
    old_unsched = bool((old.get("spec") or {}).get("unschedulable"))
    new_unsched = bool((new.get("spec") or {}).get("unschedulable"))
    if old_unsched and not new_unsched:
        actions.append(ActionType.UPDATE_NODE_TAINT)
    if _changed(old, new, "status", "allocatable"):
        actions.append(ActionType.UPDATE_NODE_ALLOCATABLE)
    if _changed(old, new, "metadata", "labels"):
        actions.append(ActionType.UPDATE_NODE_LABEL)
    if _changed(old, new, "spec", "taints") and ActionType.UPDATE_NODE_TAINT not in actions:
        actions.append(ActionType.UPDATE_NODE_TAINT)
    if _conditions(old) != _conditions(new):
        actions.append(ActionType.UPDATE_NODE_CONDITION)
    if _changed(old, new, "metadata", "annotations"):
        actions.append(ActionType.UPDATE_NODE_ANNOTATION)
    return [ClusterEvent(EventResource.NODE, a, f"Node{(a.name or '').title().replace('_', '')}") for a in actions]


def pod_update_events(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[ClusterEvent]:
    """The Pod events of one update, as upstream's ``PodSchedulingPropertiesChange``.

    The resource is ``AssignedPod`` when the new object is bound, else ``UnscheduledPod``.
    """
    resource = EventResource.ASSIGNED_POD if (new.get("spec") or {}).get("nodeName") else EventResource.UNSCHEDULED_POD
    actions: list[ActionType] = []
    if _changed(old, new, "metadata", "labels"):
        actions.append(ActionType.UPDATE_POD_LABEL)
    if _requests_went_down(old, new):
        actions.append(ActionType.UPDATE_POD_SCALE_DOWN)
    if _changed(old, new, "spec", "tolerations"):
        actions.append(ActionType.UPDATE_POD_TOLERATION)
    if (old.get("spec") or {}).get("schedulingGates") and not (new.get("spec") or {}).get("schedulingGates"):
        actions.append(ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)
    if not actions:
        actions.append(ActionType.UPDATE_POD_OTHER)
    return [ClusterEvent(resource, a, f"{resource.value}{(a.name or '').title().replace('_', '')}") for a in actions]


def _requests_went_down(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    from clusterviz.scheduler.nodeinfo import pod_requests

    before, after = pod_requests(old), pod_requests(new)
    return after.milli_cpu < before.milli_cpu or after.memory < before.memory


# --- extension points -----------------------------------------------------------------


@runtime_checkable
class Plugin(Protocol):
    """Every plugin has a name, legacy names and a one-sentence explanation in two languages."""

    name: str
    explanation: Mapping[str, str]

    def legacy_name(self, point: str) -> str:
        """The Policy-API predicate/priority name for an extension point ("" if none)."""
        ...


@runtime_checkable
class PreFilterPlugin(Plugin, Protocol):
    """Runs once per attempt before any Filter; may Skip, narrow the nodes, or reject outright."""

    def pre_filter(self, state: CycleState, pod: PodInfo) -> tuple[Status, PreFilterResult | None]: ...


@runtime_checkable
class FilterPlugin(Plugin, Protocol):
    """Decides whether one node can run the Pod."""

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status: ...


@runtime_checkable
class BatchFilterPlugin(Plugin, Protocol):
    """A Filter plugin that also judges every node of a :class:`NodeTable` at once (same verdicts)."""

    def filter_nodes(self, state: CycleState, pod: PodInfo, nodes: NodeTable) -> NodeStatuses: ...


@runtime_checkable
class PreScorePlugin(Plugin, Protocol):
    """Runs once before Score over the feasible nodes; Skip leaves the plugin out of scoring."""

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status: ...


@runtime_checkable
class ScorePlugin(Plugin, Protocol):
    """Gives one feasible node a raw integer score."""

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int: ...


@runtime_checkable
class BatchScorePlugin(Plugin, Protocol):
    """A Score plugin that also scores the given rows of a :class:`NodeTable` at once (same numbers).

    ``normalize_nodes`` is present when the plugin normalises.
    """

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: NodeTable, rows: np.ndarray) -> np.ndarray: ...


@runtime_checkable
class NormalizeScorePlugin(Plugin, Protocol):
    """Rescales the raw scores of all feasible nodes into 0..100."""

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: Mapping[str, int]) -> dict[str, int]: ...


@runtime_checkable
class ExplainFilterPlugin(Plugin, Protocol):
    """A Filter plugin that lays out the inputs behind its verdict on one node (for the decision record).

    Called after the attempt with the same CycleState, so it reads the data the Filter read.
    None means there is nothing to show on that node.
    """

    def explain_filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any] | None: ...


@runtime_checkable
class ExplainScorePlugin(Plugin, Protocol):
    """A Score plugin that lays out the inputs behind its raw score on one node (for the decision record)."""

    def explain_score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any]: ...


@runtime_checkable
class NodeLocalExplanation(Plugin, Protocol):
    """An explaining plugin whose inputs on a node depend on that node alone, given ``explain_key``.

    Every attempt's record lays out the inputs on every listed node, and from one attempt to the next
    most nodes stay as they were (only the node the last Pod went to changed): inputs worked out for an
    unchanged node (same NodeInfo generation) and an equal key are taken again instead of worked out anew.
    ``scoring`` asks for the key of the Score inputs, else of the Filter's; None means the inputs
    cannot be kept this time.
    """

    def explain_key(self, state: CycleState, pod: PodInfo, scoring: bool) -> Hashable | None: ...


@runtime_checkable
class PreEnqueuePlugin(Plugin, Protocol):
    """Keeps a Pod out of the active queue while it returns a rejection (scheduling gates)."""

    def pre_enqueue(self, pod: Mapping[str, Any]) -> Status: ...


@runtime_checkable
class EnqueueExtensions(Plugin, Protocol):
    """Declares the cluster events that could make a Pod rejected by this plugin schedulable."""

    def events_to_register(self) -> list[ClusterEventWithHint]: ...


class BasePlugin:
    """Shared plumbing for the plugin classes: display names and no events by default."""

    name: ClassVar[str] = ""
    # Not a ClassVar: a plugin whose legacy name depends on its arguments sets its own.
    legacy_names: Mapping[str, str] = {}
    explanation: ClassVar[Mapping[str, str]] = {}

    def legacy_name(self, point: str) -> str:
        """The Policy-API name for ``point`` ("filter" or "score"), or ""."""
        return self.legacy_names.get(point, "")

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """No events unless a plugin says otherwise."""
        return []
