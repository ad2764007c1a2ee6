"""``kubectl describe hpa``, as kubectl's describer prints an autoscaling/v2 HorizontalPodAutoscaler."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.quantity import QuantityError, parse_quantity
from clusterviz.apimachinery.unstructured import dict_or_empty

from .describe import Text, _header


def _quantity(value: Any) -> str:
    try:
        return str(parse_quantity(str(value)))
    except QuantityError:
        return str(value)


def _current(statuses: list[Any], i: int, source: str) -> dict[str, Any] | None:
    """The i-th metric's current value, when its status reports ``source``."""
    if i < len(statuses) and isinstance(statuses[i], dict) and isinstance(statuses[i].get(source), dict):
        return dict_or_empty(statuses[i][source].get("current"))
    return None


def _metric_line(metric: dict[str, Any], statuses: list[Any], i: int) -> str:
    """One line under Metrics: what is measured, then current / target."""
    kind = metric.get("type")
    source = {"Resource": "resource", "ContainerResource": "containerResource", "Pods": "pods",
              "Object": "object", "External": "external"}.get(str(kind), "")
    body = dict_or_empty(metric.get(source))
    target = dict_or_empty(body.get("target"))
    current = _current(statuses, i, source)
    name = dict_or_empty(body.get("metric")).get("name", "")
    if source in ("resource", "containerResource"):
        what = f"resource {body.get('name', '')} on pods" if source == "resource" else (
            f'resource {body.get("name", "")} of container "{body.get("container", "")}" on pods')
        if target.get("averageValue") is not None:
            shown = "<unknown>" if current is None else _quantity(current.get("averageValue", "0"))
            return f"{what}:\t{shown} / {_quantity(target['averageValue'])}"
        shown = "<unknown>"
        if current is not None and current.get("averageUtilization") is not None:
            shown = f"{current['averageUtilization']}% ({_quantity(current.get('averageValue', '0'))})"
        wanted = "<auto>" if target.get("averageUtilization") is None else f"{target['averageUtilization']}%"
        return f"{what}  (as a percentage of request):\t{shown} / {wanted}"
    if source == "pods":
        shown = "<unknown>" if current is None else _quantity(current.get("averageValue", "0"))
        return f'"{name}" on pods:\t{shown} / {_quantity(target.get("averageValue", "0"))}'
    if source in ("object", "external"):
        prefix = f'"{name}" ' if source == "external" else (
            f'"{name}" on {dict_or_empty(body.get("describedObject")).get("kind", "")}/'
            f'{dict_or_empty(body.get("describedObject")).get("name", "")} ')
        key, label = ("averageValue", "target average value") if target.get("averageValue") is not None else (
            "value", "target value")
        shown = "<unknown>" if current is None else _quantity(current.get(key, "0"))
        return f"{prefix}({label}):\t{shown} / {_quantity(target.get(key, '0'))}"
    return f'<unknown metric type "{kind}">'


def _direction(text: Text, title: str, rules: Any) -> None:
    if not isinstance(rules, dict):
        return
    text.raw(1, f"{title}:")
    if rules.get("stabilizationWindowSeconds") is not None:
        text.raw(2, f"Stabilization Window: {rules['stabilizationWindowSeconds']} seconds")
    if rules.get("policies"):
        text.raw(2, f"Select Policy: {rules.get('selectPolicy') or 'Max'}")
        text.raw(2, "Policies:")
        for policy in rules["policies"]:
            text.write(3, f"- Type: {policy.get('type', '')}\tValue: {policy.get('value', 0)}\t"
                          f"Period: {policy.get('periodSeconds', 0)} seconds")


def describe_horizontal_pod_autoscaler(hpa: dict[str, Any]) -> Text:
    """Reference, each metric's current / target, the bounds, the behavior, the replicas and the conditions."""
    spec, status = dict_or_empty(hpa.get("spec")), dict_or_empty(hpa.get("status"))
    ref = dict_or_empty(spec.get("scaleTargetRef"))
    text = Text()
    _header(text, hpa)
    text.add(0, "Reference", f"{ref.get('kind', '')}/{ref.get('name', '')}")
    text.add(0, "Metrics", "( current / target )")
    reported = status.get("currentMetrics")
    statuses: list[Any] = reported if isinstance(reported, list) else []
    for i, metric in enumerate(spec.get("metrics") or []):
        if isinstance(metric, dict):
            text.write(1, _metric_line(metric, statuses, i))
    text.add(0, "Min replicas", "<unset>" if spec.get("minReplicas") is None else spec["minReplicas"])
    text.add(0, "Max replicas", int(spec.get("maxReplicas") or 0))
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        text.add(0, "Behavior")
        _direction(text, "Scale Up", behavior.get("scaleUp"))
        _direction(text, "Scale Down", behavior.get("scaleDown"))
    text.add(0, f"{ref.get('kind', '')} pods",
             f"{int(status.get('currentReplicas') or 0)} current / {int(status.get('desiredReplicas') or 0)} desired")
    conditions = [c for c in status.get("conditions") or [] if isinstance(c, dict)]
    if conditions:
        text.add(0, "Conditions")
        text.write(1, "Type\tStatus\tReason\tMessage")
        text.write(1, "----\t------\t------\t-------")
        for c in conditions:
            text.write(1, f"{c.get('type', '')}\t{c.get('status', '')}\t{c.get('reason', '')}\t{c.get('message', '')}")
    return text
