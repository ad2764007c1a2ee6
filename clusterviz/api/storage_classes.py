"""The StorageClasses every cluster starts with, and the simulated CSI driver that provisions their volumes.

``standard`` is the default class (claims that name none get it): it waits
for the first Pod using a claim to be scheduled and makes the volume on that
Pod's node. ``fast`` binds at once and makes a zonal volume, reachable from
every node of one zone (of one node, where nodes carry no zone label), and
its claims may grow.
"""

from __future__ import annotations

from typing import Any, Final

from .admission.storageclass import DEFAULT_CLASS_ANNOTATION

DRIVER: Final = "hostpath.csi.clusterviz.io"
# The class parameter saying how far a provisioned volume reaches: a node (the default) or a zone.
TOPOLOGY_PARAMETER: Final = "clusterviz.io/topology"
ZONE: Final = "zone"
# How many of the driver's volumes one node can hold, as its CSINode reports.
VOLUMES_PER_NODE: Final = 16


def built_in_storage_classes() -> list[dict[str, Any]]:
    """``standard`` (default, WaitForFirstConsumer, one node) and ``fast`` (Immediate, one zone)."""
    return [
        {
            "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": "standard", "annotations": {DEFAULT_CLASS_ANNOTATION: "true"}},
            "provisioner": DRIVER, "reclaimPolicy": "Delete", "volumeBindingMode": "WaitForFirstConsumer",
        },
        {
            "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": "fast"},
            "provisioner": DRIVER, "parameters": {TOPOLOGY_PARAMETER: ZONE}, "reclaimPolicy": "Delete",
            "volumeBindingMode": "Immediate", "allowVolumeExpansion": True,
        },
    ]
