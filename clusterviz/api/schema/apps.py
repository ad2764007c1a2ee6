"""The apps group (v1): Deployments, ReplicaSets, DaemonSets, StatefulSets and ControllerRevisions."""

from __future__ import annotations

from .model import (
    APPS,
    BOOL,
    CORE,
    INT32,
    INT64,
    INT_STR,
    META,
    SELECTOR,
    STRING,
    Type,
    array,
    define,
    enum,
    kind,
    ref,
)

_TEMPLATE = ref(CORE + "PodTemplateSpec")


def _conditions(owner: str) -> Type:
    """A workload's condition list, and the definition of one entry."""
    name = f"{APPS}{owner}Condition"
    fields = {
        "lastTransitionTime": (ref(META + "Time"), "When the status last changed."),
        "message": (STRING, "Details of the last transition."),
        "reason": (STRING, "A CamelCase reason for the last transition."),
        "status": (STRING, "True, False or Unknown."),
        "type": (STRING, "The condition's type."),
    }
    if owner == "Deployment":
        fields["lastUpdateTime"] = (ref(META + "Time"), "When the condition was last updated.")
    define(name, f"One condition of a {owner}.", dict(sorted(fields.items())), required=("status", "type"))
    return array(ref(name), "type")


kind("apps", "v1", "Deployment", APPS + "Deployment", "Declarative updates for Pods through ReplicaSets.",
     APPS + "DeploymentSpec", APPS + "DeploymentStatus")
define(APPS + "DeploymentSpec", "The Pods the Deployment runs and how it rolls out changes to them.", {
    "minReadySeconds": (INT32, "Seconds a new Pod must be ready to count as available."),
    "paused": (BOOL, "While true, changes to the template are not rolled out."),
    "progressDeadlineSeconds": (INT32, "Seconds without progress before the rollout is reported as stalled."),
    "replicas": (INT32, "The desired number of Pods; 1 by default."),
    "revisionHistoryLimit": (INT32, "How many old ReplicaSets are kept for rollbacks; 10 by default."),
    "selector": (SELECTOR, "The Pods it manages; must match the template's labels."),
    "strategy": (ref(APPS + "DeploymentStrategy"), "How old Pods are replaced by new ones."),
    "template": (_TEMPLATE, "The Pods it makes."),
}, required=("selector", "template"))
define(APPS + "DeploymentStrategy", "How a Deployment replaces its Pods.", {
    "rollingUpdate": (ref(APPS + "RollingUpdateDeployment"), "Bounds of a rolling update."),
    "type": (enum("Recreate", "RollingUpdate"), "Recreate (all at once) or RollingUpdate (the default)."),
})
define(APPS + "RollingUpdateDeployment", "How far a rolling update may go below and above the desired count.", {
    "maxSurge": (INT_STR, "Extra Pods allowed above the desired count (a number or a percentage); 25% by default."),
    "maxUnavailable": (INT_STR, "Pods allowed to be unavailable (a number or a percentage); 25% by default."),
})
define(APPS + "DeploymentStatus", "What the Deployment controller last saw.", {
    "availableReplicas": (INT32, "Pods ready for at least minReadySeconds."),
    "collisionCount": (INT32, "Counts template hash collisions, to make new names."),
    "conditions": (_conditions("Deployment"), "Available, Progressing and ReplicaFailure."),
    "observedGeneration": (INT64, "The generation last acted on."),
    "readyReplicas": (INT32, "Pods that are ready."),
    "replicas": (INT32, "Pods it counts, old and new."),
    "terminatingReplicas": (INT32, "Pods being deleted."),
    "unavailableReplicas": (INT32, "Pods still needed for the Deployment to be fully available."),
    "updatedReplicas": (INT32, "Pods made from the current template."),
})

kind("apps", "v1", "ReplicaSet", APPS + "ReplicaSet", "Keeps a number of identical Pods running.",
     APPS + "ReplicaSetSpec", APPS + "ReplicaSetStatus")
define(APPS + "ReplicaSetSpec", "How many Pods, which ones, and how to make them.", {
    "minReadySeconds": (INT32, "Seconds a new Pod must be ready to count as available."),
    "replicas": (INT32, "The desired number of Pods; 1 by default."),
    "selector": (SELECTOR, "The Pods it counts; must match the template's labels."),
    "template": (_TEMPLATE, "The Pods it makes."),
}, required=("selector",))
define(APPS + "ReplicaSetStatus", "What the ReplicaSet controller last saw.", {
    "availableReplicas": (INT32, "Pods ready for at least minReadySeconds."),
    "conditions": (_conditions("ReplicaSet"), "Its conditions (ReplicaFailure)."),
    "fullyLabeledReplicas": (INT32, "Pods whose labels match the template's."),
    "observedGeneration": (INT64, "The generation last acted on."),
    "readyReplicas": (INT32, "Pods that are ready."),
    "replicas": (INT32, "Pods it counts."),
    "terminatingReplicas": (INT32, "Pods being deleted."),
}, required=("replicas",))

kind("apps", "v1", "DaemonSet", APPS + "DaemonSet", "Runs one copy of a Pod on every eligible node.",
     APPS + "DaemonSetSpec", APPS + "DaemonSetStatus")
define(APPS + "DaemonSetSpec", "Which Pods, on which nodes, and how they are updated.", {
    "minReadySeconds": (INT32, "Seconds a new Pod must be ready to count as available."),
    "revisionHistoryLimit": (INT32, "How many old revisions are kept for rollbacks; 10 by default."),
    "selector": (SELECTOR, "The Pods it manages; must match the template's labels."),
    "template": (_TEMPLATE, "The Pod put on each node."),
    "updateStrategy": (ref(APPS + "DaemonSetUpdateStrategy"), "How Pods are replaced when the template changes."),
}, required=("selector", "template"))
define(APPS + "DaemonSetUpdateStrategy", "How a DaemonSet replaces its Pods.", {
    "rollingUpdate": (ref(APPS + "RollingUpdateDaemonSet"), "Bounds of a rolling update."),
    "type": (enum("OnDelete", "RollingUpdate"), "RollingUpdate (the default) or OnDelete."),
})
define(APPS + "RollingUpdateDaemonSet", "How many nodes may be without (or with an extra) daemon Pod during an update.", {
    "maxSurge": (INT_STR, "Nodes that may run an old and a new Pod at once; 0 by default."),
    "maxUnavailable": (INT_STR, "Nodes that may be without an available Pod; 1 by default."),
})
define(APPS + "DaemonSetStatus", "What the DaemonSet controller last saw.", {
    "collisionCount": (INT32, "Counts revision hash collisions, to make new names."),
    "conditions": (_conditions("DaemonSet"), "Its conditions."),
    "currentNumberScheduled": (INT32, "Nodes running a daemon Pod that should."),
    "desiredNumberScheduled": (INT32, "Nodes that should run a daemon Pod."),
    "numberAvailable": (INT32, "Nodes with an available daemon Pod."),
    "numberMisscheduled": (INT32, "Nodes running a daemon Pod that should not."),
    "numberReady": (INT32, "Nodes with a ready daemon Pod."),
    "numberUnavailable": (INT32, "Nodes that should have an available daemon Pod and do not."),
    "observedGeneration": (INT64, "The generation last acted on."),
    "updatedNumberScheduled": (INT32, "Nodes running the current template."),
}, required=("currentNumberScheduled", "desiredNumberScheduled", "numberMisscheduled", "numberReady"))

kind("apps", "v1", "StatefulSet", APPS + "StatefulSet",
     "Pods with stable names (<name>-0, <name>-1, ...), made and removed in order.",
     APPS + "StatefulSetSpec", APPS + "StatefulSetStatus")
define(APPS + "StatefulSetSpec", "Which Pods, how many, in which order, and how they are updated.", {
    "minReadySeconds": (INT32, "Seconds a new Pod must be ready to count as available."),
    "ordinals": (ref(APPS + "StatefulSetOrdinals"), "The first ordinal of the Pods' names."),
    "persistentVolumeClaimRetentionPolicy": (ref(APPS + "StatefulSetPersistentVolumeClaimRetentionPolicy"),
                                             "What happens to the claims when the set is deleted or scaled down."),
    "podManagementPolicy": (enum("OrderedReady", "Parallel"),
                            "OrderedReady (the default: one at a time, in order) or Parallel."),
    "replicas": (INT32, "The desired number of Pods; 1 by default."),
    "revisionHistoryLimit": (INT32, "How many old revisions are kept for rollbacks; 10 by default."),
    "selector": (SELECTOR, "The Pods it manages; must match the template's labels."),
    "serviceName": (STRING, "The headless Service giving each Pod its DNS name (<pod>.<serviceName>)."),
    "template": (_TEMPLATE, "The Pods it makes."),
    "updateStrategy": (ref(APPS + "StatefulSetUpdateStrategy"), "How Pods are replaced when the template changes."),
    "volumeClaimTemplates": (array(ref(CORE + "PersistentVolumeClaim"), list_type="atomic"),
                             "Claims each Pod gets, named <claim>-<pod>."),
}, required=("selector", "template"))
define(APPS + "StatefulSetOrdinals", "Where the Pods' ordinals start.", {
    "start": (INT32, "The first ordinal; 0 by default."),
})
define(APPS + "StatefulSetPersistentVolumeClaimRetentionPolicy", "Whether claims outlive their Pods.", {
    "whenDeleted": (enum("Delete", "Retain"), "When the set is deleted: Retain (the default) or Delete."),
    "whenScaled": (enum("Delete", "Retain"), "When the set scales down: Retain (the default) or Delete."),
})
define(APPS + "StatefulSetUpdateStrategy", "How a StatefulSet replaces its Pods.", {
    "rollingUpdate": (ref(APPS + "RollingUpdateStatefulSetStrategy"), "Bounds of a rolling update."),
    "type": (enum("OnDelete", "RollingUpdate"), "RollingUpdate (the default) or OnDelete."),
})
define(APPS + "RollingUpdateStatefulSetStrategy", "Which Pods a rolling update replaces.", {
    "maxUnavailable": (INT_STR, "Pods that may be unavailable during the update; 1 by default."),
    "partition": (INT32, "Pods with an ordinal below this keep the old template; 0 by default."),
})
define(APPS + "StatefulSetStatus", "What the StatefulSet controller last saw.", {
    "availableReplicas": (INT32, "Pods ready for at least minReadySeconds."),
    "collisionCount": (INT32, "Counts revision hash collisions, to make new names."),
    "conditions": (_conditions("StatefulSet"), "Its conditions."),
    "currentReplicas": (INT32, "Pods made from the current revision."),
    "currentRevision": (STRING, "The revision of the Pods below the update's reach."),
    "observedGeneration": (INT64, "The generation last acted on."),
    "readyReplicas": (INT32, "Pods that are ready."),
    "replicas": (INT32, "Pods it has made."),
    "updateRevision": (STRING, "The revision made from the current template."),
    "updatedReplicas": (INT32, "Pods made from the update revision."),
}, required=("replicas",))
kind("apps", "v1", "ControllerRevision", APPS + "ControllerRevision",
     "An immutable snapshot of a workload's template, kept for rollbacks.", extra={
         "data": (ref(META + "RawExtension"), "The snapshot (a patch of the workload's template)."),
         "revision": (INT64, "The revision number."),
     }, required=("revision",))
