"""Resource names and quantities: the ``resources`` of a container and the names of resource lists."""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.field import (
    forbidden,
    invalid,
    required,
)
from clusterviz.apimachinery.names import is_qualified_name
from clusterviz.apimachinery.quantity import Quantity

from .common import (
    IS_NEGATIVE_MSG,
    IS_NOT_INTEGER_MSG,
    Errors,
    as_dict,
    child,
    each_invalid,
    key,
    quantity_field,
)

_STANDARD_CONTAINER_RESOURCES: Final = frozenset({"cpu", "memory", "ephemeral-storage"})
_STANDARD_RESOURCES: Final = frozenset(
    {
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "services",
        "replicationcontrollers",
        "resourcequotas",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "storage",
        "requests.storage",
        "services.nodeports",
        "services.loadbalancers",
    }
)


# --- resources -----------------------------------------------------------------


def is_hugepages(name: str) -> bool:
    return name.startswith("hugepages-")


def is_native_resource(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def is_extended_resource(name: str) -> bool:
    if is_native_resource(name) or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


def is_overcommit_allowed(name: str) -> bool:
    return is_native_resource(name) and not is_hugepages(name)


def container_resource_name_errors(name: str, path: str) -> Errors:
    errs = each_invalid(path, name, is_qualified_name(name))
    if not errs and "/" not in name and name not in _STANDARD_RESOURCES and not is_hugepages(name):
        errs.append(invalid(path, name, "must be a standard resource type or fully qualified"))
    if "/" not in name:
        if name not in _STANDARD_CONTAINER_RESOURCES and not is_hugepages(name):
            errs.append(invalid(path, name, "must be a standard resource for containers"))
    elif not is_native_resource(name) and not is_extended_resource(name):
        errs.append(invalid(path, name, "doesn't follow extended resource name standard"))
    return errs


def resource_quantity_value(name: str, quantity: Quantity, path: str) -> Errors:
    """Upstream's ``ValidateResourceQuantityValue``: not negative, whole for integer resources."""
    errs: Errors = []
    if quantity.sign() < 0:
        errs.append(invalid(path, quantity.canonical(), IS_NEGATIVE_MSG))
    if is_extended_resource(name) and quantity.milli_value() % 1000 != 0:
        errs.append(invalid(path, quantity.canonical(), IS_NOT_INTEGER_MSG))
    return errs


def _resource_list(value: Any, path: str, errs: Errors) -> dict[str, Quantity]:
    mapping = as_dict(value, path, errs)
    result: dict[str, Quantity] = {}
    for name, raw in (mapping or {}).items():
        quantity = quantity_field(raw, key(path, name), errs)
        if quantity is not None:
            result[name] = quantity
    return result


def validate_resources(resources: dict[str, Any], path: str) -> Errors:
    errs: Errors = []
    lim_path = child(path, "limits")
    req_path = child(path, "requests")
    limits = _resource_list(resources.get("limits"), lim_path, errs)
    requests = _resource_list(resources.get("requests"), req_path, errs)
    has_cpu_or_memory = False
    has_hugepages = False
    for name, quantity in limits.items():
        name_path = key(lim_path, name)
        errs.extend(container_resource_name_errors(name, name_path))
        errs.extend(resource_quantity_value(name, quantity, name_path))
        has_hugepages = has_hugepages or is_hugepages(name)
        has_cpu_or_memory = has_cpu_or_memory or name in ("cpu", "memory")
    for name, quantity in requests.items():
        name_path = key(req_path, name)
        errs.extend(container_resource_name_errors(name, name_path))
        errs.extend(resource_quantity_value(name, quantity, name_path))
        limit = limits.get(name)
        if limit is not None:
            if quantity != limit and not is_overcommit_allowed(name):
                errs.append(
                    invalid(req_path, quantity.canonical(), f"must be equal to {name} limit of {limit.canonical()}")
                )
            elif quantity > limit:
                errs.append(
                    invalid(
                        req_path,
                        quantity.canonical(),
                        f"must be less than or equal to {name} limit of {limit.canonical()}",
                    )
                )
        elif not is_overcommit_allowed(name):
            errs.append(required(lim_path, "Limit must be set for non overcommitable resources"))
        has_hugepages = has_hugepages or is_hugepages(name)
        has_cpu_or_memory = has_cpu_or_memory or name in ("cpu", "memory")
    if has_hugepages and not has_cpu_or_memory:
        errs.append(forbidden(path, "HugePages require cpu or memory"))
    return errs
