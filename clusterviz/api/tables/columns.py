"""Resources that have printers, the names kubectl users type for them, and their column definitions."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import deep_copy

RESOURCES_WITH_TABLES: set[str] = {
    "horizontalpodautoscalers",
    "pods",
    "nodes",
    "namespaces",
    "services",
    "endpoints",
    "endpointslices",
    "events",
    "configmaps",
    "secrets",
    "serviceaccounts",
    "replicationcontrollers",
    "deployments",
    "replicasets",
    "jobs",
    "cronjobs",
    "daemonsets",
    "statefulsets",
    "controllerrevisions",
    "poddisruptionbudgets",
    "priorityclasses",
    "ingresses",
    "ingressclasses",
    "resourcequotas",
    "roles",
    "clusterroles",
    "rolebindings",
    "clusterrolebindings",
    "persistentvolumes",
    "persistentvolumeclaims",
    "storageclasses",
    "csinodes",
    "apiservices",
}

# Metadata fields copied into each row's PartialObjectMetadata.
PARTIAL_METADATA_FIELDS: tuple[str, ...] = (
    "name",
    "generateName",
    "namespace",
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "deletionTimestamp",
    "labels",
    "annotations",
    "ownerReferences",
)

# API group each printed resource lives in, used to reject e.g. "events.events.k8s.io".
_GROUPS: dict[str, str] = {r: "" for r in RESOURCES_WITH_TABLES} | {
    "deployments": "apps",
    "replicasets": "apps",
    "daemonsets": "apps",
    "statefulsets": "apps",
    "controllerrevisions": "apps",
}

_GROUPS.update({"jobs": "batch", "cronjobs": "batch", "poddisruptionbudgets": "policy"})
_GROUPS["horizontalpodautoscalers"] = "autoscaling"
_GROUPS.update({"storageclasses": "storage.k8s.io", "csinodes": "storage.k8s.io"})
_GROUPS["priorityclasses"] = "scheduling.k8s.io"
_GROUPS.update(dict.fromkeys(("ingresses", "ingressclasses"), "networking.k8s.io"))
_GROUPS["apiservices"] = "apiregistration.k8s.io"
_GROUPS.update(dict.fromkeys(("roles", "clusterroles", "rolebindings", "clusterrolebindings"), "rbac.authorization.k8s.io"))

# (apiVersion, kind) filled into full objects that lack them (includeObject=Object).
_TYPE_META: dict[str, tuple[str, str]] = {
    "horizontalpodautoscalers": ("autoscaling/v2", "HorizontalPodAutoscaler"),
    "persistentvolumes": ("v1", "PersistentVolume"),
    "persistentvolumeclaims": ("v1", "PersistentVolumeClaim"),
    "storageclasses": ("storage.k8s.io/v1", "StorageClass"),
    "csinodes": ("storage.k8s.io/v1", "CSINode"),
    "poddisruptionbudgets": ("policy/v1", "PodDisruptionBudget"),
    "priorityclasses": ("scheduling.k8s.io/v1", "PriorityClass"),
    "ingresses": ("networking.k8s.io/v1", "Ingress"),
    "ingressclasses": ("networking.k8s.io/v1", "IngressClass"),
    "apiservices": ("apiregistration.k8s.io/v1", "APIService"),
    "resourcequotas": ("v1", "ResourceQuota"),
    "roles": ("rbac.authorization.k8s.io/v1", "Role"),
    "clusterroles": ("rbac.authorization.k8s.io/v1", "ClusterRole"),
    "rolebindings": ("rbac.authorization.k8s.io/v1", "RoleBinding"),
    "clusterrolebindings": ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
    "pods": ("v1", "Pod"),
    "nodes": ("v1", "Node"),
    "namespaces": ("v1", "Namespace"),
    "services": ("v1", "Service"),
    "endpoints": ("v1", "Endpoints"),
    "endpointslices": ("discovery.k8s.io/v1", "EndpointSlice"),
    "events": ("v1", "Event"),
    "configmaps": ("v1", "ConfigMap"),
    "secrets": ("v1", "Secret"),
    "serviceaccounts": ("v1", "ServiceAccount"),
    "replicationcontrollers": ("v1", "ReplicationController"),
    "deployments": ("apps/v1", "Deployment"),
    "replicasets": ("apps/v1", "ReplicaSet"),
    "jobs": ("batch/v1", "Job"),
    "cronjobs": ("batch/v1", "CronJob"),
    "daemonsets": ("apps/v1", "DaemonSet"),
    "statefulsets": ("apps/v1", "StatefulSet"),
    "controllerrevisions": ("apps/v1", "ControllerRevision"),
}

# Singular names, short names and kinds kubectl users type, mapped to plurals.
_ALIASES: dict[str, str] = {
    "horizontalpodautoscaler": "horizontalpodautoscalers",
    "hpa": "horizontalpodautoscalers",
    "persistentvolume": "persistentvolumes",
    "pv": "persistentvolumes",
    "persistentvolumeclaim": "persistentvolumeclaims",
    "pvc": "persistentvolumeclaims",
    "storageclass": "storageclasses",
    "sc": "storageclasses",
    "csinode": "csinodes",
    "poddisruptionbudget": "poddisruptionbudgets",
    "pdb": "poddisruptionbudgets",
    "priorityclass": "priorityclasses",
    "pc": "priorityclasses",
    "ingress": "ingresses",
    "ing": "ingresses",
    "ingressclass": "ingressclasses",
    "apiservice": "apiservices",
    "resourcequota": "resourcequotas",
    "quota": "resourcequotas",
    "role": "roles",
    "clusterrole": "clusterroles",
    "rolebinding": "rolebindings",
    "clusterrolebinding": "clusterrolebindings",
    "pod": "pods",
    "po": "pods",
    "node": "nodes",
    "no": "nodes",
    "namespace": "namespaces",
    "ns": "namespaces",
    "service": "services",
    "svc": "services",
    "ep": "endpoints",
    "event": "events",
    "ev": "events",
    "configmap": "configmaps",
    "cm": "configmaps",
    "secret": "secrets",
    "serviceaccount": "serviceaccounts",
    "sa": "serviceaccounts",
    "replicationcontroller": "replicationcontrollers",
    "rc": "replicationcontrollers",
    "deployment": "deployments",
    "deploy": "deployments",
    "replicaset": "replicasets",
    "rs": "replicasets",
    "job": "jobs",
    "cronjob": "cronjobs",
    "cj": "cronjobs",
    "daemonset": "daemonsets",
    "ds": "daemonsets",
    "statefulset": "statefulsets",
    "sts": "statefulsets",
    "controllerrevision": "controllerrevisions",
}

# --------------------------------------------------------------------------
# Column definitions
# --------------------------------------------------------------------------

_NAME_DESC = "Name of the object, unique within its namespace."
_AGE_DESC = "Time elapsed since the object was created."
_CREATED_DESC = "The time the object was created (metadata.creationTimestamp)."
_CONTAINERS_DESC = "Names of each container in the template."
_IMAGES_DESC = "Images referenced by each container in the template."


def _col(name: str, type_: str, description: str, priority: int = 0, fmt: str = "") -> dict[str, Any]:
    """One TableColumnDefinition; upstream serialises all five keys, even when empty."""
    return {"name": name, "type": type_, "format": fmt, "description": description, "priority": priority}


def _name_col() -> dict[str, Any]:
    return _col("Name", "string", _NAME_DESC, fmt="name")


def _age_col() -> dict[str, Any]:
    return _col("Age", "string", _AGE_DESC)


def _role_columns() -> list[dict[str, Any]]:
    """Roles and ClusterRoles: the name and the creation time itself."""
    return [_name_col(), _col("Created At", "date", _CREATED_DESC)]


def _role_binding_columns() -> list[dict[str, Any]]:
    """RoleBindings and ClusterRoleBindings: the role, the age, and with -o wide the subjects by kind."""
    return [
        _name_col(),
        _col("Role", "string", "RoleRef can reference a Role in the current namespace or a ClusterRole in the global "
             "namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable."),
        _age_col(),
        _col("Users", "string", "Users in the roleBinding", 1),
        _col("Groups", "string", "Groups in the roleBinding", 1),
        _col("ServiceAccounts", "string", "ServiceAccounts in the roleBinding", 1),
    ]


def _replicated_columns(owner: str) -> list[dict[str, Any]]:
    """ReplicaSets and ReplicationControllers print the same columns."""
    return [
        _name_col(),
        _col("Desired", "integer", "Number of desired replicas."),
        _col("Current", "integer", "Number of replicas observed."),
        _col("Ready", "integer", "Number of ready replicas."),
        _age_col(),
        _col("Containers", "string", _CONTAINERS_DESC, 1),
        _col("Images", "string", _IMAGES_DESC, 1),
        _col("Selector", "string", f"Label query over the pods the {owner} manages.", 1),
    ]


# Types follow upstream exactly, including its quirks: some columns are
# declared "string" although their cells are integers (deployment Up-to-date
# and Available, configmap Data, event Count).
_COLUMNS: dict[str, list[dict[str, Any]]] = {
    "pods": [
        _name_col(),
        _col("Ready", "string", "Ready containers out of all containers in the pod."),
        _col("Status", "string", "Summary of the pod phase and of its containers' states."),
        _col("Restarts", "string", "Container restarts in the pod, and how long ago the latest one happened."),
        _age_col(),
        _col("IP", "string", "IP address allocated to the pod.", 1),
        _col("Node", "string", "Node the pod is bound to.", 1),
        _col("Nominated Node", "string", "Node nominated for the pod while it preempts other pods.", 1),
        _col("Readiness Gates", "string", "Readiness gates whose condition is True, out of all gates.", 1),
    ],
    "nodes": [
        _name_col(),
        _col("Status", "string", "The status of the node."),
        _col("Roles", "string", "The roles of the node."),
        _age_col(),
        _col("Version", "string", "Kubelet version reported by the node."),
        _col("Internal-IP", "string", "First InternalIP address of the node.", 1),
        _col("External-IP", "string", "First ExternalIP address of the node.", 1),
        _col("OS-Image", "string", "OS image reported by the node.", 1),
        _col("Kernel-Version", "string", "Kernel version reported by the node.", 1),
        _col("Container-Runtime", "string", "Container runtime and version reported by the node.", 1),
    ],
    "namespaces": [
        _name_col(),
        _col("Status", "string", "The status of the namespace."),
        _age_col(),
    ],
    "services": [
        _name_col(),
        _col("Type", "string", "How the service is exposed."),
        _col("Cluster-IP", "string", "Cluster-internal virtual IP of the service."),
        _col("External-IP", "string", "Addresses the service is reachable at from outside the cluster."),
        _col("Port(s)", "string", "Ports exposed by the service."),
        _age_col(),
        _col("Selector", "string", "Labels of the pods that back the service.", 1),
    ],
    "endpoints": [
        _name_col(),
        _col("Endpoints", "string", "Addresses and ports of the endpoints."),
        _age_col(),
    ],
    "endpointslices": [
        _name_col(),
        _col("AddressType", "string", "Type of the addresses in the slice."),
        _col("Ports", "string", "The port numbers of the slice's endpoints."),
        _col("Endpoints", "string", "The first addresses of the slice."),
        _age_col(),
    ],
    "events": [
        _col("Last Seen", "string", "Time since the event was last observed."),
        _col("Type", "string", "Type of the event (Normal, Warning)."),
        _col("Reason", "string", "Short machine-readable reason for the event."),
        _col("Object", "string", "The object this event is about."),
        _col("Subobject", "string", "Part of the object the event is about, e.g. a container.", 1),
        _col("Source", "string", "Component (and host) that reported the event.", 1),
        _col("Message", "string", "Human-readable description of the event."),
        _col("First Seen", "string", "Time since the event was first observed.", 1),
        _col("Count", "string", "Number of times the event occurred.", 1),
        _col("Name", "string", _NAME_DESC, 1, "name"),
    ],
    "horizontalpodautoscalers": [
        _name_col(),
        _col("Reference", "string", "The reference to the scaled resource."),
        _col("Targets", "string", "The metrics scaled on, current and target."),
        _col("MinPods", "string", "The lower limit for the number of pods the autoscaler can scale down to."),
        _col("MaxPods", "string", "The upper limit for the number of pods the autoscaler can scale up to."),
        _col("Replicas", "string", "Current number of replicas of pods managed by this autoscaler."),
        _age_col(),
    ],
    "poddisruptionbudgets": [
        _name_col(),
        _col("Min Available", "string", "The minimum number or percentage of available pods this budget requires."),
        _col("Max Unavailable", "string", "The maximum number or percentage of unavailable pods this budget allows."),
        _col("Allowed Disruptions", "integer", "How many pods may be disrupted now."),
        _age_col(),
    ],
    "priorityclasses": [
        _name_col(),
        _col("Value", "integer", "The priority Pods of this class receive."),
        _col("Global-Default", "boolean", "Whether Pods that name no priority class get this one."),
        _age_col(),
        _col("PreemptionPolicy", "string", "Whether Pods of this class may preempt lower-priority Pods."),
    ],
    "ingresses": [
        _name_col(),
        _col("Class", "string", "The name of the IngressClass resource that should be used for this Ingress."),
        _col("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule"),
        _col("Address", "string", "Address is a list containing ingress points for the load-balancer"),
        _col("Ports", "string", "Ports of TLS configurations that open"),
        _age_col(),
    ],
    "apiservices": [
        _name_col(),
        _col("Service", "string", "The reference to the service that hosts this API endpoint."),
        _col("Available", "string", "Whether this service is available."),
        _age_col(),
    ],
    "ingressclasses": [
        _name_col(),
        _col("Controller", "string", "Controller that is responsible for handling this class"),
        _col("Parameters", "string", "A reference to a resource with additional parameters"),
        _age_col(),
    ],
    "resourcequotas": [
        _name_col(),
        _age_col(),
        _col("Request", "string", "Request represents a minimum amount of cpu/memory that a container may consume."),
        _col("Limit", "string", "Limits control the maximum amount of cpu/memory that a container may use "
             "independent of contention on the node."),
    ],
    "roles": _role_columns(),
    "clusterroles": _role_columns(),
    "rolebindings": _role_binding_columns(),
    "clusterrolebindings": _role_binding_columns(),
    "persistentvolumes": [
        _name_col(),
        _col("Capacity", "string", "The volume's size (capacity.storage)."),
        _col("Access Modes", "string", "How the volume may be mounted."),
        _col("Reclaim Policy", "string", "What happens to the volume once its claim is deleted."),
        _col("Status", "string", "The phase of the volume."),
        _col("Claim", "string", "The claim bound to the volume."),
        _col("StorageClass", "string", "StorageClass of the pv"),
        _col("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv"),
        _col("Reason", "string", "Why the volume is in its phase."),
        _age_col(),
        _col("VolumeMode", "string", "Whether the volume is a filesystem or a raw block device.", 1),
    ],
    "persistentvolumeclaims": [
        _name_col(),
        _col("Status", "string", "The phase of the claim."),
        _col("Volume", "string", "The volume bound to the claim."),
        _col("Capacity", "string", "The size of the bound volume."),
        _col("Access Modes", "string", "The access modes of the bound volume."),
        _col("StorageClass", "string", "StorageClass of the pvc"),
        _col("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"),
        _age_col(),
        _col("VolumeMode", "string", "Whether the claim asks for a filesystem or a raw block device.", 1),
    ],
    "storageclasses": [
        _name_col(),
        _col("Provisioner", "string", "The provisioner that makes the class's volumes."),
        _col("ReclaimPolicy", "string", "The reclaim policy of the volumes the class provisions."),
        _col("VolumeBindingMode", "string", "When claims are bound and provisioned."),
        _col("AllowVolumeExpansion", "string", "Whether claims of the class may grow."),
        _age_col(),
    ],
    "csinodes": [
        _name_col(),
        _col("Drivers", "integer", "Drivers indicates the number of CSI drivers registered on the node"),
        _age_col(),
    ],
    "configmaps": [
        _name_col(),
        _col("Data", "string", "Number of entries in data and binaryData."),
        _age_col(),
    ],
    "secrets": [
        _name_col(),
        _col("Type", "string", "Used to facilitate programmatic handling of secret data."),
        _col("Data", "string", "Number of entries in data."),
        _age_col(),
    ],
    "serviceaccounts": [
        _name_col(),
        _col("Secrets", "string", "Number of secrets the service account lists."),
        _age_col(),
    ],
    "replicationcontrollers": _replicated_columns("controller"),
    "replicasets": _replicated_columns("replica set"),
    "jobs": [
        _name_col(),
        _col("Status", "string", "Status of the job."),
        _col("Completions", "string", "Pods that reached phase Succeeded, out of the completions wanted."),
        _col("Duration", "string", "Time required to complete the job."),
        _age_col(),
        _col("Containers", "string", _CONTAINERS_DESC, 1),
        _col("Images", "string", _IMAGES_DESC, 1),
        _col("Selector", "string", "Label query over the pods the job runs.", 1),
    ],
    "cronjobs": [
        _name_col(),
        _col("Schedule", "string", "The schedule in Cron format."),
        _col("Timezone", "string", "The time zone the schedule is read in."),
        _col("Suspend", "boolean", "Whether later executions are suspended."),
        _col("Active", "integer", "The jobs of this cron job that are running."),
        _col("Last Schedule", "string", "Time since a job was last scheduled."),
        _age_col(),
        _col("Containers", "string", _CONTAINERS_DESC, 1),
        _col("Images", "string", _IMAGES_DESC, 1),
        _col("Selector", "string", "Label query over the pods the jobs run.", 1),
    ],
    "deployments": [
        _name_col(),
        _col("Ready", "string", "Ready replicas out of desired replicas."),
        _col("Up-to-date", "string", "Replicas running the latest pod template."),
        _col("Available", "string", "Replicas available to serve traffic."),
        _age_col(),
        _col("Containers", "string", _CONTAINERS_DESC, 1),
        _col("Images", "string", _IMAGES_DESC, 1),
        _col("Selector", "string", "Label query over the pods the deployment manages.", 1),
    ],
    "daemonsets": [
        _name_col(),
        _col("Desired", "integer", "The total number of nodes that should be running the daemon pod."),
        _col("Current", "integer", "The number of nodes running at least one daemon pod and supposed to."),
        _col("Ready", "integer", "The number of nodes that should run the daemon pod and have one Ready."),
        _col("Up-to-date", "integer", "The number of nodes running the updated daemon pod."),
        _col("Available", "integer", "The number of nodes that should run the daemon pod and have one available."),
        _col("Node Selector", "string", "Labels a node must have for the daemon pod to run there."),
        _age_col(),
        _col("Containers", "string", _CONTAINERS_DESC, 1),
        _col("Images", "string", _IMAGES_DESC, 1),
        _col("Selector", "string", "Label query over the pods the daemon set manages.", 1),
    ],
    "statefulsets": [
        _name_col(),
        _col("Ready", "string", "Number of the pod with ready state"),
        _age_col(),
        _col("Containers", "string", _CONTAINERS_DESC, 1),
        _col("Images", "string", _IMAGES_DESC, 1),
    ],
    "controllerrevisions": [
        _name_col(),
        _col("Controller", "string", "Controller of the object"),
        _col("Revision", "string", "Revision of the state the object represents."),
        _age_col(),
    ],
}

# Upstream's default convertor for resources without a printer.
_DEFAULT_COLUMNS: list[dict[str, Any]] = [
    _name_col(),
    _col("Created At", "date", "Time the object was created (RFC 3339, UTC)."),
]


def column_definitions(resource: str) -> list[dict[str, Any]]:
    """Return a fresh copy of the column definitions used for ``resource``."""
    return deep_copy(_COLUMNS.get(_canonical_resource(resource), _DEFAULT_COLUMNS))


def _canonical_resource(resource: str) -> str:
    """Map ``pods``, ``pod``, ``po``, ``Pod`` or ``deployments.apps`` to the plural the printers use.

    Returns ``""`` when the resource has no dedicated printer (including a
    known name qualified with the wrong group), which selects the default table.
    """
    if not isinstance(resource, str):
        return ""
    name, _, group = resource.strip().lower().partition(".")
    name = _ALIASES.get(name, name)
    if name not in RESOURCES_WITH_TABLES:
        return ""
    if group and group != _GROUPS[name]:
        return ""
    return name
