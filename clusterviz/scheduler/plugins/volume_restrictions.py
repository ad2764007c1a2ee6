"""VolumeRestrictions: inline disks that cannot be shared, and ReadWriteOncePod claims.

Upstream: ``pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go``.
A GCE PD, iSCSI or Ceph RBD disk may be mounted by several Pods on a node only
when every mount is read-only; an AWS EBS volume never. A PersistentVolumeClaim
with access mode ReadWriteOncePod may be used by one Pod in the whole cluster.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from clusterviz.apimachinery.unstructured import str_or_empty
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

NAME = "VolumeRestrictions"
LEGACY_FILTER_NAME = "NoDiskConflict"

REASON_DISK_CONFLICT = "node(s) had no available disk"
REASON_READ_WRITE_ONCE_POD_CONFLICT = (
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"
)

EXPLANATION_EN = (
    "The same GCE PD, iSCSI or Ceph RBD disk may be mounted by several Pods on one node only if all mount it "
    "read-only; an AWS EBS volume never; a ReadWriteOncePod claim serves one Pod in the cluster."
)
EXPLANATION_ZH = (
    "同一块 GCE PD、iSCSI 或 Ceph RBD 磁盘只有在所有 Pod 都以只读方式挂载时才能在同一节点共享；"
    "AWS EBS 卷不能共享；ReadWriteOncePod 的卷声明在整个集群只能被一个 Pod 使用。"
)

_RESTRICTED_SOURCES = ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")
_DEFAULT_RBD_POOL = "rbd"  # the API server's default when a manifest omits it


def needs_restrictions_check(volume: Mapping[str, Any]) -> bool:
    """True for the inline volume types this plugin guards."""
    return any(volume.get(source) for source in _RESTRICTED_SOURCES)


def is_volume_conflict(volume: Mapping[str, Any], existing_volumes: Iterable[Mapping[str, Any]]) -> bool:
    """Upstream's ``isVolumeConflict``: does ``volume`` clash with any volume of an existing Pod?"""
    gce, ebs, iscsi, rbd = (volume.get(k) for k in ("gcePersistentDisk", "awsElasticBlockStore", "iscsi", "rbd"))
    for other in existing_volumes:
        o_gce = other.get("gcePersistentDisk")
        if gce and o_gce and gce.get("pdName") == o_gce.get("pdName"):
            if not (gce.get("readOnly") and o_gce.get("readOnly")):
                return True
        o_ebs = other.get("awsElasticBlockStore")
        if ebs and o_ebs and ebs.get("volumeID") == o_ebs.get("volumeID"):
            return True
        o_iscsi = other.get("iscsi")
        if iscsi and o_iscsi and iscsi.get("iqn") == o_iscsi.get("iqn"):
            if not (iscsi.get("readOnly") and o_iscsi.get("readOnly")):
                return True
        o_rbd = other.get("rbd")
        if rbd and o_rbd and _same_rbd_image(rbd, o_rbd):
            if not (rbd.get("readOnly") and o_rbd.get("readOnly")):
                return True
    return False


def _same_rbd_image(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    # Same image = a shared Ceph monitor, the same RADOS pool and the same image name.
    shared_monitor = bool(set(a.get("monitors") or []) & set(b.get("monitors") or []))
    same_pool = (a.get("pool") or _DEFAULT_RBD_POOL) == (b.get("pool") or _DEFAULT_RBD_POOL)
    return shared_monitor and same_pool and a.get("image") == b.get("image")


def volume_conflict(pod: PodInfo, node: NodeInfo) -> tuple[Mapping[str, Any], PodInfo] | None:
    """The first guarded volume of the Pod that clashes with a volume of a Pod on the node, and that Pod."""
    for volume in pod.spec.get("volumes") or []:
        if not needs_restrictions_check(volume):
            continue
        for existing in node.pods.values():
            if is_volume_conflict(volume, existing.spec.get("volumes") or []):
                return volume, existing
    return None


def satisfies_volume_conflicts(pod: PodInfo, node: NodeInfo) -> bool:
    """No guarded volume of the Pod clashes with a volume of a Pod on the node."""
    return volume_conflict(pod, node) is None


def _rwop_claim_keys(pod: PodInfo, pvcs: Mapping[str, Mapping[str, Any]]) -> tuple[list[str], str]:
    """The Pod's ReadWriteOncePod claims as ``namespace/name`` keys, and the first claim that does not exist ("")."""
    keys: list[str] = []
    for volume in pod.spec.get("volumes") or []:
        if volume.get("ephemeral"):
            claim = f"{pod.name}-{volume.get('name', '')}"
        else:
            claim = str_or_empty((volume.get("persistentVolumeClaim") or {}).get("claimName"))
        if not claim:
            continue
        key = f"{pod.namespace}/{claim}"
        pvc = pvcs.get(key)
        if pvc is None:
            return keys, claim
        if "ReadWriteOncePod" in ((pvc.get("spec") or {}).get("accessModes") or []):
            keys.append(key)
    return keys, ""


class VolumeRestrictions(BasePlugin):
    """PreFilter (Skip when nothing to check) and Filter."""

    name = NAME
    legacy_names = {"filter": LEGACY_FILTER_NAME}
    explanation = {"en": EXPLANATION_EN, "zh": EXPLANATION_ZH}

    def pre_filter(self, state: CycleState, pod: PodInfo) -> tuple[Status, PreFilterResult | None]:
        """Count cluster-wide users of the Pod's ReadWriteOncePod claims; Skip if nothing applies."""
        needs_check = any(needs_restrictions_check(v) for v in pod.spec.get("volumes") or [])
        snapshot = state.snapshot
        conflicts = 0
        if snapshot is not None:
            keys, missing = _rwop_claim_keys(pod, snapshot.pvcs)
            if missing:
                # Upstream looks every claim up; a missing one is the lister's NotFound.
                return Status.unresolvable(f'persistentvolumeclaim "{missing}" not found'), None
            if keys:
                conflicts = sum(node.pvc_ref_counts.get(key, 0) for node in snapshot.list() for key in keys)
        if not needs_check and conflicts == 0:
            return Status.skip(), None
        state.write(NAME, conflicts)
        return Status(), None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        """Disk conflicts on this node first, then the cluster-wide ReadWriteOncePod check."""
        if not satisfies_volume_conflicts(pod, node):
            return Status.unschedulable(REASON_DISK_CONFLICT)
        if state.get(NAME, 0) > 0:
            return Status.unschedulable(REASON_READ_WRITE_ONCE_POD_CONFLICT)
        return Status()

    def explain_filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any]:
        """The clashing volume and the Pod holding it (None when none), and the claim's other users."""
        conflict = volume_conflict(pod, node)
        found = None
        if conflict is not None:
            volume, holder = conflict
            source = next(s for s in _RESTRICTED_SOURCES if volume.get(s))
            found = {"volume": volume.get("name") or "", "source": source, "heldBy": holder.key}
        return {"conflict": found, "readWriteOncePodUsers": state.get(NAME, 0)}

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A Pod holding a clashing disk deleted, a node added, a claim of the Pod created."""
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE), hint_pod_deleted),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD), hint_claim_added),
        ]


def hint_claim_added(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    """Only a claim the Pod mounts lets its access modes be checked."""
    return QueueingHint.QUEUE if new and storage.mounts_claim(pod, new) else QueueingHint.SKIP


def hint_pod_deleted(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    """Queue when the deleted Pod had a volume clashing with this Pod's or shared one of its claims."""
    if not old:
        return QueueingHint.SKIP
    old_volumes = (old.get("spec") or {}).get("volumes") or []
    for volume in (pod.get("spec") or {}).get("volumes") or []:
        if needs_restrictions_check(volume) and is_volume_conflict(volume, old_volumes):
            return QueueingHint.QUEUE
        claim = (volume.get("persistentVolumeClaim") or {}).get("claimName")
        if claim and any((v.get("persistentVolumeClaim") or {}).get("claimName") == claim for v in old_volumes):
            return QueueingHint.QUEUE
    return QueueingHint.SKIP
