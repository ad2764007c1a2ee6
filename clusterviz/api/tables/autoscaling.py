"""The HorizontalPodAutoscaler printer: what kubectl get hpa shows (from the stored autoscaling/v2 object)."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.quantity import QuantityError, parse_quantity
from clusterviz.apimachinery.unstructured import dict_or_empty, str_or_empty

from .common import Printed, _meta, _since

# At most this many metrics are listed; the rest are counted.
SHOWN_METRICS = 2


def _quantity(value: Any) -> str:
    try:
        return str(parse_quantity(str(value)))
    except QuantityError:
        return str(value)


def _current(statuses: list[Any], i: int, source: str, name: str) -> Any:
    """The current value ``name`` of the i-th metric's status, when it reports ``source``."""
    if i >= len(statuses) or not isinstance(statuses[i], dict) or not isinstance(statuses[i].get(source), dict):
        return None
    return dict_or_empty(statuses[i][source].get("current")).get(name, "0" if name != "averageUtilization" else None)


def _resource_metric(spec: dict[str, Any], statuses: list[Any], i: int, source: str) -> str:
    target = dict_or_empty(spec.get("target"))
    name = str_or_empty(spec.get("name"))
    if target.get("averageValue") is not None:
        current = _current(statuses, i, source, "averageValue")
        shown = "<unknown>" if current is None else _quantity(current)
        return f"{name}: {shown}/{_quantity(target['averageValue'])}"
    utilization = _current(statuses, i, source, "averageUtilization")
    shown = "<unknown>" if utilization is None else f"{utilization}%"
    wanted = "<auto>" if target.get("averageUtilization") is None else f"{target['averageUtilization']}%"
    return f"{name}: {shown}/{wanted}"


def _value_metric(spec: dict[str, Any], statuses: list[Any], i: int, source: str) -> str:
    target = dict_or_empty(spec.get("target"))
    if target.get("averageValue") is not None:
        current = _current(statuses, i, source, "averageValue")
        shown = "<unknown>" if current is None else _quantity(current)
        return f"{shown}/{_quantity(target['averageValue'])} (avg)"
    current = _current(statuses, i, source, "value")
    shown = "<unknown>" if current is None else _quantity(current)
    return f"{shown}/{_quantity(target.get('value', '0'))}"


def format_metrics(specs: Any, statuses: Any) -> str:
    """The TARGETS cell: each metric as current/target, as formatHPAMetrics prints them."""
    specs = [s for s in specs or [] if isinstance(s, dict)] if isinstance(specs, list) else []
    statuses = statuses if isinstance(statuses, list) else []
    if not specs:
        return "<none>"
    shown = []
    for i, spec in enumerate(specs):
        kind = spec.get("type")
        if kind == "Resource":
            shown.append(_resource_metric(dict_or_empty(spec.get("resource")), statuses, i, "resource"))
        elif kind == "ContainerResource":
            shown.append(_resource_metric(dict_or_empty(spec.get("containerResource")), statuses, i, "containerResource"))
        elif kind == "Pods":
            target = dict_or_empty(dict_or_empty(spec.get("pods")).get("target"))
            current = _current(statuses, i, "pods", "averageValue")
            shown.append(f"{'<unknown>' if current is None else _quantity(current)}/{_quantity(target.get('averageValue', '0'))}")
        elif kind in ("Object", "External"):
            source = "object" if kind == "Object" else "external"
            shown.append(_value_metric(dict_or_empty(spec.get(source)), statuses, i, source))
        else:
            shown.append("<unknown type>")
    text = ", ".join(shown[:SHOWN_METRICS])
    if len(shown) > SHOWN_METRICS:
        return f"{text} + {len(shown) - SHOWN_METRICS} more..."
    return text


def _print_horizontal_pod_autoscaler(hpa: dict[str, Any], now_ns: int) -> Printed:
    spec, status = dict_or_empty(hpa.get("spec")), dict_or_empty(hpa.get("status"))
    ref = dict_or_empty(spec.get("scaleTargetRef"))
    low, high, current = spec.get("minReplicas"), spec.get("maxReplicas"), status.get("currentReplicas")
    return [
        str_or_empty(_meta(hpa).get("name")),
        f"{str_or_empty(ref.get('kind'))}/{str_or_empty(ref.get('name'))}",
        format_metrics(spec.get("metrics"), status.get("currentMetrics")),
        "<unset>" if low is None else str(low),
        high if isinstance(high, int) else 0,
        current if isinstance(current, int) else 0,
        _since(_meta(hpa).get("creationTimestamp"), now_ns),
    ], []
