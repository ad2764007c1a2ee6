"""The PriorityClass printer: what kubectl get priorityclasses shows."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import str_or_empty

from .common import Printed, _meta, _since


def _print_priority_class(pc: dict[str, Any], now_ns: int) -> Printed:
    value = pc.get("value")
    return [
        str_or_empty(_meta(pc).get("name")),
        value if isinstance(value, int) else 0,
        pc.get("globalDefault") is True,
        _since(_meta(pc).get("creationTimestamp"), now_ns),
        str_or_empty(pc.get("preemptionPolicy")) or "PreemptLowerPriority",
    ], []
