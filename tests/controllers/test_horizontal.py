"""The horizontal Pod autoscaler in the controller manager: its status, conditions and events when it cannot scale."""

from __future__ import annotations

from typing import Any

from .helpers import Cluster, deployment


def autoscaler(target: str = "myapp", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "myapp", "namespace": "default"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target},
                 "minReplicas": 1, "maxReplicas": 5, **spec},
    }


async def status(cluster: Cluster) -> dict[str, Any]:
    return (await cluster.kubectl.get("horizontalpodautoscalers", "myapp", "default"))["status"]


def conditions(found: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    return {c["type"]: (c["status"], c["reason"], c["message"]) for c in found.get("conditions") or []}


async def test_a_missing_target_is_reported_as_failed_get_scale(cluster: Cluster) -> None:
    await cluster.kubectl.create(autoscaler(target="nowhere"))
    await cluster.settle(at_least=20)
    got = conditions(await status(cluster))
    assert got["AbleToScale"] == ("False", "FailedGetScale",
                                  'the HPA controller was unable to get the target\'s current scale: '
                                  'deployments.apps "nowhere" not found')
    [event] = await cluster.events("FailedGetScale")
    assert (event["type"], event["message"], event["source"]["component"]) == (
        "Warning", 'deployments.apps "nowhere" not found', "horizontal-pod-autoscaler")


async def test_pods_without_cpu_requests_cannot_be_measured_as_a_utilisation(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment(replicas=2))
    await cluster.kubectl.create(autoscaler())
    await cluster.settle(at_least=20)
    found = await status(cluster)
    active = conditions(found)["ScalingActive"]
    assert active[:2] == ("False", "FailedGetResourceMetric")
    assert active[2].startswith("the HPA was unable to compute the replica count: failed to get cpu utilization: "
                                "missing request for cpu in container myapp of Pod myapp-")
    assert conditions(found)["AbleToScale"][:2] == ("True", "SucceededGetScale")
    assert found["currentReplicas"] == 2 and found["currentMetrics"] == [{"type": ""}]
    [computed] = await cluster.events("FailedComputeMetricsReplicas")
    assert computed["message"].startswith("invalid metrics (1 invalid out of 1), first error is: failed to get cpu "
                                          "utilization: missing request for cpu in container myapp of Pod myapp-")
    # The same warning is not written again every sync, so the cluster settles.
    await cluster.settle(at_least=60)
    assert [e["count"] for e in await cluster.events("FailedComputeMetricsReplicas")] == [1]


async def test_a_target_scaled_to_zero_disables_autoscaling(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment(replicas=0))
    await cluster.kubectl.create(autoscaler())
    await cluster.settle(at_least=20)
    found = await status(cluster)
    assert conditions(found)["ScalingActive"] == (
        "False", "ScalingDisabled", "scaling is disabled since the replica count of the target is zero")
    assert found["desiredReplicas"] == 0 and "currentReplicas" not in found


async def test_replicas_above_the_maximum_are_brought_down_at_once(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment(replicas=8))
    await cluster.kubectl.create(autoscaler())
    await cluster.settle(at_least=20)
    assert (await cluster.kubectl.get("deployments", "myapp", "default"))["spec"]["replicas"] == 5
    [event] = await cluster.events("SuccessfulRescale")
    assert event["message"] == "New size: 5; reason: Current number of replicas above Spec.MaxReplicas"
    found = await status(cluster)
    # The next sync reads the new size (its Pods have no requests, so it has nothing to recommend).
    assert (found["currentReplicas"], found["desiredReplicas"]) == (5, 5) and found["lastScaleTime"]
