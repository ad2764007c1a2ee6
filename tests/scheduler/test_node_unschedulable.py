"""NodeUnschedulable: cordoned nodes take only Pods tolerating the unschedulable taint."""

from __future__ import annotations

from clusterviz.scheduler.framework import Code
from clusterviz.scheduler.plugins.node_unschedulable import REASON_UNSCHEDULABLE, NodeUnschedulable
from tests.scheduler.helpers import filter_status, make_node, make_pod, snap


def test_cordoned_node_rejects():
    status = filter_status(NodeUnschedulable(), make_pod("p"), snap([make_node("n", unschedulable=True)]), "n")
    assert (status.code, status.reasons) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (REASON_UNSCHEDULABLE,))
    assert REASON_UNSCHEDULABLE == "node(s) were unschedulable"


def test_toleration_for_the_unschedulable_taint_passes():
    pod = make_pod(
        "p", tolerations=[{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]
    )
    assert filter_status(NodeUnschedulable(), pod, snap([make_node("n", unschedulable=True)]), "n").is_success


def test_schedulable_node_passes():
    assert filter_status(NodeUnschedulable(), make_pod("p"), snap([make_node("n")]), "n").is_success
