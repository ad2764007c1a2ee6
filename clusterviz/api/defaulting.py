"""Defaulting: what the real API server fills in before it validates and stores an object.

:func:`apply_defaults` returns a defaulted copy. It covers three sources of
"fields nobody wrote", because a real cluster shows all three:

* the scheme's defaulting functions (``SetDefaults_Pod``, ``SetDefaults_Deployment``,
  ``SetDefaults_ResourceList`` rounding quantities up to milli units, ...);
* the admission plugins every cluster runs on Pod creation (Priority,
  DefaultTolerationSeconds, ServiceAccount's ``serviceAccountName: default``);
* Go's JSON encoding, which always writes struct fields without
  ``omitempty`` (``status.nodeInfo`` with its ten strings, ``involvedObject``,
  ``restartCount``). The Python client insists on several of these.

Quantities that parse are rewritten in their canonical form (``0.5`` ->
``500m``), as the server re-encodes them. Anything of an unexpected type is
left untouched for validation to report: this module never raises on input.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from clusterviz.apimachinery.image_reference import image_pull_policy
from clusterviz.apimachinery.quantity import Quantity, parse_or_none, rounded_to_milli
from clusterviz.apimachinery.unstructured import deep_copy, dict_or_empty

from .apiservices import default_api_service
from .autoscaling_defaults import default_horizontal_pod_autoscaler
from .crd_defaults import default_custom_resource_definition
from .networking_defaults import default_ingress_class
from .rbac_defaults import default_binding
from .secret_data import default_secret
from .storage_defaults import default_persistent_volume, default_persistent_volume_claim, default_storage_class

__all__ = ["apply_defaults", "default_in_place", "qos_class"]

DEFAULT_SCHEDULER_NAME: Final = "default-scheduler"
DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS: Final = 30
TERMINATION_MESSAGE_PATH: Final = "/dev/termination-log"
DEFAULT_FILE_MODE: Final = 0o644
DEFAULT_TOLERATION_SECONDS: Final = 300
NOT_READY_TAINT: Final = "node.kubernetes.io/not-ready"
UNREACHABLE_TAINT: Final = "node.kubernetes.io/unreachable"
NAMESPACE_NAME_LABEL: Final = "kubernetes.io/metadata.name"
SYSTEM_PRIORITY_CLASSES: Final = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}
NODE_INFO_FIELDS: Final = (
    "architecture",
    "bootID",
    "containerRuntimeVersion",
    "kernelVersion",
    "kubeProxyVersion",
    "kubeletVersion",
    "machineID",
    "operatingSystem",
    "osImage",
    "systemUUID",
)
# Every volume source, in the order upstream's validation checks them.
VOLUME_SOURCES: Final = (
    "emptyDir",
    "hostPath",
    "gitRepo",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "flocker",
    "persistentVolumeClaim",
    "rbd",
    "quobyte",
    "cinder",
    "cephfs",
    "downwardAPI",
    "fc",
    "azureFile",
    "configMap",
    "vsphereVolume",
    "azureDisk",
    "photonPersistentDisk",
    "projected",
    "portworxVolume",
    "scaleIO",
    "storageos",
    "csi",
    "ephemeral",
    "image",
)
VOLUME_SOURCES_WITH_MODE: Final = ("secret", "configMap", "downwardAPI", "projected")
PROBES: Final = ("livenessProbe", "readinessProbe", "startupProbe")

# --- small helpers ---------------------------------------------------------------


def _dict(parent: dict[str, Any], name: str, *, create: bool = False) -> dict[str, Any] | None:
    """The object under ``name``; with ``create``, an absent or null one becomes ``{}``."""
    value = parent.get(name)
    if isinstance(value, dict):
        return value
    if value is None and create:
        parent[name] = {}
        return parent[name]
    return None


def _dicts(parent: dict[str, Any], name: str) -> list[dict[str, Any]]:
    value = parent.get(name)
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, dict)]


def _default(obj: dict[str, Any], name: str, value: Any) -> None:
    """Set a string-like field that is absent, null or empty (Go's zero value)."""
    if obj.get(name) in (None, ""):
        obj[name] = value


def _default_ptr(obj: dict[str, Any], name: str, value: Any) -> None:
    """Set a pointer field that is absent or null (an explicit 0 or false stays)."""
    if obj.get(name) is None:
        obj[name] = value


def _default_zero(obj: dict[str, Any], name: str, value: int) -> None:
    """Set a plain int field that is absent, null or 0."""
    current = obj.get(name)
    if current is None or (current == 0 and not isinstance(current, bool)):
        obj[name] = value


def _canonical_resource_list(resources: Any) -> None:
    """``SetDefaults_ResourceList``: round every quantity up to milli units and store it canonically."""
    if not isinstance(resources, dict):
        return
    for name, value in list(resources.items()):
        canonical = rounded_to_milli(value)
        if canonical is not None:
            resources[name] = canonical


def _canonical_quantity(obj: dict[str, Any], name: str) -> None:
    quantity = parse_or_none(obj.get(name))
    if quantity is not None:
        obj[name] = quantity.canonical()


# --- QoS ------------------------------------------------------------------------


def qos_class(pod: dict[str, Any]) -> str:
    """The pod's QoS class from its containers' cpu and memory requests and limits (upstream's rules)."""
    spec = dict_or_empty(pod.get("spec"))
    requests: dict[str, Quantity] = {}
    limits: dict[str, Quantity] = {}
    guaranteed = True
    for container in _dicts(spec, "containers") + _dicts(spec, "initContainers"):
        resources = dict_or_empty(container.get("resources"))
        for section, totals in (("requests", requests), ("limits", limits)):
            found: set[str] = set()
            entries = dict_or_empty(resources.get(section))
            for name, raw in entries.items():
                if name not in ("cpu", "memory"):
                    continue
                quantity = parse_or_none(raw)
                if quantity is None or quantity.sign() <= 0:
                    continue
                found.add(name)
                totals[name] = totals[name] + quantity if name in totals else quantity
            if section == "limits" and not {"cpu", "memory"} <= found:
                guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed and all(name in limits and limits[name] == value for name, value in requests.items()):
        if len(requests) == len(limits):
            return "Guaranteed"
    return "Burstable"


# --- pod specs ---------------------------------------------------------------------


def _handler(handler: dict[str, Any]) -> None:
    http_get = _dict(handler, "httpGet")
    if http_get is not None:
        _default(http_get, "path", "/")
        _default(http_get, "scheme", "HTTP")


def _container(container: dict[str, Any]) -> None:
    _default(container, "imagePullPolicy", image_pull_policy(container.get("image")))
    _default(container, "terminationMessagePath", TERMINATION_MESSAGE_PATH)
    _default(container, "terminationMessagePolicy", "File")
    for port in _dicts(container, "ports"):
        _default(port, "protocol", "TCP")
    resources = _dict(container, "resources", create=True)
    if resources is not None:
        _canonical_resource_list(resources.get("limits"))
        _canonical_resource_list(resources.get("requests"))
    for var in _dicts(container, "env"):
        value_from = _dict(var, "valueFrom")
        field_ref = _dict(value_from, "fieldRef") if value_from is not None else None
        if field_ref is not None:
            _default(field_ref, "apiVersion", "v1")
    for probe_name in PROBES:
        probe = _dict(container, probe_name)
        if probe is None:
            continue
        _default_zero(probe, "timeoutSeconds", 1)
        _default_zero(probe, "periodSeconds", 10)
        _default_zero(probe, "successThreshold", 1)
        _default_zero(probe, "failureThreshold", 3)
        _handler(probe)
        grpc = _dict(probe, "grpc")
        if grpc is not None:
            _default_ptr(grpc, "service", "")
    lifecycle = _dict(container, "lifecycle")
    if lifecycle is not None:
        for hook in ("postStart", "preStop"):
            handler = _dict(lifecycle, hook)
            if handler is not None:
                _handler(handler)


def _volume(volume: dict[str, Any]) -> None:
    if all(volume.get(source) is None for source in VOLUME_SOURCES):
        volume["emptyDir"] = {}
    for source_name in VOLUME_SOURCES_WITH_MODE:
        source = _dict(volume, source_name)
        if source is not None:
            _default_ptr(source, "defaultMode", DEFAULT_FILE_MODE)
    empty_dir = _dict(volume, "emptyDir")
    if empty_dir is not None:
        _canonical_quantity(empty_dir, "sizeLimit")
    host_path = _dict(volume, "hostPath")
    if host_path is not None:
        _default_ptr(host_path, "type", "")
    projected = _dict(volume, "projected")
    for projection in _dicts(projected, "sources") if projected is not None else []:
        token = _dict(projection, "serviceAccountToken")
        if token is not None:
            # SetDefaults_ServiceAccountTokenProjection: a token lives an hour unless asked otherwise.
            _default_ptr(token, "expirationSeconds", 3600)


def _pod_spec(spec: dict[str, Any]) -> None:
    """``SetDefaults_PodSpec`` and what it reaches: containers, ports, resources, volumes, probes."""
    _default(spec, "dnsPolicy", "ClusterFirst")
    _default(spec, "restartPolicy", "Always")
    _default_ptr(spec, "securityContext", {})
    _default_ptr(spec, "terminationGracePeriodSeconds", DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS)
    _default(spec, "schedulerName", DEFAULT_SCHEDULER_NAME)
    for container in _dicts(spec, "containers") + _dicts(spec, "initContainers"):
        _container(container)
    for volume in _dicts(spec, "volumes"):
        _volume(volume)


def _pod_template(owner_spec: dict[str, Any], *, always_present: bool) -> None:
    """Default a workload's pod template.

    apps/v1 templates are plain structs, always encoded, so an absent one is
    an empty template; a ReplicationController's is a pointer and stays absent.
    """
    template = _dict(owner_spec, "template", create=always_present)
    if template is None:
        return
    _dict(template, "metadata", create=True)
    spec = _dict(template, "spec", create=True)
    if spec is not None:
        _pod_spec(spec)


def _requests_from_limits(container: dict[str, Any]) -> None:
    resources = container.get("resources")
    if not isinstance(resources, dict) or not isinstance(resources.get("limits"), dict):
        return
    requests = _dict(resources, "requests", create=True)
    if requests is None:
        return
    for name, value in resources["limits"].items():
        requests.setdefault(name, deep_copy(value))


def _tolerates(tolerations: list[dict[str, Any]], taint_key: str) -> bool:
    return any(
        tol.get("key") in (None, "", taint_key) and tol.get("effect") in (None, "", "NoExecute") for tol in tolerations
    )


def _admission(spec: dict[str, Any]) -> None:
    """What a cluster's default admission plugins add to every new Pod."""
    # ServiceAccount: the namespace's "default" account; the deprecated field mirrors it.
    deprecated = spec.get("serviceAccount")
    _default(spec, "serviceAccountName", deprecated if isinstance(deprecated, str) and deprecated else "default")
    if isinstance(spec.get("serviceAccountName"), str):
        _default(spec, "serviceAccount", spec["serviceAccountName"])
    # Priority: the priority of the named class; 0 when none is named.
    class_name = spec.get("priorityClassName")
    _default_ptr(spec, "priority", SYSTEM_PRIORITY_CLASSES.get(class_name, 0) if isinstance(class_name, str) else 0)
    _default_ptr(spec, "preemptionPolicy", "PreemptLowerPriority")
    # DefaultTolerationSeconds: ride out a not-ready or unreachable node for five minutes.
    if spec.get("tolerations") is None:
        spec["tolerations"] = []
    tolerations = spec.get("tolerations")
    if isinstance(tolerations, list):
        existing = [t for t in tolerations if isinstance(t, dict)]
        for taint_key in (NOT_READY_TAINT, UNREACHABLE_TAINT):
            if not _tolerates(existing, taint_key):
                tolerations.append(
                    {
                        "key": taint_key,
                        "operator": "Exists",
                        "effect": "NoExecute",
                        "tolerationSeconds": DEFAULT_TOLERATION_SECONDS,
                    }
                )


def _condition(condition: dict[str, Any]) -> None:
    _default_ptr(condition, "type", "")
    _default_ptr(condition, "status", "")


def _container_status(status: dict[str, Any]) -> None:
    for name, zero in (("name", ""), ("image", ""), ("imageID", ""), ("ready", False), ("restartCount", 0)):
        _default_ptr(status, name, zero)
    _default_ptr(status, "state", {})
    _default_ptr(status, "lastState", {})


def _pod(pod: dict[str, Any]) -> None:
    spec = _dict(pod, "spec")
    if spec is not None:
        for container in _dicts(spec, "containers") + _dicts(spec, "initContainers"):
            _requests_from_limits(container)
        _default_ptr(spec, "enableServiceLinks", True)
        if spec.get("hostNetwork") is True:
            for container in _dicts(spec, "containers") + _dicts(spec, "initContainers"):
                for port in _dicts(container, "ports"):
                    if port.get("hostPort") in (None, 0):
                        port["hostPort"] = port.get("containerPort")
        _pod_spec(spec)
        _admission(spec)
    status = _dict(pod, "status", create=True)
    if status is not None:
        _default(status, "phase", "Pending")
        if status.get("qosClass") in (None, ""):  # worked out only when missing: it is the dearest default
            status["qosClass"] = qos_class(pod)
        for condition in _dicts(status, "conditions"):
            _condition(condition)
        for section in ("containerStatuses", "initContainerStatuses"):
            for container_status in _dicts(status, section):
                _container_status(container_status)


# --- other kinds --------------------------------------------------------------------


def _deployment(deployment: dict[str, Any]) -> None:
    spec = _dict(deployment, "spec", create=True)
    if spec is None:
        return
    _default_ptr(spec, "replicas", 1)
    strategy = _dict(spec, "strategy", create=True)
    if strategy is not None:
        _default(strategy, "type", "RollingUpdate")
        if strategy.get("type") == "RollingUpdate":
            rolling = _dict(strategy, "rollingUpdate", create=True)
            if rolling is not None:
                _default_ptr(rolling, "maxUnavailable", "25%")
                _default_ptr(rolling, "maxSurge", "25%")
    _default_ptr(spec, "revisionHistoryLimit", 10)
    _default_ptr(spec, "progressDeadlineSeconds", 600)
    _pod_template(spec, always_present=True)


def _replica_set(replica_set: dict[str, Any]) -> None:
    spec = _dict(replica_set, "spec", create=True)
    if spec is None:
        return
    _default_ptr(spec, "replicas", 1)
    _pod_template(spec, always_present=True)


def _replication_controller(rc: dict[str, Any]) -> None:
    spec = _dict(rc, "spec", create=True)
    if spec is None:
        return
    template = _dict(spec, "template")
    template_meta = _dict(template, "metadata") if template is not None else None
    labels = template_meta.get("labels") if template_meta is not None else None
    if isinstance(labels, dict):
        if not spec.get("selector"):
            spec["selector"] = deep_copy(labels)
        meta = _dict(rc, "metadata", create=True)
        if meta is not None and not meta.get("labels"):
            meta["labels"] = deep_copy(labels)
    _default_ptr(spec, "replicas", 1)
    _pod_template(spec, always_present=False)


def _daemon_set(daemon_set: dict[str, Any]) -> None:
    """SetDefaults_DaemonSet (apps/v1): RollingUpdate with maxUnavailable 1 and maxSurge 0, ten revisions kept."""
    spec = _dict(daemon_set, "spec", create=True)
    if spec is None:
        return
    strategy = _dict(spec, "updateStrategy", create=True)
    if strategy is not None:
        _default(strategy, "type", "RollingUpdate")
        if strategy.get("type") == "RollingUpdate":
            rolling = _dict(strategy, "rollingUpdate", create=True)
            if rolling is not None:
                _default_ptr(rolling, "maxUnavailable", 1)
                _default_ptr(rolling, "maxSurge", 0)
    _default_ptr(spec, "revisionHistoryLimit", 10)
    _pod_template(spec, always_present=True)


def _stateful_set(stateful_set: dict[str, Any]) -> None:
    """SetDefaults_StatefulSet (apps/v1): OrderedReady, RollingUpdate from partition 0, claims retained, one
    replica, ten revisions; each claim template gets the claim defaults (Filesystem, phase Pending)."""
    spec = _dict(stateful_set, "spec", create=True)
    if spec is None:
        return
    _default(spec, "podManagementPolicy", "OrderedReady")
    strategy = _dict(spec, "updateStrategy", create=True)
    if strategy is not None:
        if not strategy.get("type"):
            strategy["type"] = "RollingUpdate"
            _dict(strategy, "rollingUpdate", create=True)
        rolling = _dict(strategy, "rollingUpdate")
        if strategy.get("type") == "RollingUpdate" and rolling is not None:
            _default_ptr(rolling, "partition", 0)
    retention = _dict(spec, "persistentVolumeClaimRetentionPolicy", create=True)
    if retention is not None:
        _default(retention, "whenDeleted", "Retain")
        _default(retention, "whenScaled", "Retain")
    _default_ptr(spec, "replicas", 1)
    _default_ptr(spec, "revisionHistoryLimit", 10)
    _pod_template(spec, always_present=True)
    for claim in _dicts(spec, "volumeClaimTemplates"):
        claim_spec = _dict(claim, "spec", create=True)
        if claim_spec is not None:
            _default(claim_spec, "volumeMode", "Filesystem")
        claim_status = _dict(claim, "status", create=True)
        if claim_status is not None:
            _default(claim_status, "phase", "Pending")


def _service(service: dict[str, Any]) -> None:
    spec = _dict(service, "spec", create=True)
    if spec is None:
        return
    _default(spec, "sessionAffinity", "None")
    if spec.get("sessionAffinity") == "None":
        spec.pop("sessionAffinityConfig", None)
    _default(spec, "type", "ClusterIP")
    service_type = spec.get("type")
    for port in _dicts(spec, "ports"):
        _default(port, "protocol", "TCP")
        if port.get("targetPort") in (None, 0, "") and not isinstance(port.get("targetPort"), bool):
            port["targetPort"] = port.get("port")
    externally_accessible = service_type in ("NodePort", "LoadBalancer") or (
        service_type == "ClusterIP" and bool(spec.get("externalIPs"))
    )
    if externally_accessible:
        _default(spec, "externalTrafficPolicy", "Cluster")
    if service_type in ("ClusterIP", "NodePort", "LoadBalancer"):
        _default_ptr(spec, "internalTrafficPolicy", "Cluster")
        # Set by the registry when it allocates the cluster IP; this cluster is single-stack IPv4.
        _default_ptr(spec, "ipFamilyPolicy", "SingleStack")
        if not spec.get("ipFamilies"):
            spec["ipFamilies"] = ["IPv4"]
    if service_type == "LoadBalancer":
        _default_ptr(spec, "allocateLoadBalancerNodePorts", True)
    status = _dict(service, "status", create=True)
    if status is not None:
        _default_ptr(status, "loadBalancer", {})


def _namespace(namespace: dict[str, Any]) -> None:
    meta = _dict(namespace, "metadata")
    name = meta.get("name") if meta is not None else None
    if meta is not None and isinstance(name, str) and name:
        labels = _dict(meta, "labels", create=True)
        if labels is not None:
            labels[NAMESPACE_NAME_LABEL] = name
    spec = _dict(namespace, "spec", create=True)
    if spec is not None:
        _default_ptr(spec, "finalizers", ["kubernetes"])
    status = _dict(namespace, "status", create=True)
    if status is not None:
        _default(status, "phase", "Active")


def _node(node: dict[str, Any]) -> None:
    _dict(node, "spec", create=True)
    status = _dict(node, "status", create=True)
    if status is None:
        return
    if status.get("allocatable") is None and isinstance(status.get("capacity"), dict):
        status["allocatable"] = deep_copy(status["capacity"])
    _canonical_resource_list(status.get("capacity"))
    _canonical_resource_list(status.get("allocatable"))
    node_info = _dict(status, "nodeInfo", create=True)
    if node_info is not None:
        for name in NODE_INFO_FIELDS:
            _default_ptr(node_info, name, "")
    endpoints = _dict(status, "daemonEndpoints", create=True)
    kubelet = _dict(endpoints, "kubeletEndpoint", create=True) if endpoints is not None else None
    if kubelet is not None:
        _default_ptr(kubelet, "Port", 0)
    for condition in _dicts(status, "conditions"):
        _condition(condition)


def _endpoints(endpoints: dict[str, Any]) -> None:
    for subset in _dicts(endpoints, "subsets"):
        for port in _dicts(subset, "ports"):
            _default(port, "protocol", "TCP")


def _event(event: dict[str, Any]) -> None:
    # core/v1 has no Event defaulting; these are the fields Go always writes.
    _default_ptr(event, "involvedObject", {})
    _default_ptr(event, "source", {})
    _default_ptr(event, "reportingComponent", "")
    _default_ptr(event, "reportingInstance", "")
    for name in ("firstTimestamp", "lastTimestamp", "eventTime"):
        event.setdefault(name, None)


# Labels the registry puts on a Job's Pod template; the selector matches the uid one.
JOB_NAME_LABELS: Final = ("job-name", "batch.kubernetes.io/job-name")
JOB_UID_LABELS: Final = ("controller-uid", "batch.kubernetes.io/controller-uid")
JOB_SELECTOR_LABEL: Final = "batch.kubernetes.io/controller-uid"


def _generate_job_selector(job: dict[str, Any], spec: dict[str, Any]) -> None:
    """The Job registry's generateSelector: label the template with the Job's name and uid and select the uid.

    It needs the uid the API server gives on create, so it runs here, after
    that, and only adds what is missing; a manual selector is left alone.
    """
    meta = dict_or_empty(job.get("metadata"))
    uid, name = meta.get("uid"), meta.get("name")
    if spec.get("manualSelector") is True or not isinstance(uid, str) or not uid or not isinstance(name, str):
        return
    template = _dict(spec, "template", create=True)
    template_meta = _dict(template, "metadata", create=True) if template is not None else None
    labels = _dict(template_meta, "labels", create=True) if template_meta is not None else None
    selector = _dict(spec, "selector", create=True)
    match_labels = _dict(selector, "matchLabels", create=True) if selector is not None else None
    if labels is None or match_labels is None:
        return
    for key in JOB_NAME_LABELS:
        labels.setdefault(key, name)
    for key in JOB_UID_LABELS:
        labels.setdefault(key, uid)
    match_labels.setdefault(JOB_SELECTOR_LABEL, uid)


def _job(job: dict[str, Any]) -> None:
    """SetDefaults_Job, after the registry's selector generation."""
    spec = _dict(job, "spec", create=True)
    if spec is None:
        return
    _generate_job_selector(job, spec)
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
    _default_ptr(spec, "parallelism", 1)
    _default_ptr(spec, "backoffLimit", 2147483647 if spec.get("backoffLimitPerIndex") is not None else 6)
    _default_ptr(spec, "completionMode", "NonIndexed")
    _default_ptr(spec, "suspend", False)
    _default_ptr(spec, "podReplacementPolicy", "Failed" if spec.get("podFailurePolicy") else "TerminatingOrFailed")
    _pod_template(spec, always_present=True)
    template_meta = dict_or_empty(dict_or_empty(spec.get("template")).get("metadata"))
    meta = _dict(job, "metadata", create=True)
    # A Job without labels of its own carries its Pod template's.
    if meta is not None and not meta.get("labels") and isinstance(template_meta.get("labels"), dict):
        meta["labels"] = deep_copy(template_meta["labels"])


def _cron_job(cron_job: dict[str, Any]) -> None:
    """SetDefaults_CronJob; the Job template's own spec gets only the Pod defaults (Jobs get theirs when made)."""
    spec = _dict(cron_job, "spec", create=True)
    if spec is None:
        return
    _default(spec, "concurrencyPolicy", "Allow")
    _default_ptr(spec, "suspend", False)
    _default_ptr(spec, "successfulJobsHistoryLimit", 3)
    _default_ptr(spec, "failedJobsHistoryLimit", 1)
    job_template = _dict(spec, "jobTemplate", create=True)
    job_spec = _dict(job_template, "spec", create=True) if job_template is not None else None
    if job_spec is not None:
        _pod_template(job_spec, always_present=True)


def _resource_quota(quota: dict[str, Any]) -> None:
    for part, name in (("spec", "hard"), ("status", "hard"), ("status", "used")):
        _canonical_resource_list(dict_or_empty(quota.get(part)).get(name))


def _limit_range(limit_range: dict[str, Any]) -> None:
    """``SetDefaults_LimitRangeItem``: a container's default limit is the max, its default request the default
    limit, else the min."""
    for item in _dicts(_dict(limit_range, "spec") or {}, "limits"):
        if item.get("type") == "Container":
            default, request = _dict(item, "default", create=True), _dict(item, "defaultRequest", create=True)
            if default is None or request is None:
                continue  # not maps: validation reports them
            for name, value in dict_or_empty(item.get("max")).items():
                default.setdefault(name, value)
            for name, value in [*default.items(), *dict_or_empty(item.get("min")).items()]:
                request.setdefault(name, value)
            for name in ("default", "defaultRequest"):
                if not item[name]:
                    del item[name]  # an empty map is left out, as omitempty does
        for name in ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio"):
            _canonical_resource_list(item.get(name))


def _priority_class(pc: dict[str, Any]) -> None:
    # value is written even when 0 (no omitempty upstream).
    _default_ptr(pc, "value", 0)
    _default_ptr(pc, "preemptionPolicy", "PreemptLowerPriority")


_DEFAULTERS: Final[dict[str, Callable[[dict[str, Any]], None]]] = {
    "Pod": _pod,
    "Deployment": _deployment,
    "ReplicaSet": _replica_set,
    "ReplicationController": _replication_controller,
    "DaemonSet": _daemon_set,
    "StatefulSet": _stateful_set,
    "Service": _service,
    "Namespace": _namespace,
    "Node": _node,
    "Endpoints": _endpoints,
    "Event": _event,
    "Job": _job,
    "CronJob": _cron_job,
    "Secret": default_secret,
    "HorizontalPodAutoscaler": default_horizontal_pod_autoscaler,
    "PersistentVolume": default_persistent_volume,
    "PersistentVolumeClaim": default_persistent_volume_claim,
    "StorageClass": default_storage_class,
    "PriorityClass": _priority_class,
    "IngressClass": default_ingress_class,
    "APIService": default_api_service,
    "CustomResourceDefinition": default_custom_resource_definition,
    "ResourceQuota": _resource_quota,
    "LimitRange": _limit_range,
    "RoleBinding": default_binding,
    "ClusterRoleBinding": default_binding,
}


def apply_defaults(kind: str, obj: dict[str, Any]) -> dict[str, Any]:
    """Return ``obj`` defaulted, as a deep copy for a kind with defaults; ``obj`` itself is not modified.

    A kind without defaults only gets a copy of its top level (a scheduling decision on 100 nodes is
    300 KB, and copying it whole cost more than the rest of its create).
    """
    if kind not in _DEFAULTERS:
        if not isinstance(obj, dict):
            return deep_copy(obj)
        return {**obj, "metadata": {}} if obj.get("metadata") is None else {**obj}
    result = deep_copy(obj)
    if not isinstance(result, dict):
        return result
    return default_in_place(kind, result)


def default_in_place(kind: str, obj: dict[str, Any]) -> dict[str, Any]:
    """Default ``obj`` itself and return it: ``apply_defaults`` for an object nobody else holds.

    A defaulter that meets a malformed part raises and leaves ``obj`` defaulted up to there.
    """
    if obj.get("metadata") is None:
        obj["metadata"] = {}
    defaulter = _DEFAULTERS.get(kind)
    if defaulter is not None:
        defaulter(obj)
    return obj
