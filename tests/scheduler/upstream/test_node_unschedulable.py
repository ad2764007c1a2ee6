"""NodeUnschedulable filter cases from upstream
``pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable_test.go``."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.framework import Code
from clusterviz.scheduler.plugins.node_unschedulable import NodeUnschedulable
from tests.scheduler.helpers import OK, filter_status, make_node, make_pod, snap, verdict

REASON = "node(s) were unschedulable"
TOLERATE_CORDON = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]


@pytest.mark.parametrize(
    ("unschedulable", "tolerations", "want"),
    [
        pytest.param(
            True,
            [],
            (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (REASON,)),
            id="Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)",
        ),
        pytest.param(False, [], OK, id="Schedule pod to normal node"),
        pytest.param(
            True,
            TOLERATE_CORDON,
            OK,
            id="Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)",
        ),
    ],
)
def test_node_unschedulable(unschedulable, tolerations, want):
    nodes = [make_node("n", unschedulable=unschedulable)]
    status = filter_status(NodeUnschedulable(), make_pod("p", tolerations=tolerations), snap(nodes), "n")
    assert verdict(status) == want
