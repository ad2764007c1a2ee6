"""Per-kind rules the API server applies around a write, as the real registry strategies do.

Create resets what clients may not set (status of most kinds), update keeps
what the main resource may not change (status, server-set metadata), and the
generation follows spec changes for workloads.
"""

from __future__ import annotations

import ipaddress
import secrets
import uuid
from typing import Any

from clusterviz.apimachinery.unstructured import deep_copy, dict_or_empty

from . import apiservices, clock, customresources
from .resources import Resource

# generateName suffix alphabet: no vowels and no look-alikes, as upstream.
_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"

SERVICE_CIDR = ipaddress.ip_network("10.96.0.0/12")
NODE_PORT_RANGE = (30000, 32767)
# apps/v1 keeps a DaemonSet's internal spec.templateGeneration in this annotation.
TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"
DAEMON_SET_COUNTS = ("currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady")


def random_suffix(length: int = 5) -> str:
    return "".join(secrets.choice(_SUFFIX_ALPHABET) for _ in range(length))


def qos_class(pod: dict[str, Any]) -> str:
    """Guaranteed, Burstable or BestEffort, from the containers' requests and limits."""
    containers = [c for c in (pod.get("spec") or {}).get("containers") or [] if isinstance(c, dict)]
    any_set = False
    guaranteed = bool(containers)
    for c in containers:
        res = dict_or_empty(c.get("resources"))
        requests = dict_or_empty(res.get("requests"))
        limits = dict_or_empty(res.get("limits"))
        if requests or limits:
            any_set = True
        for name in ("cpu", "memory"):
            if name not in limits or str(requests.get(name, limits[name])) != str(limits[name]):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def prepare_for_create(resource: Resource, obj: dict[str, Any]) -> dict[str, Any]:
    """Server-set metadata and the status a new object starts with, set on ``obj`` (the create's own copy)."""
    meta = obj.setdefault("metadata", {})
    meta["uid"] = str(uuid.uuid4())
    meta["creationTimestamp"] = clock.rfc3339()
    for field in ("resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"):
        meta.pop(field, None)
    if resource.tracks_generation or resource.kind in ("Pod", "Service", "Namespace"):
        meta["generation"] = 1
    kind = resource.kind
    if kind == "Pod":
        obj["status"] = {"phase": "Pending", "qosClass": qos_class(obj)}
    elif kind in ("Deployment", "ReplicaSet", "ReplicationController", "Job", "CronJob"):
        obj["status"] = {"replicas": 0} if kind == "ReplicationController" else {}
    elif kind == "DaemonSet":
        # The four counts are plain int32s upstream, always encoded.
        obj["status"] = {name: 0 for name in DAEMON_SET_COUNTS}
        _set_template_generation(obj, 1)
    elif kind == "StatefulSet":
        # replicas and availableReplicas are plain int32s in apps/v1, always encoded.
        obj["status"] = {"replicas": 0, "availableReplicas": 0}
    elif kind in ("Service", "Ingress"):
        obj["status"] = {"loadBalancer": {}}
    elif kind == "ResourceQuota":
        # What a new quota counts is the controller's (and admission's) to write.
        obj["status"] = {}
    elif kind == "PodDisruptionBudget":
        obj["status"] = {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}
    elif kind == "HorizontalPodAutoscaler":
        # autoscaling/v2 always encodes these two.
        obj["status"] = {"currentMetrics": None, "desiredReplicas": 0}
    elif kind == "PersistentVolume":
        obj["status"] = {"phase": "Pending", "lastPhaseTransitionTime": clock.rfc3339()}
    elif kind == "PersistentVolumeClaim":
        obj["status"] = {"phase": "Pending"}
    elif kind == "APIService":
        obj["status"] = apiservices.status_on_create(obj, clock.rfc3339())
    elif kind == "CustomResourceDefinition":
        obj["status"] = customresources.status_on_create(obj, clock.rfc3339())
    elif resource.custom is not None and resource.has_status:
        # With a status subresource, a custom resource's status is written only through it.
        obj.pop("status", None)
    elif kind == "Namespace":
        obj.setdefault("spec", {}).setdefault("finalizers", ["kubernetes"])
        obj["status"] = {"phase": "Active"}
    return obj


def prepare_for_update(resource: Resource, old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Keep what an update of the main resource may not change."""
    new = deep_copy(new)
    meta = new.setdefault("metadata", {})
    old_meta = old.get("metadata") or {}
    for field in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"):
        # Server-set fields: clients cannot change them by update or patch.
        if field in old_meta:
            meta[field] = old_meta[field]
        else:
            meta.pop(field, None)
    if resource.has_status:
        if "status" in old:
            new["status"] = deep_copy(old["status"])
        else:
            new.pop("status", None)
    if resource.kind == "Namespace":
        # Only the finalize subresource changes a namespace's finalizers.
        finalizers = dict_or_empty(old.get("spec")).get("finalizers")
        if isinstance(new.get("spec"), dict) and finalizers is not None:
            new["spec"]["finalizers"] = deep_copy(finalizers)
        elif isinstance(new.get("spec"), dict):
            new["spec"].pop("finalizers", None)
    if resource.kind == "CustomResourceDefinition" and isinstance(new.get("status"), dict):
        customresources.follow_spec(new)
    if resource.kind == "DaemonSet":
        # spec.templateGeneration (an annotation in apps/v1) is the server's: it counts template changes.
        template_changed = dict_or_empty(new.get("spec")).get("template") != dict_or_empty(old.get("spec")).get("template")
        _set_template_generation(new, _template_generation(old) + (1 if template_changed else 0))
    return new


def follow_generation(resource: Resource, old: dict[str, Any], new: dict[str, Any]) -> None:
    """One more metadata.generation when the defaulted spec changed (for a custom kind without a status
    subresource, anything but metadata), as the registry strategies count it."""
    old_generation = dict_or_empty(old.get("metadata")).get("generation")
    if not isinstance(old_generation, int):
        return
    if resource.custom is not None and not resource.has_status:
        changed = {k: v for k, v in new.items() if k != "metadata"} != {k: v for k, v in old.items() if k != "metadata"}
    else:
        changed = new.get("spec") != old.get("spec")
    if changed:
        new["metadata"]["generation"] = old_generation + 1


def _template_generation(obj: dict[str, Any]) -> int:
    value = dict_or_empty(dict_or_empty(obj.get("metadata")).get("annotations")).get(TEMPLATE_GENERATION)
    return int(value) if isinstance(value, str) and value.isdigit() else 0


def _set_template_generation(obj: dict[str, Any], generation: int) -> None:
    meta = obj.setdefault("metadata", {})
    if not isinstance(meta.get("annotations"), dict):
        meta["annotations"] = {}
    meta["annotations"][TEMPLATE_GENERATION] = str(generation)


def prepare_for_status_update(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """A status write changes .status only.

    The old object is copied without its status, which the new one replaces (a Pod's status is a good part
    of it); the keys keep the old object's order, as they would in a copy of all of it.
    """
    rest = deep_copy({key: value for key, value in old.items() if key != "status"})
    if "status" not in new:
        return rest
    if "status" not in old:
        return {**rest, "status": deep_copy(new["status"])}
    return {key: deep_copy(new["status"]) if key == "status" else rest[key] for key in old}


def prepare_for_finalize(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """A namespace's finalize write changes .spec.finalizers only."""
    merged = deep_copy(old)
    merged.setdefault("spec", {})["finalizers"] = deep_copy(dict_or_empty(new.get("spec")).get("finalizers") or [])
    return merged


def scale_of(resource: Resource, obj: dict[str, Any], selector: str) -> dict[str, Any]:
    """The autoscaling/v1 Scale view of a workload."""
    meta = obj.get("metadata") or {}
    scale: dict[str, Any] = {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            key: meta[key]
            for key in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
            if key in meta
        },
        "spec": {"replicas": (obj.get("spec") or {}).get("replicas", 0)},
        "status": {"replicas": (obj.get("status") or {}).get("replicas", 0), "selector": selector},
    }
    if resource.custom is not None:
        # A custom kind names where its replicas and selector are (the CRD's scale subresource).
        spec_path, status_path, selector_path = customresources.scale_paths(resource)
        found = customresources.at_path(obj, selector_path) if selector_path else None
        scale["spec"] = {"replicas": _int_or_zero(customresources.at_path(obj, spec_path))}
        scale["status"] = {"replicas": _int_or_zero(customresources.at_path(obj, status_path)),
                           **({"selector": found} if isinstance(found, str) and found else {})}
    return scale


def _int_or_zero(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def allocate_cluster_ip(used: set[str], seed: str) -> str:
    """A free ClusterIP from the service CIDR, stable for a given seed when free."""
    size = SERVICE_CIDR.num_addresses
    start = int(uuid.uuid5(uuid.NAMESPACE_OID, seed)) % (size - 20) + 10
    for offset in range(size - 20):
        ip = str(SERVICE_CIDR[(start + offset) % (size - 20) + 10])
        if ip not in used:
            return ip
    raise RuntimeError("service CIDR exhausted")


def allocate_node_port(used: set[int], seed: str) -> int:
    low, high = NODE_PORT_RANGE
    span = high - low + 1
    start = int(uuid.uuid5(uuid.NAMESPACE_OID, seed)) % span
    for offset in range(span):
        port = low + (start + offset) % span
        if port not in used:
            return port
    raise RuntimeError("node port range exhausted")
