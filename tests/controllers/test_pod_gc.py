"""PodGC: the Pods of a deleted node are force-deleted after the quarantine, and replaced elsewhere."""

from __future__ import annotations

from clusterviz.controllers.pod_gc import QUARANTINE_SECONDS

from .helpers import Cluster, deployment


async def test_the_pods_of_a_deleted_node_go_after_the_quarantine(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment())
    await cluster.settle()
    lost = {p["metadata"]["name"] for p in await cluster.pods("app=myapp") if p["spec"]["nodeName"] == "node02"}
    assert lost

    start = cluster.engine.now
    await cluster.kubectl.delete("nodes", "node02")
    await cluster.settle()
    pods = await cluster.pods("app=myapp", active_only=False)
    assert cluster.engine.now - start >= QUARANTINE_SECONDS
    assert len(pods) == 3 and not lost & {p["metadata"]["name"] for p in pods}
    assert {p["spec"]["nodeName"] for p in pods} <= {"node01", "node03"}


async def test_a_node_back_within_the_quarantine_keeps_its_pods(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment(replicas=3))
    await cluster.settle()
    node = await cluster.kubectl.get("nodes", "node01")
    kept = {p["metadata"]["name"] for p in await cluster.pods("app=myapp") if p["spec"]["nodeName"] == "node01"}

    await cluster.kubectl.delete("nodes", "node01")
    await cluster.kubectl.create(
        {k: v for k, v in node.items() if k != "metadata"}
        | {"metadata": {"name": "node01", "labels": node["metadata"]["labels"]}}
    )
    await cluster.settle()
    assert kept <= {p["metadata"]["name"] for p in await cluster.pods("app=myapp")}
