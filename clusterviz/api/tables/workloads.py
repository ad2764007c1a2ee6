"""Printers for ReplicationControllers, ReplicaSets and Deployments."""

from __future__ import annotations

from typing import Any

from .common import Printed, _container_cells, _d, _i, _meta, _replicas, _s, _since
from .labels import format_label_selector, format_labels, label_selector_string


def _print_replication_controller(rc: dict[str, Any], now_ns: int) -> Printed:
    meta, spec, status = _meta(rc), _d(rc.get("spec")), _d(rc.get("status"))
    names, images = _container_cells(_d(_d(spec.get("template")).get("spec")).get("containers"))
    cells = [
        _s(meta.get("name")),
        _replicas(spec),
        _i(status.get("replicas")),
        _i(status.get("readyReplicas")),
        _since(meta.get("creationTimestamp"), now_ns),
        names,
        images,
        format_labels(spec.get("selector")),
    ]
    return cells, []


def _print_replica_set(rs: dict[str, Any], now_ns: int) -> Printed:
    meta, spec, status = _meta(rs), _d(rs.get("spec")), _d(rs.get("status"))
    names, images = _container_cells(_d(_d(spec.get("template")).get("spec")).get("containers"))
    cells = [
        _s(meta.get("name")),
        _replicas(spec),
        _i(status.get("replicas")),
        _i(status.get("readyReplicas")),
        _since(meta.get("creationTimestamp"), now_ns),
        names,
        images,
        format_label_selector(spec.get("selector")),
    ]
    return cells, []


def _print_deployment(deploy: dict[str, Any], now_ns: int) -> Printed:
    meta, spec, status = _meta(deploy), _d(deploy.get("spec")), _d(deploy.get("status"))
    names, images = _container_cells(_d(_d(spec.get("template")).get("spec")).get("containers"))
    selector = label_selector_string(spec.get("selector"))
    cells = [
        _s(meta.get("name")),
        f"{_i(status.get('readyReplicas'))}/{_replicas(spec)}",
        _i(status.get("updatedReplicas")),
        _i(status.get("availableReplicas")),
        _since(meta.get("creationTimestamp"), now_ns),
        names,
        images,
        "<invalid>" if selector is None else selector,
    ]
    return cells, []
