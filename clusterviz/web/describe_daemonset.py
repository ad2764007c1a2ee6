"""``kubectl describe daemonset``, as kubectl's DaemonSetDescriber prints it."""

from __future__ import annotations

from typing import Any

from clusterviz.api.tables import format_label_selector, format_labels

from .describe import LAST_APPLIED, Text, _pod_template


def _owned_by(pod: dict[str, Any], uid: str) -> bool:
    refs = (pod.get("metadata") or {}).get("ownerReferences") or []
    return any(ref.get("controller") and ref.get("uid") == uid for ref in refs if isinstance(ref, dict))


def describe_daemon_set(ds: dict[str, Any], pods: list[dict[str, Any]]) -> Text:
    """The DaemonSet's selectors, its node counts, its Pods' phases and its template (no namespace line, as
    kubectl's describer has none)."""
    text = Text()
    meta, spec, status = ds.get("metadata") or {}, ds.get("spec") or {}, ds.get("status") or {}
    template = spec.get("template") or {}
    text.add(0, "Name", meta.get("name", ""))
    text.add(0, "Selector", format_label_selector(spec.get("selector")))
    text.add(0, "Node-Selector", format_labels((template.get("spec") or {}).get("nodeSelector")))
    text.mapping(0, "Labels", meta.get("labels"))
    # Annotations print as "key: value", unlike labels.
    annotations = [f"{k}: {v}" for k, v in sorted((meta.get("annotations") or {}).items()) if k != LAST_APPLIED]
    text.add(0, "Annotations", annotations[0] if annotations else "<none>")
    for line in annotations[1:]:
        text.more(0, line)
    for heading, field in (
        ("Desired Number of Nodes Scheduled", "desiredNumberScheduled"),
        ("Current Number of Nodes Scheduled", "currentNumberScheduled"),
        ("Number of Nodes Scheduled with Up-to-date Pods", "updatedNumberScheduled"),
        ("Number of Nodes Scheduled with Available Pods", "numberAvailable"),
        ("Number of Nodes Misscheduled", "numberMisscheduled"),
    ):
        text.raw(0, f"{heading}: {status.get(field, 0)}")
    phases = [(p.get("status") or {}).get("phase", "Pending") for p in pods if _owned_by(p, str(meta.get("uid")))]
    text.add(
        0,
        "Pods Status",
        f"{phases.count('Running')} Running / {phases.count('Pending')} Waiting / "
        f"{phases.count('Succeeded')} Succeeded / {phases.count('Failed')} Failed",
    )
    _pod_template(text, template)
    return text
