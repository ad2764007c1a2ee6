"""kubectl get pv, pvc, storageclass and csinode: upstream's columns and cells."""

from __future__ import annotations

from datetime import UTC, datetime

from clusterviz.api.tables import build_table, column_definitions

NOW = datetime(2025, 1, 1, 1, 0, 0, tzinfo=UTC)
CREATED = "2025-01-01T00:00:00Z"


def cells(resource: str, obj: dict) -> list:
    [row] = build_table(resource, [obj], NOW)["rows"]
    return row["cells"]


def names(resource: str) -> list[tuple[str, int]]:
    return [(c["name"], c["priority"]) for c in column_definitions(resource)]


def test_the_columns_are_upstreams():
    assert names("pv") == [("Name", 0), ("Capacity", 0), ("Access Modes", 0), ("Reclaim Policy", 0), ("Status", 0),
                           ("Claim", 0), ("StorageClass", 0), ("VolumeAttributesClass", 0), ("Reason", 0),
                           ("Age", 0), ("VolumeMode", 1)]
    assert names("persistentvolumeclaims") == [("Name", 0), ("Status", 0), ("Volume", 0), ("Capacity", 0),
                                               ("Access Modes", 0), ("StorageClass", 0),
                                               ("VolumeAttributesClass", 0), ("Age", 0), ("VolumeMode", 1)]
    assert names("storageclasses.storage.k8s.io") == [("Name", 0), ("Provisioner", 0), ("ReclaimPolicy", 0),
                                                      ("VolumeBindingMode", 0), ("AllowVolumeExpansion", 0),
                                                      ("Age", 0)]
    assert names("csinodes") == [("Name", 0), ("Drivers", 0), ("Age", 0)]


def test_a_bound_volume_names_its_claim_and_abbreviates_its_modes_in_upstreams_order():
    pv = {"metadata": {"name": "pv1", "creationTimestamp": CREATED},
          "spec": {"capacity": {"storage": "1024Mi"}, "accessModes": ["ReadWriteMany", "ReadWriteOnce"],
                   "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "manual", "volumeMode": "Filesystem",
                   "claimRef": {"namespace": "default", "name": "data"}},
          "status": {"phase": "Bound"}}
    assert cells("persistentvolumes", pv) == ["pv1", "1Gi", "RWO,RWX", "Retain", "Bound", "default/data", "manual",
                                              "<unset>", "", "60m", "Filesystem"]
    pv["metadata"]["deletionTimestamp"] = CREATED
    assert cells("persistentvolumes", pv)[4] == "Terminating"


def test_a_claim_shows_capacity_and_modes_only_once_bound():
    pvc = {"metadata": {"name": "data", "namespace": "default", "creationTimestamp": CREATED},
           "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
                    "storageClassName": "standard", "volumeMode": "Filesystem"},
           "status": {"phase": "Pending"}}
    assert cells("pvc", pvc) == ["data", "Pending", "", "", "", "standard", "<unset>", "60m", "Filesystem"]
    pvc["spec"]["volumeName"] = "pvc-1"
    pvc["status"] = {"phase": "Bound", "capacity": {"storage": "2Gi"}, "accessModes": ["ReadWriteOnce"]}
    assert cells("pvc", pvc)[:5] == ["data", "Bound", "pvc-1", "2Gi", "RWO"]


def test_the_default_class_is_marked_after_its_name():
    sc = {"metadata": {"name": "standard", "creationTimestamp": CREATED,
                       "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
          "provisioner": "hostpath.csi.clusterviz.io", "reclaimPolicy": "Delete", "volumeBindingMode": "WaitForFirstConsumer"}
    assert cells("sc", sc) == ["standard (default)", "hostpath.csi.clusterviz.io", "Delete", "WaitForFirstConsumer",
                               False, "60m"]


def test_a_csi_node_counts_its_drivers():
    node = {"metadata": {"name": "node01", "creationTimestamp": CREATED},
            "spec": {"drivers": [{"name": "hostpath.csi.clusterviz.io", "nodeID": "node01"}]}}
    assert cells("csinodes", node) == ["node01", 1, "60m"]
