"""``kubectl describe statefulset``, as kubectl's StatefulSetDescriber prints it."""

from __future__ import annotations

from typing import Any

from clusterviz.api.tables import format_label_selector

from .describe import LAST_APPLIED, Text, _pod_template, timestamp
from .describe_daemonset import _owned_by


def _claim_templates(text: Text, claims: list[Any]) -> None:
    """describeVolumeClaimTemplates: each claim's name, class, labels, annotations, capacity and access modes."""
    if not claims:
        text.add(0, "Volume Claims", "<none>")
        return
    text.add(0, "Volume Claims")
    for claim in claims:
        claim = claim if isinstance(claim, dict) else {}
        meta, spec = claim.get("metadata") or {}, claim.get("spec") or {}
        text.add(1, "Name", meta.get("name", ""))
        text.add(1, "StorageClass", spec.get("storageClassName") or "")
        text.mapping(1, "Labels", meta.get("labels"))
        text.mapping(1, "Annotations", meta.get("annotations"))
        storage = ((spec.get("resources") or {}).get("requests") or {}).get("storage")
        text.add(1, "Capacity", storage if storage is not None else "<default>")
        # Go prints the access-mode slice as [ReadWriteOnce ReadOnlyMany].
        text.add(1, "Access Modes", "[" + " ".join(str(m) for m in spec.get("accessModes") or []) + "]")


def describe_stateful_set(sts: dict[str, Any], pods: list[dict[str, Any]]) -> Text:
    """The StatefulSet's selector, replica counts, update strategy, its Pods' phases, template and claims."""
    text = Text()
    meta, spec, status = sts.get("metadata") or {}, sts.get("spec") or {}, sts.get("status") or {}
    text.add(0, "Name", meta.get("name", ""))
    text.add(0, "Namespace", meta.get("namespace", ""))
    text.add(0, "CreationTimestamp", timestamp(meta.get("creationTimestamp")))
    text.add(0, "Selector", format_label_selector(spec.get("selector")))
    text.mapping(0, "Labels", meta.get("labels"))
    # Annotations print as "key: value", unlike labels.
    annotations = [f"{k}: {v}" for k, v in sorted((meta.get("annotations") or {}).items()) if k != LAST_APPLIED]
    text.add(0, "Annotations", annotations[0] if annotations else "<none>")
    for line in annotations[1:]:
        text.more(0, line)
    text.add(0, "Replicas", f"{spec.get('replicas', 1)} desired | {status.get('replicas', 0)} total")
    strategy = spec.get("updateStrategy") or {}
    text.add(0, "Update Strategy", strategy.get("type", ""))
    rolling = strategy.get("rollingUpdate")
    if isinstance(rolling, dict) and rolling.get("partition") is not None:
        text.add(1, "Partition", rolling["partition"])
        if rolling.get("maxUnavailable") is not None:
            text.add(1, "MaxUnavailable", rolling["maxUnavailable"])
    phases = [(p.get("status") or {}).get("phase", "Pending") for p in pods if _owned_by(p, str(meta.get("uid")))]
    text.add(
        0,
        "Pods Status",
        f"{phases.count('Running')} Running / {phases.count('Pending')} Waiting / "
        f"{phases.count('Succeeded')} Succeeded / {phases.count('Failed')} Failed",
    )
    _pod_template(text, spec.get("template") or {})
    _claim_templates(text, spec.get("volumeClaimTemplates") or [])
    return text
