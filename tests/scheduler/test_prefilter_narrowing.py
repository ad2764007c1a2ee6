"""Nodes a PreFilter node set leaves out (NodeAffinity's ``matchFields`` on ``metadata.name``).

Upstream filters only the nodes inside the set; every other node counts once, as
"node(s) didn't satisfy plugin(s) [NodeAffinity]", whatever else it would fail.
The record still shows the other filters' verdicts there, flagged as not run upstream.
"""

from __future__ import annotations

from clusterviz.scheduler.framework import Code
from tests.scheduler.helpers import make_node, make_pod, run

GPU = "example.com/gpu"
NO_SCHEDULE = {"key": "dedicated", "value": "x", "effect": "NoSchedule"}


def pinned_to(*names: str, **spec):
    terms = [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": list(names)}]}]
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}
    return make_pod("gpu-job", requests={GPU: "1"}, affinity=affinity, **spec)


def eight_nodes():
    """node1 is the one named; the others fail other filters first (cordoned, tainted, labelled apart)."""
    nodes = [make_node("node1")]
    nodes += [make_node(f"node{i}", unschedulable=True) for i in (2,)]
    nodes += [make_node(f"node{i}", taints=[NO_SCHEDULE]) for i in (3, 4)]
    nodes += [make_node(f"node{i}", extra={GPU: "4"}) for i in (5, 6, 7, 8)]
    return nodes


def test_nodes_outside_the_set_count_under_node_affinity_only():
    record = run(pinned_to("node1"), eight_nodes())
    assert record.selected is None
    assert record.message.startswith(
        "0/8 nodes are available: 1 Insufficient example.com/gpu, 7 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
    )
    assert "NodeAffinity" in record.unschedulable_plugins


def test_the_record_shows_the_other_verdicts_as_not_run_upstream():
    record = run(pinned_to("node1"), eight_nodes())
    body = {n["name"]: n for n in record.to_dict()["nodes"]}
    outside = {f["plugin"]: f for f in body["node2"]["filters"]}
    assert outside["NodeAffinity"]["status"] == Code.UNSCHEDULABLE_AND_UNRESOLVABLE.value
    assert outside["NodeAffinity"]["reason"] == "node(s) didn't satisfy plugin(s) [NodeAffinity]"
    assert "upstreamRan" not in outside["NodeAffinity"]
    # Upstream never runs NodeUnschedulable there; the lesson still shows what it would say.
    assert outside["NodeUnschedulable"]["status"] == Code.UNSCHEDULABLE_AND_UNRESOLVABLE.value
    assert outside["NodeUnschedulable"]["upstreamRan"] is False
    inside = {f["plugin"]: f for f in body["node1"]["filters"]}
    assert all("upstreamRan" not in f for f in inside.values())
    assert inside["NodeResourcesFit"]["reason"] == "Insufficient example.com/gpu"


def test_a_node_inside_the_set_is_filtered_and_chosen():
    record = run(pinned_to("node5"), eight_nodes())
    assert record.selected == "node5"
    assert [n.name for n in record.nodes if n.feasible] == ["node5"]
