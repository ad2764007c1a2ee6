"""Carrying out a preemption the PostFilter chose: upstream's ``prepareCandidate`` and ``PreemptPod``.

Each victim first gets the ``DisruptionTarget`` condition (reason
``PreemptionByScheduler``), is then deleted gracefully (its own grace period, so
the kubelet stops it as for any delete), and a ``Preempted`` event on it names
the preemptor's UID and the node. Lower-priority Pods nominated to the same node
lose their nomination, as they may no longer fit there. The preemptor's own
``status.nominatedNodeName`` is written with its PodScheduled condition by the
component.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from clusterviz.api import clock, errors
from clusterviz.api.client import Client
from clusterviz.api.record import EventRecorder

DISRUPTION_TARGET = "DisruptionTarget"
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
EVENT_REASON = "Preempted"


def disruption_message(preemptor: dict[str, Any]) -> str:
    """The victim's DisruptionTarget message, naming the preemptor's scheduler."""
    scheduler = (preemptor.get("spec") or {}).get("schedulerName") or "default-scheduler"
    return f"{scheduler}: preempting to accommodate a higher priority pod"


def _with_condition(pod: dict[str, Any], condition: dict[str, Any]) -> list[dict[str, Any]]:
    kept = [c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") != condition["type"]]
    return [*kept, condition]


async def preempt_pod(
    client: Client, recorder: EventRecorder, preemptor: dict[str, Any], victim: dict[str, Any], node: str
) -> None:
    """Mark one victim as a disruption target, delete it gracefully and say so in an event."""
    meta = victim["metadata"]
    name, namespace = meta["name"], meta.get("namespace", "default")
    if not meta.get("deletionTimestamp"):
        condition = {
            "type": DISRUPTION_TARGET,
            "status": "True",
            "reason": REASON_PREEMPTION_BY_SCHEDULER,
            "message": disruption_message(preemptor),
            "lastProbeTime": None,
            "lastTransitionTime": clock.rfc3339(),
        }
        try:
            await client.patch(
                "pods", name, {"status": {"conditions": _with_condition(victim, condition)}}, namespace, sub="status"
            )
            await client.delete("pods", name, namespace)
        except errors.StatusError as exc:
            if exc.code == 404:  # already gone: nothing left to preempt
                return
            raise
    uid = (preemptor.get("metadata") or {}).get("uid", "")
    await recorder.event(victim, "Normal", EVENT_REASON, f"Preempted by pod {uid} on node {node}")


async def clear_lower_nominations(
    client: Client, preemptor_priority: int, node: str, pending: Iterable[dict[str, Any]]
) -> None:
    """Lower-priority Pods nominated to ``node`` lose the nomination (upstream's clearNominatedNodeName)."""
    for pod in pending:
        status = pod.get("status") or {}
        priority = (pod.get("spec") or {}).get("priority") or 0
        if status.get("nominatedNodeName") != node or priority >= preemptor_priority:
            continue
        meta = pod["metadata"]
        try:
            await client.patch(
                "pods", meta["name"], {"status": {"nominatedNodeName": None}}, meta.get("namespace", "default"),
                sub="status",
            )
        except errors.StatusError:
            pass  # not critical, as upstream: the Pod's next attempt looks again
