"""The preemption lesson played to the end: the least important victim leaves node02 and checkout runs there."""

from __future__ import annotations

from clusterviz.lessons import BY_SLUG

from .helpers import decisions, kubectl, pods, press, start

SLUG = "preemption"


async def _history(resource_version: str) -> dict[str, list[dict]]:
    """Every version of the Pods since ``resource_version``, by name, up to checkout's binding."""
    seen: dict[str, list[dict]] = {}
    async for event in kubectl().watch("pods", "default", resource_version=resource_version, timeout_seconds=5):
        pod = event["object"]
        seen.setdefault(pod["metadata"]["name"], []).append(pod)
        if pod["metadata"]["name"] == "checkout" and pod["spec"].get("nodeName"):
            break
    return seen


async def test_the_lesson_preempts_the_lowest_priority_pod_and_schedules_checkout(sim):
    apply, delete = BY_SLUG[SLUG].actions
    await start(sim, SLUG)
    listed = await kubectl().list("pods", "default")
    names = {p["metadata"]["name"]: p["spec"]["priority"] for p in listed["items"]}
    assert names == {"report-a": 100, "report-b": 100, "cache": 0, "frontend": 5000}
    await press(sim, SLUG, apply)
    history = await _history(listed["metadata"]["resourceVersion"])
    # checkout waited nominated to node02 while cache was told why it had to go, then left.
    assert any((p["status"].get("nominatedNodeName"), p["spec"].get("nodeName")) == ("node02", None)
               for p in history["checkout"])
    disruption = [c for p in history["cache"] for c in p["status"].get("conditions", [])
                  if c["type"] == "DisruptionTarget"]
    assert disruption and disruption[-1]["reason"] == "PreemptionByScheduler"
    assert disruption[-1]["message"] == "default-scheduler: preempting to accommodate a higher priority pod"
    assert history["cache"][-1]["metadata"].get("deletionTimestamp")
    by_name = {p["metadata"]["name"]: p for p in await pods()}
    assert "cache" not in by_name
    assert set(by_name) == {"report-a", "report-b", "frontend", "checkout"}
    checkout = by_name["checkout"]
    assert checkout["spec"]["priority"] == 10000
    assert checkout["spec"]["nodeName"] == "node02"
    assert "nominatedNodeName" not in checkout["status"]
    events = await kubectl().list("events", "default", field_selector="involvedObject.name=cache,reason=Preempted")
    [event] = events["items"]
    assert event["message"] == f"Preempted by pod {checkout['metadata']['uid']} on node node02"
    first = (await decisions("checkout"))[0]
    post = first["postFilter"]
    assert post["nominatedNode"] == "node02" and post["decidedBy"] == "highestPriority"
    victims = {c["node"]: [v["name"] for v in c["victims"]] for c in post["candidates"]}
    assert victims == {"node01": ["report-b"], "node02": ["cache"]}
    await press(sim, SLUG, delete)
    assert {p["metadata"]["name"] for p in await pods()} == {"report-a", "report-b", "frontend"}
