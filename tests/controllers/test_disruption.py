"""The disruption controller: each budget's status from the Pods it selects and their controllers' scale."""

from __future__ import annotations

from typing import Any

from .helpers import Cluster, deployment


def budget(name: str = "myapp", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": name}}, **spec},
    }


async def status(cluster: Cluster, name: str = "myapp") -> dict[str, Any]:
    return (await cluster.kubectl.get("poddisruptionbudgets", name, "default"))["status"]


async def test_min_available_counts_ready_pods(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment(replicas=3))
    await cluster.kubectl.create(budget(minAvailable=2))
    await cluster.settle()
    got = await status(cluster)
    assert {k: got[k] for k in ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods")} == {
        "disruptionsAllowed": 1, "currentHealthy": 3, "desiredHealthy": 2, "expectedPods": 3,
    }
    [condition] = got["conditions"]
    assert (condition["type"], condition["status"], condition["reason"]) == ("DisruptionAllowed", "True", "SufficientPods")
    assert got["observedGeneration"] == 1


async def test_max_unavailable_percent_uses_the_deployments_scale_rounded_up(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment(replicas=4))
    await cluster.kubectl.create(budget(maxUnavailable="30%"))  # 30% of 4 = 1.2, rounded up to 2
    await cluster.settle()
    got = await status(cluster)
    assert (got["expectedPods"], got["desiredHealthy"], got["disruptionsAllowed"]) == (4, 2, 2)

    await cluster.kubectl.patch("deployments", "myapp", {"spec": {"replicas": 1}}, "default")
    await cluster.settle()
    got = await status(cluster)
    assert (got["expectedPods"], got["currentHealthy"], got["disruptionsAllowed"]) == (1, 1, 1)


async def test_a_budget_over_pods_without_a_controller_fails_safe(cluster: Cluster) -> None:
    bare = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "loner", "namespace": "default", "labels": {"app": "loner"}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }
    await cluster.kubectl.create(bare)
    await cluster.kubectl.create(budget("loner", maxUnavailable=1))
    await cluster.settle()
    got = await status(cluster, "loner")
    assert got["disruptionsAllowed"] == 0
    assert got["conditions"][0]["reason"] == "SyncFailed"
    [event] = await cluster.events("CalculateExpectedPodCountFailed")
    assert event["message"] == (
        "Failed to calculate the number of expected pods: found no controllers for pod \"loner\""
    )
