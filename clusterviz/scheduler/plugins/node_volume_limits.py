"""NodeVolumeLimits: a node attaches at most as many CSI volumes per driver as its CSINode allows.

Upstream: ``pkg/scheduler/framework/plugins/nodevolumelimits/csi.go``. Each of the
Pod's claims counts as one volume of its CSI driver: the bound volume's
``spec.csi`` (driver and handle), or, for a claim without a volume yet, its
StorageClass's provisioner with a handle made up for the claim. Volumes already
used by the node's Pods count once each; the Pod's new ones are added and compared
with the driver's ``allocatable.count`` in the node's CSINode (or an
``attachable-volumes-csi-<driver>`` entry of the Node's allocatable). An in-tree
volume that migrates to CSI (an AWS EBS disk, say) makes the plugin run, but counts
only where the node's CSINode says its migration is on, which no simulated node
does; and upstream's count of the node's VolumeAttachments is always zero here:
nothing in the simulation attaches volumes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
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
from clusterviz.scheduler.plugins.volume_binding import uses_claim

NAME = "NodeVolumeLimits"
LEGACY_FILTER_NAME = "MaxCSIVolumeCountPred"
REASON_MAX_VOLUME_COUNT = "node(s) exceed max volume count"

EXPLANATION_EN = (
    "A node can attach only so many volumes of each CSI driver (its CSINode's allocatable count): the volumes its "
    "Pods already use plus the Pod's new ones must stay within that limit."
)
EXPLANATION_ZH = "每个节点对每种 CSI 驱动只能挂载有限数量的卷（CSINode 中的 allocatable count）：节点上已用的卷加上该 Pod 新增的卷不能超过上限。"

ATTACH_LIMIT_PREFIX = "attachable-volumes-csi-"
ATTACHABLE_PREFIX = "attachable-volumes-"
RESOURCE_NAME_LENGTH_LIMIT = 63
# In-tree volume types csi-translation-lib migrates to CSI (``IsInlineMigratable``).
MIGRATABLE_INLINE_SOURCES = (
    "awsElasticBlockStore",
    "gcePersistentDisk",
    "azureDisk",
    "azureFile",
    "cinder",
    "vsphereVolume",
    "portworxVolume",
)
# Upstream draws a random prefix once per scheduler; any fixed text keeps made-up handles apart from real ones.
UNBOUND_HANDLE_PREFIX = "unbound-claim"


def counts_volume(volume: Mapping[str, Any]) -> bool:
    """A claim, an ephemeral volume or an in-tree volume that migrates to CSI: what this plugin counts."""
    if volume.get("persistentVolumeClaim") is not None or volume.get("ephemeral") is not None:
        return True
    return any(volume.get(source) is not None for source in MIGRATABLE_INLINE_SOURCES)


def attach_limit_key(driver: str) -> str:
    """``GetCSIAttachLimitKey``: ``attachable-volumes-csi-<driver>``, shortened with a hash past 63 characters."""
    if len(ATTACH_LIMIT_PREFIX) + len(driver) >= RESOURCE_NAME_LENGTH_LIMIT:
        return ATTACH_LIMIT_PREFIX + driver[:23] + hashlib.sha1(driver.encode()).hexdigest()[:16]
    return ATTACH_LIMIT_PREFIX + driver


def volume_limits(node: NodeInfo, csinode: Mapping[str, Any] | None) -> dict[str, int]:
    """The node's attach limits by key: the Node's ``attachable-volumes-*`` allocatable, overridden by its CSINode."""
    limits: dict[str, int] = {}
    allocatable = ((node.node.get("status") or {}).get("allocatable")) or {}
    for key, value in allocatable.items():
        if key.startswith(ATTACHABLE_PREFIX):
            try:
                limits[key] = int(str(value))
            except ValueError:
                continue
    for driver in storage.spec(csinode or {}).get("drivers") or []:
        count = (driver.get("allocatable") or {}).get("count")
        if count is not None:
            limits[attach_limit_key(driver.get("name") or "")] = int(count)
    return limits


def _claim_driver(pvc: Mapping[str, Any], state: CycleState) -> tuple[str, str]:
    """``getCSIDriverInfo``: (driver, volume handle) of a claim, ("", "") when it is no CSI volume."""
    snapshot = state.snapshot
    assert snapshot is not None
    pv = snapshot.pvs.get(storage.spec(pvc).get("volumeName") or "")
    if pv is not None:
        csi = storage.spec(pv).get("csi")
        if not csi:
            return "", ""
        return csi.get("driver") or "", csi.get("volumeHandle") or ""
    class_name = storage.claim_class(pvc)
    storage_class = snapshot.storage_classes.get(class_name) if class_name else None
    if storage_class is None:
        return "", ""
    meta = storage.meta(pvc)
    return storage_class.get("provisioner") or "", f"{UNBOUND_HANDLE_PREFIX}-{meta.get('namespace')}/{meta.get('name')}"


def attachable_volumes(pod: Mapping[str, Any], state: CycleState, new_pod: bool) -> tuple[dict[str, str], str]:
    """``filterAttachableVolumes``: ``driver/handle`` -> limit key for the Pod's CSI claims, and an error.

    A new Pod's missing claim is an error (it cannot run without it); an existing
    Pod's is simply not counted.
    """
    snapshot = state.snapshot
    assert snapshot is not None
    namespace = storage.meta(pod).get("namespace") or "default"
    out: dict[str, str] = {}
    for name, ephemeral in storage.pod_claim_names(pod):
        if not name:
            return out, "PersistentVolumeClaim had no name"
        pvc = snapshot.pvcs.get(f"{namespace}/{name}")
        if pvc is None:
            if new_pod:
                return out, f'looking up PVC {namespace}/{name}: persistentvolumeclaim "{name}" not found'
            continue
        if ephemeral:
            problem = storage.claim_owned_by_pod(pod, pvc)
            if problem:
                return out, problem
        driver, handle = _claim_driver(pvc, state)
        if driver and handle:
            out[f"{driver}/{handle}"] = attach_limit_key(driver)
    return out, ""


def count_volumes(state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[dict[str, tuple[int, int, int]], Status]:
    """Per limit key: (already attached, new for this Pod, limit), or a failing status."""
    snapshot = state.snapshot
    assert snapshot is not None
    new, error = attachable_volumes(pod.pod, state, True)
    if error:
        # Only a missing claim is final for the Pod; anything else is an error of the attempt.
        return {}, Status.unresolvable(error) if error.startswith("looking up PVC") else Status.error(error)
    if not new:
        return {}, Status()
    limits = volume_limits(node, snapshot.csinodes.get(node.name))
    if not limits:
        return {}, Status()
    attached: dict[str, str] = {}
    for existing in node.pods.values():
        volumes, error = attachable_volumes(existing.pod, state, False)
        if error:
            return {}, Status.error(error)
        attached.update(volumes)
    attached_count: dict[str, int] = {}
    for unique, key in attached.items():
        new.pop(unique, None)  # a volume another Pod on the node already uses is not attached twice
        attached_count[key] = attached_count.get(key, 0) + 1
    new_count: dict[str, int] = {}
    for key in new.values():
        new_count[key] = new_count.get(key, 0) + 1
    return {
        key: (attached_count.get(key, 0), n, limits[key]) for key, n in new_count.items() if key in limits
    }, Status()


class NodeVolumeLimits(BasePlugin):
    """PreFilter (Skip without claims) and Filter."""

    name = NAME
    legacy_names = {"filter": LEGACY_FILTER_NAME}
    explanation = {"en": EXPLANATION_EN, "zh": EXPLANATION_ZH}

    def pre_filter(self, state: CycleState, pod: PodInfo) -> tuple[Status, PreFilterResult | None]:
        """Skip a Pod without claim, ephemeral or migratable in-tree volumes."""
        if any(counts_volume(volume) for volume in pod.spec.get("volumes") or []):
            return Status(), None
        return Status.skip(), None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        """Reject when attached plus new volumes of a driver pass its limit."""
        if not pod.spec.get("volumes") or state.snapshot is None:
            return Status()
        counts, status = count_volumes(state, pod, node)
        if not status.is_success:
            return status
        if any(attached + new > limit for attached, new, limit in counts.values()):
            return Status.unschedulable(REASON_MAX_VOLUME_COUNT)
        return Status()

    def explain_filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any] | None:
        """Per driver limit: the volumes attached, the Pod's new ones and the limit."""
        if state.snapshot is None:
            return None
        counts, status = count_volumes(state, pod, node)
        if not status.is_success:
            return None
        return {
            "limits": [
                {"key": key, "attached": attached, "new": new, "limit": limit, "fits": attached + new <= limit}
                for key, (attached, new, limit) in sorted(counts.items())
            ]
        }

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A new CSINode, a deleted Pod that used claims, a claim of the Pod created."""
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, ActionType.ADD)),
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE), hint_pod_deleted),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD), hint_claim_added),
        ]


def hint_pod_deleted(pod: Any, old: Any, new: Any) -> QueueingHint:
    """A bound Pod with a claim, an ephemeral or a migratable in-tree volume went away."""
    if not old or not storage.spec(old).get("nodeName"):
        return QueueingHint.SKIP
    if any(counts_volume(volume) for volume in storage.spec(old).get("volumes") or []):
        return QueueingHint.QUEUE
    return QueueingHint.SKIP


def hint_claim_added(pod: Any, old: Any, new: Any) -> QueueingHint:
    """A claim the Pod uses was created."""
    return QueueingHint.QUEUE if new and uses_claim(pod, new) else QueueingHint.SKIP
