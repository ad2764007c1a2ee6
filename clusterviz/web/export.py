"""The whole cluster as one multi-document YAML that ``kubectl apply -f`` (and the editor) accepts."""

from __future__ import annotations

from typing import Any

import yaml

from clusterviz.api.client import Client

# Objects a teacher builds a lesson from; what controllers or kubelets make (ReplicaSets, Pods with owners,
# Endpoints, Events, Leases) is left out because the cluster recreates it.
EXPORTED = ("namespaces", "nodes", "configmaps", "services", "deployments", "replicationcontrollers",
            "replicasets", "pods")
SYSTEM_NAMESPACES = {"default", "kube-system", "kube-public", "kube-node-lease"}
SERVER_FIELDS = ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink",
                 "deletionTimestamp", "deletionGracePeriodSeconds")


def clean(obj: dict[str, Any]) -> dict[str, Any]:
    """Drop what the server sets, so the object can be applied anywhere."""
    meta = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in SERVER_FIELDS}
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items()
                   if k != "kubectl.kubernetes.io/last-applied-configuration"}
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    out = {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "metadata": meta}
    for key, value in obj.items():
        if key not in ("apiVersion", "kind", "metadata", "status"):
            out[key] = value
    if obj.get("kind") == "Service":
        out.get("spec", {}).pop("clusterIP", None)
        out.get("spec", {}).pop("clusterIPs", None)
    return out


def _keep(plural: str, obj: dict[str, Any]) -> bool:
    meta = obj.get("metadata") or {}
    if plural == "namespaces":
        return meta.get("name") not in SYSTEM_NAMESPACES
    if plural in ("pods", "replicasets") and meta.get("ownerReferences"):
        return False
    if plural == "services" and meta.get("name") == "kubernetes" and meta.get("namespace") == "default":
        return False
    return True


async def export_cluster(cluster: str) -> str:
    """Every lesson object of ``cluster`` plus its simulation settings, as YAML documents."""
    client = Client(cluster, "dashboard")
    docs = []
    for plural in EXPORTED:
        for obj in (await client.list(plural))["items"]:
            if _keep(plural, obj):
                docs.append(clean(obj))
    simulation = await client.get("simulations", "default")
    docs.append({"apiVersion": simulation["apiVersion"], "kind": "Simulation", "metadata": {"name": "default"},
                 "spec": simulation["spec"]})
    return yaml.safe_dump_all(docs, sort_keys=False, allow_unicode=True)
