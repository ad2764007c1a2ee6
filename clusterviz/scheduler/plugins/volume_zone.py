"""VolumeZone: a Pod goes only to nodes in the zone (and region) of its bound volumes.

Upstream: ``pkg/scheduler/framework/plugins/volumezone/volume_zone.go``. PreFilter
reads the zone and region labels of the PersistentVolume behind each of the Pod's
claims (a claim still waiting for its first consumer has no volume yet and is
skipped). Filter requires each such label to match the node's; a node carrying no
zone or region label at all passes (a single-zone cluster often labels nothing).
A volume label may list several zones joined by ``__``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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

NAME = "VolumeZone"
LEGACY_FILTER_NAME = "NoVolumeZoneConflict"
REASON_CONFLICT = "node(s) had no available volume zone"

EXPLANATION_EN = (
    "A volume labelled with a zone or region can only be used there: the node must carry the same "
    "topology.kubernetes.io/zone and region labels as the Pod's bound volumes."
)
EXPLANATION_ZH = "带有可用区或地域标签的持久卷只能在该处使用：节点的 zone 与 region 标签必须与 Pod 已绑定的持久卷相同。"

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
TOPOLOGY_LABELS = (BETA_ZONE, BETA_REGION, ZONE, REGION)
_GA = {BETA_ZONE: ZONE, BETA_REGION: REGION}
MULTI_ZONE_DELIMITER = "__"


@dataclass(frozen=True)
class VolumeTopology:
    """One topology label of one volume: the volume, the label key, the zones it allows."""

    volume: str
    key: str
    values: frozenset[str]


def label_zones(value: str) -> frozenset[str] | None:
    """``LabelZonesToSet``: the zones of a ``a__b`` label value (None when one is empty)."""
    zones = [zone.strip() for zone in value.split(MULTI_ZONE_DELIMITER)]
    return None if any(not zone for zone in zones) else frozenset(zones)


def pod_volume_topologies(pod: PodInfo, state: CycleState) -> tuple[list[VolumeTopology], Status]:
    """``getPVbyPod``: the topology labels of the volumes behind the Pod's claims, or why they cannot be read."""
    snapshot = state.snapshot
    assert snapshot is not None
    out: list[VolumeTopology] = []
    for volume in pod.spec.get("volumes") or []:
        if volume.get("persistentVolumeClaim") is None:
            continue
        name = (volume["persistentVolumeClaim"] or {}).get("claimName") or ""
        if not name:
            return [], Status.unresolvable("PersistentVolumeClaim had no name")
        pvc = snapshot.pvcs.get(f"{pod.namespace}/{name}")
        if pvc is None:
            return [], Status.unresolvable(f'persistentvolumeclaim "{name}" not found')
        pv_name = storage.spec(pvc).get("volumeName") or ""
        if not pv_name:
            class_name = storage.claim_class(pvc)
            if not class_name:
                return [], Status.unresolvable("PersistentVolumeClaim had no pv name and storageClass name")
            storage_class = snapshot.storage_classes.get(class_name)
            if storage_class is None:
                return [], Status.unresolvable(f'storageclasses.storage.k8s.io "{class_name}" not found')
            mode = storage_class.get("volumeBindingMode")
            if mode is None:
                return [], Status.unresolvable(f'VolumeBindingMode not set for StorageClass "{class_name}"')
            if mode == storage.WAIT_FOR_FIRST_CONSUMER:
                continue
            return [], Status.unresolvable("PersistentVolume had no name")
        pv = snapshot.pvs.get(pv_name)
        if pv is None:
            return [], Status.unresolvable(f'persistentvolume "{pv_name}" not found')
        labels = storage.meta(pv).get("labels") or {}
        for key in TOPOLOGY_LABELS:
            if key in labels:
                zones = label_zones(labels[key])
                if zones is not None:  # upstream logs an unreadable label and ignores it
                    out.append(VolumeTopology(pv_name, key, zones))
    return out, Status()


def conflicting_topology(topologies: list[VolumeTopology], node: NodeInfo) -> VolumeTopology | None:
    """The first volume label the node does not satisfy (None when the node fits or has no topology labels)."""
    if not any(key in node.labels for key in TOPOLOGY_LABELS):
        return None
    for topology in topologies:
        value = node.labels.get(topology.key)
        if value is None:
            value = node.labels.get(_GA.get(topology.key, topology.key))
        if value is None or value not in topology.values:
            return topology
    return None


class VolumeZone(BasePlugin):
    """PreFilter (Skip without zoned volumes) and Filter."""

    name = NAME
    legacy_names = {"filter": LEGACY_FILTER_NAME}
    explanation = {"en": EXPLANATION_EN, "zh": EXPLANATION_ZH}

    def pre_filter(self, state: CycleState, pod: PodInfo) -> tuple[Status, PreFilterResult | None]:
        """Collect the volumes' topology labels; Skip when there are none."""
        if state.snapshot is None:
            return Status.skip(), None
        topologies, status = pod_volume_topologies(pod, state)
        if not status.is_success:
            return status, None
        if not topologies:
            return Status.skip(), None
        state.write(NAME, topologies)
        return Status(), None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        """Every volume label must match the node's (the GA label stands in for a beta one)."""
        if not pod.spec.get("volumes"):
            return Status()
        topologies = state.get(NAME)
        if topologies is None:
            topologies, status = pod_volume_topologies(pod, state)
            if not status.is_success:
                return status
        if conflicting_topology(topologies, node) is not None:
            return Status.unresolvable(REASON_CONFLICT)
        return Status()

    def explain_filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any] | None:
        """The volume label that conflicted, with the node's value (None when none did)."""
        topologies = state.get(NAME)
        if not topologies:
            return None
        conflict = conflicting_topology(topologies, node)
        if conflict is None:
            return {"conflict": None}
        node_value = node.labels.get(conflict.key, node.labels.get(_GA.get(conflict.key, conflict.key)))
        return {
            "conflict": {
                "volume": conflict.volume,
                "key": conflict.key,
                "values": sorted(conflict.values),
                "nodeValue": node_value,
            }
        }

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A WaitForFirstConsumer class added, a node added or relabelled, a claim of the Pod, a volume's topology."""
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.STORAGE_CLASS, ActionType.ADD), hint_storage_class_added),
            # With queueing hints on (v1.35's default) a taint change is not registered.
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD | ActionType.UPDATE), hint_claim
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME, ActionType.ADD | ActionType.UPDATE), hint_volume_change
            ),
        ]


def hint_claim(pod: Any, old: Any, new: Any) -> QueueingHint:
    """Only a claim the Pod mounts (as ``persistentVolumeClaim``) matters."""
    return QueueingHint.QUEUE if new and storage.mounts_claim(pod, new) else QueueingHint.SKIP


def hint_storage_class_added(pod: Any, old: Any, new: Any) -> QueueingHint:
    """Only a class that waits for the first consumer can let an unbound claim through."""
    if (new or {}).get("volumeBindingMode") == storage.WAIT_FOR_FIRST_CONSUMER:
        return QueueingHint.QUEUE
    return QueueingHint.SKIP


def _topology_labels(pv: Any) -> dict[str, str]:
    labels = storage.meta(pv or {}).get("labels") or {}
    return {key: labels[key] for key in TOPOLOGY_LABELS if key in labels}


def hint_volume_change(pod: Any, old: Any, new: Any) -> QueueingHint:
    """A new volume, or one whose zone or region labels changed."""
    if not old or _topology_labels(old) != _topology_labels(new):
        return QueueingHint.QUEUE
    return QueueingHint.SKIP
