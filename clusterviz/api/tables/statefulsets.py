"""The StatefulSet printer (pkg/printers/internalversion's printStatefulSet)."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import dict_or_empty, str_or_empty

from .common import Printed, _container_cells, _i, _meta, _since


def _print_stateful_set(sts: dict[str, Any], now_ns: int) -> Printed:
    """NAME, READY as ready/desired, AGE; -o wide adds the template's CONTAINERS and IMAGES."""
    meta, spec, status = _meta(sts), dict_or_empty(sts.get("spec")), dict_or_empty(sts.get("status"))
    pod_spec = dict_or_empty(dict_or_empty(spec.get("template")).get("spec"))
    names, images = _container_cells(pod_spec.get("containers"))
    cells = [
        str_or_empty(meta.get("name")),
        f"{_i(status.get('readyReplicas'))}/{_i(spec.get('replicas'))}",
        _since(meta.get("creationTimestamp"), now_ns),
        names,
        images,
    ]
    return cells, []
