"""Storage: PersistentVolumes and PersistentVolumeClaims (core/v1), StorageClasses and CSINodes (storage.k8s.io/v1)."""

from __future__ import annotations

from .model import (
    BOOL,
    CORE,
    INT32,
    OPEN,
    QTY,
    QTY_MAP,
    SELECTOR,
    STRING,
    STRINGS,
    TIME,
    array,
    define,
    enum,
    kind,
    map_of,
    ref,
)

STORAGE = "io.k8s.api.storage.v1."
_ACCESS_MODES = "ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod."
_VOLUME_MODE = (enum("Block", "Filesystem"), "Filesystem (the default) or Block.")
# Volume sources a PersistentVolume may name besides hostPath and local; kept as given.
_PV_SOURCES = ("awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", "cinder", "csi", "fc", "flexVolume",
               "flocker", "gcePersistentDisk", "glusterfs", "iscsi", "nfs", "photonPersistentDisk", "portworxVolume",
               "quobyte", "rbd", "scaleIO", "storageos", "vsphereVolume")

kind("", "v1", "PersistentVolume", CORE + "PersistentVolume",
     "A piece of storage in the cluster, provisioned by an administrator or by a StorageClass's provisioner.",
     CORE + "PersistentVolumeSpec", CORE + "PersistentVolumeStatus")
define(CORE + "PersistentVolumeSpec", "The volume's size, access modes, source and the claim bound to it.", {
    "accessModes": (STRINGS, "How the volume may be mounted: " + _ACCESS_MODES),
    "capacity": (QTY_MAP, "The volume's size (storage)."),
    "claimRef": (ref(CORE + "ObjectReference"), "The claim bound to the volume (or reserved for it)."),
    "hostPath": (ref(CORE + "HostPathVolumeSource"), "A directory on the node (single-node testing only)."),
    "local": (ref(CORE + "LocalVolumeSource"), "A disk, partition or directory of one node."),
    "mountOptions": (STRINGS, "Mount options, not validated."),
    "nodeAffinity": (ref(CORE + "VolumeNodeAffinity"), "The nodes the volume can be reached from."),
    "persistentVolumeReclaimPolicy": (enum("Delete", "Recycle", "Retain"),
                                      "What happens once its claim is deleted: Retain (manual volumes), Delete "
                                      "(provisioned volumes) or the deprecated Recycle."),
    "storageClassName": (STRING, "The StorageClass the volume belongs to; empty for none."),
    "volumeAttributesClassName": (STRING, "The VolumeAttributesClass the volume belongs to."),
    "volumeMode": _VOLUME_MODE,
    **{source: (OPEN, f"A {source} volume.") for source in _PV_SOURCES},
})
define(CORE + "LocalVolumeSource", "A local disk of one node.", {
    "fsType": (STRING, "The filesystem type, for a block device."),
    "path": (STRING, "The full path on the node."),
}, required=("path",))
define(CORE + "VolumeNodeAffinity", "The nodes a volume can be reached from.", {
    "required": (OPEN, "A node selector the node must match."),
})
define(CORE + "PersistentVolumeStatus", "The volume's phase.", {
    "lastPhaseTransitionTime": (TIME, "When the phase last changed."),
    "message": (STRING, "Why the volume is in this phase, for people."),
    "phase": (enum("Available", "Bound", "Failed", "Pending", "Released"),
              "Pending, Available, Bound, Released or Failed."),
    "reason": (STRING, "Why the volume failed, for machines."),
})

kind("", "v1", "PersistentVolumeClaim", CORE + "PersistentVolumeClaim",
     "A request for storage; the PV controller binds it to a PersistentVolume (provisioning one if needed).",
     CORE + "PersistentVolumeClaimSpec", CORE + "PersistentVolumeClaimStatus")
define(CORE + "PersistentVolumeClaimSpec", "The storage a claim asks for.", {
    "accessModes": (STRINGS, _ACCESS_MODES),
    "dataSource": (ref(CORE + "TypedLocalObjectReference"), "An object to fill the new volume from."),
    "dataSourceRef": (OPEN, "An object to fill the new volume from, possibly in another namespace."),
    "resources": (ref(CORE + "VolumeResourceRequirements"), "The storage requested (requests.storage)."),
    "selector": (SELECTOR, "Volumes the claim may bind to."),
    "storageClassName": (STRING, "The StorageClass that provisions the volume; empty for none, unset for the default."),
    "volumeAttributesClassName": (STRING, "The VolumeAttributesClass the claim asks for."),
    "volumeMode": _VOLUME_MODE,
    "volumeName": (STRING, "The volume bound to the claim."),
})
define(CORE + "TypedLocalObjectReference", "Names an object in the same namespace, with its kind.", {
    "apiGroup": (STRING, "The object's API group; empty for the core group."),
    "kind": (STRING, "The object's kind."),
    "name": (STRING, "The object's name."),
}, required=("kind", "name"))
define(CORE + "VolumeResourceRequirements", "Storage a claim requests and is limited to.", {
    "limits": (map_of(QTY), "The most storage allowed."),
    "requests": (map_of(QTY), "The storage requested."),
})
define(CORE + "PersistentVolumeClaimStatus", "What is known of a claim.", {
    "accessModes": (STRINGS, "The access modes of the bound volume."),
    "allocatedResources": (QTY_MAP, "The storage allocated to the claim."),
    "capacity": (map_of(QTY), "The bound volume's capacity."),
    "conditions": (array(ref(CORE + "PersistentVolumeClaimCondition"), "type"), "The claim's conditions."),
    "phase": (enum("Bound", "Lost", "Pending"), "Pending, Bound or Lost."),
})
define(CORE + "PersistentVolumeClaimCondition", "One condition of a claim.", {
    "lastProbeTime": (TIME, "When the condition was last probed."),
    "lastTransitionTime": (TIME, "When the condition last changed."),
    "message": (STRING, "Details, for people."),
    "reason": (STRING, "Why, for machines."),
    "status": (STRING, "True, False or Unknown."),
    "type": (STRING, "The condition's type."),
}, required=("type", "status"))

kind("storage.k8s.io", "v1", "StorageClass", STORAGE + "StorageClass",
     "A class of storage: which provisioner makes its volumes, with what parameters, and when.", extra={
         "allowVolumeExpansion": (BOOL, "Whether claims of the class may grow."),
         "allowedTopologies": (array(OPEN, list_type="atomic"), "Where the class's volumes may be provisioned."),
         "mountOptions": (STRINGS, "Mount options of the provisioned volumes."),
         "parameters": (map_of(STRING), "The provisioner's parameters."),
         "provisioner": (STRING, "The provisioner that makes the class's volumes."),
         "reclaimPolicy": (enum("Delete", "Retain"), "The provisioned volumes' reclaim policy; Delete by default."),
         "volumeBindingMode": (enum("Immediate", "WaitForFirstConsumer"),
                               "Immediate (the default: bind at once) or WaitForFirstConsumer (wait for a Pod to "
                               "be scheduled, then provision where it runs)."),
     }, required=("provisioner",))

kind("storage.k8s.io", "v1", "CSINode", STORAGE + "CSINode",
     "The CSI drivers installed on a node, as its kubelet registered them.", STORAGE + "CSINodeSpec")
define(STORAGE + "CSINodeSpec", "The node's CSI drivers.", {
    "drivers": (array(ref(STORAGE + "CSINodeDriver"), "name"), "One entry per driver on the node."),
}, required=("drivers",))
define(STORAGE + "CSINodeDriver", "One CSI driver on a node.", {
    "allocatable": (ref(STORAGE + "VolumeNodeResources"), "How many of the driver's volumes the node can hold."),
    "name": (STRING, "The driver's name."),
    "nodeID": (STRING, "The node's name as the driver knows it."),
    "topologyKeys": (STRINGS, "The node labels the driver reports its topology with."),
}, required=("name", "nodeID"))
define(STORAGE + "VolumeNodeResources", "Limits of a driver's volumes on a node.", {
    "count": (INT32, "The most volumes of the driver the node may use."),
})
