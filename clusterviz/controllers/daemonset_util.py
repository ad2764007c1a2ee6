"""Pure helpers of the DaemonSet controller, after pkg/controller/daemon/util and daemon_controller.go.

Which nodes should run a daemon Pod, the Pod a DaemonSet makes for one
node (its node affinity and default tolerations), which Pods are up to
date, and the rolling update's choice of Pods to replace.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from clusterviz.apimachinery.unstructured import deep_copy
from clusterviz.scheduler.plugins.node_affinity import node_matches_pod
from clusterviz.scheduler.plugins.taint_toleration import find_untolerated_taint

from .deployment_util import scaled_value
from .util import Obj, annotations_of, deleting, labels_of, meta, spec

HASH_LABEL = "controller-revision-hash"
TEMPLATE_GENERATION_LABEL = "pod-template-generation"
TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation"
NODE_NAME_FIELD = "metadata.name"

# AddOrUpdateDaemonPodTolerations: a daemon keeps running through node conditions that evict other Pods.
DAEMON_TOLERATIONS: tuple[tuple[str, str], ...] = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)
HOST_NETWORK_TOLERATION = ("node.kubernetes.io/network-unavailable", "NoSchedule")


def template_generation(ds: Obj) -> str:
    """spec.templateGeneration, kept by apps/v1 in an annotation ("" when absent)."""
    return str(annotations_of(ds).get(TEMPLATE_GENERATION_ANNOTATION, ""))


def add_daemon_tolerations(pod_spec: dict[str, Any]) -> None:
    """AddOrUpdateDaemonPodTolerations: the Exists tolerations every daemon Pod carries (no tolerationSeconds)."""
    wanted = list(DAEMON_TOLERATIONS)
    if pod_spec.get("hostNetwork") is True:
        wanted.append(HOST_NETWORK_TOLERATION)
    tolerations = pod_spec.get("tolerations")
    if not isinstance(tolerations, list):
        tolerations = pod_spec["tolerations"] = []
    for key, effect in wanted:
        toleration = {"key": key, "operator": "Exists", "effect": effect}
        # AddOrUpdateTolerationInPodSpec: a toleration with the same key, operator, value and effect is replaced.
        same = [
            i
            for i, t in enumerate(tolerations)
            if isinstance(t, dict)
            and (t.get("key"), t.get("operator") or "Equal", t.get("value") or "", t.get("effect"))
            == (key, "Exists", "", effect)
        ]
        if same:
            tolerations[same[0]] = toleration
        else:
            tolerations.append(toleration)


def replace_node_name_affinity(pod_spec: dict[str, Any], node_name: str) -> None:
    """ReplaceDaemonSetPodNodeNameNodeAffinity: the required terms become ``metadata.name In [node]``.

    Preferred terms and other kinds of affinity stay; the controller has
    already checked the node against the template's own required terms.
    """
    term = {"matchFields": [{"key": NODE_NAME_FIELD, "operator": "In", "values": [node_name]}]}
    affinity = pod_spec.get("affinity")
    if not isinstance(affinity, dict):
        affinity = pod_spec["affinity"] = {}
    node_affinity = affinity.get("nodeAffinity")
    if not isinstance(node_affinity, dict):
        node_affinity = affinity["nodeAffinity"] = {}
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [term]}


def target_node_name(pod: Obj) -> str | None:
    """GetTargetNodeName: spec.nodeName, or the single node the affinity's matchFields name; None if neither."""
    node_name = spec(pod).get("nodeName")
    if isinstance(node_name, str) and node_name:
        return node_name
    required = ((spec(pod).get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    for term in required.get("nodeSelectorTerms") or []:
        for expr in (term or {}).get("matchFields") or []:
            values = expr.get("values") or []
            if expr.get("key") == NODE_NAME_FIELD and expr.get("operator") == "In" and len(values) == 1:
                return str(values[0])
    return None


def new_pod_spec(ds: Obj, node_name: str) -> dict[str, Any]:
    """NewPod's spec: the template's, placed on ``node_name`` with the daemon tolerations (for the predicates)."""
    pod_spec = deep_copy((spec(ds).get("template") or {}).get("spec") or {})
    pod_spec["nodeName"] = node_name
    add_daemon_tolerations(pod_spec)
    return pod_spec


def node_should_run(node: Obj, ds: Obj) -> tuple[bool, bool]:
    """NodeShouldRunDaemonPod: (should run a daemon Pod there, should keep one that runs there).

    A node fits when its name matches a template's nodeName, it satisfies the
    nodeSelector and required node affinity, and every NoSchedule/NoExecute
    taint is tolerated; a running Pod stays while only NoSchedule taints are not.
    """
    name = str(meta(node).get("name") or "")
    template_node = ((spec(ds).get("template") or {}).get("spec") or {}).get("nodeName")
    if template_node and template_node != name:
        return False, False
    pod_spec = new_pod_spec(ds, name)
    if not node_matches_pod(pod_spec, node):
        return False, False
    taints = [t for t in spec(node).get("taints") or [] if isinstance(t, dict)]
    tolerations = [t for t in pod_spec.get("tolerations") or [] if isinstance(t, dict)]
    if find_untolerated_taint(taints, tolerations, ("NoSchedule", "NoExecute")) is None:
        return True, True
    return False, find_untolerated_taint(taints, tolerations, ("NoExecute",)) is None


def is_pod_updated(pod: Obj, hash_: str, generation: str) -> bool:
    """IsPodUpdated: the Pod carries the current revision's hash (or, from older controllers, generation)."""
    pod_labels = labels_of(pod)
    by_generation = bool(generation) and pod_labels.get(TEMPLATE_GENERATION_LABEL) == generation
    by_hash = bool(hash_) and pod_labels.get(HASH_LABEL) == hash_
    return by_generation or by_hash


def find_updated_pods_on_node(ds: Obj, pods: list[Obj], hash_: str) -> tuple[Obj | None, Obj | None, bool]:
    """findUpdatedPodsOnNode: (the new Pod, the old Pod, False when there are several of either)."""
    new_pod = old_pod = None
    generation = template_generation(ds)
    for pod in pods:
        if deleting(pod):
            continue
        if is_pod_updated(pod, hash_, generation):
            if new_pod is not None:
                return None, None, False
            new_pod = pod
        else:
            if old_pod is not None:
                return None, None, False
            old_pod = pod
    return new_pod, old_pod, True


def is_rolling_update(ds: Obj) -> bool:
    """The update strategy is RollingUpdate (the default), not OnDelete."""
    return (spec(ds).get("updateStrategy") or {}).get("type", "RollingUpdate") == "RollingUpdate"


def rolling(ds: Obj) -> dict[str, Any]:
    """spec.updateStrategy.rollingUpdate (empty when the strategy is OnDelete)."""
    strategy = spec(ds).get("updateStrategy") or {}
    if not is_rolling_update(ds):
        return {}
    value = strategy.get("rollingUpdate")
    return value if isinstance(value, dict) else {}


def allows_surge(ds: Obj) -> bool:
    """AllowsSurge: maxSurge is set and not zero."""
    surge = rolling(ds).get("maxSurge")
    return surge not in (None, 0, "0%")


def surge_and_unavailable(ds: Obj, desired: int) -> tuple[int, int]:
    """SurgeCount and UnavailableCount, both rounded up against the nodes that should run the daemon.

    When both come out zero one Pod may be unavailable, so that a rollout
    never stalls.
    """
    settings = rolling(ds)
    try:
        surge = scaled_value(settings.get("maxSurge", 0), desired, True) if allows_surge(ds) else 0
        unavailable = scaled_value(settings.get("maxUnavailable", 1), desired, True)
    except ValueError:
        surge, unavailable = 0, 1
    if desired > 0 and surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


@dataclass
class RolloutPlan:
    """What one rolling-update pass asks syncNodes to do."""

    delete: list[str] = field(default_factory=list)
    create_on: list[str] = field(default_factory=list)


def plan_rollout(
    ds: Obj,
    node_pods: dict[str, list[Obj]],
    hash_: str,
    max_surge: int,
    max_unavailable: int,
    available: Callable[[Obj], bool],
    should_run: Callable[[str], bool],
) -> RolloutPlan:
    """rollingUpdate: replace old Pods node by node, within maxUnavailable (or maxSurge when surging).

    Nodes are visited in name order (Go visits a map at random); Pods that are
    not available are replaced at once, as they cannot get any less available.
    """
    plan = RolloutPlan()
    if max_surge == 0:
        unavailable = 0
        replaceable: list[str] = []
        candidates: list[str] = []
        for node in sorted(node_pods):
            new_pod, old_pod, ok = find_updated_pods_on_node(ds, node_pods[node], hash_)
            if not ok or (old_pod is None) == (new_pod is None):
                # Several Pods, or none, or both: the manage pass is still working on this node.
                unavailable += 1
            elif new_pod is not None:
                unavailable += 0 if available(new_pod) else 1
            elif old_pod is not None:
                if not available(old_pod):
                    replaceable.append(_name(old_pod))
                elif unavailable < max_unavailable:
                    candidates.append(_name(old_pod))
        room = max(0, min(max_unavailable - unavailable, len(candidates)))
        plan.delete = replaceable + candidates[:room]
        return plan
    surged = 0
    new_nodes: list[str] = []
    candidate_nodes: list[str] = []
    for node in sorted(node_pods):
        new_pod, old_pod, ok = find_updated_pods_on_node(ds, node_pods[node], hash_)
        if not ok:
            surged += 1
        elif old_pod is None:
            continue
        elif new_pod is None:
            if not available(old_pod):
                if should_run(node):
                    new_nodes.append(node)
                else:
                    plan.delete.append(_name(old_pod))
            elif surged < max_surge:
                candidate_nodes.append(node)
        elif not available(new_pod):
            surged += 1
        else:
            plan.delete.append(_name(old_pod))
    room = max(0, min(max_surge - surged, len(candidate_nodes)))
    plan.create_on = new_nodes + candidate_nodes[:room]
    return plan


def _name(pod: Obj) -> str:
    return str(meta(pod).get("name") or "")
