"""Every lesson played to the end in an in-process simulation: it shows what its script promises."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from clusterviz.lessons import BY_SLUG
from clusterviz.scheduler.plugins.node_affinity import node_matches_pod

from .helpers import decisions, failed, kubectl, node_row, pods, press, score, start

REASON_NODE_AFFINITY = "node(s) didn't match Pod's node affinity/selector"


async def play(sim: Any, slug: str, upto: int | None = None) -> None:
    """Load the lesson and press its buttons, all of them or the first ``upto``."""
    await start(sim, slug)
    for action in BY_SLUG[slug].actions[:upto]:
        await press(sim, slug, action)


def placed(found: list[dict[str, Any]]) -> dict[str, str | None]:
    return {p["metadata"]["name"]: p["spec"].get("nodeName") for p in found}


async def test_creation_flow_runs_three_replicas_after_all_thirteen_hops(sim):
    seq = sim.engine.last_seq
    await play(sim, "creation-flow")
    found = await pods("app=myapp")
    assert len(found) == 3 and {p["status"]["phase"] for p in found} == {"Running"}
    assert {p["spec"]["template"]["spec"]["containers"][0]["image"]
            for p in (await kubectl().list("deployments", "default"))["items"]} == {"soscscs/myapp:v1"}
    assert {m.step for m in sim.engine.trace if m.seq > seq and m.step} == set(range(1, 14))


async def test_node_name_skips_the_scheduler(sim):
    await play(sim, "node-name")
    found = await pods("app=myapp")
    assert len(found) == 5 and set(placed(found).values()) == {"node01"}
    reasons = {e["reason"] for e in (await kubectl().list("events", "default"))["items"]}
    assert "Scheduled" not in reasons and {"Pulled", "Created", "Started"} <= reasons
    assert (await kubectl().list("schedulingdecisions", "default"))["items"] == []


async def test_node_selector_is_pending_until_node02_gets_the_label(sim):
    await play(sim, "node-selector", upto=1)
    found = await pods("app=myapp")
    assert len(found) == 2 and {p["status"]["phase"] for p in found} == {"Pending"}
    events = (await kubectl().list("events", "default"))["items"]
    assert any(e["reason"] == "FailedScheduling" and "3 node(s) didn't match Pod's node affinity/selector"
               in e["message"] for e in events)
    await press(sim, "node-selector", BY_SLUG["node-selector"].actions[1])
    assert set(placed(await pods("app=myapp")).values()) == {"node02"}
    await press(sim, "node-selector", BY_SLUG["node-selector"].actions[2])
    found = await pods("app=myapp")
    assert set(placed(found).values()) == {"node02"} and {p["status"]["phase"] for p in found} == {"Running"}


async def test_node_affinity_each_operator_decides_a_nodes_verdict(sim):
    await play(sim, "node-affinity", upto=1)
    first = (await decisions(min(placed(await pods("app=myapp")))))[0]
    template = (await kubectl().get("deployments", "myapp", "default"))["spec"]["template"]["spec"]
    affinity = template["affinity"]["nodeAffinity"]
    required = affinity["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]["matchExpressions"]
    nodes = {n["metadata"]["name"]: n for n in (await kubectl().list("nodes"))["items"]}

    def holds(expression: dict[str, Any], node: str) -> bool:
        term = {"nodeSelectorTerms": [{"matchExpressions": [expression]}]}
        return node_matches_pod({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": term}}},
                                nodes[node])

    # Hard rules: each of NotIn, DoesNotExist, Gt, Lt is the one expression that rules its node out.
    for operator, node in (("NotIn", "node03"), ("DoesNotExist", "node04"), ("Gt", "node05"), ("Lt", "node06")):
        assert failed(first, node) == {"NodeAffinity": REASON_NODE_AFFINITY}, node
        assert [e["operator"] for e in required if not holds(e, node)] == [operator], node
    assert failed(first, "node01") == {} and failed(first, "node02") == {}
    # Soft rules: In gives node01 its weight 60, Exists gives node02 its 30; the weights decide.
    preferred = {p["preference"]["matchExpressions"][0]["operator"]: p["weight"]
                 for p in affinity["preferredDuringSchedulingIgnoredDuringExecution"]}
    assert preferred == {"In": 60, "Exists": 30}
    assert score(first, "node01", "NodeAffinity")["raw"] == 60 and score(first, "node02", "NodeAffinity")["raw"] == 30
    assert score(first, "node01", "NodeAffinity")["normalized"] == 100
    assert score(first, "node02", "NodeAffinity")["normalized"] == 50
    assert first["selected"] == "node01"

    for action in BY_SLUG["node-affinity"].actions[1:]:
        await press(sim, "node-affinity", action)
    now = placed(await pods("app=myapp"))
    assert sorted(now.values()) == ["node01", "node01", "node02", "node02"]  # nothing moved; the new ones chose node02
    newest = (await decisions(max(now, key=lambda p: (now[p] == "node02", p))))[0]
    assert score(newest, "node02", "NodeAffinity")["raw"] == 90
    assert failed(newest, "node04") == {} and score(newest, "node04", "NodeAffinity")["raw"] == 0


async def test_pod_affinity_and_anti_affinity_hard_and_soft_across_hostname_and_zone(sim):
    await play(sim, "pod-affinity", upto=1)
    web = placed(await pods("app=web"))
    assert sorted(web.values()) == ["node01", "node02"]
    beside_cache = next(p for p, n in web.items() if n == "node01")
    record = (await decisions(beside_cache))[0]
    for node in ("node03", "node04"):  # hard affinity, topologyKey zone: no cache in zone-b
        assert failed(record, node) == {"InterPodAffinity": "node(s) didn't match pod affinity rules"}
    # soft affinity, topologyKey hostname: the cache's own node scores highest
    assert score(record, "node01", "InterPodAffinity")["normalized"] > score(record, "node02", "InterPodAffinity")[
        "normalized"]
    second = (await decisions(next(p for p, n in web.items() if n == "node02")))[-1]
    assert failed(second, "node01") == {"InterPodAffinity": "node(s) didn't match pod anti-affinity rules"}

    await press(sim, "pod-affinity", BY_SLUG["pod-affinity"].actions[1])
    third = next(p for p in await pods("app=web") if not p["spec"].get("nodeName"))
    message = (await decisions(third["metadata"]["name"]))[-1]["message"]
    assert message.startswith("0/4 nodes are available: 2 node(s) didn't match pod affinity rules, "
                              "2 node(s) didn't match pod anti-affinity rules.")

    await press(sim, "pod-affinity", BY_SLUG["pod-affinity"].actions[2])
    batch = await pods("app=batch")
    assert sorted(placed(batch).values()) == ["node03", "node04"]  # soft anti-affinity, topologyKey zone
    record = (await decisions(batch[0]["metadata"]["name"]))[0]
    assert score(record, "node01", "InterPodAffinity")["normalized"] < score(record, "node03", "InterPodAffinity")[
        "normalized"]


async def test_resources_balanced_allocation_prefers_node02_and_image_locality_decides_the_build_pool(sim):
    await play(sim, "resources")
    nodes = {n["metadata"]["name"]: n for n in (await kubectl().list("nodes"))["items"]}
    # The Pods that load the nodes keep running the whole lesson (a bare shell would exit and crash-loop).
    for filler in await pods("role=filler"):
        status = filler["status"]["containerStatuses"][0]
        assert "running" in status["state"] and status["restartCount"] == 0, status
    for name, cpu, memory in (("node01", 20, 60), ("node02", 50, 50)):
        requested = [p for p in await pods("role=filler") if p["spec"]["nodeName"] == name][0]
        requests = requested["spec"]["containers"][0]["resources"]["requests"]
        assert nodes[name]["status"]["allocatable"]["cpu"] == "4"
        assert round(_cpu(requests["cpu"]) * 100 / 4) == cpu and round(_mib(requests["memory"]) * 100 / 8192) == memory

    record = (await decisions("balanced"))[0]
    assert record["selected"] == "node02"
    balanced = "NodeResourcesBalancedAllocation"
    assert score(record, "node02", balanced)["normalized"] > score(record, "node01", balanced)["normalized"]
    # LeastRequested alone would have chosen node01.
    assert score(record, "node01", "NodeResourcesFit")["normalized"] > score(record, "node02", "NodeResourcesFit")[
        "normalized"]
    assert failed(record, "node03") == {"NodeResourcesFit": "Insufficient cpu"}

    builder = (await decisions("builder"))[0]
    assert builder["selected"] == "node04"
    images = {n: score(builder, n, "ImageLocality")["weighted"] for n in ("node04", "node05")}
    assert images["node04"] > images["node05"] > 0  # python:3.12 is bigger than mongo:8.0
    rest = {n: node_row(builder, n)["total"] - images[n] for n in ("node04", "node05")}
    assert rest["node04"] == rest["node05"]  # everything but ImageLocality ties


def _cpu(text: str) -> float:
    return int(text[:-1]) / 1000 if text.endswith("m") else float(text)


def _mib(text: str) -> float:
    return float(text[:-2]) * (1024 if text.endswith("Gi") else 1)


async def test_ports_and_disks_fail_node_ports_and_volume_restrictions_until_the_disk_is_freed(sim):
    await play(sim, "ports-and-disks", upto=1)
    first = placed(await pods("app=myapp"))
    assert list(first.values()) == ["node03"]
    record = (await decisions(next(iter(first))))[0]
    assert failed(record, "node01") == {"NodePorts": "node(s) didn't have free ports for the requested pod ports"}
    assert failed(record, "node02") == {"VolumeRestrictions": "node(s) had no available disk"}

    await press(sim, "ports-and-disks", BY_SLUG["ports-and-disks"].actions[1])
    waiting = [name for name, node in placed(await pods("app=myapp")).items() if node is None]
    assert len(waiting) == 1
    assert failed((await decisions(waiting[0]))[-1], "node03") == {
        "NodePorts": "node(s) didn't have free ports for the requested pod ports",
        "VolumeRestrictions": "node(s) had no available disk",
    }
    await press(sim, "ports-and-disks", BY_SLUG["ports-and-disks"].actions[2])
    assert placed(await pods("app=myapp"))[waiting[0]] == "node02"


async def test_scale_one_two_five_one_then_a_rolling_update(sim):
    lesson = BY_SLUG["scale-and-rollout"]
    await play(sim, "scale-and-rollout", upto=1)
    counts = [len(await pods("app=mysql"))]
    for action in lesson.actions[1:4]:
        await press(sim, "scale-and-rollout", action)
        counts.append(len([p for p in await pods("app=mysql") if not p["metadata"].get("deletionTimestamp")]))
    assert counts == [1, 2, 5, 1]
    await press(sim, "scale-and-rollout", lesson.actions[4])
    found = await pods("app=myapp")
    assert len(found) == 3 and {p["spec"]["containers"][0]["image"] for p in found} == {"soscscs/myapp:v2"}
    assert {p["status"]["phase"] for p in found} == {"Running"}
    sets = {rs["spec"]["template"]["spec"]["containers"][0]["image"]: rs["spec"]["replicas"]
            for rs in (await kubectl().list("replicasets", "default"))["items"]}
    assert sets == {"soscscs/myapp:v1": 0, "soscscs/myapp:v2": 3}


async def test_node_failure_evicts_and_a_replacement_runs_within_a_minute(sim):
    lesson = BY_SLUG["node-failure"]
    await play(sim, "node-failure", upto=1)
    before = placed(await pods("app=myapp"))
    lost = next(p for p, n in before.items() if n == "node02")
    stopped = sim.engine.wall()
    await press(sim, "node-failure", lesson.actions[1])

    node = await kubectl().get("nodes", "node02")
    ready = next(c for c in node["status"]["conditions"] if c["type"] == "Ready")
    assert ready["status"] == "Unknown"
    assert {t["key"] for t in node["spec"]["taints"]} >= {"node.kubernetes.io/unreachable"}
    events = (await kubectl().list("events", "default"))["items"]
    eviction = next(e for e in events if e["reason"] == "TaintManagerEviction")
    assert eviction["message"] == f"Marking for deletion Pod default/{lost}"
    replacement = next(p for p in await pods("app=myapp") if p["metadata"]["name"] not in before)
    assert replacement["spec"]["nodeName"] in ("node01", "node03") and replacement["status"]["phase"] == "Running"
    started = replacement["status"]["containerStatuses"][0]["state"]["running"]["startedAt"]
    # The lesson's timings promise about 20 simulated seconds; a minute is the most a class should wait.
    assert (datetime.fromisoformat(started) - stopped).total_seconds() < 30

    await press(sim, "node-failure", lesson.actions[2])
    node = await kubectl().get("nodes", "node02")
    assert next(c for c in node["status"]["conditions"] if c["type"] == "Ready")["status"] == "True"
    assert lost not in placed(await pods("app=myapp"))


async def test_service_endpoints_follow_scaling_and_a_failed_node(sim):
    lesson = BY_SLUG["service"]

    async def addresses() -> list[dict[str, Any]]:
        endpoints = await kubectl().get("endpoints", "myapp", "default")
        return [a for subset in endpoints.get("subsets") or [] for a in subset.get("addresses") or []]

    await play(sim, "service", upto=1)
    assert len(await addresses()) == 3
    await press(sim, "service", lesson.actions[1])
    assert len(await addresses()) == 5
    assert "node03" in {a["nodeName"] for a in await addresses()}
    await press(sim, "service", lesson.actions[2])
    after = await addresses()
    assert len(after) == 5 and "node03" not in {a["nodeName"] for a in after}
    await press(sim, "service", lesson.actions[3])
    assert len(await addresses()) == 2
