"""The Priority admission plugin: a new Pod's priority comes from its PriorityClass, and one class at most is the default.

On create, a Pod naming a class gets that class's ``value`` and
``preemptionPolicy``; a Pod naming none gets the ``globalDefault`` class's
(and its name), else priority 0 and ``PreemptLowerPriority``. A class that does
not exist, or a ``priority`` or ``preemptionPolicy`` written into the Pod that
differs from what the class says, is refused as Forbidden, before validation,
as the real API server's mutating admission does. On update the stored
priority stays when the new body leaves it out.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from .. import errors

__all__ = ["admit_pod", "admit_pod_update", "default_class", "validate_class"]

DEFAULT_PRIORITY: Final = 0
PREEMPT_LOWER_PRIORITY: Final = "PreemptLowerPriority"


def _name(obj: dict[str, Any]) -> str:
    # Names are generated after admission, so a refusal names the prefix, as upstream's does.
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    return str(meta.get("name") or meta.get("generateName") or "Unknown")


def default_class(classes: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """The ``globalDefault`` class; should several be marked, the one with the lowest value."""
    found: dict[str, Any] | None = None
    for pc in classes:
        value = pc.get("value")
        if pc.get("globalDefault") is True and isinstance(value, int):
            if found is None or found["value"] > value:
                found = pc
    return found


def admit_pod(pod: dict[str, Any], classes: list[dict[str, Any]]) -> None:
    """Set ``spec.priority`` and ``spec.preemptionPolicy`` of a Pod being created (in place); Forbidden if refused.

    ``classes`` are the cluster's PriorityClasses. A malformed spec is left for validation to report.
    """
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return
    class_name = spec.get("priorityClassName") or ""
    if not isinstance(class_name, str):
        return
    policy: Any = PREEMPT_LOWER_PRIORITY
    if not class_name:
        found = default_class(classes)
        priority = DEFAULT_PRIORITY
        if found is not None:
            spec["priorityClassName"] = found["metadata"]["name"]
            priority, policy = found["value"], found.get("preemptionPolicy")
    else:
        named = next((pc for pc in classes if (pc.get("metadata") or {}).get("name") == class_name), None)
        if named is None:
            raise _forbidden(pod, f"no PriorityClass with name {class_name} was found")
        priority, policy = named.get("value", DEFAULT_PRIORITY), named.get("preemptionPolicy")
    given = spec.get("priority")
    if given is not None and (not isinstance(given, int) or isinstance(given, bool)):
        return  # not a number: validation says so
    if given is not None and given != priority:
        raise _forbidden(
            pod,
            f"the integer value of priority ({given}) must not be provided in pod spec; priority admission "
            f"controller computed {priority} from the given PriorityClass name",
        )
    spec["priority"] = priority
    if policy is not None:
        given_policy = spec.get("preemptionPolicy")
        if given_policy is not None and given_policy != policy:
            raise _forbidden(
                pod,
                f"the string value of PreemptionPolicy ({given_policy}) must not be provided in pod spec; priority "
                f"admission controller computed {policy} from the given PriorityClass name",
            )
        spec["preemptionPolicy"] = policy


def admit_pod_update(new: dict[str, Any], old: dict[str, Any]) -> None:
    """Keep the stored priority (and preemption policy) when an update's body leaves them out."""
    spec, old_spec = new.get("spec"), old.get("spec")
    if not isinstance(spec, dict) or not isinstance(old_spec, dict):
        return
    for field in ("priority", "preemptionPolicy"):
        if spec.get(field) is None and old_spec.get(field) is not None:
            spec[field] = old_spec[field]


def validate_class(pc: dict[str, Any], classes: list[dict[str, Any]], creating: bool) -> None:
    """Forbidden when ``pc`` would be a second ``globalDefault`` class."""
    if pc.get("globalDefault") is not True:
        return
    current = default_class(classes)
    if current is None:
        return
    current_name = current["metadata"]["name"]
    if creating or current_name != _name(pc):
        raise errors.forbidden_resource(
            "priorityclasses", "scheduling.k8s.io", _name(pc),
            f"PriorityClass {current_name} is already marked as default. Only one default can exist",
        )


def _forbidden(pod: dict[str, Any], why: str) -> errors.StatusError:
    return errors.forbidden_resource("pods", "", _name(pod), why)
