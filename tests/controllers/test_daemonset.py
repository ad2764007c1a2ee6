"""The DaemonSet controller with the real scheduler and kubelets, in fast-forward on the demo cluster."""

from __future__ import annotations

import copy
from typing import Any

from clusterviz.api.bootstrap import node_object
from clusterviz.api.client import Client
from clusterviz.api.informer import Handler
from clusterviz.controllers.daemonset_util import plan_rollout
from clusterviz.controllers.util import is_pod_ready as is_ready_pod

Obj = dict[str, Any]

DAEMON_SET: Obj = {
    "apiVersion": "apps/v1",
    "kind": "DaemonSet",
    "metadata": {"name": "agent", "namespace": "default"},
    "spec": {
        "selector": {"matchLabels": {"app": "agent"}},
        "template": {
            "metadata": {"labels": {"app": "agent"}},
            "spec": {"containers": [{"name": "agent", "image": "soscscs/myapp:v1"}]},
        },
    },
}


def daemon_set(**spec: Any) -> Obj:
    body = copy.deepcopy(DAEMON_SET)
    body["spec"].update(spec)
    return body


async def agent_pods(client: Client) -> list[Obj]:
    items = (await client.list("pods", "default", label_selector="app=agent"))["items"]
    return [p for p in items if not p["metadata"].get("deletionTimestamp")]


def nodes_of(pods: list[Obj]) -> list[str]:
    return sorted(p["spec"].get("nodeName", "") for p in pods)


async def test_one_pod_per_node_placed_by_the_scheduler_through_node_affinity(sim):
    client = Client("demo", "kubectl")
    await client.create(daemon_set())
    await sim.engine.until_settled()
    pods = await agent_pods(client)
    assert nodes_of(pods) == ["node01", "node02", "node03"]
    for pod in pods:
        node = pod["spec"]["nodeName"]
        required = pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        assert required == {
            "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]
        }
        tolerations = {(t["key"], t["effect"]): t for t in pod["spec"]["tolerations"]}
        for key in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"):
            assert tolerations[(key, "NoExecute")] == {"key": key, "operator": "Exists", "effect": "NoExecute"}
        for key in ("disk-pressure", "memory-pressure", "pid-pressure", "unschedulable"):
            assert (f"node.kubernetes.io/{key}", "NoSchedule") in tolerations
        assert pod["status"]["phase"] == "Running"
        assert pod["metadata"]["ownerReferences"][0]["kind"] == "DaemonSet"
        assert pod["metadata"]["labels"]["pod-template-generation"] == "1"
    decisions = (await client.list("schedulingdecisions", "default"))["items"]
    assert {d["selected"] for d in decisions if d["pod"]["name"].startswith("agent-")} == {"node01", "node02", "node03"}
    ds = await client.get("daemonsets", "agent", "default")
    assert ds["status"] == {
        "currentNumberScheduled": 3,
        "desiredNumberScheduled": 3,
        "numberAvailable": 3,
        "numberMisscheduled": 0,
        "numberReady": 3,
        "observedGeneration": 1,
        "updatedNumberScheduled": 3,
    }
    reasons = [
        (e["reason"], e["message"])
        for e in (await client.list("events", "default"))["items"]
        if e["involvedObject"]["kind"] == "DaemonSet"
    ]
    assert sorted(reasons) == sorted(("SuccessfulCreate", f"Created pod: {p['metadata']['name']}") for p in pods)


async def test_a_new_node_gets_a_pod_and_a_deleted_one_loses_it(sim):
    client = Client("demo", "kubectl")
    await client.create(daemon_set())
    await sim.engine.until_settled()
    await client.create(node_object("node04", 4))
    await sim.engine.until_settled()
    assert nodes_of(await agent_pods(client)) == ["node01", "node02", "node03", "node04"]
    assert (await client.get("daemonsets", "agent", "default"))["status"]["desiredNumberScheduled"] == 4
    await client.delete("nodes", "node04")
    await sim.engine.until_settled()
    assert nodes_of(await agent_pods(client)) == ["node01", "node02", "node03"]
    assert (await client.get("daemonsets", "agent", "default"))["status"]["desiredNumberScheduled"] == 3


async def test_node_selector_follows_node_labels(sim):
    client = Client("demo", "kubectl")
    body = daemon_set()
    body["spec"]["template"]["spec"]["nodeSelector"] = {"disktype": "ssd"}
    await client.create(body)
    await sim.engine.until_settled()
    assert await agent_pods(client) == []
    await client.patch("nodes", "node02", {"metadata": {"labels": {"disktype": "ssd"}}})
    await sim.engine.until_settled()
    assert nodes_of(await agent_pods(client)) == ["node02"]
    await client.patch("nodes", "node02", {"metadata": {"labels": {"disktype": None}}})
    await sim.engine.until_settled()
    assert await agent_pods(client) == []
    events = (await client.list("events", "default"))["items"]
    assert any(e["reason"] == "SuccessfulDelete" and e["message"].startswith("Deleted pod: agent-") for e in events)


async def test_a_no_schedule_taint_keeps_new_pods_off_unless_tolerated(sim):
    client = Client("demo", "kubectl")
    taint = {"key": "dedicated", "value": "db", "effect": "NoSchedule"}
    await client.patch("nodes", "node03", {"spec": {"taints": [taint]}})
    await client.create(daemon_set())
    await sim.engine.until_settled()
    assert nodes_of(await agent_pods(client)) == ["node01", "node02"]
    ds = await client.get("daemonsets", "agent", "default")
    assert ds["status"]["desiredNumberScheduled"] == 2
    toleration = {"key": "dedicated", "operator": "Equal", "value": "db", "effect": "NoSchedule"}
    ds["spec"]["template"]["spec"]["tolerations"] = [toleration]
    await client.update(ds)
    await sim.engine.until_settled()
    pods = await agent_pods(client)
    assert nodes_of(pods) == ["node01", "node02", "node03"]
    assert all(toleration in p["spec"]["tolerations"] for p in pods)


async def test_rolling_update_replaces_pods_and_keeps_revisions(sim):
    client = Client("demo", "kubectl")
    await client.create(daemon_set())
    await sim.engine.until_settled()
    first = {p["metadata"]["labels"]["controller-revision-hash"] for p in await agent_pods(client)}
    ds = await client.get("daemonsets", "agent", "default")
    ds["spec"]["template"]["spec"]["containers"][0]["image"] = "soscscs/myapp:v2"
    await client.update(ds)
    await sim.engine.until_settled()
    pods = await agent_pods(client)
    assert nodes_of(pods) == ["node01", "node02", "node03"]
    assert {p["spec"]["containers"][0]["image"] for p in pods} == {"soscscs/myapp:v2"}
    second = {p["metadata"]["labels"]["controller-revision-hash"] for p in pods}
    assert len(second) == 1 and second != first
    assert {p["metadata"]["labels"]["pod-template-generation"] for p in pods} == {"2"}
    revisions = (await client.list("controllerrevisions", "default"))["items"]
    by_hash = {r["metadata"]["labels"]["controller-revision-hash"]: r for r in revisions}
    assert set(by_hash) == first | second
    assert by_hash[next(iter(first))]["revision"] == 1 and by_hash[next(iter(second))]["revision"] == 2
    assert by_hash[next(iter(second))]["metadata"]["name"] == f"agent-{next(iter(second))}"
    data = by_hash[next(iter(second))]["data"]["spec"]["template"]
    assert data["$patch"] == "replace" and data["spec"]["containers"][0]["image"] == "soscscs/myapp:v2"
    ds = await client.get("daemonsets", "agent", "default")
    assert ds["status"]["updatedNumberScheduled"] == 3 and ds["status"]["observedGeneration"] == 2
    assert ds["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "2"


async def test_rolling_update_never_has_more_than_max_unavailable_down(sim):
    client = Client("demo", "kubectl")
    await client.create(daemon_set())
    await sim.engine.until_settled()
    pods = sim.components["controller-manager"].informers["pods"]
    ready_counts: list[int] = []

    def count(*_: Obj) -> None:
        agents = [p for p in pods.items() if p["metadata"]["name"].startswith("agent-")]
        ready_counts.append(sum(1 for p in agents if is_ready_pod(p) and not p["metadata"].get("deletionTimestamp")))

    pods.add_handler(Handler(count, lambda old, new: count(new), count))
    ds = await client.get("daemonsets", "agent", "default")
    ds["spec"]["template"]["spec"]["containers"][0]["image"] = "soscscs/myapp:v2"
    await client.update(ds)
    await sim.engine.until_settled()
    # maxUnavailable 1 (the default) of 3 nodes: never fewer than 2 ready daemons, and at times exactly 2.
    assert min(ready_counts) == 2 and ready_counts[-1] == 3


async def test_revision_history_limit_prunes_old_revisions(sim):
    client = Client("demo", "kubectl")
    await client.create(daemon_set(revisionHistoryLimit=1))
    await sim.engine.until_settled()
    for version in ("v2", "v3"):
        ds = await client.get("daemonsets", "agent", "default")
        ds["spec"]["template"]["spec"]["containers"][0]["image"] = f"soscscs/myapp:{version}"
        await client.update(ds)
        await sim.engine.until_settled()
    revisions = sorted(r["revision"] for r in (await client.list("controllerrevisions", "default"))["items"])
    assert revisions == [2, 3]


async def test_deleting_the_daemon_set_collects_its_pods_and_revisions(sim):
    client = Client("demo", "kubectl")
    await client.create(daemon_set())
    await sim.engine.until_settled()
    await client.delete("daemonsets", "agent", "default")
    await sim.engine.until_settled()
    assert await agent_pods(client) == []
    assert (await client.list("controllerrevisions", "default"))["items"] == []


def pod(name: str, hash_: str, ready: bool = True) -> Obj:
    condition = {"type": "Ready", "status": "True" if ready else "False"}
    return {
        "metadata": {"name": name, "labels": {"controller-revision-hash": hash_}},
        "spec": {"nodeName": name.split("-")[0]},
        "status": {"conditions": [condition]},
    }


def is_ready(p: Obj) -> bool:
    return p["status"]["conditions"][0]["status"] == "True"


def test_the_plan_replaces_at_most_max_unavailable_available_pods_but_every_unavailable_one():
    node_pods = {
        "n1": [pod("n1-a", "old")],
        "n2": [pod("n2-a", "old")],
        "n3": [pod("n3-a", "old", ready=False)],
        "n4": [pod("n4-a", "new")],
    }
    plan = plan_rollout(DAEMON_SET, node_pods, "new", 0, 1, is_ready, lambda node: True)
    assert plan.delete == ["n3-a", "n1-a"] and plan.create_on == []


def test_the_plan_surges_new_pods_before_deleting_old_ones():
    node_pods = {"n1": [pod("n1-a", "old")], "n2": [pod("n2-a", "old")], "n3": [pod("n3-a", "old"), pod("n3-b", "new")]}
    plan = plan_rollout(DAEMON_SET, node_pods, "new", 1, 0, is_ready, lambda node: True)
    # n3's new Pod is available: its old one goes; the surge budget of 1 is free again for n1.
    assert plan.delete == ["n3-a"] and plan.create_on == ["n1"]


async def test_the_daemon_pods_travel_the_numbered_creation_flow(sim):
    client = Client("demo", "kubectl")
    await client.create(daemon_set())
    await sim.engine.until_settled()
    assert any(m.step == 5 and m.kind == "DaemonSet" for m in sim.engine.trace)
    for pod in await agent_pods(client):
        name = pod["metadata"]["name"]
        steps = {m.step for m in sim.engine.trace if m.step and (m.name == name or m.kind != "Pod")}
        assert set(range(1, 14)) <= steps, f"{name} misses steps {set(range(1, 14)) - steps}"


async def test_a_surge_rollout_starts_each_new_pod_before_its_old_one_goes(sim):
    client = Client("demo", "kubectl")
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}}
    await client.create(daemon_set(updateStrategy=strategy))
    await sim.engine.until_settled()
    pods = sim.components["controller-manager"].informers["pods"]
    counts: list[tuple[int, int]] = []

    def count(*_: Obj) -> None:
        agents = [
            p
            for p in pods.items()
            if p["metadata"]["name"].startswith("agent-") and not p["metadata"].get("deletionTimestamp")
        ]
        counts.append((sum(1 for p in agents if is_ready_pod(p)), len(agents)))

    pods.add_handler(Handler(count, lambda old, new: count(new), count))
    ds = await client.get("daemonsets", "agent", "default")
    ds["spec"]["template"]["spec"]["containers"][0]["image"] = "soscscs/myapp:v2"
    await client.update(ds)
    await sim.engine.until_settled()
    # Never below three ready daemons, and never more than one node with two live Pods at once.
    assert min(ready for ready, _ in counts) == 3
    assert max(total for _, total in counts) == 4
    assert {p["spec"]["containers"][0]["image"] for p in await agent_pods(client)} == {"soscscs/myapp:v2"}


async def test_on_delete_replaces_a_pod_only_when_it_is_deleted(sim):
    client = Client("demo", "kubectl")
    await client.create(daemon_set(updateStrategy={"type": "OnDelete"}))
    await sim.engine.until_settled()
    ds = await client.get("daemonsets", "agent", "default")
    ds["spec"]["template"]["spec"]["containers"][0]["image"] = "soscscs/myapp:v2"
    await client.update(ds)
    await sim.engine.until_settled()
    pods = await agent_pods(client)
    assert {p["spec"]["containers"][0]["image"] for p in pods} == {"soscscs/myapp:v1"}
    status = (await client.get("daemonsets", "agent", "default"))["status"]
    assert "updatedNumberScheduled" not in status and status["observedGeneration"] == 2
    victim = next(p for p in pods if p["spec"]["nodeName"] == "node02")
    await client.delete("pods", victim["metadata"]["name"], "default")
    await sim.engine.until_settled()
    images = {p["spec"]["nodeName"]: p["spec"]["containers"][0]["image"] for p in await agent_pods(client)}
    assert images == {"node01": "soscscs/myapp:v1", "node02": "soscscs/myapp:v2", "node03": "soscscs/myapp:v1"}
    assert (await client.get("daemonsets", "agent", "default"))["status"]["updatedNumberScheduled"] == 1


async def test_a_failed_daemon_pod_is_deleted_and_replaced(sim):
    client = Client("demo", "kubectl")
    await client.create(daemon_set())
    await sim.engine.until_settled()
    victim = next(p for p in await agent_pods(client) if p["spec"]["nodeName"] == "node01")
    victim["status"]["phase"] = "Failed"
    await client.update(victim, sub="status")
    await sim.engine.until_settled()
    name = victim["metadata"]["name"]
    pods = await agent_pods(client)
    assert nodes_of(pods) == ["node01", "node02", "node03"] and name not in {p["metadata"]["name"] for p in pods}
    events = [(e["type"], e["reason"], e["message"]) for e in (await client.list("events", "default"))["items"]]
    message = f"Found failed daemon pod default/{name} on node node01, will try to kill it"
    assert ("Warning", "FailedDaemonPod", message) in events
    assert ("Normal", "SuccessfulDelete", f"Deleted pod: {name}") in events
