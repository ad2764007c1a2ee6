"""The node's CSINode: the kubelet registers the cluster's CSI driver on it, as upstream's node info manager does.

A node's CSINode is named after it, owned by its Node (so it goes with the
Node), and lists the driver with the node's name as its node ID, the
topology labels the node carries and how many of the driver's volumes the
node can hold (what the scheduler's NodeVolumeLimits counts against).
"""

from __future__ import annotations

from typing import Any, Final

from clusterviz.api import errors
from clusterviz.api.client import Client
from clusterviz.api.storage_classes import DRIVER, VOLUMES_PER_NODE

TOPOLOGY_LABELS: Final = ("kubernetes.io/hostname", "topology.kubernetes.io/zone")


def driver_entry(node: dict[str, Any]) -> dict[str, Any]:
    """The driver as registered on this node."""
    meta = node.get("metadata") or {}
    labels = meta.get("labels") or {}
    return {
        "name": DRIVER,
        "nodeID": str(meta.get("name", "")),
        "topologyKeys": [key for key in TOPOLOGY_LABELS if key in labels],
        "allocatable": {"count": VOLUMES_PER_NODE},
    }


def csi_node(node: dict[str, Any]) -> dict[str, Any]:
    """The CSINode a newly registered node gets."""
    meta = node.get("metadata") or {}
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSINode",
        "metadata": {
            "name": meta.get("name"),
            "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": meta.get("name"), "uid": meta.get("uid")}],
        },
        "spec": {"drivers": [driver_entry(node)]},
    }


async def register(client: Client, node: dict[str, Any]) -> None:
    """Make the node's CSINode, or add the driver to one that lacks it."""
    name = str((node.get("metadata") or {}).get("name", ""))
    existing = await client.get_or_none("csinodes", name)
    if existing is None:
        try:
            await client.create(csi_node(node))
        except errors.StatusError as exc:
            if exc.code != 409:
                raise
        return
    drivers = (existing.get("spec") or {}).get("drivers") or []
    if any(isinstance(d, dict) and d.get("name") == DRIVER for d in drivers):
        return
    existing["spec"] = {**(existing.get("spec") or {}), "drivers": [*drivers, driver_entry(node)]}
    try:
        await client.update(existing)
    except errors.StatusError as exc:
        if exc.code not in (404, 409):
            raise
