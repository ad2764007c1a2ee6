"""Node lifecycle and taint eviction: a silent node turns Unknown, is tainted, and its Pods move."""

from __future__ import annotations

from typing import Any

from clusterviz.controllers.taint_eviction import matching_tolerations

from .helpers import Cluster, deployment

GRACE = 40.0


def taints_of(node: dict[str, Any]) -> set[tuple[str, str]]:
    return {(t["key"], t["effect"]) for t in node["spec"].get("taints", [])}


def ready_of(node: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in node["status"]["conditions"] if c["type"] == "Ready")


async def test_a_node_whose_lease_stops_is_marked_unknown_tainted_and_emptied(cluster: Cluster) -> None:
    cluster.ctx.settings.pod_eviction_timeout = 30.0
    await cluster.kubectl.create(deployment())
    await cluster.settle()
    on_node02 = [p["metadata"]["name"] for p in await cluster.pods("app=myapp") if p["spec"]["nodeName"] == "node02"]
    assert on_node02

    cluster.fake.stop_node("node02")
    stopped_at = cluster.engine.now
    await cluster.settle(at_least=GRACE + 10)

    node = await cluster.kubectl.get("nodes", "node02")
    ready = ready_of(node)
    assert (ready["status"], ready["reason"], ready["message"]) == (
        "Unknown",
        "NodeStatusUnknown",
        "Kubelet stopped posting node status.",
    )
    assert {c["status"] for c in node["status"]["conditions"]} == {"Unknown"}
    assert {
        ("node.kubernetes.io/unreachable", "NoSchedule"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
    } <= taints_of(node)
    assert all("timeAdded" in t for t in node["spec"]["taints"])
    not_ready = [e for e in await cluster.events("NodeNotReady") if e["involvedObject"]["kind"] == "Node"]
    assert [(e["message"], e["source"]["component"]) for e in not_ready] == [
        ("Node node02 status is now: NodeNotReady", "node-controller")
    ]
    marked = [e for e in await cluster.events("NodeNotReady") if e["involvedObject"]["kind"] == "Pod"]
    assert {e["involvedObject"]["name"] for e in marked} == set(on_node02)
    assert all(e["type"] == "Warning" and e["message"] == "Node is not ready" for e in marked)

    evictions = await cluster.events("TaintManagerEviction")
    assert sorted(e["message"] for e in evictions) == sorted(f"Marking for deletion Pod default/{n}" for n in on_node02)
    pods = await cluster.pods("app=myapp")
    assert len(pods) == 3
    assert all(p["spec"]["nodeName"] != "node02" for p in pods)
    assert all(any(c["type"] == "Ready" and c["status"] == "True" for c in p["status"]["conditions"]) for p in pods)
    # Unknown after the grace period, evicted after the (shortened) toleration.
    assert cluster.engine.now - stopped_at >= GRACE + 30.0


async def test_a_node_that_comes_back_loses_its_taints(cluster: Cluster) -> None:
    cluster.fake.stop_node("node03")
    await cluster.settle(at_least=GRACE + 10)
    assert ready_of(await cluster.kubectl.get("nodes", "node03"))["status"] == "Unknown"

    cluster.fake.start_node("node03")
    await cluster.settle(at_least=30)
    node = await cluster.kubectl.get("nodes", "node03")
    assert ready_of(node)["status"] == "True"
    assert not taints_of(node)


async def test_pods_tolerating_the_taint_are_not_evicted(cluster: Cluster) -> None:
    cluster.ctx.settings.pod_eviction_timeout = 20.0
    forever = [{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"}]
    d = deployment(replicas=3)
    d["spec"]["template"]["spec"]["tolerations"] = forever
    await cluster.kubectl.create(d)
    await cluster.settle()
    before = {p["metadata"]["name"] for p in await cluster.pods("app=myapp")}

    cluster.fake.stop_node("node01")
    await cluster.settle(at_least=GRACE + 40)
    assert {p["metadata"]["name"] for p in await cluster.pods("app=myapp")} == before
    assert not await cluster.events("TaintManagerEviction")


async def test_when_every_node_is_silent_nothing_is_evicted(cluster: Cluster) -> None:
    cluster.ctx.settings.pod_eviction_timeout = 20.0
    await cluster.kubectl.create(deployment())
    await cluster.settle()
    for name in ("node01", "node02", "node03"):
        cluster.fake.stop_node(name)
    await cluster.settle(at_least=GRACE + 40)

    nodes = (await cluster.kubectl.list("nodes"))["items"]
    assert all(ready_of(n)["status"] == "Unknown" for n in nodes)
    assert all(("node.kubernetes.io/unreachable", "NoExecute") not in taints_of(n) for n in nodes)
    assert not await cluster.events("TaintManagerEviction")


async def test_cordoning_a_node_adds_the_unschedulable_taint(cluster: Cluster) -> None:
    await cluster.kubectl.patch("nodes", "node01", {"spec": {"unschedulable": True}})
    await cluster.settle()
    assert ("node.kubernetes.io/unschedulable", "NoSchedule") in taints_of(await cluster.kubectl.get("nodes", "node01"))
    await cluster.kubectl.patch("nodes", "node01", {"spec": {"unschedulable": None}})
    await cluster.settle()
    assert not taints_of(await cluster.kubectl.get("nodes", "node01"))


def test_toleration_matching_follows_key_operator_and_effect() -> None:
    taint = {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}
    assert matching_tolerations([taint], [{"operator": "Exists"}])[0]
    assert matching_tolerations(
        [taint],
        [
            {
                "key": "node.kubernetes.io/unreachable",
                "operator": "Exists",
                "effect": "NoExecute",
                "tolerationSeconds": 300,
            }
        ],
    )[0]
    assert not matching_tolerations([taint], [{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}])[0]
    assert not matching_tolerations(
        [taint], [{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoSchedule"}]
    )[0]
    assert matching_tolerations(
        [{"key": "k", "value": "v", "effect": "NoExecute"}], [{"key": "k", "operator": "Equal", "value": "v"}]
    )[0]
