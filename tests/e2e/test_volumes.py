"""PersistentVolumes, claims and StorageClasses through the machine's real kubectl against Daphne in fast-forward.

A manual volume and a claim of its class are Bound; a claim of the Immediate class ``fast`` is
provisioned at once; one of the default class ``standard`` (WaitForFirstConsumer) waits with its
event until a node is selected for it, then is provisioned there; a StatefulSet's volumeClaimTemplates
make a claim per Pod; ``kubectl apply --prune`` prunes claims; and
``kubectl describe`` prints each kind; ``kubectl explain`` and the official Python client know them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from kubernetes import client

from tests.conftest import Kubectl
from tests.e2e import test_control_plane as control_plane
from tests.e2e.test_control_plane import apply, ok, poll
from tests.livesim import LiveServer, wait_until

cluster_kubectl = control_plane.cluster_kubectl  # the fixture: a fresh three-node cluster per test

MANUAL = """apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv1
  labels: {disk: ssd}
spec:
  storageClassName: manual
  capacity: {storage: 2Gi}
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  hostPath: {path: /mnt/data}
"""


def claim(name: str, storage_class: str | None = None, size: str = "1Gi") -> str:
    class_line = f"  storageClassName: {storage_class}\n" if storage_class is not None else ""
    return (
        f"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: {name}\nspec:\n{class_line}"
        f"  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: {size}\n"
    )


def get(kubectl: Kubectl, *what: str) -> dict[str, Any]:
    return json.loads(ok(kubectl("get", *what, "-o", "json")))


def bound(kubectl: Kubectl, name: str) -> dict[str, Any]:
    return poll(lambda: get(kubectl, "pvc", name), lambda c: c["status"].get("phase") == "Bound")


def rows(text: str) -> list[list[str]]:
    return [re.split(r"\s{2,}", line.strip()) for line in text.strip().splitlines()]


def test_a_volume_and_a_claim_of_its_class_are_bound(cluster_kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl = cluster_kubectl
    apply(kubectl, tmp_path, MANUAL + "---\n" + claim("data", "manual"))
    pvc = bound(kubectl, "data")
    assert pvc["spec"]["volumeName"] == "pv1"
    table = rows(ok(kubectl("get", "pv,pvc", "-o", "wide")))
    pv_header, pv_row = table[0], table[1]
    assert pv_header == ["NAME", "CAPACITY", "ACCESS MODES", "RECLAIM POLICY", "STATUS", "CLAIM", "STORAGECLASS",
                         "VOLUMEATTRIBUTESCLASS", "REASON", "AGE", "VOLUMEMODE"]
    assert pv_row[:8] == ["persistentvolume/pv1", "2Gi", "RWO,ROX", "Retain", "Bound", "default/data", "manual",
                          "<unset>"]
    assert pv_row[-1] == "Filesystem"
    pvc_header, pvc_row = table[3], table[4]
    assert pvc_header == ["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS",
                          "VOLUMEATTRIBUTESCLASS", "AGE", "VOLUMEMODE"]
    assert pvc_row[:7] == ["persistentvolumeclaim/data", "Bound", "pv1", "2Gi", "RWO,ROX", "manual", "<unset>"]
    described = ok(kubectl("describe", "pv", "pv1"))
    for line in ("Name:            pv1", "Labels:          disk=ssd", "StorageClass:    manual", "Status:          Bound",
                 "Claim:           default/data", "Reclaim Policy:  Retain", "Access Modes:    RWO,ROX",
                 "VolumeMode:      Filesystem", "Capacity:        2Gi", "    Type:          HostPath (bare host directory volume)",
                 "    Path:          /mnt/data"):
        assert line in described, described
    grow = kubectl("patch", "pvc", "data", "-p", '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}')
    assert grow.returncode != 0
    assert grow.stderr.strip() == (
        'Error from server (Forbidden): persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc '
        "can be resized and the storageclass that provisions the pvc must support resize"
    )
    described = ok(kubectl("describe", "pvc", "data"))
    for line in ("Name:          data", "StorageClass:  manual", "Status:        Bound", "Volume:        pv1",
                 "Capacity:      2Gi", "Access Modes:  RWO,ROX", "VolumeMode:    Filesystem", "Used By:       <none>"):
        assert line in described, described


def test_the_built_in_classes_and_an_immediate_claim_provisioned_at_once(cluster_kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl = cluster_kubectl
    table = rows(ok(kubectl("get", "storageclasses")))
    assert table[0] == ["NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE", "ALLOWVOLUMEEXPANSION", "AGE"]
    assert [r[:5] for r in table[1:]] == [
        ["fast", "hostpath.csi.clusterviz.io", "Delete", "Immediate", "true"],
        ["standard (default)", "hostpath.csi.clusterviz.io", "Delete", "WaitForFirstConsumer", "false"],
    ]
    assert "IsDefaultClass:        Yes" in ok(kubectl("describe", "sc", "standard"))
    apply(kubectl, tmp_path, claim("quick", "fast"))
    pvc = bound(kubectl, "quick")
    assert pvc["spec"]["volumeName"] == f"pvc-{pvc['metadata']['uid']}"
    events = ok(kubectl("describe", "pvc", "quick")).split("\nEvents:", 1)[1]
    for reason in ("ExternalProvisioning", "Provisioning", "ProvisioningSucceeded"):
        assert reason in events, events
    assert [n["metadata"]["name"] for n in get(kubectl, "csinodes")["items"]] == ["node01", "node02", "node03"]
    ok(kubectl("patch", "pvc", "quick", "-p", '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}'))
    grown = poll(lambda: get(kubectl, "pvc", "quick"), lambda c: c["status"]["capacity"]["storage"] == "2Gi")
    assert get(kubectl, "pv", grown["spec"]["volumeName"])["spec"]["capacity"]["storage"] == "2Gi"
    assert "Resize volume succeeded" in ok(kubectl("describe", "pvc", "quick"))


def test_a_wait_for_first_consumer_claim_waits_for_its_node(cluster_kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl = cluster_kubectl
    apply(kubectl, tmp_path, claim("later"))
    pvc = get(kubectl, "pvc", "later")
    assert (pvc["spec"]["storageClassName"], pvc["status"]["phase"]) == ("standard", "Pending")
    poll(lambda: ok(kubectl("describe", "pvc", "later")),
         lambda out: "waiting for first consumer to be created before binding" in out)
    ok(kubectl("annotate", "pvc", "later", "volume.kubernetes.io/selected-node=node02"))
    pvc = bound(kubectl, "later")
    volume = get(kubectl, "pv", pvc["spec"]["volumeName"])
    [term] = volume["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"]
    assert term["matchExpressions"] == [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["node02"]}]
    assert volume["spec"]["persistentVolumeReclaimPolicy"] == "Delete"
    ok(kubectl("delete", "pvc", "later"))
    poll(lambda: kubectl("get", "pv", pvc["spec"]["volumeName"]).returncode, lambda rc: rc != 0)


def test_a_stateful_sets_claim_templates_make_a_claim_per_pod(cluster_kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl = cluster_kubectl
    apply(kubectl, tmp_path, (
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: web\nspec:\n  serviceName: web\n  replicas: 2\n"
        "  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n"
        "    spec:\n      containers:\n      - name: nginx\n        image: nginx:1.27\n        volumeMounts:\n"
        "        - {name: data, mountPath: /usr/share/nginx/html}\n"
        "  volumeClaimTemplates:\n  - metadata:\n      name: data\n    spec:\n      accessModes: [ReadWriteOnce]\n"
        "      storageClassName: fast\n      resources:\n        requests:\n          storage: 1Gi\n"
    ))
    ok(kubectl("rollout", "status", "sts/web", "--timeout=90s"))
    for name in ("data-web-0", "data-web-1"):
        bound(kubectl, name)
    described = ok(kubectl("describe", "pod", "web-1"))
    assert "    Type:       PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)" in described
    assert "    ClaimName:  data-web-1" in described
    assert "Used By:       web-0" in ok(kubectl("describe", "pvc", "data-web-0"))


def test_apply_prune_removes_a_claim_left_out(cluster_kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl = cluster_kubectl
    allow = ("--prune-allowlist=core/v1/ConfigMap", "--prune-allowlist=core/v1/PersistentVolumeClaim",
             "--prune-allowlist=core/v1/PersistentVolume")
    manifest = tmp_path / "set.yaml"
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  labels: {set: demo}\n"
    scratch = claim("scratch", "fast").replace("  name: scratch\n", "  name: scratch\n  labels: {set: demo}\n")
    manifest.write_text(config + "---\n" + scratch)
    assert ok(kubectl("apply", "--prune", "-l", "set=demo", *allow, "-f", str(manifest))).splitlines() == [
        "configmap/settings created", "persistentvolumeclaim/scratch created"]
    manifest.write_text(config)
    assert ok(kubectl("apply", "--prune", "-l", "set=demo", *allow, "-f", str(manifest))).splitlines() == [
        "configmap/settings unchanged", "persistentvolumeclaim/scratch pruned"]


def test_kubectl_explain_and_describe_know_the_storage_kinds(cluster_kubectl: Kubectl) -> None:
    kubectl = cluster_kubectl
    assert "FIELD: storageClassName <string>" in ok(kubectl("explain", "pvc.spec.storageClassName"))
    assert "FIELD: volumeBindingMode <string>" in ok(kubectl("explain", "sc.volumeBindingMode"))
    assert "GROUP:      storage.k8s.io" in ok(kubectl("explain", "csinodes"))
    described = ok(kubectl("describe", "csinode", "node01"))
    assert re.search(r"Drivers:\n\s+hostpath.csi.clusterviz.io:\n\s+Node ID:\s+node01", described), described
    assert re.search(r"Count:\s+16", described), described


def test_the_python_client_reads_and_writes_claims_and_classes(live: LiveServer) -> None:
    config = client.Configuration(host=live.cluster_url("demo"))
    with client.ApiClient(config) as api:
        core, storage = client.CoreV1Api(api), client.StorageV1Api(api)
        classes = {c.metadata.name: c for c in storage.list_storage_class().items}
        assert classes["standard"].volume_binding_mode == "WaitForFirstConsumer"
        assert classes["fast"].provisioner == "hostpath.csi.clusterviz.io"
        body = client.V1PersistentVolumeClaim(
            metadata=client.V1ObjectMeta(name="py-claim"),
            spec=client.V1PersistentVolumeClaimSpec(
                access_modes=["ReadWriteOnce"], storage_class_name="fast",
                resources=client.V1VolumeResourceRequirements(requests={"storage": "1Gi"}),
            ),
        )
        created = core.create_namespaced_persistent_volume_claim("default", body)
        assert created.status.phase == "Pending" and created.spec.volume_mode == "Filesystem"
        assert wait_until(lambda: core.read_namespaced_persistent_volume_claim("py-claim", "default").status.phase == "Bound")
        claimed = core.read_namespaced_persistent_volume_claim("py-claim", "default")
        volume = core.read_persistent_volume(claimed.spec.volume_name)
        assert volume.spec.claim_ref.name == "py-claim" and volume.spec.csi.driver == "hostpath.csi.clusterviz.io"
        csi_nodes = storage.list_csi_node().items
        assert csi_nodes and all(n.spec.drivers[0].name == "hostpath.csi.clusterviz.io" for n in csi_nodes)
        core.delete_namespaced_persistent_volume_claim("py-claim", "default")


def test_a_stateful_sets_default_class_claims_are_made_on_their_pods_nodes(cluster_kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl = cluster_kubectl
    apply(kubectl, tmp_path, (
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\nspec:\n  serviceName: db\n  replicas: 2\n"
        "  selector:\n    matchLabels: {app: db}\n  template:\n    metadata:\n      labels: {app: db}\n"
        "    spec:\n      containers:\n      - name: redis\n        image: redis:7\n        volumeMounts:\n"
        "        - {name: data, mountPath: /data}\n"
        "  volumeClaimTemplates:\n  - metadata:\n      name: data\n    spec:\n      accessModes: [ReadWriteOnce]\n"
        "      resources:\n        requests:\n          storage: 1Gi\n"
    ))
    ok(kubectl("rollout", "status", "sts/db", "--timeout=90s"))
    for ordinal in (0, 1):
        pvc = bound(kubectl, f"data-db-{ordinal}")
        node = get(kubectl, "pod", f"db-{ordinal}")["spec"]["nodeName"]
        assert pvc["spec"]["storageClassName"] == "standard"
        assert pvc["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] == node
        [term] = get(kubectl, "pv", pvc["spec"]["volumeName"])["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"]
        assert term["matchExpressions"][0]["values"] == [node]
