"""TaintToleration cases from upstream
``pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go``
(TestTaintTolerationScore and TestTaintTolerationFilter).

The filter reason is v1.35's ``node(s) had untolerated taint(s)`` (PR #134740); the tables of
earlier releases name the taint, e.g. ``node(s) had untolerated taint {dedicated: user1}``."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.framework import Code
from clusterviz.scheduler.plugins.taint_toleration import TaintToleration
from tests.scheduler.helpers import OK, filter_status, make_node, make_pod, scores, snap, verdict

UNTOLERATED = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) had untolerated taint(s)",))


def taint(key: str, value: str, effect: str) -> dict:
    return {"key": key, "value": value, "effect": effect}


def toleration(key: str, value: str = "", effect: str = "", operator: str = "") -> dict:
    out = {"key": key}
    out.update({k: v for k, v in (("value", value), ("effect", effect), ("operator", operator)) if v})
    return out


ARM_SOFT = taint("cpu-type", "arm64", "PreferNoSchedule")
SSD_SOFT = taint("disk-type", "ssd", "PreferNoSchedule")
FOO_BAR_SOFT = toleration("foo", "bar", "PreferNoSchedule", "Equal")


@pytest.mark.parametrize(
    ("tolerations", "node_taints", "want"),
    [
        pytest.param(
            [FOO_BAR_SOFT],
            [[taint("foo", "bar", "PreferNoSchedule")], [taint("foo", "blah", "PreferNoSchedule")]],
            [100, 0],
            id="node with taints tolerated by the pod, gets a higher score than those node with intolerable taints",
        ),
        pytest.param(
            [
                toleration("cpu-type", "arm64", "PreferNoSchedule", "Equal"),
                toleration("disk-type", "ssd", "PreferNoSchedule", "Equal"),
            ],
            [[], [ARM_SOFT], [ARM_SOFT, SSD_SOFT]],
            [100, 100, 100],
            id="the nodes that all of their taints are tolerated by the pod, get the same score, "
            "no matter how many tolerable taints a node has",
        ),
        pytest.param(
            [FOO_BAR_SOFT],
            [[], [ARM_SOFT], [ARM_SOFT, SSD_SOFT]],
            [100, 50, 0],
            id="the more intolerable taints a node has, the lower score it gets.",
        ),
        pytest.param(
            [
                toleration("cpu-type", "arm64", "NoSchedule", "Equal"),
                toleration("disk-type", "ssd", "NoSchedule", "Equal"),
            ],
            [[], [taint("cpu-type", "arm64", "NoSchedule")], [ARM_SOFT, SSD_SOFT]],
            [100, 100, 0],
            id="only taints and tolerations that have effect PreferNoSchedule are checked by taints-tolerations "
            "priority function",
        ),
        pytest.param(
            [],
            [[], [ARM_SOFT]],
            [100, 0],
            id="Default behaviour No taints and tolerations, lands on node with no taints",
        ),
    ],
)
def test_taint_toleration_score(tolerations, node_taints, want):
    nodes = [make_node(f"node{chr(ord('A') + i)}", taints=t) for i, t in enumerate(node_taints)]
    got = scores(TaintToleration(), make_pod("pod1", tolerations=tolerations), snap(nodes))["normalized"]
    assert [got[n["metadata"]["name"]] for n in nodes] == want


USER1_HARD = taint("dedicated", "user1", "NoSchedule")


@pytest.mark.parametrize(
    ("tolerations", "node_taints", "want"),
    [
        pytest.param(
            [],
            [USER1_HARD],
            UNTOLERATED,
            id="A pod having no tolerations can't be scheduled onto a node with nonempty taints",
        ),
        pytest.param(
            [toleration("dedicated", "user1", "NoSchedule")],
            [USER1_HARD],
            OK,
            id="A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
        ),
        pytest.param(
            [toleration("dedicated", "user2", "NoSchedule", "Equal")],
            [USER1_HARD],
            UNTOLERATED,
            id="A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
        ),
        pytest.param(
            [toleration("foo", effect="NoSchedule", operator="Exists")],
            [taint("foo", "bar", "NoSchedule")],
            OK,
            id="A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints "
            "on the node",
        ),
        pytest.param(
            [
                toleration("dedicated", "user2", "NoSchedule", "Equal"),
                toleration("foo", effect="NoSchedule", operator="Exists"),
            ],
            [taint("dedicated", "user2", "NoSchedule"), taint("foo", "bar", "NoSchedule")],
            OK,
            id="A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can be "
            "scheduled onto the node",
        ),
        pytest.param(
            [toleration("foo", "bar", "PreferNoSchedule", "Equal")],
            [taint("foo", "bar", "NoSchedule")],
            UNTOLERATED,
            id="A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect "
            "doesn't match, can't be scheduled onto the node",
        ),
        pytest.param(
            [toleration("foo", "bar", operator="Equal")],
            [taint("foo", "bar", "NoSchedule")],
            OK,
            id="The pod has a toleration that keys and values match the taint on the node, the effect of toleration "
            "is empty, and the effect of taint is NoSchedule. Pod can be scheduled onto the node",
        ),
        pytest.param(
            [toleration("dedicated", "user2", "NoSchedule", "Equal")],
            [taint("dedicated", "user1", "PreferNoSchedule")],
            OK,
            id="The pod has a toleration that key and value don't match the taint on the node, but the effect of taint "
            "on node is PreferNoSchedule. Pod can be scheduled onto the node",
        ),
        pytest.param(
            [],
            [taint("dedicated", "user1", "PreferNoSchedule")],
            OK,
            id="The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled "
            "onto the node",
        ),
    ],
)
def test_taint_toleration_filter(tolerations, node_taints, want):
    snapshot = snap([make_node("nodeA", taints=node_taints)])
    status = filter_status(TaintToleration(), make_pod("pod1", tolerations=tolerations), snapshot, "nodeA")
    assert verdict(status) == want
