"""Pod admission: may this node run the Pod? The kubelet's predicate admit handler.

A Pod pinned with ``spec.nodeName`` never met the scheduler, so the kubelet
checks it against the node itself, with the scheduler's own rules (upstream's
kubelet imports them too): resources first, then node affinity, host ports
and NoExecute taints. Only the first failure is reported.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from clusterviz.scheduler.nodeinfo import NodeInfo, pod_host_ports, pod_requests
from clusterviz.scheduler.plugins import node_affinity, node_ports, taint_toleration
from clusterviz.scheduler.plugins.node_resources_fit import fits_request

from .status import effective_allocatable

# Prefix of the reason when a resource runs out: OutOfcpu, OutOfmemory, OutOfpods, ...
INSUFFICIENT_RESOURCE_PREFIX = "OutOf"


@dataclass(frozen=True)
class Admission:
    """The verdict: admitted, or a one-word reason and a message."""

    admitted: bool
    reason: str = ""
    message: str = ""


ADMITTED = Admission(True)


def _predicate_failure(name: str, description: str) -> Admission:
    return Admission(False, name, f"Predicate {name} failed: {description}")


def admit(pod: dict[str, Any], node: dict[str, Any], admitted: Iterable[dict[str, Any]]) -> Admission:
    """Check ``pod`` against ``node`` with the Pods already ``admitted`` there."""
    status = node.get("status") or {}
    info = NodeInfo({**node, "status": {**status, "allocatable": effective_allocatable(node)}})
    for other in admitted:
        info.add_pod(other)
    missing = fits_request(pod_requests(pod), info)
    if missing:
        first = missing[0]
        return Admission(
            False,
            INSUFFICIENT_RESOURCE_PREFIX + first.resource,
            f"Node didn't have enough resource: {first.resource}, requested: {first.requested}, "
            f"used: {first.used}, capacity: {first.capacity}",
        )
    spec = pod.get("spec") or {}
    if not node_affinity.node_matches_pod(spec, node):
        return _predicate_failure(node_affinity.NAME, node_affinity.REASON_POD)
    if not node_ports.fits_ports(pod_host_ports(pod), info.used_ports):
        return _predicate_failure(node_ports.NAME, node_ports.REASON)
    taints = (node.get("spec") or {}).get("taints") or []
    tolerations = spec.get("tolerations") or []
    if taint_toleration.find_untolerated_taint(taints, tolerations, (taint_toleration.NO_EXECUTE,)) is not None:
        return _predicate_failure(taint_toleration.NAME, taint_toleration.REASON_UNTOLERATED_TAINT)
    return ADMITTED
