"""The garbage collector: dependents go when their owners do."""

from __future__ import annotations

from .helpers import Cluster, deployment


async def test_deleting_a_deployment_removes_its_replica_sets_and_pods(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment())
    await cluster.settle()
    assert len(await cluster.pods("app=myapp")) == 3

    await cluster.kubectl.delete("deployments", "myapp", "default")
    await cluster.settle()
    assert (await cluster.kubectl.list("replicasets", "default"))["items"] == []
    assert await cluster.pods("app=myapp", active_only=False) == []


async def test_deleting_a_replica_set_removes_its_pods_and_the_deployment_makes_a_new_one(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment(replicas=2))
    await cluster.settle()
    rs = (await cluster.kubectl.list("replicasets", "default"))["items"][0]
    old_pods = {p["metadata"]["name"] for p in await cluster.pods("app=myapp")}

    await cluster.kubectl.delete("replicasets", rs["metadata"]["name"], "default")
    await cluster.settle()
    [again] = (await cluster.kubectl.list("replicasets", "default"))["items"]
    assert again["metadata"]["name"] == rs["metadata"]["name"] and again["metadata"]["uid"] != rs["metadata"]["uid"]
    pods = await cluster.pods("app=myapp", active_only=False)
    assert len(pods) == 2 and not old_pods & {p["metadata"]["name"] for p in pods}


async def test_an_object_whose_owner_never_existed_is_collected(cluster: Cluster) -> None:
    ghost = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "name": "ghost",
        "uid": "00000000-0000-0000-0000-000000000000",
        "controller": True,
    }
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "orphaned", "namespace": "default", "ownerReferences": [ghost]},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]},
    }
    await cluster.kubectl.create(pod)
    await cluster.settle()
    assert await cluster.kubectl.get_or_none("pods", "orphaned", "default") is None


async def test_a_dangling_reference_is_dropped_when_another_owner_remains(cluster: Cluster) -> None:
    owner = await cluster.kubectl.create(
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "keeper", "namespace": "default"},
            "spec": {"ports": [{"port": 80}]},
        }
    )
    refs = [
        {"apiVersion": "v1", "kind": "Service", "name": "keeper", "uid": owner["metadata"]["uid"]},
        {"apiVersion": "apps/v1", "kind": "Deployment", "name": "gone", "uid": "11111111-1111-1111-1111-111111111111"},
    ]
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "shared", "namespace": "default", "ownerReferences": refs},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]},
    }
    await cluster.kubectl.create(pod)
    await cluster.settle()
    kept = await cluster.kubectl.get("pods", "shared", "default")
    assert [r["name"] for r in kept["metadata"]["ownerReferences"]] == ["keeper"]
