"""``kubectl describe poddisruptionbudget``, as kubectl's describer prints it."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.labels import format_label_selector
from clusterviz.apimachinery.unstructured import dict_or_empty

from .describe import Text


def describe_pod_disruption_budget(pdb: dict[str, Any]) -> Text:
    """Name, the budget (min available or max unavailable), its selector, then the controller's counts."""
    meta, spec, status = (dict_or_empty(pdb.get(k)) for k in ("metadata", "spec", "status"))
    text = Text()
    text.add(0, "Name", meta.get("name", ""))
    text.add(0, "Namespace", meta.get("namespace", ""))
    if spec.get("minAvailable") is not None:
        text.add(0, "Min available", spec["minAvailable"])
    elif spec.get("maxUnavailable") is not None:
        text.add(0, "Max unavailable", spec["maxUnavailable"])
    selector = spec.get("selector")
    text.add(0, "Selector", format_label_selector(selector) if isinstance(selector, dict) else "<unset>")
    text.add(0, "Status")
    for label, key in (("Allowed disruptions", "disruptionsAllowed"), ("Current", "currentHealthy"),
                       ("Desired", "desiredHealthy"), ("Total", "expectedPods")):
        text.write(2, f"{label}:\t{int(status.get(key) or 0)}")
    return text
