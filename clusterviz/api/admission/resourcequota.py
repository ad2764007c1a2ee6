"""The ResourceQuota admission plugin, and what each object uses of a quota.

A create in a namespace with quotas is measured (a Pod by its containers'
requests and limits, a Service by its node ports and load balancers, a claim
by its storage, anything by ``count/<resource>``); a quota that tracks cpu or
memory requires every container to say how much it requests or limits; the
create is refused when it would take a quota's use past its hard limit, with
upstream's messages. What is in use is the larger of the quota's status (the
quota controller's count, plus what admission charged since) and the
namespace's objects counted now, so a quota holds even before its controller
has counted. The quota controller uses :func:`used` for the status it writes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from clusterviz.apimachinery.quantity import Quantity, QuantityError, parse_quantity
from clusterviz.apimachinery.unstructured import dict_or_empty, list_or_empty

Usage = dict[str, Quantity]

# Core kinds whose count is also tracked under their plain plural.
_LEGACY_COUNTS: Final = frozenset({
    "pods", "services", "configmaps", "secrets", "persistentvolumeclaims", "replicationcontrollers", "resourcequotas",
})
# Resources a container's requests or limits count toward without the "requests." prefix.
_BARE: Final = frozenset({"cpu", "memory", "ephemeral-storage"})
# Quota resources that oblige every container to set the matching request or limit.
_CONSTRAINED: Final = frozenset({"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"})
_TERMINAL: Final = frozenset({"Succeeded", "Failed"})
_POD_SCOPES: Final = frozenset({"Terminating", "NotTerminating", "BestEffort", "NotBestEffort"})


def count_name(plural: str, group: str) -> str:
    """``count/pods``, ``count/deployments.apps``."""
    return f"count/{plural}.{group}" if group else f"count/{plural}"


def _quantity(value: Any) -> Quantity | None:
    try:
        return parse_quantity(value) if isinstance(value, (str, int, float)) and not isinstance(value, bool) else None
    except QuantityError:
        return None


def resource_list(value: Any) -> Usage:
    """A requests, limits or hard map as quantities (what does not parse is left out)."""
    found = {name: _quantity(raw) for name, raw in dict_or_empty(value).items()}
    return {name: q for name, q in found.items() if q is not None}


def add_usage(total: Usage, more: Usage) -> None:
    """Add ``more`` into ``total``."""
    for name, quantity in more.items():
        total[name] = total[name] + quantity if name in total else quantity


def max_usage(total: Usage, other: Usage) -> None:
    """Raise each of ``total``'s quantities to ``other``'s where that is more."""
    for name, quantity in other.items():
        if name not in total or total[name] < quantity:
            total[name] = quantity


def container_usage(container: dict[str, Any]) -> Usage:
    """What one container's requests and limits count toward (requests default to limits, as the API does)."""
    resources = dict_or_empty(container.get("resources"))
    limits = resource_list(resources.get("limits"))
    requests = {**limits, **resource_list(resources.get("requests"))}
    usage: Usage = {}
    for name, quantity in requests.items():
        usage[f"requests.{name}"] = quantity
        if name in _BARE:
            usage[name] = quantity
    for name, quantity in limits.items():
        if name in _BARE:
            usage[f"limits.{name}"] = quantity
    return usage


def pod_resources(pod: dict[str, Any]) -> Usage:
    """The Pod's containers' usage summed, or its largest init container's where that is more, plus overhead."""
    spec = dict_or_empty(pod.get("spec"))
    total: Usage = {}
    for container in list_or_empty(spec.get("containers")):
        add_usage(total, container_usage(dict_or_empty(container)))
    for container in list_or_empty(spec.get("initContainers")):
        max_usage(total, container_usage(dict_or_empty(container)))
    if isinstance(spec.get("overhead"), dict):
        add_usage(total, container_usage({"resources": {"limits": spec["overhead"]}}))
    return total


def is_terminal(pod: dict[str, Any]) -> bool:
    return dict_or_empty(pod.get("status")).get("phase") in _TERMINAL


def object_usage(plural: str, group: str, obj: dict[str, Any]) -> Usage:
    """What one object counts toward: its count, and for Pods, Services and claims what they hold."""
    one = Quantity(1)
    if plural == "pods" and not group:
        if is_terminal(obj):
            return {}
        return {"pods": one, "count/pods": one, **pod_resources(obj)}
    usage: Usage = {count_name(plural, group): one}
    if not group and plural in _LEGACY_COUNTS:
        usage[plural] = one
    spec = dict_or_empty(obj.get("spec"))
    if plural == "services" and not group:
        kind = spec.get("type")
        ports = len(list_or_empty(spec.get("ports")))
        usage["services.nodeports"] = Quantity(ports if kind in ("NodePort", "LoadBalancer") else 0)
        usage["services.loadbalancers"] = Quantity(1 if kind == "LoadBalancer" else 0)
    elif plural == "persistentvolumeclaims" and not group:
        storage = resource_list(dict_or_empty(spec.get("resources")).get("requests")).get("storage")
        usage["requests.storage"] = storage if storage is not None else Quantity(0)
    return usage


def hard_of(quota: dict[str, Any]) -> Usage:
    """The limits in force: the status's once the controller copied them, else the spec's."""
    status_hard = resource_list(dict_or_empty(quota.get("status")).get("hard"))
    return status_hard or resource_list(dict_or_empty(quota.get("spec")).get("hard"))


def _tracks(name: str, plural: str, group: str) -> bool:
    """Whether a quota resource is about objects of this kind (MatchingResources of its evaluator)."""
    if name == count_name(plural, group) or (not group and name == plural and plural in _LEGACY_COUNTS):
        return True
    if group:
        return False
    if plural == "pods":
        return name in _BARE or name.startswith(("requests.", "limits.")) and name != "requests.storage"
    if plural == "services":
        return name in ("services.nodeports", "services.loadbalancers")
    return plural == "persistentvolumeclaims" and name == "requests.storage"


def _best_effort(pod: dict[str, Any]) -> bool:
    return not any(k.startswith(("requests.", "limits.")) for k in pod_resources(pod))


def _scope_matches(scope: str, operator: str, values: list[Any], pod: dict[str, Any]) -> bool:
    """One scope (with an operator and values for PriorityClass) against a Pod."""
    if scope == "PriorityClass":
        name = dict_or_empty(pod.get("spec")).get("priorityClassName") or ""
        return {"In": name in values, "NotIn": name not in values, "Exists": bool(name),
                "DoesNotExist": not name}.get(operator, False)
    if scope not in _POD_SCOPES or operator != "Exists":
        return False
    terminating = dict_or_empty(pod.get("spec")).get("activeDeadlineSeconds") is not None
    return {"Terminating": terminating, "NotTerminating": not terminating,
            "BestEffort": _best_effort(pod), "NotBestEffort": not _best_effort(pod)}[scope]


def matches(quota: dict[str, Any], plural: str, group: str, obj: dict[str, Any]) -> bool:
    """Whether the quota's scopes and scope selector take this object in (scoped quotas count Pods only)."""
    spec = dict_or_empty(quota.get("spec"))
    wanted: list[tuple[str, str, list[Any]]] = [
        (s, "Exists", []) for s in list_or_empty(spec.get("scopes")) if isinstance(s, str)]
    for expression in list_or_empty(dict_or_empty(spec.get("scopeSelector")).get("matchExpressions")):
        expression = dict_or_empty(expression)
        wanted.append((str(expression.get("scopeName", "")), str(expression.get("operator", "")),
                       list_or_empty(expression.get("values"))))
    if not wanted:
        return True
    if plural != "pods" or group:
        return False
    return all(_scope_matches(scope, operator, values, obj) for scope, operator, values in wanted)


def tracked(quota: dict[str, Any], plural: str, group: str) -> list[str]:
    """The quota's resources that objects of this kind count toward, sorted."""
    return sorted(name for name in hard_of(quota) if _tracks(name, plural, group))


def used(quota: dict[str, Any], plural: str, group: str, objects: Iterable[dict[str, Any]]) -> Usage:
    """What the namespace's objects of one kind use of the quota's tracked resources (zero included)."""
    names = tracked(quota, plural, group)
    total: Usage = {name: Quantity(0) for name in names}
    for obj in objects:
        if matches(quota, plural, group, obj):
            usage = object_usage(plural, group, obj)
            add_usage(total, {name: usage[name] for name in names if name in usage})
    return total


def _missing(pod: dict[str, Any], required: set[str]) -> str:
    """``must specify limits.cpu for: app; requests.memory for: app,sidecar``, or "" when every container does."""
    missing: dict[str, set[str]] = {}
    spec = dict_or_empty(pod.get("spec"))
    for container in [*list_or_empty(spec.get("containers")), *list_or_empty(spec.get("initContainers"))]:
        container = dict_or_empty(container)
        for name in required - set(container_usage(container)):
            missing.setdefault(name, set()).add(str(container.get("name", "")))
    if not missing:
        return ""
    return "must specify " + "; ".join(f"{name} for: {','.join(sorted(missing[name]))}" for name in sorted(missing))


def _pretty(usage: Usage, names: list[str]) -> str:
    return ",".join(f"{name}={usage.get(name, Quantity(0))}" for name in names)


def admit(quotas: list[dict[str, Any]], plural: str, group: str, obj: dict[str, Any],
          existing: list[dict[str, Any]], old: dict[str, Any] | None = None) -> tuple[str | None, list[dict[str, Any]]]:
    """Why creating ``obj`` (or updating ``old`` to it) is refused by one of the namespace's quotas (``existing``:
    its objects of the kind); else the quotas it is charged to, with ``status.used`` already counting it.

    An update is charged what it adds (a claim grown, a Service given node ports). The API server stores the
    charged quotas before the object, each on the condition that the quota did not change meanwhile, so that
    writes at the same moment cannot all take the last of a quota.
    """
    delta = object_usage(plural, group, obj)
    if old is not None:
        before = object_usage(plural, group, old)
        delta = {n: q - before[n] if n in before else q for n, q in delta.items()}
    charged: list[dict[str, Any]] = []
    for quota in sorted(quotas, key=lambda q: str(dict_or_empty(q.get("metadata")).get("name", ""))):
        names = tracked(quota, plural, group)
        if not names or not matches(quota, plural, group, obj):
            continue
        name = str(dict_or_empty(quota.get("metadata")).get("name", ""))
        if plural == "pods" and not group and old is None:
            problem = _missing(obj, set(names) & _CONSTRAINED)
            if problem:
                return f"failed quota: {name}: {problem}", []
        requested = {n: delta[n] for n in names if n in delta and delta[n].sign() > 0}
        if not requested:
            continue
        in_use = used(quota, plural, group, existing)
        max_usage(in_use, {n: q for n, q in resource_list(dict_or_empty(quota.get("status")).get("used")).items()
                      if n in in_use})
        hard = hard_of(quota)
        exceeded = sorted(n for n in requested if hard[n] < in_use[n] + requested[n])
        if exceeded:
            return (f"exceeded quota: {name}, requested: {_pretty(requested, exceeded)}, "
                    f"used: {_pretty(in_use, exceeded)}, limited: {_pretty(hard, exceeded)}"), []
        quota_status = dict_or_empty(quota.get("status"))
        used_now = {**dict_or_empty(quota_status.get("used")), **{n: str(in_use[n] + requested[n]) for n in requested}}
        charged.append({**quota, "status": {**quota_status, "used": used_now}})
    return None, charged
