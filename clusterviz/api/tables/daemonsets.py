"""Printers for DaemonSets and ControllerRevisions (pkg/printers/internalversion's printDaemonSet and
printControllerRevision)."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import dict_or_empty, list_or_empty, str_or_empty

from .common import NONE, Printed, _container_cells, _i, _meta, _since
from .labels import format_label_selector, format_labels


def _print_daemon_set(ds: dict[str, Any], now_ns: int) -> Printed:
    meta, spec, status = _meta(ds), dict_or_empty(ds.get("spec")), dict_or_empty(ds.get("status"))
    pod_spec = dict_or_empty(dict_or_empty(spec.get("template")).get("spec"))
    names, images = _container_cells(pod_spec.get("containers"))
    cells = [
        str_or_empty(meta.get("name")),
        _i(status.get("desiredNumberScheduled")),
        _i(status.get("currentNumberScheduled")),
        _i(status.get("numberReady")),
        _i(status.get("updatedNumberScheduled")),
        _i(status.get("numberAvailable")),
        format_labels(pod_spec.get("nodeSelector")),
        _since(meta.get("creationTimestamp"), now_ns),
        names,
        images,
        format_label_selector(spec.get("selector")),
    ]
    return cells, []


def _controller_name(revision: dict[str, Any]) -> str:
    """The controller as ``daemonset.apps/name`` (formatResourceName with the kind), ``<none>`` without one."""
    for ref in list_or_empty(_meta(revision).get("ownerReferences")):
        ref = dict_or_empty(ref)
        if ref.get("controller") is True:
            api_version = str_or_empty(ref.get("apiVersion"))
            group = api_version.rpartition("/")[0] if "/" in api_version else ""
            kind = str_or_empty(ref.get("kind"))
            if not kind and not group:
                return str_or_empty(ref.get("name"))
            qualified = f"{kind}.{group}" if group else kind
            return f"{qualified.lower()}/{str_or_empty(ref.get('name'))}"
    return NONE


def _print_controller_revision(revision: dict[str, Any], now_ns: int) -> Printed:
    meta = _meta(revision)
    cells = [
        str_or_empty(meta.get("name")),
        _controller_name(revision),
        _i(revision.get("revision")),
        _since(meta.get("creationTimestamp"), now_ns),
    ]
    return cells, []
