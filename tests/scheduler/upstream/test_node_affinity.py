"""NodeAffinity cases from upstream ``pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go``
(TestNodeAffinity for PreFilter + Filter, TestNodeAffinityPriority for PreScore + Score + NormalizeScore)."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.framework import Code, CycleState
from clusterviz.scheduler.nodeinfo import PodInfo
from clusterviz.scheduler.plugins.node_affinity import NodeAffinity
from tests.scheduler.helpers import OK, SKIP, make_node, make_pod, snap, verdict

POD_REASON = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) didn't match Pod's node affinity/selector",))
ENFORCED_REASON = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) didn't match scheduler-enforced node affinity",))
CONFLICT = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("pod affinity terms conflict",))


def expr(key: str, operator: str, *values: str) -> dict:
    out: dict = {"key": key, "operator": operator}
    if values:
        out["values"] = list(values)
    return out


def name_in(node: str) -> dict:
    return expr("metadata.name", "In", node)


def term(*expressions: dict, fields: tuple[dict, ...] = ()) -> dict:
    out: dict = {}
    if expressions:
        out["matchExpressions"] = list(expressions)
    if fields:
        out["matchFields"] = list(fields)
    return out


def required(*terms: dict) -> dict:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


def pod(affinity: dict | None = None, selector: dict | None = None) -> dict:
    spec: dict = {}
    if affinity is not None:
        spec["affinity"] = affinity
    if selector is not None:
        spec["nodeSelector"] = selector
    return make_pod("p", **spec)


def added_required(*terms: dict) -> dict:
    return required(*terms)["nodeAffinity"]


FOO_BAR = {"foo": "bar"}
GPU = {"GPU": "NVIDIA-GRID-K1"}
GPU_NOT_AMD = term(expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER"))


@pytest.mark.parametrize(
    ("pod_obj", "labels", "node_name", "added", "run_pre_filter", "want_pre_filter", "want_names", "want"),
    [
        pytest.param(pod(selector=FOO_BAR), {}, "n", None, True, OK, None, POD_REASON, id="missing labels"),
        pytest.param(pod(selector=FOO_BAR), FOO_BAR, "n", None, True, OK, None, OK, id="same labels"),
        pytest.param(
            pod(selector=FOO_BAR),
            {"foo": "bar", "baz": "blah"},
            "n",
            None,
            True,
            OK,
            None,
            OK,
            id="node labels are superset",
        ),
        pytest.param(
            pod(selector={"foo": "bar", "baz": "blah"}),
            FOO_BAR,
            "n",
            None,
            True,
            OK,
            None,
            POD_REASON,
            id="node labels are subset",
        ),
        pytest.param(
            pod(required(term(expr("foo", "In", "bar", "value2")))),
            FOO_BAR,
            "n",
            None,
            True,
            OK,
            None,
            OK,
            id="Pod with matchExpressions using In operator that matches the existing node",
        ),
        # Gt/Lt compare the labels as integers: "0206" > "0204".
        pytest.param(
            pod(required(term(expr("kernel-version", "Gt", "0204")))),
            {"kernel-version": "0206"},
            "n",
            None,
            True,
            OK,
            None,
            OK,
            id="Pod with matchExpressions using Gt operator that matches the existing node",
        ),
        pytest.param(
            pod(required(term(expr("mem-type", "NotIn", "DDR", "DDR2")))),
            {"mem-type": "DDR3"},
            "n",
            None,
            True,
            OK,
            None,
            OK,
            id="Pod with matchExpressions using NotIn operator that matches the existing node",
        ),
        pytest.param(
            pod(required(term(expr("GPU", "Exists")))),
            GPU,
            "n",
            None,
            True,
            OK,
            None,
            OK,
            id="Pod with matchExpressions using Exists operator that matches the existing node",
        ),
        pytest.param(
            pod(required(term(expr("foo", "In", "value1", "value2")))),
            FOO_BAR,
            "n",
            None,
            True,
            OK,
            None,
            POD_REASON,
            id="Pod with affinity that don't match node's labels won't schedule onto the node",
        ),
        pytest.param(
            pod(required({"matchExpressions": []})),
            FOO_BAR,
            "n",
            None,
            True,
            OK,
            None,
            POD_REASON,
            id="Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto "
            "the node",
        ),
        pytest.param(
            pod(), FOO_BAR, "n", None, True, SKIP, None, OK, id="Pod with no Affinity will schedule onto a node"
        ),
        pytest.param(
            pod({"nodeAffinity": {}}),
            FOO_BAR,
            "n",
            None,
            True,
            SKIP,
            None,
            OK,
            id="Pod with Affinity but nil NodeSelector will schedule onto a node",
        ),
        pytest.param(
            pod(required(GPU_NOT_AMD)),
            GPU,
            "n",
            None,
            True,
            OK,
            None,
            OK,
            id="Pod with multiple matchExpressions ANDed that matches the existing node",
        ),
        pytest.param(
            pod(required(term(expr("GPU", "Exists"), expr("GPU", "In", "AMD", "INTER")))),
            GPU,
            "n",
            None,
            True,
            OK,
            None,
            POD_REASON,
            id="Pod with multiple matchExpressions ANDed that doesn't match the existing node",
        ),
        pytest.param(
            pod(required(term(expr("foo", "In", "bar", "value2")), term(expr("diffkey", "In", "wrong", "value2")))),
            FOO_BAR,
            "n",
            None,
            True,
            OK,
            None,
            OK,
            id="Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto "
            "the node",
        ),
        pytest.param(
            pod(required(term(expr("foo", "Exists"))), selector=FOO_BAR),
            FOO_BAR,
            "n",
            None,
            True,
            OK,
            None,
            OK,
            id="Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are "
            "satisfied, will schedule onto the node",
        ),
        pytest.param(
            pod(required(term(expr("foo", "Exists"))), selector=FOO_BAR),
            {"foo": "barrrrrr"},
            "n",
            None,
            True,
            OK,
            None,
            POD_REASON,
            id="Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are "
            "deprecating) is not satisfied, won't schedule onto the node",
        ),
        pytest.param(
            pod(required(term(expr("foo", "NotIn", "invalid value: ___@#$%^")))),
            FOO_BAR,
            "n",
            None,
            True,
            OK,
            None,
            POD_REASON,
            id="Pod with an invalid value in Affinity term won't be scheduled onto the node",
        ),
        pytest.param(
            pod(required(term(fields=(name_in("node1"),)))),
            {},
            "node1",
            None,
            True,
            OK,
            {"node1"},
            OK,
            id="Pod with matchFields using In operator that matches the existing node",
        ),
        pytest.param(
            pod(required(term(fields=(name_in("node1"),)))),
            {},
            "node2",
            None,
            True,
            OK,
            {"node1"},
            POD_REASON,
            id="Pod with matchFields using In operator that does not match the existing node",
        ),
        # The first term pins two different names at once (it matches nothing); the second pins none.
        pytest.param(
            pod(required(term(fields=(name_in("node1"), name_in("node2"))), term(expr("foo", "In", "bar")))),
            FOO_BAR,
            "node2",
            None,
            True,
            OK,
            None,
            OK,
            id="Pod with two terms: matchFields does not match, but matchExpressions matches",
        ),
        pytest.param(
            pod(required(term(expr("foo", "In", "bar"), fields=(name_in("node1"),)))),
            FOO_BAR,
            "node2",
            None,
            True,
            OK,
            {"node1"},
            POD_REASON,
            id="Pod with one term: matchFields does not match, but matchExpressions matches",
        ),
        pytest.param(
            pod(required(term(expr("foo", "In", "bar"), fields=(name_in("node1"),)))),
            FOO_BAR,
            "node1",
            None,
            True,
            OK,
            {"node1"},
            OK,
            id="Pod with one term: both matchFields and matchExpressions match",
        ),
        pytest.param(
            pod(required(term(fields=(name_in("node1"),)), term(expr("foo", "In", "not-match-to-bar")))),
            FOO_BAR,
            "node2",
            None,
            True,
            OK,
            None,
            POD_REASON,
            id="Pod with two terms: both matchFields and matchExpressions do not match",
        ),
        pytest.param(
            pod(required(term(fields=(name_in("node1"),)), term(fields=(name_in("node2"),)))),
            {},
            "node2",
            None,
            True,
            OK,
            {"node1", "node2"},
            OK,
            id="Pod with two terms of node.Name affinity",
        ),
        pytest.param(
            pod(required(term(fields=(name_in("node1"), name_in("node2"))))),
            FOO_BAR,
            "node2",
            None,
            True,
            CONFLICT,
            None,
            POD_REASON,
            id="Pod with two conflicting mach field requirements",
        ),
        pytest.param(
            pod(required(term(expr("zone", "In", "foo")))),
            {"zone": "foo"},
            "node2",
            added_required(term(fields=(name_in("node2"),))),
            True,
            OK,
            None,
            OK,
            id="Matches added affinity and Pod's node affinity",
        ),
        pytest.param(
            pod(required(term(expr("zone", "In", "bar")))),
            {"zone": "foo"},
            "node2",
            added_required(term(fields=(name_in("node2"),))),
            True,
            OK,
            None,
            POD_REASON,
            id="Matches added affinity but not Pod's node affinity",
        ),
        pytest.param(
            pod(),
            {"zone": "foo"},
            "node2",
            added_required(term(expr("zone", "In", "bar"))),
            True,
            OK,
            None,
            ENFORCED_REASON,
            id="Doesn't match added affinity",
        ),
        pytest.param(
            pod(selector=FOO_BAR),
            {"foo": "bar", "baz": "blah"},
            "n",
            None,
            False,
            None,
            None,
            OK,
            id="Matches node selector correctly even if PreFilter is not called",
        ),
        pytest.param(
            pod(required(GPU_NOT_AMD)),
            GPU,
            "n",
            None,
            False,
            None,
            None,
            OK,
            id="Matches node affinity correctly even if PreFilter is not called",
        ),
    ],
)
def test_node_affinity(pod_obj, labels, node_name, added, run_pre_filter, want_pre_filter, want_names, want):
    snapshot = snap([make_node(node_name, labels=labels)])
    plugin = NodeAffinity(added)
    state = CycleState(snapshot)
    info = PodInfo.from_pod(pod_obj)
    if run_pre_filter:
        status, result = plugin.pre_filter(state, info)
        assert verdict(status) == want_pre_filter
        assert (None if result is None else result.node_names) == want_names
    # upstream runs Filter whatever PreFilter said, as here.
    assert verdict(plugin.filter(state, info, snapshot.get(node_name))) == want


def preferred(*weighted: tuple[int, dict]) -> dict:
    return {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": w, "preference": t} for w, t in weighted]
        }
    }


LABEL1, LABEL2, LABEL3 = {"foo": "bar"}, {"key": "value"}, {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}
AFFINITY1 = preferred((2, term(expr("foo", "In", "bar"))))
AFFINITY2 = preferred(
    (2, term(expr("foo", "In", "bar"))),
    (4, term(expr("key", "In", "value"))),
    (5, term(expr("foo", "In", "bar"), expr("key", "In", "value"), expr("az", "In", "az1"))),
)


def labelled(*nodes: tuple[str, dict]) -> list[dict]:
    return [make_node(name, labels=labels) for name, labels in nodes]


@pytest.mark.parametrize(
    ("pod_obj", "nodes", "added", "run_pre_score", "want"),
    [
        pytest.param(
            pod(),
            labelled(("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)),
            None,
            False,
            [0, 0, 0],
            id="all nodes are same priority as NodeAffinity is nil",
        ),
        pytest.param(
            pod(),
            labelled(("node1", LABEL1)),
            None,
            True,
            SKIP,
            id="Skip is returned in PreScore when NodeAffinity is nil",
        ),
        pytest.param(
            pod(AFFINITY1),
            labelled(("node1", LABEL4), ("node2", LABEL2), ("node3", LABEL3)),
            None,
            True,
            [0, 0, 0],
            id="no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' priority is zero",
        ),
        pytest.param(
            pod(AFFINITY1),
            labelled(("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)),
            None,
            True,
            [100, 0, 0],
            id="only node1 matches the preferred scheduling requirements of pod",
        ),
        pytest.param(
            pod(AFFINITY2),
            labelled(("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)),
            None,
            True,
            [18, 100, 36],
            id="all nodes matches the preferred scheduling requirements of pod but with different priorities ",
        ),
        pytest.param(
            pod(),
            labelled(("node1", LABEL1), ("node2", LABEL2)),
            AFFINITY1["nodeAffinity"],
            True,
            [100, 0],
            id="added affinity",
        ),
        pytest.param(
            pod(AFFINITY1),
            labelled(("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL5)),
            preferred((3, term(expr("key", "In", "value"))))["nodeAffinity"],
            True,
            [40, 60, 100],
            id="added affinity and pod has default affinity",
        ),
        pytest.param(
            pod(AFFINITY2),
            labelled(("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)),
            None,
            True,
            [18, 100, 36],
            # upstream's table runs PreScore here despite the name, so this repeats the case above.
            id="calculate the priorities correctly even if PreScore is not called",
        ),
    ],
)
def test_node_affinity_priority(pod_obj, nodes, added, run_pre_score, want):
    snapshot = snap(nodes)
    plugin = NodeAffinity(added)
    state = CycleState(snapshot)
    info = PodInfo.from_pod(pod_obj)
    if run_pre_score:
        status = plugin.pre_score(state, info, snapshot.list())
        if not status.is_success:
            assert verdict(status) == want
            return
    raw = {n["metadata"]["name"]: plugin.score(state, info, snapshot.get(n["metadata"]["name"])) for n in nodes}
    normalized = plugin.normalize_score(state, info, raw)
    assert [normalized[name] for name in raw] == want


def test_pre_score_error_for_a_broken_preferred_term():
    # "PreScore returns error when an incoming Pod has a broken affinity": the label key has a space.
    broken = pod(preferred((2, term(expr("invalid key", "In", "bar")))))
    snapshot = snap(labelled(("node1", LABEL1)))
    status = NodeAffinity().pre_score(CycleState(snapshot), PodInfo.from_pod(broken), snapshot.list())
    assert status.code is Code.ERROR
    assert status.message == (
        '[0].matchExpressions[0].key: Invalid value: "invalid key": name part must consist of alphanumeric '
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
        "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
    )
