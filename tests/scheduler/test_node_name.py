"""NodeName (PodFitsHost): spec.nodeName pins the Pod to one node."""

from __future__ import annotations

from clusterviz.scheduler.framework import Code
from clusterviz.scheduler.plugins.node_name import REASON, NodeName
from tests.scheduler.helpers import filter_status, make_node, make_pod, run, snap


def test_only_the_named_node_passes():
    snapshot = snap([make_node("node01"), make_node("node02")])
    pod = make_pod("myapp", nodeName="node01")
    assert filter_status(NodeName(), pod, snapshot, "node01").is_success
    status = filter_status(NodeName(), pod, snapshot, "node02")
    assert (status.code, status.reasons) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (REASON,))


def test_no_node_name_passes_everywhere():
    assert filter_status(NodeName(), make_pod("p"), snap([make_node("a")]), "a").is_success


def test_pinning_through_the_whole_cycle():
    record = run(make_pod("myapp", nodeName="node01"), [make_node("node01"), make_node("node02"), make_node("node03")])
    assert record.selected == "node01"
    assert record.scoring_needed is False
    assert record.node("node02").filters[1].reason == "node(s) didn't match the requested node name"


def test_legacy_name():
    assert NodeName().legacy_name("filter") == "PodFitsHost"
