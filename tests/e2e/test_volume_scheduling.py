"""Scheduling Pods with PersistentVolumeClaims, through the machine's real kubectl against Daphne in fast-forward.

A claim of the default class (``standard``, WaitForFirstConsumer) is provisioned on the node its
Pod is bound to; a Pod whose claim can only bind to a volume pinned to one node lands there; a
Pod whose claim nothing satisfies gets upstream's FailedScheduling message and is scheduled once
a volume for it appears.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import Kubectl
from tests.e2e import test_control_plane as control_plane
from tests.e2e.test_control_plane import apply, ok, poll

cluster_kubectl = control_plane.cluster_kubectl  # the fixture: a fresh three-node cluster per test

LOCAL_CLASS = """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: local
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
"""


def claim(name: str, storage_class: str = "") -> str:
    class_line = f"  storageClassName: {storage_class}\n" if storage_class else ""
    return (
        f"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: {name}\nspec:\n{class_line}"
        "  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi\n"
    )


def pod(name: str, claim_name: str) -> str:
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n"
        "  containers:\n  - name: app\n    image: nginx:1.27\n    volumeMounts:\n    - name: data\n"
        "      mountPath: /data\n"
        f"  volumes:\n  - name: data\n    persistentVolumeClaim:\n      claimName: {claim_name}\n"
    )


def local_volume(name: str, node: str) -> str:
    return (
        f"apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: {name}\nspec:\n"
        "  capacity:\n    storage: 5Gi\n  accessModes: [ReadWriteOnce]\n  storageClassName: local\n"
        "  persistentVolumeReclaimPolicy: Retain\n  local:\n    path: /mnt/disks/vol1\n"
        "  nodeAffinity:\n    required:\n      nodeSelectorTerms:\n      - matchExpressions:\n"
        f"        - key: kubernetes.io/hostname\n          operator: In\n          values: [{node}]\n"
    )


def get(kubectl: Kubectl, *what: str) -> dict[str, Any]:
    return json.loads(ok(kubectl("get", *what, "-o", "json")))


def hosts(volume: dict[str, Any]) -> list[str]:
    """The hostnames a volume's required node affinity allows."""
    terms = volume["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"]
    return [v for t in terms for e in t.get("matchExpressions") or [] for v in e.get("values") or []]


def test_a_wait_for_first_consumer_claim_is_provisioned_on_the_pods_node(
    cluster_kubectl: Kubectl, tmp_path: Path
) -> None:
    kubectl = cluster_kubectl
    apply(kubectl, tmp_path, claim("data"), "claim.yaml")
    assert get(kubectl, "pvc", "data")["status"]["phase"] == "Pending"
    apply(kubectl, tmp_path, pod("writer", "data"), "pod.yaml")
    bound = poll(lambda: get(kubectl, "pod", "writer"), lambda p: p["spec"].get("nodeName"))
    node = bound["spec"]["nodeName"]
    pvc = poll(lambda: get(kubectl, "pvc", "data"), lambda c: c["status"].get("phase") == "Bound")
    assert pvc["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] == node
    assert pvc["spec"]["storageClassName"] == "standard"
    volume = get(kubectl, "pv", pvc["spec"]["volumeName"])
    assert hosts(volume) == [node]
    assert volume["spec"]["claimRef"]["name"] == "data"
    described = ok(kubectl("describe", "pod", "writer"))
    assert f"Successfully assigned default/writer to {node}" in described


def test_a_pod_lands_on_the_node_its_claims_volume_is_pinned_to(cluster_kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl = cluster_kubectl
    apply(kubectl, tmp_path, LOCAL_CLASS + "---\n" + local_volume("disk-node03", "node03"), "storage.yaml")
    apply(kubectl, tmp_path, claim("pinned", "local") + "---\n" + pod("reader", "pinned"), "pod.yaml")
    bound = poll(lambda: get(kubectl, "pod", "reader"), lambda p: p["spec"].get("nodeName"))
    assert bound["spec"]["nodeName"] == "node03"
    pvc = poll(lambda: get(kubectl, "pvc", "pinned"), lambda c: c["status"].get("phase") == "Bound")
    assert pvc["spec"]["volumeName"] == "disk-node03"
    assert get(kubectl, "pv", "disk-node03")["spec"]["claimRef"]["name"] == "pinned"


def test_an_unsatisfiable_claim_gets_upstreams_failed_scheduling_message(
    cluster_kubectl: Kubectl, tmp_path: Path
) -> None:
    kubectl = cluster_kubectl
    apply(kubectl, tmp_path, LOCAL_CLASS + "---\n" + claim("nowhere", "local") + "---\n" + pod("stuck", "nowhere"))

    def failures() -> list[str]:
        listed = get(kubectl, "events", "--field-selector", "involvedObject.name=stuck,reason=FailedScheduling")
        return [e["message"] for e in listed["items"]]

    message = poll(failures, bool)[0]
    assert message == (
        "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind. "
        "no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )
    condition = next(c for c in get(kubectl, "pod", "stuck")["status"]["conditions"] if c["type"] == "PodScheduled")
    assert (condition["status"], condition["reason"], condition["message"]) == ("False", "Unschedulable", message)

    apply(kubectl, tmp_path, local_volume("disk-node01", "node01"), "volume.yaml")
    bound = poll(lambda: get(kubectl, "pod", "stuck"), lambda p: p["spec"].get("nodeName"))
    assert bound["spec"]["nodeName"] == "node01"
