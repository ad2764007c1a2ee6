"""VolumeBinding: a Pod's PersistentVolumeClaims must be bound, bindable or provisionable on the node.

Upstream: ``pkg/scheduler/framework/plugins/volumebinding/volume_binding.go`` and the
``binder.go`` it drives. PreFilter sorts the Pod's claims into bound ones, unbound
ones whose StorageClass waits for the first consumer, and unbound immediate ones
(which reject the Pod outright: the PV controller binds those, not the scheduler).
Filter checks a bound claim's volume node affinity against the node, finds the
smallest Available volume that fits each waiting claim on that node, and otherwise
asks whether the claim's class can provision there. Reserve assumes the choice in
the snapshot; the scheduler's PreBind then writes it through the API
(``scheduler/volume_binder.py``). Score only scores with the StorageCapacityScoring
feature, alpha and off by default in v1.35: the default profile enables it (weight 1,
as every score plugin listed without a weight) and its PreScore always Skips.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from clusterviz.apimachinery.unstructured import deep_copy
from clusterviz.scheduler import storage
from clusterviz.scheduler.framework import (
    ActionType,
    BasePlugin,
    ClusterEvent,
    ClusterEventWithHint,
    CycleState,
    EventResource,
    PreFilterResult,
    QueueingHint,
    Status,
)
from clusterviz.scheduler.nodeinfo import NodeInfo, PodInfo

if TYPE_CHECKING:
    from clusterviz.scheduler.snapshot import Snapshot

NAME = "VolumeBinding"
LEGACY_FILTER_NAME = "CheckVolumeBinding"

REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
# v1.33 renamed "node(s) had volume node affinity conflict" to this.
REASON_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
REASON_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"

EXPLANATION_EN = (
    "Every PersistentVolumeClaim of the Pod must be usable from the node: a bound claim's volume must allow the "
    "node (its node affinity); an unbound WaitForFirstConsumer claim needs an Available volume the node can reach, "
    "or a StorageClass that can provision one there."
)
EXPLANATION_ZH = (
    "Pod 的每个持久卷申领都必须能在该节点上使用：已绑定的持久卷申领，其持久卷的节点亲和性必须允许该节点；"
    "未绑定且为 WaitForFirstConsumer 的持久卷申领，需要一个该节点能访问的 Available 持久卷，"
    "或一个能在该节点上制备卷的存储类。"
)

Obj = Mapping[str, Any]


@dataclass(frozen=True)
class PodVolumeClaims:
    """The Pod's claims sorted as ``GetPodVolumeClaims`` does, and the volumes of each waiting claim's class."""

    bound: tuple[Obj, ...] = ()
    delay_binding: tuple[Obj, ...] = ()
    immediate: tuple[Obj, ...] = ()
    pvs_by_class: Mapping[str, tuple[Obj, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class PodVolumes:
    """What binding the Pod's claims on one node takes: (claim, volume) pairs to bind, claims to provision."""

    static_bindings: tuple[tuple[Obj, Obj], ...] = ()
    dynamic_provisions: tuple[Obj, ...] = ()


@dataclass
class _State:
    claims: PodVolumeClaims
    by_node: dict[str, PodVolumes] = field(default_factory=dict)


def _key(obj: Obj) -> str:
    return f"{storage.meta(obj).get('namespace') or 'default'}/{storage.meta(obj).get('name') or ''}"


def check_claims_exist(pod: Obj, snapshot: Snapshot) -> tuple[bool, str]:
    """``podHasPVCs``: (does the Pod use any claim, the first problem with one or "")."""
    namespace = storage.meta(pod).get("namespace") or "default"
    names = storage.pod_claim_names(pod)
    for name, ephemeral in names:
        pvc = snapshot.pvcs.get(f"{namespace}/{name}")
        if pvc is None:
            if ephemeral:
                return True, f'waiting for ephemeral volume controller to create the persistentvolumeclaim "{name}"'
            return True, f'persistentvolumeclaim "{name}" not found'
        if (pvc.get("status") or {}).get("phase") == "Lost":
            volume = storage.spec(pvc).get("volumeName") or ""
            return True, f'persistentvolumeclaim "{name}" bound to non-existent persistentvolume "{volume}"'
        if storage.meta(pvc).get("deletionTimestamp"):
            return True, f'persistentvolumeclaim "{name}" is being deleted'
        if ephemeral:
            problem = storage.claim_owned_by_pod(pod, pvc)
            if problem:
                return True, problem
    return bool(names), ""


def pod_volume_claims(pod: Obj, snapshot: Snapshot) -> tuple[PodVolumeClaims, str]:
    """``GetPodVolumeClaims``: the claims by state, or an error (a class without a binding mode)."""
    namespace = storage.meta(pod).get("namespace") or "default"
    bound: list[Obj] = []
    delay: list[Obj] = []
    immediate: list[Obj] = []
    for name, _ephemeral in storage.pod_claim_names(pod):
        pvc = snapshot.pvcs.get(f"{namespace}/{name}")
        if pvc is None:
            continue
        if storage.is_fully_bound(pvc):
            bound.append(pvc)
            continue
        waits, error = storage.is_delay_binding(pvc, snapshot.storage_classes)
        if error:
            return PodVolumeClaims(), error
        # A claim pre-bound to a volume name is the PV controller's to finish, like an immediate one.
        if waits and not storage.spec(pvc).get("volumeName"):
            delay.append(pvc)
        else:
            immediate.append(pvc)
    by_class: dict[str, tuple[Obj, ...]] = {}
    for pvc in delay:
        wanted = storage.claim_class(pvc)
        if wanted not in by_class:
            by_class[wanted] = tuple(pv for _, pv in sorted(snapshot.pvs.items()) if storage.volume_class(pv) == wanted)
    return PodVolumeClaims(tuple(bound), tuple(delay), tuple(immediate), by_class), ""


@dataclass(frozen=True)
class NodeVolumes:
    """One node's verdict: the volumes it would take, the reasons it cannot, an error ("" if none)."""

    volumes: PodVolumes
    reasons: tuple[str, ...]
    error: str = ""


def find_pod_volumes(claims: PodVolumeClaims, node: NodeInfo, snapshot: Snapshot) -> NodeVolumes:
    """``FindPodVolumes``: check bound claims' node affinity, then match or provision the waiting claims."""
    labels = node.labels
    bound_ok, bound_found = True, True
    for pvc in claims.bound:
        pv = snapshot.pvs.get(storage.spec(pvc).get("volumeName") or "")
        if pv is None:
            bound_found = False
            break
        if not storage.node_affinity_matches(pv, labels):
            bound_ok = False
            break
    unbound_ok, sufficient = True, True
    bindings: list[tuple[Obj, Obj]] = []
    provisions: list[Obj] = []

    def verdict(error: str = "") -> NodeVolumes:
        reasons = []
        if not bound_ok:
            reasons.append(REASON_NODE_CONFLICT)
        if not unbound_ok:
            reasons.append(REASON_BIND_CONFLICT)
        if not sufficient:
            reasons.append(REASON_NOT_ENOUGH_SPACE)
        if not bound_found:
            reasons.append(REASON_PV_NOT_EXIST)
        return NodeVolumes(PodVolumes(tuple(bindings), tuple(provisions)), () if error else tuple(reasons), error)

    to_match: list[Obj] = []
    to_provision: list[Obj] = []
    for pvc in claims.delay_binding:
        selected = storage.annotations_of(pvc).get(storage.ANN_SELECTED_NODE)
        if selected is not None:
            if selected != node.name:
                unbound_ok = False
                return verdict()
            to_provision.append(pvc)
        else:
            to_match.append(pvc)
    chosen: set[str] = set()
    # Smallest claims first, so each gets the smallest volume that fits it.
    for pvc in sorted(to_match, key=storage.requested_bytes):
        pvs = claims.pvs_by_class.get(storage.claim_class(pvc), ())
        pv = storage.find_matching_volume(pvc, pvs, labels, chosen)
        if pv is None:
            to_provision.append(pvc)
            unbound_ok = False
            continue
        chosen.add(storage.meta(pv).get("name") or "")
        bindings.append((pvc, pv))
    if to_provision:
        for pvc in to_provision:
            class_name = storage.claim_class(pvc)
            if not class_name:
                return verdict(f'no class for claim "{_key(pvc)}"')
            storage_class = snapshot.storage_classes.get(class_name)
            if storage_class is None:
                return verdict(f'failed to find storage class "{class_name}"')
            provisioner = storage_class.get("provisioner") or ""
            if provisioner in ("", storage.NOT_SUPPORTED_PROVISIONER) or not storage.topology_matches(
                storage_class.get("allowedTopologies"), labels
            ):
                unbound_ok = False
                provisions.clear()
                return verdict()
            provisions.append(pvc)
        unbound_ok = True
    return verdict()


def bind_volume_to_claim(pv: Obj, pvc: Obj) -> dict[str, Any]:
    """``GetBindVolumeToClaim``: a copy of the volume whose claimRef names the claim, marked bound by controller."""
    out = deep_copy(dict(pv))
    pvc_meta = storage.meta(pvc)
    ref = storage.spec(pv).get("claimRef") or {}
    if (
        ref.get("name") != pvc_meta.get("name")
        or ref.get("namespace") != (pvc_meta.get("namespace") or "default")
        or (ref.get("uid") or "") != (pvc_meta.get("uid") or "")
    ):
        out.setdefault("spec", {})["claimRef"] = {
            "kind": "PersistentVolumeClaim",
            "namespace": pvc_meta.get("namespace") or "default",
            "name": pvc_meta.get("name") or "",
            "uid": pvc_meta.get("uid") or "",
            "apiVersion": "v1",
            "resourceVersion": pvc_meta.get("resourceVersion") or "",
        }
    if not storage.is_bound_to_claim(pv, pvc):
        out.setdefault("metadata", {}).setdefault("annotations", {}).setdefault(ANN_BOUND_BY_CONTROLLER, "yes")
    return out


def with_selected_node(pvc: Obj, node_name: str) -> dict[str, Any]:
    """A copy of the claim annotated with the node its volume is to be provisioned for."""
    out = deep_copy(dict(pvc))
    out.setdefault("metadata", {}).setdefault("annotations", {})[storage.ANN_SELECTED_NODE] = node_name
    return out


def all_bound(pod: Obj, snapshot: Snapshot) -> bool:
    """``arePodVolumesBound``: every claim of the Pod is fully bound."""
    namespace = storage.meta(pod).get("namespace") or "default"
    for name, _ephemeral in storage.pod_claim_names(pod):
        pvc = snapshot.pvcs.get(f"{namespace}/{name}")
        if pvc is None or not storage.is_fully_bound(pvc):
            return False
    return True


class VolumeBinding(BasePlugin):
    """PreFilter, Filter and Reserve (PreBind's API writes are the scheduler's, see ``volume_binder``)."""

    name = NAME
    legacy_names = {"filter": LEGACY_FILTER_NAME}
    explanation = {"en": EXPLANATION_EN, "zh": EXPLANATION_ZH}

    def pre_filter(self, state: CycleState, pod: PodInfo) -> tuple[Status, PreFilterResult | None]:
        """Skip without claims; reject a missing, lost or deleted claim, or an unbound immediate one."""
        snapshot = state.snapshot
        if snapshot is None:
            return Status.skip(), None
        has_claims, problem = check_claims_exist(pod.pod, snapshot)
        if problem:
            return Status.unresolvable(problem), None
        if not has_claims:
            return Status.skip(), None
        claims, error = pod_volume_claims(pod.pod, snapshot)
        if error:
            return Status.error(error), None
        if claims.immediate:
            return Status.unresolvable(REASON_UNBOUND_IMMEDIATE), None
        state.write(NAME, _State(claims))
        return Status(), None

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status:
        """Always Skip: scoring needs StorageCapacityScoring (alpha, off by default), as upstream's nil scorer."""
        return Status.skip()

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        """0, upstream's score without a scorer (PreScore's Skip keeps the scheduler from asking)."""
        return 0

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        """The node's reasons (all of them, as upstream appends them), or Success with the volumes it would take.

        Run after its own PreFilter rejected (the record shows every filter when another PreFilter
        rejected first), it gives that PreFilter's verdict again.
        """
        data: _State | None = state.get(NAME)
        if data is None:
            status, _ = self.pre_filter(state, pod)
            if not status.is_success:
                return Status() if status.is_skip else status
            data = state.read(NAME)
        assert state.snapshot is not None
        found = find_pod_volumes(data.claims, node, state.snapshot)
        if found.error:
            return Status.error(found.error)
        if found.reasons:
            return Status.unresolvable(*found.reasons)
        data.by_node[node.name] = found.volumes
        return Status()

    def reserve(self, state: CycleState, pod: PodInfo, node_name: str) -> PodVolumes | None:
        """What PreBind must write for the chosen node (None when every claim is already bound), assumed in the snapshot.

        Filter's result for that node is reused when this state ran it; otherwise it is worked out again.
        """
        snapshot = state.snapshot
        if snapshot is None or all_bound(pod.pod, snapshot):
            return None
        data: _State | None = state.get(NAME)
        if data is None:
            status, _ = self.pre_filter(state, pod)
            data = state.get(NAME) if status.is_success else None
        if data is None:
            return None
        volumes = data.by_node.get(node_name)
        if volumes is None:
            node = snapshot.get(node_name)
            if node is None or not self.filter(state, pod, node).is_success:
                return None
            volumes = data.by_node[node_name]
        assumed = PodVolumes(
            tuple((pvc, bind_volume_to_claim(pv, pvc)) for pvc, pv in volumes.static_bindings),
            tuple(with_selected_node(pvc, node_name) for pvc in volumes.dynamic_provisions),
        )
        for _pvc, pv in assumed.static_bindings:
            snapshot.add_pv(pv)
        for pvc in assumed.dynamic_provisions:
            snapshot.add_pvc(pvc)
        return assumed

    def explain_filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any] | None:
        """Each claim on this node: bound (its volume, whether the node affinity allows the node), matched or provisioned."""
        data: _State | None = state.get(NAME)
        if data is None or state.snapshot is None:
            return None
        snapshot = state.snapshot
        found = find_pod_volumes(data.claims, node, snapshot)
        claims: list[dict[str, Any]] = []
        for pvc in data.claims.bound:
            volume = storage.spec(pvc).get("volumeName") or ""
            pv = snapshot.pvs.get(volume)
            claims.append(
                {
                    "claim": storage.meta(pvc).get("name") or "",
                    "state": "bound",
                    "volume": volume,
                    "volumeFound": pv is not None,
                    "nodeAffinity": _affinity_text(pv) if pv is not None else "",
                    "matched": pv is not None and storage.node_affinity_matches(pv, node.labels),
                }
            )
        matched = {_key(pvc): pv for pvc, pv in found.volumes.static_bindings}
        provisioned = {_key(pvc) for pvc in found.volumes.dynamic_provisions}
        for pvc in data.claims.delay_binding:
            key = _key(pvc)
            pv = matched.get(key)
            entry: dict[str, Any] = {
                "claim": storage.meta(pvc).get("name") or "",
                "state": "waitForFirstConsumer",
                "storageClass": storage.claim_class(pvc),
                "volume": storage.meta(pv).get("name") or "" if pv is not None else "",
                "provision": key in provisioned,
                "selectedNode": storage.annotations_of(pvc).get(storage.ANN_SELECTED_NODE, ""),
            }
            entry["matched"] = pv is not None or key in provisioned
            claims.append(entry)
        return {"claims": claims, "reasons": list(found.reasons)}

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Classes, claims, volumes, nodes and CSINodes, as upstream (with queueing hints on, as in v1.35)."""
        add_update = ActionType.ADD | ActionType.UPDATE
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.STORAGE_CLASS, add_update), hint_storage_class_change),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, add_update), hint_claim_change),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME, add_update)),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, add_update), hint_csinode_change),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_DRIVER, ActionType.UPDATE), hint_csi_driver_change),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_STORAGE_CAPACITY, add_update)),
        ]


def _affinity_text(pv: Obj) -> str:
    """The volume's required node affinity as the manifest writes it ("" when it has none)."""
    from clusterviz.scheduler.plugins.node_affinity import as_written, parse_node_selector

    required = (storage.spec(pv).get("nodeAffinity") or {}).get("required")
    if required is None:
        return ""
    terms = []
    for term in parse_node_selector(required):
        parts = [as_written(r) for r in (term.expressions.requirements if term.expressions is not None else ())]
        terms.append(", ".join(parts))
    return " or ".join(f"({t})" for t in terms) if len(terms) > 1 else (terms[0] if terms else "")


def uses_claim(pod: Obj, pvc: Obj) -> bool:
    """Is ``pvc`` one of the Pod's claims (same namespace and name)?"""
    if (storage.meta(pod).get("namespace") or "default") != (storage.meta(pvc).get("namespace") or "default"):
        return False
    name = storage.meta(pvc).get("name")
    return any(claim == name for claim, _ in storage.pod_claim_names(pod))


def hint_claim_change(pod: Obj, old: Any, new: Any) -> QueueingHint:
    """A claim the Pod uses was created or changed."""
    return QueueingHint.QUEUE if new and uses_claim(pod, new) else QueueingHint.SKIP


def hint_storage_class_change(pod: Obj, old: Any, new: Any) -> QueueingHint:
    """A new class, or a class whose allowedTopologies changed."""
    if not old:
        return QueueingHint.QUEUE
    if (old.get("allowedTopologies") or None) != ((new or {}).get("allowedTopologies") or None):
        return QueueingHint.QUEUE
    return QueueingHint.SKIP


def hint_csinode_change(pod: Obj, old: Any, new: Any) -> QueueingHint:
    """A new CSINode, or one whose migrated-plugins annotation changed."""
    if not old:
        return QueueingHint.QUEUE
    key = "storage.alpha.kubernetes.io/migrated-plugins"
    return (
        QueueingHint.QUEUE
        if storage.annotations_of(old).get(key) != storage.annotations_of(new or {}).get(key)
        else (QueueingHint.SKIP)
    )


def hint_csi_driver_change(pod: Obj, old: Any, new: Any) -> QueueingHint:
    """A driver of one of the Pod's inline CSI volumes stopped tracking storage capacity."""
    if not old or not new:
        return QueueingHint.SKIP
    driver = storage.meta(new).get("name")
    for volume in storage.spec(pod).get("volumes") or []:
        if (volume.get("csi") or {}).get("driver") != driver:
            continue
        if storage.spec(old).get("storageCapacity") and not storage.spec(new).get("storageCapacity"):
            return QueueingHint.QUEUE
    return QueueingHint.SKIP
