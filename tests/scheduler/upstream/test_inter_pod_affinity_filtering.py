"""InterPodAffinity's Filter: the cases of upstream's ``pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go``
(TestRequiredAffinitySingleNode, TestRequiredAffinityMultipleNodes)."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.framework import Code, CycleState
from clusterviz.scheduler.nodeinfo import PodInfo
from clusterviz.scheduler.plugins.inter_pod_affinity import InterPodAffinity
from tests.scheduler.helpers import OK, SKIP, snap, verdict
from tests.scheduler.upstream.pod_affinity import (
    AFFINITY_NOT_MATCH,
    ANTI_NOT_MATCH,
    CHINA,
    CHINA_AZ1,
    EXISTING_ANTI_NOT_MATCH,
    INDIA,
    NAMESPACES,
    TEAM1,
    nodes_with,
    pod,
    selector_term,
    term,
)


def run_filter(incoming: dict, existing: list[dict], nodes: list[dict]) -> tuple:
    """(PreFilter verdict, Filter verdict per node or None when PreFilter did not succeed)."""
    snapshot = snap(nodes, existing, namespaces=NAMESPACES)
    plugin = InterPodAffinity()
    state = CycleState(snapshot)
    info = PodInfo.from_pod(incoming)
    status, _ = plugin.pre_filter(state, info)
    if not status.is_success:
        return verdict(status), None
    return verdict(status), [verdict(plugin.filter(state, info, snapshot.get(n["metadata"]["name"]))) for n in nodes]


POD_LABEL = {"service": "securityscan"}
POD_LABEL2 = {"security": "S1"}
NODE1 = ("node1", {"region": "r1", "zone": "z11"})
IN_SECURITYSCAN_REGION = term("service", "In", "securityscan", "value2", topology="region")
ANTIVIRUS_ANTI_ON_NODE = term("service", "In", "antivirusscan", "value2", topology="node")
SECURITYSCAN_ANTI_ZONE = term("service", "In", "securityscan", "value2", topology="zone")
BAD_VALUE_MESSAGE = (
    'parsing pod: requiredAffinityTerms: values[0][service]: Invalid value: "{{.bad-value.}}": a valid label must '
    "be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def securityscan_on_node1() -> list[dict]:
    return [pod(POD_LABEL, node="node1")]


@pytest.mark.parametrize(
    ("incoming", "existing", "want_pre_filter", "want"),
    [
        pytest.param(
            pod(),
            [],
            SKIP,
            None,
            id="A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods",
        ),
        pytest.param(
            pod(POD_LABEL2, affinity=(IN_SECURITYSCAN_REGION,)),
            securityscan_on_node1(),
            OK,
            OK,
            id="satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that "
            "matches the existing pod",
        ),
        pytest.param(
            pod(POD_LABEL2, affinity=(term("service", "NotIn", "securityscan3", "value3", topology="region"),)),
            securityscan_on_node1(),
            OK,
            OK,
            id="satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in "
            "operator in labelSelector that matches the existing pod",
        ),
        pytest.param(
            pod(
                POD_LABEL2,
                affinity=(term("service", "In", "securityscan", "value2", topology="", namespaces=["DiffNameSpace"]),),
            ),
            [pod(POD_LABEL, node="node1", namespace="ns")],
            OK,
            AFFINITY_NOT_MATCH,
            id="Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
        ),
        pytest.param(
            pod(POD_LABEL, affinity=(term("service", "In", "antivirusscan", "value2", topology=""),)),
            securityscan_on_node1(),
            OK,
            AFFINITY_NOT_MATCH,
            id="Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
        ),
        pytest.param(
            pod(
                POD_LABEL2,
                affinity=(
                    selector_term(("service", "Exists"), ("wrongkey", "DoesNotExist"), topology="region"),
                    selector_term(
                        ("service", "In", "securityscan"), ("service", "NotIn", "WrongValue"), topology="region"
                    ),
                ),
            ),
            securityscan_on_node1(),
            OK,
            OK,
            id="satisfies the PodAffinity with different label Operators in multiple "
            "RequiredDuringSchedulingIgnoredDuringExecution ",
        ),
        pytest.param(
            pod(
                POD_LABEL2,
                affinity=(
                    selector_term(("service", "Exists"), ("wrongkey", "DoesNotExist"), topology="region"),
                    selector_term(
                        ("service", "In", "securityscan2"), ("service", "NotIn", "WrongValue"), topology="region"
                    ),
                ),
            ),
            securityscan_on_node1(),
            OK,
            AFFINITY_NOT_MATCH,
            id="The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto the "
            "node because one of the matchExpression item don't match.",
        ),
        pytest.param(
            pod(POD_LABEL2, affinity=(IN_SECURITYSCAN_REGION,), anti=(ANTIVIRUS_ANTI_ON_NODE,)),
            securityscan_on_node1(),
            OK,
            OK,
            id="satisfies the PodAffinity and PodAntiAffinity with the existing pod",
        ),
        pytest.param(
            pod(POD_LABEL2, affinity=(IN_SECURITYSCAN_REGION,), anti=(ANTIVIRUS_ANTI_ON_NODE,)),
            [pod(POD_LABEL, node="node1", anti=(ANTIVIRUS_ANTI_ON_NODE,))],
            OK,
            OK,
            id="satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod",
        ),
        pytest.param(
            pod(POD_LABEL2, affinity=(IN_SECURITYSCAN_REGION,), anti=(SECURITYSCAN_ANTI_ZONE,)),
            securityscan_on_node1(),
            OK,
            ANTI_NOT_MATCH,
            id="satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
        ),
        pytest.param(
            pod(POD_LABEL, affinity=(IN_SECURITYSCAN_REGION,), anti=(ANTIVIRUS_ANTI_ON_NODE,)),
            [pod(POD_LABEL, node="node1", anti=(SECURITYSCAN_ANTI_ZONE,))],
            OK,
            EXISTING_ANTI_NOT_MATCH,
            id="satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the "
            "existing pod",
        ),
        # The existing Pod sits on node2, which is not in the snapshot, so nothing matches anywhere.
        pytest.param(
            pod(POD_LABEL, affinity=(term("service", "NotIn", "securityscan", "value2", topology="region"),)),
            [pod({"service": "securityscan"}, node="node2")],
            OK,
            AFFINITY_NOT_MATCH,
            id="pod matches its own Label in PodAffinity and that matches the existing pod Labels",
        ),
        pytest.param(
            pod(POD_LABEL),
            [pod(POD_LABEL, node="node1", anti=(SECURITYSCAN_ANTI_ZONE,))],
            OK,
            EXISTING_ANTI_NOT_MATCH,
            id="verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. "
            "doesn't satisfy PodAntiAffinity symmetry with the existing pod",
        ),
        pytest.param(
            pod(POD_LABEL),
            [pod(POD_LABEL, node="node1", anti=(term("service", "NotIn", "securityscan", "value2", topology="zone"),))],
            SKIP,
            None,
            id="verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. "
            "satisfy PodAntiAffinity symmetry with the existing pod",
        ),
        pytest.param(
            pod(
                POD_LABEL,
                anti=(term("service", "Exists", topology="region"), term("security", "Exists", topology="region")),
            ),
            [pod(POD_LABEL2, node="node1", anti=(term("security", "Exists", topology="zone"),))],
            OK,
            ANTI_NOT_MATCH,
            id="satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with "
            "incoming pod",
        ),
        pytest.param(
            pod(
                POD_LABEL,
                anti=(term("service", "Exists", topology="zone"), term("security", "Exists", topology="zone")),
            ),
            [pod(POD_LABEL2, node="node1", anti=(term("security", "Exists", topology="zone"),))],
            OK,
            ANTI_NOT_MATCH,
            id="PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on "
            "AffinityTerms",
        ),
        pytest.param(
            pod(POD_LABEL2, anti=(term("security", "Exists", topology="zone"),)),
            [
                pod(
                    POD_LABEL,
                    node="node1",
                    anti=(term("service", "Exists", topology="zone"), term("security", "Exists", topology="zone")),
                )
            ],
            OK,
            EXISTING_ANTI_NOT_MATCH,
            id="PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on "
            "AffinityTerms",
        ),
        pytest.param(
            pod(
                {"abc": "", "xyz": ""},
                anti=(term("abc", "Exists", topology="zone"), term("def", "Exists", topology="zone")),
            ),
            [
                pod(
                    {"def": "", "xyz": ""},
                    node="node1",
                    anti=(term("abc", "Exists", topology="zone"), term("def", "Exists", topology="zone")),
                )
            ],
            OK,
            ANTI_NOT_MATCH,
            id="PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on "
            "AffinityTerms",
        ),
        pytest.param(
            pod(
                {"def": "", "xyz": ""},
                anti=(term("abc", "Exists", topology="zone"), term("def", "Exists", topology="zone")),
            ),
            [
                pod(
                    {"abc": "", "xyz": ""},
                    node="node1",
                    anti=(term("abc", "Exists", topology="zone"), term("def", "Exists", topology="zone")),
                )
            ],
            OK,
            ANTI_NOT_MATCH,
            id="PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on "
            "AffinityTerms",
        ),
        pytest.param(
            pod(
                POD_LABEL,
                affinity=(
                    term("service", "In", "{{.bad-value.}}", topology="region"),
                    term("service", "In", "antivirusscan", "value2", topology="node"),
                ),
            ),
            [],
            (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (BAD_VALUE_MESSAGE,)),
            None,
            id="PodAffinity fails PreFilter with an invalid affinity label syntax",
        ),
        # upstream's name says anti-affinity, but both of its terms are affinity terms.
        pytest.param(
            pod(
                POD_LABEL,
                affinity=(
                    term("service", "In", "foo", topology="region"),
                    term("service", "In", "{{.bad-value.}}", topology="node"),
                ),
            ),
            [],
            (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (BAD_VALUE_MESSAGE,)),
            None,
            id="PodAntiAffinity fails PreFilter with an invalid antiaffinity label syntax",
        ),
        pytest.param(
            pod(POD_LABEL2, affinity=(term("service", "In", "securityscan", "value2", topology="region", **TEAM1),)),
            [pod(POD_LABEL, node="node1", namespace="subteam1.team1")],
            OK,
            OK,
            id="affinity with NamespaceSelector",
        ),
        pytest.param(
            pod(POD_LABEL2, affinity=(term("service", "In", "securityscan", "value2", topology="region", **TEAM1),)),
            [pod(POD_LABEL, node="node1", namespace="subteam1.team2")],
            OK,
            AFFINITY_NOT_MATCH,
            id="affinity with non-matching NamespaceSelector",
        ),
        pytest.param(
            pod(
                POD_LABEL2,
                namespace="subteam1.team1",
                anti=(term("service", "In", "securityscan", "value2", topology="zone", **TEAM1),),
            ),
            [pod(POD_LABEL, node="node1", namespace="subteam2.team1")],
            OK,
            ANTI_NOT_MATCH,
            id="anti-affinity with matching NamespaceSelector",
        ),
        pytest.param(
            pod(
                POD_LABEL2,
                namespace="subteam1.team1",
                anti=(term("service", "In", "securityscan", "value2", topology="zone", namespaceSelector={}),),
            ),
            [pod(POD_LABEL, node="node1", namespace="subteam2.team1")],
            OK,
            ANTI_NOT_MATCH,
            id="anti-affinity with matching all NamespaceSelector",
        ),
        pytest.param(
            pod(
                POD_LABEL2,
                namespace="subteam1.team1",
                anti=(term("service", "In", "securityscan", "value2", topology="zone", **TEAM1),),
            ),
            [pod(POD_LABEL, node="node1", namespace="subteam1.team2")],
            OK,
            OK,
            id="anti-affinity with non-matching NamespaceSelector",
        ),
    ],
)
def test_required_affinity_single_node(incoming, existing, want_pre_filter, want):
    assert run_filter(incoming, existing, nodes_with(NODE1)) == (want_pre_filter, None if want is None else [want])


R1_Z1_AB = nodes_with(
    ("nodeA", {"region": "r1", "zone": "z1", "hostname": "nodeA"}),
    ("nodeB", {"region": "r1", "zone": "z1", "hostname": "nodeB"}),
)
R1_Z1_Z2 = nodes_with(
    ("nodeA", {"region": "r1", "zone": "z1", "hostname": "nodeA"}),
    ("nodeB", {"region": "r1", "zone": "z2", "hostname": "nodeB"}),
)


def exists(key: str, topology: str) -> dict:
    return term(key, "Exists", topology=topology)


@pytest.mark.parametrize(
    ("incoming", "existing", "nodes", "want_pre_filter", "want"),
    [
        pytest.param(
            pod(affinity=(term("foo", "In", "bar", topology="region"),)),
            [pod({"foo": "bar"}, node="node1")],
            nodes_with(("node1", CHINA), ("node2", CHINA_AZ1), ("node3", INDIA)),
            OK,
            [OK, OK, AFFINITY_NOT_MATCH],
            id="A pod can be scheduled onto all the nodes that have the same topology key & label value with one of "
            "them has an existing pod that matches the affinity rules",
        ),
        pytest.param(
            pod(
                {"foo": "bar", "service": "securityscan"},
                affinity=(
                    term("foo", "In", "bar", topology="zone"),
                    term("service", "In", "securityscan", topology="zone"),
                ),
            ),
            [pod({"foo": "bar"}, node="nodeA")],
            nodes_with(("nodeA", {"zone": "az1", "hostname": "h1"}), ("nodeB", {"zone": "az2", "hostname": "h2"})),
            OK,
            [OK, OK],
            id="The affinity rule is to schedule all of the pods of this collection to the same zone. The first pod of "
            "the collection should not be blocked from being scheduled onto any node, even there's no existing pod that "
            "matches the rule anywhere.",
        ),
        pytest.param(
            pod(
                {"foo": "bar", "service": "securityscan"},
                affinity=(
                    term("foo", "In", "bar", topology="zone"),
                    term("service", "In", "securityscan", topology="zone"),
                ),
            ),
            [pod({"foo": "bar"}, node="nodeA")],
            nodes_with(
                ("nodeA", {"zoneLabel": "az1", "hostname": "h1"}), ("nodeB", {"zoneLabel": "az2", "hostname": "h2"})
            ),
            OK,
            [AFFINITY_NOT_MATCH, AFFINITY_NOT_MATCH],
            id="The first pod of the collection can only be scheduled on nodes labelled with the requested topology keys",
        ),
        pytest.param(
            pod(anti=(term("foo", "In", "abc", topology="region"),)),
            [pod({"foo": "abc"}, node="nodeA")],
            nodes_with(
                ("nodeA", {"region": "r1", "hostname": "nodeA"}), ("nodeB", {"region": "r1", "hostname": "nodeB"})
            ),
            OK,
            [ANTI_NOT_MATCH, ANTI_NOT_MATCH],
            id="NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter "
            "pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
        ),
        pytest.param(
            pod(
                anti=(
                    term("foo", "In", "abc", topology="region"),
                    term("service", "In", "securityscan", topology="zone"),
                )
            ),
            [pod({"foo": "abc", "service": "securityscan"}, node="nodeA")],
            R1_Z1_Z2,
            OK,
            [ANTI_NOT_MATCH, ANTI_NOT_MATCH],
            id="This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule matches a pod.",
        ),
        pytest.param(
            pod(anti=(term("foo", "In", "abc", topology="region"),)),
            [pod({"foo": "abc"}, node="nodeA")],
            nodes_with(("nodeA", CHINA), ("nodeB", CHINA_AZ1), ("nodeC", INDIA)),
            OK,
            [ANTI_NOT_MATCH, ANTI_NOT_MATCH, OK],
            id="NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter "
            "pod affinity rule. The pod can not be scheduled onto nodeA and nodeB but can be scheduled onto nodeC",
        ),
        pytest.param(
            pod({"foo": "123"}, namespace="NS1", anti=(term("foo", "In", "bar", topology="region"),)),
            [
                pod({"foo": "bar"}, node="nodeA", namespace="NS1"),
                pod(node="nodeC", namespace="NS2", anti=(term("foo", "In", "123", topology="region"),)),
            ],
            nodes_with(("nodeA", CHINA), ("nodeB", CHINA_AZ1), ("nodeC", INDIA)),
            OK,
            [ANTI_NOT_MATCH, ANTI_NOT_MATCH, OK],
            id="NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter "
            "pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, but can be scheduled onto nodeC (NodeC "
            "has an existing pod that match the inter pod affinity rule but in different namespace)",
        ),
        pytest.param(
            pod({"foo": ""}),
            [pod(node="nodeA", anti=(exists("foo", "invalid-node-label"),))],
            R1_Z1_AB,
            SKIP,
            None,
            id="Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, "
            "labelSelector of the term is firstly checked, and then topologyKey of the term is also checked",
        ),
        pytest.param(
            pod(node="nodeA", anti=(exists("foo", "invalid-node-label"),)),
            [pod({"foo": ""}, node="nodeA")],
            R1_Z1_AB,
            OK,
            [OK, OK],
            id="Test incoming pod's anti-affinity: even if labelSelector matches, we still check if topologyKey matches",
        ),
        pytest.param(
            pod({"foo": "", "bar": ""}),
            [pod(node="nodeA", anti=(exists("foo", "zone"),)), pod(node="nodeA", anti=(exists("bar", "region"),))],
            R1_Z1_Z2,
            OK,
            [EXISTING_ANTI_NOT_MATCH, EXISTING_ANTI_NOT_MATCH],
            id="Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it violates each "
            "existingPod's terms on all nodes",
        ),
        pytest.param(
            pod(anti=(exists("foo", "zone"), exists("bar", "region"))),
            [pod({"foo": ""}, node="nodeA"), pod({"bar": ""}, node="nodeB")],
            R1_Z1_Z2,
            OK,
            [ANTI_NOT_MATCH, ANTI_NOT_MATCH],
            id="Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at least violates one "
            "anti-affinity rule of existingPod",
        ),
        pytest.param(
            pod({"foo": "", "bar": ""}),
            [pod(node="nodeA", anti=(exists("foo", "invalid-node-label"), exists("bar", "zone")))],
            R1_Z1_Z2,
            OK,
            [EXISTING_ANTI_NOT_MATCH, OK],
            id="Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as "
            "a single term match - case when one term has invalid topologyKey",
        ),
        pytest.param(
            pod(anti=(exists("foo", "invalid-node-label"), exists("bar", "zone"))),
            [pod({"foo": "", "bar": ""}, node="nodeA")],
            R1_Z1_Z2,
            OK,
            [ANTI_NOT_MATCH, OK],
            id="Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as "
            "a single term match - case when one term has invalid topologyKey",
        ),
        pytest.param(
            pod({"foo": "", "bar": ""}),
            [pod(node="nodeA", anti=(exists("foo", "region"), exists("bar", "zone")))],
            R1_Z1_Z2,
            OK,
            [EXISTING_ANTI_NOT_MATCH, EXISTING_ANTI_NOT_MATCH],
            id="Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as "
            "a single term match - case when all terms have valid topologyKey",
        ),
        pytest.param(
            pod(anti=(exists("foo", "region"), exists("bar", "zone"))),
            [pod({"foo": "", "bar": ""}, node="nodeA")],
            R1_Z1_Z2,
            OK,
            [ANTI_NOT_MATCH, ANTI_NOT_MATCH],
            id="Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as "
            "a single term match - case when all terms have valid topologyKey",
        ),
        pytest.param(
            pod({"foo": "", "bar": ""}),
            [
                pod(node="nodeA", anti=(exists("foo", "zone"), exists("labelA", "zone"))),
                pod(node="nodeB", anti=(exists("bar", "zone"), exists("labelB", "zone"))),
            ],
            nodes_with(
                ("nodeA", {"region": "r1", "zone": "z1", "hostname": "nodeA"}),
                ("nodeB", {"region": "r1", "zone": "z2", "hostname": "nodeB"}),
                ("nodeC", {"region": "r1", "zone": "z3", "hostname": "nodeC"}),
            ),
            OK,
            [EXISTING_ANTI_NOT_MATCH, EXISTING_ANTI_NOT_MATCH, OK],
            id="Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one anti-affinity term "
            "matches incoming pod, so incoming pod can only be scheduled to nodeC",
        ),
        pytest.param(
            pod(affinity=(exists("foo", "region"), exists("bar", "zone"))),
            [pod({"foo": "", "bar": ""}, node="nodeA")],
            R1_Z1_AB,
            OK,
            [OK, OK],
            id="Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all "
            "topologyKeys match",
        ),
        pytest.param(
            pod(affinity=(exists("foo", "region"), exists("bar", "zone"))),
            [pod({"foo": ""}, node="nodeA"), pod({"bar": ""}, node="nodeB")],
            R1_Z1_Z2,
            OK,
            [AFFINITY_NOT_MATCH, AFFINITY_NOT_MATCH],
            id="Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all "
            "topologyKeys match, and the match logic should be satisfied on the same pod",
        ),
    ],
)
def test_required_affinity_multiple_nodes(incoming, existing, nodes, want_pre_filter, want):
    assert run_filter(incoming, existing, nodes) == (want_pre_filter, want)
