"""The resource types this API server serves, as discovery describes them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")


@dataclass(frozen=True)
class Resource:
    """One REST resource: where it lives, what it is called and what it supports."""

    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ALL_VERBS
    subresources: tuple[str, ...] = ()
    # Field selectors the server accepts besides metadata.name / metadata.namespace.
    field_selectors: tuple[str, ...] = ()
    # Whether writes to the main resource leave .status alone (a status subresource exists).
    has_status: bool = False
    # Whether .metadata.generation follows spec changes.
    tracks_generation: bool = False
    extra: dict[str, str] = field(default_factory=dict, compare=False)
    # The version objects are stored in when this version is a converted view of them ("" = this one).
    storage_version: str = ""
    # A custom resource's version as its CustomResourceDefinition describes it (see api/customresources.py).
    custom: Any = field(default=None, compare=False)

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def stored_as(self) -> str:
        """The version the store keeps this resource's objects in."""
        return self.storage_version or self.version

    @property
    def stored_group_version(self) -> str:
        return f"{self.group}/{self.stored_as}" if self.group else self.stored_as

    @property
    def key(self) -> str:
        """Store key prefix: the group-qualified plural (``deployments.apps``)."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def singular(self) -> str:
        return self.kind.lower()

    @property
    def noun(self) -> str:
        """What kubectl prints before an object's name: ``deployment.apps``, ``pod``."""
        return f"{self.singular}.{self.group}" if self.group else self.singular

    @property
    def list_kind(self) -> str:
        return f"{self.kind}List"

    @property
    def all_field_selectors(self) -> set[str]:
        base = {"metadata.name"}
        if self.namespaced:
            base.add("metadata.namespace")
        return base | set(self.field_selectors)


_EVENT_FIELDS = (
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
)

RESOURCES: tuple[Resource, ...] = (
    Resource("", "v1", "namespaces", "Namespace", False, ("ns",), (), ("create", "delete", "get", "list", "patch", "update", "watch"), ("status", "finalize"),
             ("status.phase",), has_status=True),
    Resource("", "v1", "nodes", "Node", False, ("no",), (), ALL_VERBS, ("status",), ("spec.unschedulable",), has_status=True),
    Resource("", "v1", "pods", "Pod", True, ("po",), ("all",), ALL_VERBS,
             ("status", "binding", "attach", "eviction", "exec", "log", "portforward"),
             ("spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
              "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"), has_status=True),
    Resource("", "v1", "services", "Service", True, ("svc",), ("all",), ALL_VERBS, ("status",), (), has_status=True),
    Resource("", "v1", "endpoints", "Endpoints", True, ("ep",)),
    Resource("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", True),
    Resource("", "v1", "events", "Event", True, ("ev",), (), ALL_VERBS, (), _EVENT_FIELDS),
    Resource("", "v1", "configmaps", "ConfigMap", True, ("cm",)),
    Resource("", "v1", "resourcequotas", "ResourceQuota", True, ("quota",), (), ALL_VERBS, ("status",),
             has_status=True),
    Resource("", "v1", "limitranges", "LimitRange", True, ("limits",)),
    Resource("", "v1", "secrets", "Secret", True, (), (), ALL_VERBS, (), ("type",)),
    Resource("", "v1", "serviceaccounts", "ServiceAccount", True, ("sa",), (), ALL_VERBS, ("token",)),
    Resource("", "v1", "persistentvolumes", "PersistentVolume", False, ("pv",), (), ALL_VERBS, ("status",),
             has_status=True),
    Resource("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", True, ("pvc",), (), ALL_VERBS, ("status",),
             has_status=True),
    Resource("", "v1", "replicationcontrollers", "ReplicationController", True, ("rc",), ("all",), ALL_VERBS,
             ("status", "scale"), ("status.replicas",), has_status=True, tracks_generation=True),
    Resource("apps", "v1", "deployments", "Deployment", True, ("deploy",), ("all",), ALL_VERBS, ("status", "scale"),
             has_status=True, tracks_generation=True),
    Resource("apps", "v1", "replicasets", "ReplicaSet", True, ("rs",), ("all",), ALL_VERBS, ("status", "scale"),
             ("status.replicas",), has_status=True, tracks_generation=True),
    Resource("apps", "v1", "daemonsets", "DaemonSet", True, ("ds",), ("all",), ALL_VERBS, ("status",),
             has_status=True, tracks_generation=True),
    Resource("apps", "v1", "statefulsets", "StatefulSet", True, ("sts",), ("all",), ALL_VERBS, ("status", "scale"),
             has_status=True, tracks_generation=True),
    Resource("apps", "v1", "controllerrevisions", "ControllerRevision", True),
    Resource("coordination.k8s.io", "v1", "leases", "Lease", True),
    Resource("storage.k8s.io", "v1", "storageclasses", "StorageClass", False, ("sc",)),
    Resource("storage.k8s.io", "v1", "csinodes", "CSINode", False),
    Resource("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", True, ("pdb",), (), ALL_VERBS, ("status",),
             has_status=True, tracks_generation=True),
    Resource("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", False, ("pc",)),
    Resource("networking.k8s.io", "v1", "ingresses", "Ingress", True, ("ing",), (), ALL_VERBS, ("status",),
             has_status=True, tracks_generation=True),
    Resource("networking.k8s.io", "v1", "ingressclasses", "IngressClass", False, tracks_generation=True),
    Resource("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", False,
             ("crd", "crds"), ("api-extensions",), ALL_VERBS, ("status",), has_status=True, tracks_generation=True),
    Resource("apiregistration.k8s.io", "v1", "apiservices", "APIService", False, (), ("api-extensions",), ALL_VERBS,
             ("status",), has_status=True),
    Resource("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", False),
    Resource("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", False),
    Resource("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", True),
    Resource("rbac.authorization.k8s.io", "v1", "roles", "Role", True),
    Resource("batch", "v1", "jobs", "Job", True, (), ("all",), ALL_VERBS, ("status",), ("status.successful",),
             has_status=True, tracks_generation=True),
    Resource("batch", "v1", "cronjobs", "CronJob", True, ("cj",), ("all",), ALL_VERBS, ("status",),
             has_status=True, tracks_generation=True),
    # One stored object, two views: v2 (stored and preferred) and v1 (converted, see api/conversion).
    Resource("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", True, ("hpa",), ("all",),
             ALL_VERBS, ("status",), has_status=True),
    Resource("autoscaling", "v1", "horizontalpodautoscalers", "HorizontalPodAutoscaler", True, ("hpa",), ("all",),
             ALL_VERBS, ("status",), has_status=True, storage_version="v2"),
)

_BY_PATH: dict[tuple[str, str, str], Resource] = {(r.group, r.version, r.plural): r for r in RESOURCES}
# A kind served in several versions is found by its first (preferred) one.
_BY_KIND: dict[tuple[str, str], Resource] = {(r.group, r.kind): r for r in reversed(RESOURCES)}


def register(resource: Resource) -> None:
    """Add a resource type (other layers add their own API groups this way)."""
    global RESOURCES
    if (resource.group, resource.version, resource.plural) in _BY_PATH:
        return
    RESOURCES = (*RESOURCES, resource)
    _BY_PATH[(resource.group, resource.version, resource.plural)] = resource
    _BY_KIND.setdefault((resource.group, resource.kind), resource)


def lookup(group: str, version: str, plural: str) -> Resource | None:
    """The resource served at ``/apis/<group>/<version>/<plural>``."""
    return _BY_PATH.get((group, version, plural))


def by_kind(group: str, kind: str) -> Resource | None:
    return _BY_KIND.get((group, kind))


def group_versions() -> dict[str, list[str]]:
    """Every API group (core is '') with its versions, in registration order."""
    out: dict[str, list[str]] = {}
    for r in RESOURCES:
        versions = out.setdefault(r.group, [])
        if r.version not in versions:
            versions.append(r.version)
    return out


def in_group_version(group: str, version: str) -> list[Resource]:
    return [r for r in RESOURCES if r.group == group and r.version == version]
