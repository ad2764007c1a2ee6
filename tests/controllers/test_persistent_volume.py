"""The PV controller and the provisioner: binding, provisioning on a node or zone, release and reclaim."""

from __future__ import annotations

from typing import Any

from .helpers import Cluster

SELECTED_NODE = "volume.kubernetes.io/selected-node"


def volume(name: str = "pv1", size: str = "1Gi", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": f"/mnt/{name}"},
                     "storageClassName": "manual", **spec}}


def claim(name: str = "data", size: str = "1Gi", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}, **spec}}


async def get(cluster: Cluster, plural: str, name: str) -> dict[str, Any]:
    return await cluster.kubectl.get(plural, name, "" if plural == "persistentvolumes" else "default")


async def claim_events(cluster: Cluster) -> list[dict[str, Any]]:
    return [e for e in await cluster.events() if e["involvedObject"]["kind"] == "PersistentVolumeClaim"]


async def test_a_claim_binds_the_smallest_matching_available_volume(cluster: Cluster) -> None:
    for name, size in (("big", "10Gi"), ("small", "2Gi"), ("tiny", "500Mi")):
        await cluster.kubectl.create(volume(name, size))
    await cluster.kubectl.create(volume("rwx", "2Gi", accessModes=["ReadWriteMany"]))
    await cluster.settle()
    assert (await get(cluster, "persistentvolumes", "small"))["status"]["phase"] == "Available"
    await cluster.kubectl.create(claim(storageClassName="manual"))
    await cluster.settle()
    pvc = await get(cluster, "persistentvolumeclaims", "data")
    assert pvc["spec"]["volumeName"] == "small"
    assert pvc["status"] == {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "2Gi"}}
    assert pvc["metadata"]["annotations"] == {"pv.kubernetes.io/bind-completed": "yes",
                                              "pv.kubernetes.io/bound-by-controller": "yes"}
    pv = await get(cluster, "persistentvolumes", "small")
    assert pv["status"]["phase"] == "Bound"
    ref = pv["spec"]["claimRef"]
    assert (ref["kind"], ref["namespace"], ref["name"], ref["uid"]) == (
        "PersistentVolumeClaim", "default", "data", pvc["metadata"]["uid"])
    assert pv["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"] == "yes"


async def test_a_claim_with_no_class_and_no_volume_waits_with_failed_binding(cluster: Cluster) -> None:
    await cluster.kubectl.create(claim(storageClassName=""))
    await cluster.settle()
    assert (await get(cluster, "persistentvolumeclaims", "data"))["status"]["phase"] == "Pending"
    [event] = await cluster.events("FailedBinding")
    assert event["message"] == "no persistent volumes available for this claim and no storage class is set"
    assert event["source"]["component"] == "persistentvolume-controller"


async def test_an_immediate_class_provisions_at_once(cluster: Cluster) -> None:
    await cluster.kubectl.create(claim(storageClassName="fast"))
    await cluster.settle()
    pvc = await get(cluster, "persistentvolumeclaims", "data")
    name = f"pvc-{pvc['metadata']['uid']}"
    assert pvc["status"]["phase"] == "Bound" and pvc["spec"]["volumeName"] == name
    assert pvc["metadata"]["annotations"]["volume.kubernetes.io/storage-provisioner"] == "hostpath.csi.clusterviz.io"
    pv = await get(cluster, "persistentvolumes", name)
    assert pv["spec"]["persistentVolumeReclaimPolicy"] == "Delete" and pv["spec"]["storageClassName"] == "fast"
    assert pv["status"]["phase"] == "Bound"
    [term] = pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"]
    assert term["matchExpressions"][0]["key"] == "kubernetes.io/hostname"  # the demo nodes have no zone
    reasons = [e["reason"] for e in await claim_events(cluster)]
    assert reasons == ["ExternalProvisioning", "Provisioning", "ProvisioningSucceeded"]


async def test_a_zonal_class_provisions_for_the_nodes_zone(cluster: Cluster) -> None:
    for node, zone in (("node01", "zone-a"), ("node02", "zone-b"), ("node03", "zone-b")):
        await cluster.kubectl.patch("nodes", node, {"metadata": {"labels": {"topology.kubernetes.io/zone": zone}}})
    await cluster.kubectl.create(claim(storageClassName="fast"))
    await cluster.settle()
    pvc = await get(cluster, "persistentvolumeclaims", "data")
    pv = await get(cluster, "persistentvolumes", pvc["spec"]["volumeName"])
    [expression] = pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"]
    assert expression["key"] == "topology.kubernetes.io/zone" and expression["operator"] == "In"
    assert expression["values"] in (["zone-a"], ["zone-b"])


async def test_wait_for_first_consumer_waits_for_the_selected_node(cluster: Cluster) -> None:
    await cluster.kubectl.create(claim())
    await cluster.settle()
    pvc = await get(cluster, "persistentvolumeclaims", "data")
    assert pvc["spec"]["storageClassName"] == "standard"  # the default class
    assert pvc["status"]["phase"] == "Pending"
    [event] = await claim_events(cluster)
    assert (event["type"], event["reason"], event["message"]) == (
        "Normal", "WaitForFirstConsumer", "waiting for first consumer to be created before binding")
    await cluster.settle(at_least=60)
    assert len(await claim_events(cluster)) == 1  # told once, not on every sync

    await cluster.kubectl.patch("persistentvolumeclaims", "data",
                                {"metadata": {"annotations": {SELECTED_NODE: "node03"}}}, "default")
    await cluster.settle()
    pvc = await get(cluster, "persistentvolumeclaims", "data")
    assert pvc["status"]["phase"] == "Bound"
    pv = await get(cluster, "persistentvolumes", pvc["spec"]["volumeName"])
    assert pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]["values"] == ["node03"]
    assert "pv.kubernetes.io/bound-by-controller" not in pv["metadata"].get("annotations", {})
    assert pv["metadata"]["annotations"]["pv.kubernetes.io/provisioned-by"] == "hostpath.csi.clusterviz.io"


async def test_a_pod_waiting_to_be_scheduled_is_named_in_the_claims_event(cluster: Cluster) -> None:
    cluster.fake.held.add("app")
    await cluster.kubectl.create(claim())
    await cluster.settle()
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "app", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "nginx"}],
                    "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}}
    await cluster.kubectl.create(pod)
    await cluster.settle()
    [event] = await cluster.events("WaitForPodScheduled")
    assert (event["type"], event["message"]) == ("Normal", "waiting for pod app to be scheduled")


async def test_a_deleted_claim_releases_a_retained_volume_and_deletes_a_provisioned_one(cluster: Cluster) -> None:
    await cluster.kubectl.create(volume("kept"))
    await cluster.kubectl.create(claim(storageClassName="manual"))
    await cluster.kubectl.create(claim("scratch", storageClassName="fast"))
    await cluster.settle()
    provisioned = (await get(cluster, "persistentvolumeclaims", "scratch"))["spec"]["volumeName"]
    for name in ("data", "scratch"):
        await cluster.kubectl.delete("persistentvolumeclaims", name, "default")
    await cluster.settle()
    kept = await get(cluster, "persistentvolumes", "kept")
    assert kept["status"]["phase"] == "Released" and kept["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    assert await cluster.kubectl.get_or_none("persistentvolumes", provisioned) is None


async def test_a_claim_in_use_stays_terminating_until_its_pod_is_gone(cluster: Cluster) -> None:
    await cluster.kubectl.create(claim(storageClassName="fast"))
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "app", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "nginx"}],
                    "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}}
    await cluster.kubectl.create(pod)
    await cluster.settle()
    pvc = await get(cluster, "persistentvolumeclaims", "data")
    assert pvc["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"]
    await cluster.kubectl.delete("persistentvolumeclaims", "data", "default")
    await cluster.settle()
    assert (await get(cluster, "persistentvolumeclaims", "data"))["metadata"]["deletionTimestamp"]
    await cluster.kubectl.delete("pods", "app", "default")
    await cluster.settle()
    assert await cluster.kubectl.get_or_none("persistentvolumeclaims", "data", "default") is None
    # Released, deleted by its provisioner and let go by its protection.
    assert await cluster.kubectl.get_or_none("persistentvolumes", pvc["spec"]["volumeName"]) is None


async def test_a_bound_claim_whose_volume_is_deleted_is_lost(cluster: Cluster) -> None:
    await cluster.kubectl.create(volume())
    await cluster.kubectl.create(claim(storageClassName="manual"))
    await cluster.settle()
    await cluster.kubectl.delete("persistentvolumes", "pv1")
    await cluster.settle()
    held = await get(cluster, "persistentvolumes", "pv1")  # Bound: kept by its protection
    assert held["metadata"]["deletionTimestamp"] and held["metadata"]["finalizers"] == ["kubernetes.io/pv-protection"]
    await cluster.kubectl.patch("persistentvolumes", "pv1", {"metadata": {"finalizers": None}})
    await cluster.settle()
    assert (await get(cluster, "persistentvolumeclaims", "data"))["status"]["phase"] == "Lost"
    [event] = await cluster.events("ClaimLost")
    assert event["message"] == "Bound claim has lost its PersistentVolume. Data on the volume is lost!"


async def test_a_claim_naming_its_volume_binds_to_it_or_says_why_not(cluster: Cluster) -> None:
    await cluster.kubectl.create(volume("big", "10Gi"))
    await cluster.kubectl.create(volume("small", "100Mi"))
    await cluster.kubectl.create(claim(storageClassName="manual", volumeName="big"))
    await cluster.kubectl.create(claim("cramped", storageClassName="manual", volumeName="small"))
    await cluster.settle()
    assert (await get(cluster, "persistentvolumeclaims", "data"))["status"]["phase"] == "Bound"
    assert (await get(cluster, "persistentvolumes", "big"))["spec"]["claimRef"]["name"] == "data"
    assert (await get(cluster, "persistentvolumeclaims", "cramped"))["status"]["phase"] == "Pending"
    [event] = await cluster.events("VolumeMismatch")
    assert (event["type"], event["message"]) == ("Warning", 'Cannot bind to requested volume "small": requested PV is too small')


async def test_a_volume_reserved_for_a_claim_by_name_binds_only_that_claim(cluster: Cluster) -> None:
    await cluster.kubectl.create(volume("reserved", claimRef={"namespace": "default", "name": "mine"}))
    await cluster.kubectl.create(claim("other", storageClassName="manual"))
    await cluster.settle()
    assert (await get(cluster, "persistentvolumes", "reserved"))["status"]["phase"] == "Available"
    assert (await get(cluster, "persistentvolumeclaims", "other"))["status"]["phase"] == "Pending"
    await cluster.kubectl.create(claim("mine", storageClassName="manual"))
    await cluster.settle()
    mine = await get(cluster, "persistentvolumeclaims", "mine")
    assert mine["status"]["phase"] == "Bound" and mine["spec"]["volumeName"] == "reserved"
    assert (await get(cluster, "persistentvolumes", "reserved"))["spec"]["claimRef"]["uid"] == mine["metadata"]["uid"]


async def test_a_claim_of_an_expandable_class_grows_with_its_volume(cluster: Cluster) -> None:
    await cluster.kubectl.create(claim(storageClassName="fast"))
    await cluster.settle()
    await cluster.kubectl.patch("persistentvolumeclaims", "data",
                                {"spec": {"resources": {"requests": {"storage": "3Gi"}}}}, "default")
    await cluster.settle()
    pvc = await get(cluster, "persistentvolumeclaims", "data")
    assert pvc["status"]["capacity"] == {"storage": "3Gi"} and pvc["status"]["allocatedResources"] == {"storage": "3Gi"}
    assert "allocatedResourceStatuses" not in pvc["status"]
    assert (await get(cluster, "persistentvolumes", pvc["spec"]["volumeName"]))["spec"]["capacity"] == {"storage": "3Gi"}
    name = pvc["spec"]["volumeName"]
    assert [(e["reason"], e["message"]) for e in await claim_events(cluster)][-2:] == [
        ("Resizing", f"External resizer is resizing volume {name}"), ("VolumeResizeSuccessful", "Resize volume succeeded")]
