"""NodeName filter cases from upstream ``pkg/scheduler/framework/plugins/nodename/node_name_test.go``."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.framework import Code
from clusterviz.scheduler.plugins.node_name import NodeName
from tests.scheduler.helpers import OK, filter_status, make_node, make_pod, snap, verdict

REASON = "node(s) didn't match the requested node name"


@pytest.mark.parametrize(
    ("pod_node", "want"),
    [
        pytest.param(None, OK, id="no host specified"),
        pytest.param("foo", OK, id="host matches"),
        pytest.param("bar", (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (REASON,)), id="host doesn't match"),
    ],
)
def test_node_name(pod_node, want):
    # The pod under test names a node but is judged against the snapshot, which it is not part of.
    status = filter_status(NodeName(), make_pod("p", node=pod_node), snap([make_node("foo")]), "foo")
    assert verdict(status) == want
