"""The drain and autoscaling lessons played to the end: a budget paces the drain; the autoscaler follows the load."""

from __future__ import annotations

from clusterviz.lessons import BY_SLUG

from .helpers import kubectl, pods, press, start


async def _replicas(name: str) -> int:
    return int((await kubectl().get("deployments", name, "default"))["spec"]["replicas"])


async def test_the_drain_lesson_evicts_within_the_budget_and_the_replacements_run_on_node01(sim):
    apply, drain, uncordon = BY_SLUG["drain"].actions
    await start(sim, "drain")
    await press(sim, "drain", apply)
    budget = (await kubectl().get("poddisruptionbudgets", "shop", "default"))["status"]
    assert (budget["disruptionsAllowed"], budget["currentHealthy"], budget["desiredHealthy"]) == (1, 4, 3)
    on_node02 = [p["metadata"]["name"] for p in await pods("app=shop") if p["spec"].get("nodeName") == "node02"]
    # Spread evenly: two on each node.
    assert len(on_node02) == 2

    outcome = await press(sim, "drain", drain)
    assert outcome.kubectl == "kubectl drain node02 --ignore-daemonsets"
    lines = outcome.message.splitlines()
    assert lines[0] == "node/node02 cordoned" and lines[-1] == "node/node02 drained"
    assert {f"pod/{name} evicted" for name in on_node02} <= set(lines)
    # The budget allowed one eviction at a time: the second waited for a replacement to be Ready.
    refusals = [line for line in lines if line.startswith("error when evicting pods/")]
    assert refusals and all(line.endswith(
        "(will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.") for line in refusals)
    assert lines.index(refusals[0]) > min(lines.index(f"pod/{name} evicted") for name in on_node02)
    await sim.engine.until_settled()
    found = await pods("app=shop")
    assert len(found) == 4 and {p["spec"]["nodeName"] for p in found} == {"node01"}
    assert (await kubectl().get("nodes", "node02"))["spec"]["unschedulable"] is True

    await press(sim, "drain", uncordon)
    assert not (await kubectl().get("nodes", "node02"))["spec"].get("unschedulable")


async def test_the_autoscaling_lesson_scales_2_to_6_and_back_after_the_window(sim):
    apply, busy, quiet = BY_SLUG["autoscaling"].actions
    await start(sim, "autoscaling")
    await press(sim, "autoscaling", apply)
    assert await _replicas("web") == 2

    outcome = await press(sim, "autoscaling", busy)
    assert outcome.kubectl == "kubectl annotate deployment/web clusterviz.io/load=600m --overwrite"
    assert outcome.message == "deployment.apps/web annotated"
    assert await _replicas("web") == 6
    events = (await kubectl().list("events", "default", field_selector="reason=SuccessfulRescale"))["items"]
    assert [e["message"].split(";")[0] for e in events] == ["New size: 4", "New size: 6"]
    hpa = (await kubectl().get("horizontalpodautoscalers", "web", "default"))["status"]
    limited = next(c for c in hpa["conditions"] if c["type"] == "ScalingLimited")
    assert (limited["status"], limited["reason"]) == ("True", "TooManyReplicas")

    started = sim.engine.now
    await press(sim, "autoscaling", quiet)
    assert await _replicas("web") == 2
    # Not before the 300 s stabilisation window passed.
    assert sim.engine.now - started >= 300
    events = (await kubectl().list("events", "default", field_selector="reason=SuccessfulRescale"))["items"]
    assert events[-1]["message"] == "New size: 2; reason: All metrics below target"
