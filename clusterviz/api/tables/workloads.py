"""Printers for ReplicationControllers, ReplicaSets and Deployments."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import dict_or_empty, str_or_empty

from .common import Printed, _container_cells, _i, _meta, _replicas, _since
from .labels import format_label_selector, format_labels, label_selector_string


def _print_replicated(obj: dict[str, Any], now_ns: int, selector: str) -> Printed:
    """ReplicaSets and ReplicationControllers print the same columns; only the selector's form differs."""
    meta, spec, status = _meta(obj), dict_or_empty(obj.get("spec")), dict_or_empty(obj.get("status"))
    names, images = _container_cells(dict_or_empty(dict_or_empty(spec.get("template")).get("spec")).get("containers"))
    cells = [
        str_or_empty(meta.get("name")),
        _replicas(spec),
        _i(status.get("replicas")),
        _i(status.get("readyReplicas")),
        _since(meta.get("creationTimestamp"), now_ns),
        names,
        images,
        selector,
    ]
    return cells, []


def _print_replication_controller(rc: dict[str, Any], now_ns: int) -> Printed:
    # An RC's selector is a plain label map.
    return _print_replicated(rc, now_ns, format_labels(dict_or_empty(rc.get("spec")).get("selector")))


def _print_replica_set(rs: dict[str, Any], now_ns: int) -> Printed:
    return _print_replicated(rs, now_ns, format_label_selector(dict_or_empty(rs.get("spec")).get("selector")))


def _print_deployment(deploy: dict[str, Any], now_ns: int) -> Printed:
    meta, spec, status = _meta(deploy), dict_or_empty(deploy.get("spec")), dict_or_empty(deploy.get("status"))
    names, images = _container_cells(dict_or_empty(dict_or_empty(spec.get("template")).get("spec")).get("containers"))
    selector = label_selector_string(spec.get("selector"))
    cells = [
        str_or_empty(meta.get("name")),
        f"{_i(status.get('readyReplicas'))}/{_replicas(spec)}",
        _i(status.get("updatedReplicas")),
        _i(status.get("availableReplicas")),
        _since(meta.get("creationTimestamp"), now_ns),
        names,
        images,
        "<invalid>" if selector is None else selector,
    ]
    return cells, []
