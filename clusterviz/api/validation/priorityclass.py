"""PriorityClasses (scheduling.k8s.io/v1), as ValidatePriorityClass and ValidatePriorityClassUpdate."""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.field import forbidden, not_supported

from ..defaulting import SYSTEM_PRIORITY_CLASSES as SYSTEM_PRIORITIES
from .common import Errors, get_bool, get_int, get_opt_str
from .meta import immutable, name_is_dns_subdomain, validate_object_meta, validate_object_meta_update
from .pod import PREEMPTION_POLICIES

SYSTEM_PREFIX: Final = "system-"
HIGHEST_USER_DEFINABLE_PRIORITY: Final = 1000000000
_DESCRIPTIONS: Final = {
    "system-node-critical": "Used for system critical pods that must not be moved from their current node.",
    "system-cluster-critical": (
        "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."
    ),
}
# The classes every cluster holds from the start: name -> (value, description).
SYSTEM_PRIORITY_CLASSES: Final = {name: (value, _DESCRIPTIONS[name]) for name, value in SYSTEM_PRIORITIES.items()}


def _system_class_error(name: str, value: Any, global_default: Any) -> str:
    """Why a ``system-`` class is not one of the built-ins ("" when it is)."""
    known = SYSTEM_PRIORITY_CLASSES.get(name)
    if known is None:
        return f"{name} is not a known system priority class"
    if value != known[0]:
        return f"value of {name} PriorityClass must be {known[0]}"
    if bool(global_default):
        return f"globalDefault of {name} PriorityClass must be false"
    return ""


def validate_priority_class(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """Metadata, the reserved ``system-`` names and values, the preemption policy; value and policy never change."""
    _, errs = validate_object_meta(obj, namespaced=False, name_fn=name_is_dns_subdomain)
    value = get_int(obj, "value", "", errs)
    global_default = get_bool(obj, "globalDefault", "", errs)
    policy = get_opt_str(obj, "preemptionPolicy", "", errs)
    get_opt_str(obj, "description", "", errs)
    name = (obj.get("metadata") or {}).get("name")
    if isinstance(name, str) and name.startswith(SYSTEM_PREFIX):
        why = _system_class_error(name, value or 0, global_default)
        if why:
            errs.append(
                forbidden(
                    "metadata.name",
                    f"priority class names with '{SYSTEM_PREFIX}' prefix are reserved for system use only. error: {why}",
                )
            )
    elif isinstance(value, int) and value > HIGHEST_USER_DEFINABLE_PRIORITY:
        errs.append(
            forbidden("value", f"maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}")
        )
    if isinstance(policy, str) and policy not in PREEMPTION_POLICIES:
        errs.append(not_supported("preemptionPolicy", policy, PREEMPTION_POLICIES))
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
        if (obj.get("value") or 0) != (old.get("value") or 0):
            errs.append(forbidden("value", "may not be changed in an update."))
        errs.extend(immutable(obj.get("preemptionPolicy"), old.get("preemptionPolicy"), "preemptionPolicy"))
    return errs
