"""The whole cluster as one multi-document YAML that ``kubectl apply -f`` (and the editor) accepts, and back.

A teacher prepares a lesson once, downloads it, and loads it into a new or
reset cluster later (or shares it): nodes with their capacity, workloads,
ConfigMaps (the scheduler profile among them) and the simulation's settings.
"""

from __future__ import annotations

from typing import Any

import yaml
from django.utils.translation import gettext as _

from clusterviz.api.client import Client
from clusterviz.api.cluster_ca import ROOT_CA_CONFIG_MAP
from clusterviz.lessons import runner as lessons

from .yaml_form import Outcome, run

# Objects a teacher builds a lesson from; what controllers or kubelets make (ReplicaSets, Pods with owners,
# ControllerRevisions, Endpoints, Events, Leases) is left out because the cluster recreates it.
EXPORTED = (
    "namespaces",
    "priorityclasses",
    "nodes",
    "configmaps",
    "services",
    "deployments",
    "replicationcontrollers",
    "replicasets",
    "daemonsets",
    "statefulsets",
    "pods",
    "poddisruptionbudgets",
    "horizontalpodautoscalers",
)
SYSTEM_NAMESPACES = {"default", "kube-system", "kube-public", "kube-node-lease"}
SERVER_FIELDS = (
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "generation",
    "managedFields",
    "selfLink",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
)


def clean(obj: dict[str, Any]) -> dict[str, Any]:
    """Drop what the server sets, so the object can be applied anywhere."""
    meta = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in SERVER_FIELDS}
    annotations = {
        k: v
        for k, v in (meta.get("annotations") or {}).items()
        if k != "kubectl.kubernetes.io/last-applied-configuration"
    }
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    out = {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "metadata": meta}
    for key, value in obj.items():
        if key not in ("apiVersion", "kind", "metadata", "status"):
            out[key] = value
    if obj.get("kind") == "Node":
        # A node's size is part of the lesson; the API takes a Node's status on create, as Kubernetes does.
        status = obj.get("status") or {}
        out["status"] = {key: status[key] for key in ("capacity", "allocatable") if key in status}
    if obj.get("kind") == "Service":
        out.get("spec", {}).pop("clusterIP", None)
        out.get("spec", {}).pop("clusterIPs", None)
    return out


def _keep(plural: str, obj: dict[str, Any]) -> bool:
    meta = obj.get("metadata") or {}
    if plural == "namespaces":
        return meta.get("name") not in SYSTEM_NAMESPACES
    if plural == "priorityclasses":
        return not str(meta.get("name") or "").startswith("system-")
    if plural in ("pods", "replicasets") and meta.get("ownerReferences"):
        return False
    if plural == "services" and meta.get("name") == "kubernetes" and meta.get("namespace") == "default":
        return False
    # Every namespace's CA ConfigMap is the root CA publisher's, made again by the cluster that imports.
    return not (plural == "configmaps" and meta.get("name") == ROOT_CA_CONFIG_MAP)


async def export_cluster(cluster: str) -> str:
    """Every lesson object of ``cluster`` plus its simulation settings, as YAML documents."""
    client = Client(cluster, "dashboard")
    docs = []
    for plural in EXPORTED:
        for obj in (await client.list(plural))["items"]:
            if _keep(plural, obj):
                docs.append(clean(obj))
    simulation = await client.get("simulations", "default")
    docs.append(
        {
            "apiVersion": simulation["apiVersion"],
            "kind": "Simulation",
            "metadata": {"name": "default"},
            "spec": simulation["spec"],
        }
    )
    return yaml.safe_dump_all(docs, sort_keys=False, allow_unicode=True)


async def import_cluster(cluster: str, text: str) -> list[Outcome]:
    """Empty ``cluster`` (no nodes, no workloads) and apply every document of an exported file.

    Every document is first sent as a server dry run; a file with any refused document changes
    nothing. The simulation runs fast-forward meanwhile, so the components settle the new objects
    at once; the file's Simulation document, last of all, sets its own mode, else the mode returns.
    """
    client = Client(cluster, "dashboard", simulated=False)
    mode = (await client.get("simulations", "default"))["spec"]["mode"]
    await client.patch("simulations", "default", {"spec": {"mode": "fast-forward"}})
    checked = await run(cluster, "dry-run", text)
    if not all(o.ok for o in checked):
        await client.patch("simulations", "default", {"spec": {"mode": mode}})
        return [o for o in checked if not o.ok]
    await lessons.reset(cluster, nodes=())
    outcomes = await run(cluster, "apply", text)
    if not any(o.ok and o.text.startswith("simulation.clusterviz.io/") for o in outcomes):
        await client.patch("simulations", "default", {"spec": {"mode": mode}})
    return outcomes


def uploaded_text(upload: Any, limit: int) -> str:
    """The text of an uploaded file; ValueError (with the reason to show) when too big or not UTF-8."""
    if upload is None:
        raise ValueError(_("choose a file exported from clusterviz (or any YAML kubectl would apply)"))
    if upload.size > limit:
        raise ValueError(_("the file is larger than %(limit)d bytes") % {"limit": limit})
    try:
        return upload.read().decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(_("the file is not UTF-8 text")) from None
