"""The LimitRanger admission plugin: a new Pod's containers get their namespace's default requests and limits,
and a Pod outside the namespace's bounds is refused.

:func:`default_pod` runs before validation (the mutating half): each container
without a request or limit that a ``Container`` item defaults gets it, and the
``kubernetes.io/limit-ranger`` annotation says what was set. :func:`refusal`
runs after it (the validating half), with upstream's messages: per container
for ``Container`` items, over the whole Pod for ``Pod`` items; :func:`claim_refusal` bounds a claim's storage.
"""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.quantity import Quantity
from clusterviz.apimachinery.unstructured import deep_copy, dict_or_empty, list_or_empty

from ..defaulting import apply_defaults
from .resourcequota import add_usage, max_usage, resource_list

ANNOTATION: Final = "kubernetes.io/limit-ranger"
_MILLI_LIMIT: Final = 2**63 // 1000  # resource.MaxMilliValue: beyond it ratios are compared in whole units


def _items(limit_ranges: list[dict[str, Any]], limit_type: str) -> list[dict[str, Any]]:
    found = []
    for limit_range in limit_ranges:
        defaulted = apply_defaults("LimitRange", limit_range)
        for item in list_or_empty(dict_or_empty(defaulted.get("spec")).get("limits")):
            if isinstance(item, dict) and item.get("type") == limit_type:
                found.append(item)
    return found


def _containers(spec: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(kind, c) for kind, key in (("container", "containers"), ("init container", "initContainers"))
            for c in list_or_empty(spec.get(key)) if isinstance(c, dict)]


def _merge(container: dict[str, Any], part: str, defaults: dict[str, Any]) -> list[str]:
    """Fill the container's requests or limits from ``defaults``; the names it set, sorted."""
    resources = container.get("resources")
    if not isinstance(resources, dict):
        resources = container["resources"] = {}
    current = resources.get(part)
    if not isinstance(current, dict):
        current = resources[part] = {}
    added = sorted(name for name in defaults if name not in current)
    current.update({name: defaults[name] for name in added})
    return added


def default_pod(pod: dict[str, Any], limit_ranges: list[dict[str, Any]]) -> dict[str, Any]:
    """The Pod with its containers' missing requests and limits defaulted; unchanged without Container items."""
    items = _items(limit_ranges, "Container")
    if not items or not isinstance(pod.get("spec"), dict):
        return pod
    pod = apply_defaults("Pod", pod)
    requests: dict[str, Any] = {}
    limits: dict[str, Any] = {}
    for item in items:
        for name, value in dict_or_empty(item.get("defaultRequest")).items():
            requests.setdefault(name, value)
        for name, value in dict_or_empty(item.get("default")).items():
            limits.setdefault(name, value)
    notes: list[str] = []
    for kind, container in _containers(pod["spec"]):
        set_requests = _merge(container, "requests", deep_copy(requests))
        set_limits = _merge(container, "limits", deep_copy(limits))
        if set_requests:
            notes.append(f"{', '.join(set_requests)} request for {kind} {container.get('name', '')}")
        if set_limits:
            notes.append(f"{', '.join(set_limits)} limit for {kind} {container.get('name', '')}")
    if notes:
        meta = pod.setdefault("metadata", {})
        if not isinstance(meta.get("annotations"), dict):
            meta["annotations"] = {}
        meta["annotations"][ANNOTATION] = "LimitRanger plugin set: " + "; ".join(notes)
    return pod


def _min(name: str, kind: str, enforced: Quantity, requests: dict[str, Quantity], limits: dict[str, Quantity]) -> str:
    if name not in requests:
        return f"minimum {name} usage per {kind} is {enforced}.  No request is specified"
    if requests[name] < enforced:
        return f"minimum {name} usage per {kind} is {enforced}, but request is {requests[name]}"
    if name in limits and limits[name] < enforced:
        return f"minimum {name} usage per {kind} is {enforced}, but limit is {limits[name]}"
    return ""


def _max_of(name: str, kind: str, enforced: Quantity, requests: dict[str, Quantity],
            limits: dict[str, Quantity]) -> str:
    if name not in limits:
        return f"maximum {name} usage per {kind} is {enforced}.  No limit is specified"
    if enforced < limits[name]:
        return f"maximum {name} usage per {kind} is {enforced}, but limit is {limits[name]}"
    if name in requests and enforced < requests[name]:
        return f"maximum {name} usage per {kind} is {enforced}, but request is {requests[name]}"
    return ""


def _ratio(name: str, kind: str, enforced: Quantity, requests: dict[str, Quantity], limits: dict[str, Quantity]) -> str:
    request, limit = requests.get(name), limits.get(name)
    prefix = f"{name} max limit to request ratio per {kind} is {enforced}"
    if request is None or request.is_zero():
        return f"{prefix}, but no request is specified or request is 0"
    if limit is None or limit.is_zero():
        return f"{prefix}, but no limit is specified or limit is 0"
    observed = limit.milli_value() / request.milli_value()
    allowed = enforced.milli_value() / 1000 if enforced.value() <= _MILLI_LIMIT else enforced.value()
    return f"{prefix}, but provided ratio is {observed:f}" if observed > allowed else ""


def _check(item: dict[str, Any], kind: str, requests: dict[str, Quantity], limits: dict[str, Quantity]) -> list[str]:
    problems = []
    for field, check in (("min", _min), ("max", _max_of), ("maxLimitRequestRatio", _ratio)):
        for name, enforced in sorted(resource_list(item.get(field)).items()):
            problems.append(check(name, kind, enforced, requests, limits))
    return [p for p in problems if p]


def _requirements(container: dict[str, Any]) -> tuple[dict[str, Quantity], dict[str, Quantity]]:
    resources = dict_or_empty(container.get("resources"))
    return resource_list(resources.get("requests")), resource_list(resources.get("limits"))


def refusal(pod: dict[str, Any], limit_ranges: list[dict[str, Any]]) -> str | None:
    """Why the Pod is outside its namespace's bounds, as upstream words it (several reasons in brackets)."""
    spec = dict_or_empty(pod.get("spec"))
    problems: list[str] = []
    for item in _items(limit_ranges, "Container"):
        for _kind, container in _containers(spec):
            problems.extend(_check(item, "Container", *_requirements(container)))
    for item in _items(limit_ranges, "Pod"):
        requests: dict[str, Quantity] = {}
        limits: dict[str, Quantity] = {}
        for kind, container in _containers(spec):
            container_requests, container_limits = _requirements(container)
            merge = add_usage if kind == "container" else max_usage
            merge(requests, container_requests)
            merge(limits, container_limits)
        problems.extend(_check(item, "Pod", requests, limits))
    return _joined(problems)


def _max_request(name: str, kind: str, enforced: Quantity, requests: dict[str, Quantity]) -> str:
    if name not in requests:
        return f"maximum {name} usage per {kind} is {enforced}.  No request is specified"
    if enforced < requests[name]:
        return f"maximum {name} usage per {kind} is {enforced}, but request is {requests[name]}"
    return ""


def claim_refusal(claim: dict[str, Any], limit_ranges: list[dict[str, Any]]) -> str | None:
    """Why a claim's requested storage is outside its namespace's PersistentVolumeClaim bounds."""
    requests = resource_list(dict_or_empty(dict_or_empty(dict_or_empty(claim.get("spec")).get("resources"))
                                           ).get("requests"))
    kind = "PersistentVolumeClaim"
    problems: list[str] = []
    for item in _items(limit_ranges, kind):
        for name, enforced in sorted(resource_list(item.get("min")).items()):
            problems.append(_min(name, kind, enforced, requests, {}))
        for name, enforced in sorted(resource_list(item.get("max")).items()):
            problems.append(_max_request(name, kind, enforced, requests))
    return _joined([p for p in problems if p])


def _joined(problems: list[str]) -> str | None:
    """One reason as it is; several in brackets, as an aggregate error prints."""
    if not problems:
        return None
    return problems[0] if len(problems) == 1 else "[" + ", ".join(problems) + "]"
