"""The simulated CSI driver's external provisioner: makes the volumes claims of its classes wait for, and deletes them.

As the sidecar upstream runs beside a CSI driver, it acts on claims the PV
controller handed to it (``volume.kubernetes.io/storage-provisioner``). A
claim of an Immediate class is provisioned at once, one of a
WaitForFirstConsumer class once the scheduler has named its node
(``volume.kubernetes.io/selected-node``). The volume, ``pvc-<claim uid>``,
is pre-bound to the claim, has the class's reclaim policy, and can be reached
from that node only, or from its zone (``topology.kubernetes.io/zone``) for a
class with ``clusterviz.io/topology: zone``; an Immediate claim's node is the
first schedulable one in a stable order of the claim's uid. A Released volume
it made with reclaim policy Delete is deleted.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Final

from clusterviz.api import errors
from clusterviz.api.informer import Handler, key_of
from clusterviz.api.storage_classes import DRIVER, TOPOLOGY_PARAMETER, ZONE

from .persistent_volume_util import (
    ANN_PROVISIONED_BY,
    ANN_SELECTED_NODE,
    ANN_STORAGE_PROVISIONER,
    WAIT_FOR_FIRST_CONSUMER,
    claim_ref_key,
    volume_class,
)
from .util import Obj, Worker, annotations_of, deleting, labels_of, meta, spec, status

if TYPE_CHECKING:
    from .manager import ControllerManager

HOSTNAME_LABEL: Final = "kubernetes.io/hostname"
ZONE_LABEL: Final = "topology.kubernetes.io/zone"
FS_TYPE: Final = "ext4"


def volume_name(claim: Obj) -> str:
    """What upstream's provisioner names a claim's volume."""
    return f"pvc-{meta(claim).get('uid', '')}"


def _node_affinity(key: str, value: str) -> dict[str, Any]:
    return {"required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}]}}


class Provisioner:
    """Provisions and deletes the volumes of the StorageClasses whose provisioner is the cluster's CSI driver."""

    def __init__(self, cm: ControllerManager) -> None:
        self.client = cm.client
        self.recorder = cm.ctx.recorder(DRIVER)
        self.claims = cm.informers["persistentvolumeclaims"]
        self.volumes = cm.informers["persistentvolumes"]
        self.classes = cm.informers["storageclasses"]
        self.nodes = cm.informers["nodes"]
        self.claim_worker = Worker(cm.engine, f"controller-manager/{DRIVER}/provision", self.provision)
        self.volume_worker = Worker(cm.engine, f"controller-manager/{DRIVER}/delete", self.delete)
        self.claims.add_handler(Handler(self._claim_seen, lambda _old, new: self._claim_seen(new), None))
        self.volumes.add_handler(Handler(self._volume_seen, lambda _old, new: self._volume_seen(new), None))

    def start(self) -> None:
        """Start both worker loops."""
        self.claim_worker.start()
        self.volume_worker.start()

    def _claim_seen(self, claim: Obj) -> None:
        if annotations_of(claim).get(ANN_STORAGE_PROVISIONER) == DRIVER and not spec(claim).get("volumeName"):
            self.claim_worker.add(key_of(claim))

    def _volume_seen(self, volume: Obj) -> None:
        if status(volume).get("phase") == "Released" and annotations_of(volume).get(ANN_PROVISIONED_BY) == DRIVER:
            self.volume_worker.add(key_of(volume))

    async def provision(self, key: str) -> None:
        """Make the claim's volume, once its class and (for WaitForFirstConsumer) its node allow."""
        claim = self.claims.get(key)
        if claim is None or deleting(claim) or spec(claim).get("volumeName"):
            return
        if annotations_of(claim).get(ANN_STORAGE_PROVISIONER) != DRIVER:
            return
        storage_class = self.classes.get(volume_class(claim))
        if storage_class is None or storage_class.get("provisioner") != DRIVER:
            return
        selected = annotations_of(claim).get(ANN_SELECTED_NODE)
        if storage_class.get("volumeBindingMode") == WAIT_FOR_FIRST_CONSUMER and not selected:
            return
        name = volume_name(claim)
        if self.volumes.get(name) is not None:
            return
        node = self.nodes.get(selected) if selected else self._node_for(claim)
        if node is None:
            reason = f'failed to get target node: node "{selected}" not found' if selected else "no node to provision on"
            await self.recorder.event(claim, "Warning", "ProvisioningFailed", reason)
            return
        await self.recorder.event(claim, "Normal", "Provisioning",
                                  f'External provisioner is provisioning volume for claim "{key}"')
        try:
            await self.client.create(self._volume(claim, storage_class, node))
        except errors.StatusError as exc:
            if exc.code != 409:
                raise
            return  # made already (the cache is behind)
        await self.recorder.event(claim, "Normal", "ProvisioningSucceeded", f"Successfully provisioned volume {name}")

    def _node_for(self, claim: Obj) -> Obj | None:
        """Where an Immediate claim's volume goes: a schedulable node picked by the claim's uid."""
        nodes = sorted(
            (n for n in self.nodes.items() if not spec(n).get("unschedulable") and not deleting(n)),
            key=lambda n: str(meta(n).get("name")),
        )
        if not nodes:
            return None
        digest = int(hashlib.sha256(str(meta(claim).get("uid", "")).encode()).hexdigest(), 16)
        return nodes[digest % len(nodes)]

    def _volume(self, claim: Obj, storage_class: Obj, node: Obj) -> Obj:
        """The PersistentVolume for the claim: its size and modes, the class's policy, the node's topology."""
        node_name = str(meta(node).get("name"))
        zone = labels_of(node).get(ZONE_LABEL)
        zonal = (storage_class.get("parameters") or {}).get(TOPOLOGY_PARAMETER) == ZONE and zone
        claim_meta, claim_spec = meta(claim), spec(claim)
        volume_spec: dict[str, Any] = {
            "accessModes": claim_spec.get("accessModes") or [],
            "capacity": {"storage": ((claim_spec.get("resources") or {}).get("requests") or {}).get("storage")},
            "claimRef": {"kind": "PersistentVolumeClaim", "namespace": claim_meta.get("namespace"),
                         "name": claim_meta.get("name"), "uid": claim_meta.get("uid"), "apiVersion": "v1",
                         "resourceVersion": claim_meta.get("resourceVersion")},
            "csi": {"driver": DRIVER, "fsType": FS_TYPE, "volumeHandle": str(claim_meta.get("uid")),
                    "volumeAttributes": {"storage.kubernetes.io/csiProvisionerIdentity": f"{DRIVER}-{node_name}"}},
            "nodeAffinity": _node_affinity(ZONE_LABEL, str(zone)) if zonal else _node_affinity(HOSTNAME_LABEL, node_name),
            "persistentVolumeReclaimPolicy": storage_class.get("reclaimPolicy") or "Delete",
            "storageClassName": meta(storage_class).get("name"),
            "volumeMode": claim_spec.get("volumeMode") or "Filesystem",
        }
        if storage_class.get("mountOptions"):
            volume_spec["mountOptions"] = storage_class["mountOptions"]
        return {
            "apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": volume_name(claim), "annotations": {ANN_PROVISIONED_BY: DRIVER}},
            "spec": volume_spec,
        }

    async def delete(self, name: str) -> None:
        """A Released volume it made, with reclaim policy Delete, is deleted."""
        volume = self.volumes.get(name)
        if volume is None or deleting(volume) or status(volume).get("phase") != "Released":
            return
        if spec(volume).get("persistentVolumeReclaimPolicy") != "Delete" or claim_ref_key(volume) is None:
            return
        try:
            await self.client.delete("persistentvolumes", name)
        except errors.StatusError as exc:
            if exc.code != 404:
                raise
