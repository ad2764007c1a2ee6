"""Preemption in a running cluster respects PodDisruptionBudgets: of two nodes that could make room, the one whose
victim breaks no budget is chosen, even though the other's victim is no more important."""

from __future__ import annotations

from typing import Any

from clusterviz.api.client import Client


def _pod(name: str, node: str, cpu: str, priority_class: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "app", "image": "nginx:1.27",
                                            "resources": {"requests": {"cpu": cpu}}}]}
    if node:
        spec["nodeName"] = node
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default",
                                                           "labels": {"app": name}}, "spec": spec}


def _class(name: str, value: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value}


async def test_the_victim_whose_budget_allows_no_disruption_is_spared(sim):
    kubectl = Client("demo", "kubectl")
    await kubectl.create(_class("urgent", 1000))
    await kubectl.create(_class("critical", 5000))
    for pod in (_pod("guarded", "node01", "4"), _pod("plain", "node02", "4"), _pod("vital", "node03", "4", "critical")):
        await kubectl.create(pod)
    await kubectl.create({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                          "metadata": {"name": "guarded", "namespace": "default"},
                          "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "guarded"}}}})
    await sim.engine.until_settled()
    budget = await kubectl.get("poddisruptionbudgets", "guarded", "default")
    assert budget["status"]["disruptionsAllowed"] == 0

    await kubectl.create(_pod("urgent", "", "2", "urgent"))
    await sim.engine.until_settled()
    names = {p["metadata"]["name"]: p["spec"].get("nodeName") for p in (await kubectl.list("pods", "default"))["items"]}
    assert names == {"guarded": "node01", "vital": "node03", "urgent": "node02"}
    [record] = [d for d in (await kubectl.list("schedulingdecisions", "default"))["items"]
                if d["pod"]["name"] == "urgent" and d.get("postFilter", {}).get("nominatedNode")]
    post = record["postFilter"]
    assert post["decidedBy"] == "pdbViolations"
    by_node = {c["node"]: c for c in post["candidates"]}
    assert by_node["node01"]["pdbViolations"] == 1 and by_node["node01"]["victims"][0]["violatesBudget"] is True
    assert by_node["node01"]["eliminatedBy"] == "pdbViolations"
    assert {n["node"]: n["reason"] for n in post["notCandidates"]} == {
        "node03": "No preemption victims found for incoming pod"
    }
