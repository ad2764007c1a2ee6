"""The resource quota controller: each quota's status.hard and status.used from its namespace's objects."""

from __future__ import annotations

from typing import Any

from .helpers import Cluster, deployment


def quota(name: str, **hard: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name, "namespace": "default"},
            "spec": {"hard": hard}}


async def status(cluster: Cluster, name: str) -> dict[str, Any]:
    return (await cluster.kubectl.get("resourcequotas", name, "default"))["status"]


async def test_used_counts_running_pods_their_requests_and_object_counts(cluster: Cluster) -> None:
    sized = deployment(replicas=3)
    sized["spec"]["template"]["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "200m"},
                                                                       "limits": {"memory": "64Mi"}}
    await cluster.kubectl.create(quota("compute", **{"pods": "10", "requests.cpu": "2", "limits.memory": "1Gi",
                                                     "count/deployments.apps": "5", "services": "4"}))
    await cluster.kubectl.create(sized)
    await cluster.settle()
    got = await status(cluster, "compute")
    assert got["hard"] == {"pods": "10", "requests.cpu": "2", "limits.memory": "1Gi", "count/deployments.apps": "5",
                           "services": "4"}
    # The default namespace holds the kubernetes Service.
    assert got["used"] == {"pods": "3", "requests.cpu": "600m", "limits.memory": "192Mi",
                           "count/deployments.apps": "1", "services": "1"}

    await cluster.kubectl.patch("deployments", "myapp", {"spec": {"replicas": 1}}, "default")
    await cluster.settle()
    assert (await status(cluster, "compute"))["used"]["pods"] == "1"


async def test_a_replica_set_past_the_quota_reports_the_refusal(cluster: Cluster) -> None:
    await cluster.kubectl.create(quota("pods", pods="2"))
    await cluster.kubectl.create(deployment(replicas=3))
    await cluster.settle()
    pods = (await cluster.kubectl.list("pods", "default"))["items"]
    assert len(pods) == 2
    [failed, *_] = await cluster.events("FailedCreate")
    assert failed["message"].startswith('Error creating: pods "myapp-')
    assert failed["message"].endswith('is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, '
                                      "limited: pods=2")
    [rs] = (await cluster.kubectl.list("replicasets", "default"))["items"]
    [condition] = rs["status"]["conditions"]
    assert (condition["type"], condition["reason"]) == ("ReplicaFailure", "FailedCreate")
    assert (await status(cluster, "pods"))["used"] == {"pods": "2"}
