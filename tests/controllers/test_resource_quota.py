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
