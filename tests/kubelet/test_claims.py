"""Pods with PersistentVolumeClaims: the kubelet waits for the claim to be Bound; each node's CSINode."""

from __future__ import annotations

from typing import Any

from .helpers import events_of, kubectl, let_time_pass, pinned_pod, pod

Obj = dict[str, Any]


def claim(name: str = "data", **spec: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, **spec}}


def with_claim(name: str, claim_name: str = "data") -> Obj:
    body = pinned_pod(name)
    body["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": claim_name}}]
    body["spec"]["containers"][0]["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    return body


def waiting_reason(obj: Obj) -> str:
    return obj["status"]["containerStatuses"][0]["state"].get("waiting", {}).get("reason", "")


async def test_a_pod_waits_in_container_creating_until_its_claim_is_bound(sim):
    await kubectl().create(claim())  # the default class: WaitForFirstConsumer
    await kubectl().create(with_claim("db"))
    await sim.engine.until_settled()
    waiting = await pod("db")
    assert waiting["status"]["phase"] == "Pending" and waiting_reason(waiting) == "ContainerCreating"
    [mount] = [e for e in await events_of("db") if e["reason"] == "FailedMount"]
    names = sorted(v["name"] for v in waiting["spec"]["volumes"])
    assert mount["type"] == "Warning" and mount["source"]["component"] == "kubelet"
    assert mount["message"] == (
        f"Unable to attach or mount volumes: unmounted volumes=[{' '.join(names)}], unattached volumes=["
        f"{' '.join(names)}], failed to process volumes=[data]: error processing PVC default/data: PVC is not bound"
    )

    await kubectl().patch("persistentvolumeclaims", "data",
                          {"metadata": {"annotations": {"volume.kubernetes.io/selected-node": "node01"}}}, "default")
    await sim.engine.until_settled()
    await let_time_pass()
    await sim.engine.until_settled()
    assert (await kubectl().get("persistentvolumeclaims", "data", "default"))["status"]["phase"] == "Bound"
    assert (await pod("db"))["status"]["phase"] == "Running"


async def test_a_missing_claim_is_named_in_the_failed_mount(sim):
    await kubectl().create(with_claim("orphan", "nowhere"))
    await sim.engine.until_settled()
    [mount] = [e for e in await events_of("orphan") if e["reason"] == "FailedMount"]
    assert mount["message"].endswith(
        'error processing PVC default/nowhere: failed to fetch PVC from API server: '
        'persistentvolumeclaims "nowhere" not found'
    )


async def test_every_node_registers_the_csi_driver_in_its_csinode(sim):
    await sim.engine.until_settled()
    listed = (await kubectl().list("csinodes"))["items"]
    assert sorted(n["metadata"]["name"] for n in listed) == ["node01", "node02", "node03"]
    node01 = next(n for n in listed if n["metadata"]["name"] == "node01")
    assert node01["spec"]["drivers"] == [{"name": "hostpath.csi.clusterviz.io", "nodeID": "node01",
                                          "topologyKeys": ["kubernetes.io/hostname"], "allocatable": {"count": 16}}]
    [owner] = node01["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["name"]) == ("Node", "node01")
