"""``kubectl describe priorityclass``, as kubectl's describer prints it."""

from __future__ import annotations

from typing import Any

from clusterviz.api.tables import format_labels
from clusterviz.apimachinery.unstructured import dict_or_empty

from .describe import Text


def describe_priority_class(pc: dict[str, Any]) -> Text:
    """Name, value, whether it is the default, its preemption policy, description and annotations."""
    meta = dict_or_empty(pc.get("metadata"))
    text = Text()
    text.add(0, "Name", meta.get("name", ""))
    text.add(0, "Value", pc.get("value", 0))
    text.add(0, "GlobalDefault", "true" if pc.get("globalDefault") is True else "false")
    text.add(0, "PreemptionPolicy", pc.get("preemptionPolicy") or "PreemptLowerPriority")
    text.add(0, "Description", pc.get("description", ""))
    text.add(0, "Annotations", format_labels(meta.get("annotations")))
    return text
