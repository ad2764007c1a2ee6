"""The numbered creation flow (hops 1-13) and the words the trace uses for each hop.

A message gets its number from who sends it to whom, what it carries and
which write it belongs to, following the seeds' numbering:
1-3 a client's write reaches etcd; 4-5 the controller manager's watch
delivers it; 6-8 the controller manager creates a Pod; 9 the scheduler
receives the unscheduled Pod; 10-11 the binding is stored; 12 the kubelet
receives the bound Pod and runs it; 13 its status is stored.
"""

from __future__ import annotations

from dataclasses import dataclass

from clusterviz.apimachinery.unstructured import dict_or_empty

WORKLOAD_KINDS = frozenset(
    {"Deployment", "ReplicaSet", "ReplicationController", "DaemonSet", "StatefulSet", "Job", "CronJob"}
)
CLIENTS = frozenset({"kubectl", "client", "dashboard"})


@dataclass(frozen=True)
class WriteSteps:
    """Step numbers of a write's three hops: request, store, stored."""

    request: int | None
    store: int | None
    stored: int | None


NO_STEPS = WriteSteps(None, None, None)


def write_steps(client: str, verb: str, kind: str, sub: str) -> WriteSteps:
    """Which hops of the creation flow a write is."""
    if client in CLIENTS and kind != "Event":
        return WriteSteps(1, 2, 3)
    # A Deployment's ReplicaSet and a CronJob's Job are made as the Pods are.
    if client == "controller-manager" and verb == "create" and kind in ("Pod", "ReplicaSet", "Job"):
        return WriteSteps(6, 7, 8)
    if client == "scheduler" and sub == "binding":
        return WriteSteps(10, 10, 11)
    if client.startswith("kubelet/") and kind == "Pod" and sub == "status":
        return WriteSteps(12, 13, 13)
    return NO_STEPS


def delivery_step(component: str, event_type: str, obj: dict) -> int | None:
    """The step of a watch event delivered to a component."""
    kind = obj.get("kind")
    spec = dict_or_empty(obj.get("spec"))
    if component == "controller-manager" and kind in WORKLOAD_KINDS and event_type in ("ADDED", "MODIFIED"):
        return 5
    if component == "scheduler" and kind == "Pod" and event_type in ("ADDED", "MODIFIED") and not spec.get("nodeName"):
        return 9
    if component.startswith("kubelet/") and kind == "Pod" and event_type in ("ADDED", "MODIFIED"):
        return 12
    return None
