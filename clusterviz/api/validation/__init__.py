"""Validation of API objects, as the real API server's registry strategies run it.

:func:`validate` is the single entry point. It takes plain decoded JSON, of
any shape, and returns field errors with upstream's paths and messages; it
never raises. Defaults are applied first (on a copy), as the API server
defaults every object before validating it, so a field left out for the
server to fill in is not reported as missing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clusterviz.apimachinery.field import FieldError, invalid

from ..defaulting import apply_defaults
from .apiservice import validate_api_service
from .autoscaling import validate_horizontal_pod_autoscaler
from .batch import validate_cron_job, validate_job
from .common import Errors, get_dict, get_int, type_error
from .configmap import validate_config_map
from .crd import validate_custom_resource_definition, validate_custom_resource_definition_status
from .daemonset import validate_controller_revision, validate_daemon_set
from .disruption import validate_pod_disruption_budget
from .endpoints import validate_endpoints
from .endpointslice import validate_endpoint_slice
from .event import validate_event
from .ingress import validate_ingress, validate_ingress_class
from .meta import name_is_dns_subdomain, validate_object_meta, validate_object_meta_update
from .namespace import validate_namespace
from .node import validate_node
from .pod import validate_pod
from .priorityclass import validate_priority_class
from .quota import validate_limit_range, validate_resource_quota
from .rbac import validate_cluster_role, validate_cluster_role_binding, validate_role, validate_role_binding
from .secret import validate_secret
from .service import validate_service
from .serviceaccount import validate_service_account
from .statefulset import validate_stateful_set
from .storage import validate_persistent_volume, validate_persistent_volume_claim
from .storageclass import validate_csi_node, validate_storage_class
from .workloads import validate_deployment, validate_replica_set, validate_replication_controller

__all__ = ["FieldError", "validate", "VALIDATORS"]

Validator = Callable[[dict[str, Any], dict[str, Any] | None], Errors]


def _validate_lease(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    spec = get_dict(obj, "spec", "", errs) or {}
    duration = get_int(spec, "leaseDurationSeconds", "spec", errs)
    if isinstance(duration, int) and duration <= 0:
        errs.append(invalid("spec.leaseDurationSeconds", duration, "must be greater than 0"))
    transitions = get_int(spec, "leaseTransitions", "spec", errs)
    if isinstance(transitions, int) and transitions < 0:
        errs.append(invalid("spec.leaseTransitions", transitions, "must be greater than or equal to 0"))
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
    return errs


VALIDATORS: dict[str, Validator] = {
    "Role": validate_role,
    "ClusterRole": validate_cluster_role,
    "RoleBinding": validate_role_binding,
    "ClusterRoleBinding": validate_cluster_role_binding,
    "PersistentVolume": validate_persistent_volume,
    "PersistentVolumeClaim": validate_persistent_volume_claim,
    "StorageClass": validate_storage_class,
    "CSINode": validate_csi_node,
    "PodDisruptionBudget": validate_pod_disruption_budget,
    "Ingress": validate_ingress,
    "IngressClass": validate_ingress_class,
    "ResourceQuota": validate_resource_quota,
    "LimitRange": validate_limit_range,
    "HorizontalPodAutoscaler": validate_horizontal_pod_autoscaler,
    "Pod": validate_pod,
    "Deployment": validate_deployment,
    "ReplicaSet": validate_replica_set,
    "ReplicationController": validate_replication_controller,
    "DaemonSet": validate_daemon_set,
    "StatefulSet": validate_stateful_set,
    "ControllerRevision": validate_controller_revision,
    "Service": validate_service,
    "Node": validate_node,
    "Namespace": validate_namespace,
    "ConfigMap": validate_config_map,
    "Endpoints": validate_endpoints,
    "EndpointSlice": validate_endpoint_slice,
    "Event": validate_event,
    "Lease": _validate_lease,
    "Job": validate_job,
    "CronJob": validate_cron_job,
    "Secret": validate_secret,
    "ServiceAccount": validate_service_account,
    "PriorityClass": validate_priority_class,
    "APIService": validate_api_service,
    "CustomResourceDefinition": validate_custom_resource_definition,
}
# Kinds whose /status writes are judged by their own, narrower rules (an update of the status only).
STATUS_VALIDATORS: dict[str, Callable[[dict[str, Any], dict[str, Any]], Errors]] = {
    "CustomResourceDefinition": validate_custom_resource_definition_status,
}


def validate(kind: str, obj: Any, old: Any = None, *, status: bool = False, defaulted: bool = False) -> list[FieldError]:
    """Return every problem with ``obj`` (a create) or with ``obj`` replacing ``old`` (an update; with
    ``status``, a write to the status subresource). ``defaulted``: ``obj`` has its defaults already.

    Unknown kinds have no rules and give no errors.
    """
    if not isinstance(obj, dict):
        return [type_error("", obj, "object")]
    if not defaulted:
        obj = apply_defaults(kind, obj)
    previous = apply_defaults(kind, old) if isinstance(old, dict) else None
    status_validator = STATUS_VALIDATORS.get(kind) if status else None
    if status_validator is not None and previous is not None:
        return status_validator(obj, previous)
    validator = VALIDATORS.get(kind)
    if validator is None:
        return []
    return validator(obj, previous)
