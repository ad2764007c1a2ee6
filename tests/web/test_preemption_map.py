"""The presenter's map during a preemption: the nominated node's lane names the waiting Pod, victims are marked."""

from __future__ import annotations

from clusterviz.api.bootstrap import node_object
from clusterviz.web.cluster_map import map_state


def _pod(name: str, **status: object) -> dict:
    return {"metadata": {"name": name, "namespace": "default"}, "spec": {"containers": [{"name": "c"}]},
            "status": {"phase": "Running", **status}}


def test_the_nominated_node_names_the_waiting_pod_and_its_victim_is_marked_leaving():
    victim = _pod("cache", conditions=[{"type": "DisruptionTarget", "status": "True",
                                        "reason": "PreemptionByScheduler"}])
    victim["spec"]["nodeName"] = "node02"
    victim["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    stays = _pod("frontend")
    stays["spec"]["nodeName"] = "node02"
    waiting = _pod("checkout", phase="Pending", nominatedNodeName="node02")
    frame = map_state([node_object("node01", 1), node_object("node02", 2)], [victim, stays, waiting], [], [], 300)
    lanes = {lane["name"]: lane for lane in frame["nodes"]}
    assert lanes["node02"]["nominated"] == ["checkout"] and lanes["node01"]["nominated"] == []
    marks = {p["name"]: p["preempted"] for p in lanes["node02"]["pods"]}
    assert marks == {"cache": True, "frontend": False}
    assert [p["name"] for p in frame["pending"]] == ["checkout"]
