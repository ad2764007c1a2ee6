"""A StatefulSet's volumeClaimTemplates: a claim per Pod made before it, kept or deleted as the retention policy says."""

from __future__ import annotations

import copy
from typing import Any

from .helpers import Cluster

STATEFUL_SET: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "StatefulSet",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {
        "serviceName": "nginx",
        "replicas": 2,
        "selector": {"matchLabels": {"app": "nginx"}},
        "template": {"metadata": {"labels": {"app": "nginx"}},
                     "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27",
                                              "volumeMounts": [{"name": "data", "mountPath": "/data"}]}]}},
        "volumeClaimTemplates": [{"metadata": {"name": "data", "labels": {"tier": "db"}},
                                  "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                                           "resources": {"requests": {"storage": "1Gi"}}}}],
    },
}


def stateful_set(**spec: Any) -> dict[str, Any]:
    body = copy.deepcopy(STATEFUL_SET)
    body["spec"].update(spec)
    return body


async def claim_names(cluster: Cluster) -> list[str]:
    items = (await cluster.kubectl.list("persistentvolumeclaims", "default"))["items"]
    return sorted(c["metadata"]["name"] for c in items if not c["metadata"].get("deletionTimestamp"))


async def test_each_pod_gets_its_claim_before_it_is_made(cluster: Cluster) -> None:
    await cluster.kubectl.create(stateful_set())
    await cluster.settle()
    assert await claim_names(cluster) == ["data-web-0", "data-web-1"]
    claim = await cluster.kubectl.get("persistentvolumeclaims", "data-web-0", "default")
    assert claim["metadata"]["labels"] == {"tier": "db", "app": "nginx"}
    assert "ownerReferences" not in claim["metadata"]  # Retain: the claim outlives the set
    assert claim["status"]["phase"] == "Bound"  # the Immediate class provisioned it
    pod = await cluster.kubectl.get("pods", "web-1", "default")
    assert {"name": "data", "persistentVolumeClaim": {"claimName": "data-web-1"}} in pod["spec"]["volumes"]
    messages = [e["message"] for e in await cluster.events("SuccessfulCreate")]
    assert messages.index("create Claim data-web-0 Pod web-0 in StatefulSet web success") < messages.index(
        "create Pod web-0 in StatefulSet web successful")


async def test_retained_claims_outlive_a_scale_down_and_are_used_again(cluster: Cluster) -> None:
    await cluster.kubectl.create(stateful_set())
    await cluster.settle()
    uid = (await cluster.kubectl.get("persistentvolumeclaims", "data-web-1", "default"))["metadata"]["uid"]
    await cluster.kubectl.patch("statefulsets", "web", {"spec": {"replicas": 1}}, "default")
    await cluster.settle()
    assert await claim_names(cluster) == ["data-web-0", "data-web-1"]
    await cluster.kubectl.patch("statefulsets", "web", {"spec": {"replicas": 2}}, "default")
    await cluster.settle()
    assert (await cluster.kubectl.get("persistentvolumeclaims", "data-web-1", "default"))["metadata"]["uid"] == uid


async def test_when_scaled_delete_removes_the_condemned_pods_claim(cluster: Cluster) -> None:
    policy = {"whenScaled": "Delete", "whenDeleted": "Retain"}
    await cluster.kubectl.create(stateful_set(persistentVolumeClaimRetentionPolicy=policy))
    await cluster.settle()
    await cluster.kubectl.patch("statefulsets", "web", {"spec": {"replicas": 1}}, "default")
    await cluster.settle()
    assert await claim_names(cluster) == ["data-web-0"]
    assert "ownerReferences" not in (await cluster.kubectl.get("persistentvolumeclaims", "data-web-0", "default"))[
        "metadata"]


async def test_when_deleted_delete_makes_the_set_own_its_claims(cluster: Cluster) -> None:
    policy = {"whenScaled": "Retain", "whenDeleted": "Delete"}
    await cluster.kubectl.create(stateful_set(persistentVolumeClaimRetentionPolicy=policy))
    await cluster.settle()
    sts = await cluster.kubectl.get("statefulsets", "web", "default")
    [ref] = (await cluster.kubectl.get("persistentvolumeclaims", "data-web-0", "default"))["metadata"]["ownerReferences"]
    assert (ref["kind"], ref["name"], ref["uid"]) == ("StatefulSet", "web", sts["metadata"]["uid"])
    await cluster.kubectl.delete("statefulsets", "web", "default")
    await cluster.settle()
    assert await claim_names(cluster) == []
