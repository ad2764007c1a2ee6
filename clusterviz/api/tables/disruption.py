"""The PodDisruptionBudget printer: what kubectl get pdb shows."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import dict_or_empty, str_or_empty

from .common import Printed, _meta, _since


def _print_pod_disruption_budget(pdb: dict[str, Any], now_ns: int) -> Printed:
    spec, status = dict_or_empty(pdb.get("spec")), dict_or_empty(pdb.get("status"))
    allowed = status.get("disruptionsAllowed")
    return [
        str_or_empty(_meta(pdb).get("name")),
        "N/A" if spec.get("minAvailable") is None else str(spec["minAvailable"]),
        "N/A" if spec.get("maxUnavailable") is None else str(spec["maxUnavailable"]),
        allowed if isinstance(allowed, int) else 0,
        _since(_meta(pdb).get("creationTimestamp"), now_ns),
    ], []
