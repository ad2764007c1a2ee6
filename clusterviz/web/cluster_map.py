"""What the presenter's cluster map draws, from API objects (pure functions, no I/O).

Each node lane: its Pods as chips (status colour, IP, whether preemption is evicting them), its
Ready state, the Pending Pods nominated to it by preemption and, for a node whose NoExecute taint is
counting down, when its Pods are evicted. Each Service: the Pods its
Endpoints list, ready or not.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from clusterviz.api import clock

from .cluster_view import node_cards, pending_pods

# The tolerationSeconds the API server gives every Pod for the not-ready and unreachable taints; the
# taint-eviction controller reads it as the simulation's podEvictionTimeoutSeconds (lessons shorten it).
DEFAULT_TOLERATION_SECONDS = 300
EVICTING_TAINTS = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")


def evicting_taint(node: dict[str, Any]) -> tuple[datetime, str] | None:
    """When the node got its first not-ready or unreachable NoExecute taint, and that taint's key; or None."""
    found = []
    for taint in (node.get("spec") or {}).get("taints") or []:
        if taint.get("effect") == "NoExecute" and taint.get("key") in EVICTING_TAINTS:
            moment = clock.parse(str(taint.get("timeAdded") or ""))
            if moment is not None:
                found.append((moment, str(taint["key"])))
    return min(found, default=None)


def eviction_at(node: dict[str, Any], pods: list[dict[str, Any]], eviction_timeout: float) -> str:
    """When the first of ``pods`` on a tainted node is evicted (RFC 3339), or "" when nothing counts down."""
    taint = evicting_taint(node)
    if taint is None or not pods:
        return ""
    added = taint[0]
    seconds = []
    for pod in pods:
        tolerated = [
            t.get("tolerationSeconds")
            for t in (pod.get("spec") or {}).get("tolerations") or []
            if t.get("key") in EVICTING_TAINTS and t.get("effect") in ("NoExecute", None, "")
        ]
        if not tolerated:
            return clock.rfc3339(added)  # no toleration: evicted at once
        limit = min(float(s) for s in tolerated if s is not None) if any(s is not None for s in tolerated) else None
        if limit is None:
            continue  # tolerates forever
        seconds.append(eviction_timeout if limit == DEFAULT_TOLERATION_SECONDS else limit)
    if not seconds:
        return ""
    return clock.rfc3339(added + timedelta(seconds=min(seconds)))


def _preempted(pod: dict[str, Any]) -> bool:
    """Is the scheduler evicting this Pod to make room for a higher-priority one?"""
    return any(
        c.get("type") == "DisruptionTarget" and c.get("reason") == "PreemptionByScheduler" and c.get("status") == "True"
        for c in (pod.get("status") or {}).get("conditions") or []
    )


def _ips(pod: dict[str, Any]) -> str:
    return str((pod.get("status") or {}).get("podIP") or "")


def map_state(
    nodes: list[dict[str, Any]],
    pods: list[dict[str, Any]],
    services: list[dict[str, Any]],
    endpoints: list[dict[str, Any]],
    eviction_timeout: float,
) -> dict[str, Any]:
    """The JSON frame of the presenter's map: nodes with their Pods, Pending Pods, Services with endpoints."""
    by_key = {(p["metadata"].get("namespace", ""), p["metadata"]["name"]): p for p in pods}
    by_node: dict[str, list[dict[str, Any]]] = {}
    nominated: dict[str, list[str]] = {}
    for pod in pods:
        if (pod.get("spec") or {}).get("nodeName"):
            by_node.setdefault(pod["spec"]["nodeName"], []).append(pod)
        elif (target := (pod.get("status") or {}).get("nominatedNodeName")):
            nominated.setdefault(str(target), []).append(pod["metadata"]["name"])
    raw_nodes = {n["metadata"]["name"]: n for n in nodes}
    lanes = []
    for card in node_cards(nodes, pods):
        placed = by_node.get(card.name, [])
        lanes.append(
            {
                "name": card.name,
                "ready": card.ready,
                "unschedulable": card.unschedulable,
                "kubeletStopped": card.kubelet_stopped,
                "labels": card.labels,
                "taints": card.taints,
                "cpu": f"{card.cpu_requested} / {card.cpu_allocatable}",
                "memory": f"{card.memory_requested} / {card.memory_allocatable}",
                "evictAt": "" if card.ready else eviction_at(raw_nodes[card.name], placed, eviction_timeout),
                "nominated": sorted(nominated.get(card.name, [])),
                "pods": [
                    {
                        **vars(c),
                        "ip": _ips(by_key.get((c.namespace, c.name), {})),
                        "preempted": _preempted(by_key.get((c.namespace, c.name), {})),
                    }
                    for c in card.pods
                ],
            }
        )
    by_service = {(e["metadata"].get("namespace", ""), e["metadata"]["name"]): e for e in endpoints}
    drawn_services = []
    for service in services:
        meta = service["metadata"]
        if (meta.get("namespace"), meta["name"]) == ("default", "kubernetes"):
            continue
        found = by_service.get((meta.get("namespace", ""), meta["name"]), {})
        targets = []
        for subset in found.get("subsets") or []:
            for ready, field in ((True, "addresses"), (False, "notReadyAddresses")):
                for address in subset.get(field) or []:
                    ref = address.get("targetRef") or {}
                    targets.append({"ip": address.get("ip", ""), "pod": ref.get("name", ""),
                                    "node": address.get("nodeName", ""), "ready": ready})
        drawn_services.append(
            {"name": meta["name"], "clusterIP": (service.get("spec") or {}).get("clusterIP", ""), "endpoints": targets}
        )
    return {
        "nodes": lanes,
        "pending": [{**vars(c), "reason": reason} for c, reason in pending_pods(pods)],
        "services": drawn_services,
        "chips": len(pods),
    }

