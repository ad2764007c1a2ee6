"""Table assembly: picking a printer and building the ``meta.k8s.io/v1`` Table around its rows."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from clusterviz.apimachinery.unstructured import deep_copy

from . import custom
from .apiregistration import _print_api_service
from .autoscaling import _print_horizontal_pod_autoscaler
from .batch import _print_cron_job, _print_job
from .columns import _TYPE_META, PARTIAL_METADATA_FIELDS, _canonical_resource, column_definitions
from .common import Printed, _datetime_to_ns, _meta
from .daemonsets import _print_controller_revision, _print_daemon_set
from .disruption import _print_pod_disruption_budget
from .events import _print_event
from .misc import _print_configmap, _print_default
from .networking import _print_ingress, _print_ingress_class
from .nodes import _print_namespace, _print_node
from .pods import _print_pod
from .quota import _print_resource_quota
from .rbac import _print_role, _print_role_binding
from .scheduling import _print_priority_class
from .secrets import _print_secret, _print_service_account
from .services import _print_endpoint_slice, _print_endpoints, _print_service
from .statefulsets import _print_stateful_set
from .storage import _print_csi_node, _print_persistent_volume, _print_persistent_volume_claim, _print_storage_class
from .workloads import _print_deployment, _print_replica_set, _print_replication_controller

_PRINTERS: dict[str, Callable[[dict[str, Any], int], Printed]] = {
    "pods": _print_pod,
    "nodes": _print_node,
    "namespaces": _print_namespace,
    "services": _print_service,
    "endpoints": _print_endpoints,
    "endpointslices": _print_endpoint_slice,
    "events": _print_event,
    "configmaps": _print_configmap,
    "secrets": _print_secret,
    "serviceaccounts": _print_service_account,
    "replicationcontrollers": _print_replication_controller,
    "replicasets": _print_replica_set,
    "deployments": _print_deployment,
    "jobs": _print_job,
    "cronjobs": _print_cron_job,
    "daemonsets": _print_daemon_set,
    "statefulsets": _print_stateful_set,
    "controllerrevisions": _print_controller_revision,
    "poddisruptionbudgets": _print_pod_disruption_budget,
    "horizontalpodautoscalers": _print_horizontal_pod_autoscaler,
    "persistentvolumes": _print_persistent_volume,
    "persistentvolumeclaims": _print_persistent_volume_claim,
    "storageclasses": _print_storage_class,
    "csinodes": _print_csi_node,
    "priorityclasses": _print_priority_class,
    "ingresses": _print_ingress,
    "ingressclasses": _print_ingress_class,
    "resourcequotas": _print_resource_quota,
    "roles": _print_role,
    "clusterroles": _print_role,
    "rolebindings": _print_role_binding,
    "clusterrolebindings": _print_role_binding,
    "apiservices": _print_api_service,
}


# --------------------------------------------------------------------------
# Table assembly
# --------------------------------------------------------------------------


def _partial_metadata(obj: dict[str, Any]) -> dict[str, Any]:
    meta = _meta(obj)
    copied = {key: deep_copy(meta[key]) for key in PARTIAL_METADATA_FIELDS if meta.get(key) is not None}
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": copied}


def _full_object(obj: dict[str, Any], resource: str) -> dict[str, Any]:
    full = deep_copy(obj)
    if resource in _TYPE_META:
        api_version, kind = _TYPE_META[resource]
        if not full.get("apiVersion"):
            full["apiVersion"] = api_version
        if not full.get("kind"):
            full["kind"] = kind
    return full


def build_table(
    resource: str,
    objects: list[dict],
    now: datetime,
    include_object: str = "Metadata",
    resource_version: str = "",
    custom_columns: tuple[dict[str, Any], ...] | None = None,
) -> dict:
    """Render ``objects`` as the ``meta.k8s.io/v1`` Table a kube-apiserver returns for ``resource``.

    ``resource`` is the plural resource name (``pods``, ``deployments``...;
    singular and short names are accepted too). Resources outside
    ``RESOURCES_WITH_TABLES`` get upstream's default table: ``Name`` and a
    ``Created At`` date column. ``now`` is the reference time for AGE-like
    cells (naive datetimes are read as UTC). ``include_object`` mirrors the
    ``includeObject`` query parameter: ``Metadata`` (the default, also used
    for unrecognised values) embeds a PartialObjectMetadata per row,
    ``Object`` a copy of the full object, ``None`` nothing. A non-empty
    ``resource_version`` becomes ``metadata.resourceVersion``, which
    ``kubectl get -w`` watches from. A custom resource's table has the Name column and its
    ``custom_columns`` (its CRD version's additionalPrinterColumns).
    """
    canonical = _canonical_resource(resource)
    printer = custom.printer(custom_columns) if custom_columns is not None else _PRINTERS.get(canonical, _print_default)
    now_ns = _datetime_to_ns(now)
    items: Iterable[Any] = (
        objects if isinstance(objects, Iterable) and not isinstance(objects, (str, bytes, dict)) else []
    )

    rows: list[dict[str, Any]] = []
    for item in items:
        obj = item if isinstance(item, dict) else {}
        cells, conditions = printer(obj, now_ns)
        row: dict[str, Any] = {"cells": cells}
        if conditions:
            row["conditions"] = conditions
        if include_object == "Object":
            row["object"] = _full_object(obj, canonical)
        elif include_object != "None":
            row["object"] = _partial_metadata(obj)
        rows.append(row)

    metadata: dict[str, Any] = {}
    if resource_version not in (None, ""):
        metadata["resourceVersion"] = str(resource_version)
    return {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": metadata,
        "columnDefinitions": (
            custom.column_definitions(custom_columns) if custom_columns is not None else column_definitions(canonical)
        ),
        "rows": rows,
    }
