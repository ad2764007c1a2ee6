"""InterPodAffinity's Score: the cases of upstream's ``pkg/scheduler/framework/plugins/interpodaffinity/scoring_test.go``
(TestPreferredAffinity, TestPreferredAffinityWithHardPodAffinitySymmetricWeight)."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.framework import Code, CycleState
from clusterviz.scheduler.nodeinfo import PodInfo
from clusterviz.scheduler.plugins.inter_pod_affinity import InterPodAffinity
from tests.scheduler.helpers import snap
from tests.scheduler.upstream.pod_affinity import (
    CHINA,
    INDIA,
    NAMESPACES,
    TEAM1,
    nodes_with,
    pod,
    selector_term,
    term,
    weighted,
)

S1, S2 = {"security": "S1"}, {"security": "S2"}
CHINA_AZ1_ONLY, AZ1, AZ2 = {"region": "China", "az": "az1"}, {"az": "az1"}, {"az": "az2"}
STAY_WITH_S1_IN_REGION = {"preferred": (weighted(5, term("security", "In", "S1", topology="region")),)}
STAY_WITH_S2_IN_REGION = {"preferred": (weighted(6, term("security", "In", "S2", topology="region")),)}
AFFINITY3 = {
    "preferred": (
        weighted(8, selector_term(("security", "NotIn", "S1"), ("security", "In", "S2"), topology="region")),
        weighted(2, selector_term(("security", "Exists"), ("wrongkey", "DoesNotExist"), topology="region")),
    )
}
HARD_AFFINITY = {
    "affinity": (
        term("security", "In", "S1", "value2", topology="region"),
        selector_term(("security", "Exists"), ("wrongkey", "DoesNotExist"), topology="region"),
    )
}
AWAY_FROM_S1_IN_AZ = {"preferred_anti": (weighted(5, term("security", "In", "S1", topology="az")),)}
AWAY_FROM_S2_IN_AZ = {"preferred_anti": (weighted(5, term("security", "In", "S2", topology="az")),)}
STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ = {
    "preferred": (weighted(8, term("security", "In", "S1", topology="region")),),
    "preferred_anti": (weighted(5, term("security", "In", "S2", topology="az")),),
}
NS_SELECTOR_TERM = term("security", "In", "S1", topology="region", namespaces=["subteam2.team2"], **TEAM1)
AFFINITY_NAMESPACE_SELECTOR = {"preferred": (weighted(5, NS_SELECTOR_TERM),)}
ANTI_AFFINITY_NAMESPACE_SELECTOR = {"preferred_anti": (weighted(5, NS_SELECTOR_TERM),)}
INVALID_AFFINITY = {"preferred": (weighted(8, term("security", "In", "{{.bad-value.}}", topology="region")),)}
INVALID_ANTI_AFFINITY = {"preferred_anti": (weighted(5, term("security", "In", "{{.bad-value.}}", topology="az")),)}
SKIPPED = (Code.SKIP, "")
INVALID_VALUE = (Code.ERROR, 'Invalid value: "{{.bad-value.}}"')


def run_score(incoming: dict, existing: list[dict], nodes: list[dict], **args) -> list[int] | tuple:
    """Normalised scores in node order, or (code, message) when PreScore does not succeed."""
    snapshot = snap(nodes, existing, namespaces=NAMESPACES)
    plugin = InterPodAffinity(**args)
    state = CycleState(snapshot)
    info = PodInfo.from_pod(incoming)
    status = plugin.pre_score(state, info, snapshot.list())
    if not status.is_success:
        return status.code, status.message
    raw = {n["metadata"]["name"]: plugin.score(state, info, snapshot.get(n["metadata"]["name"])) for n in nodes}
    normalized = plugin.normalize_score(state, info, raw)
    return [normalized[name] for name in raw]


def assert_scores(got: list[int] | tuple, want: list[int] | tuple) -> None:
    # upstream compares a failed PreScore by code and by a fragment of its message.
    if isinstance(want, list):
        assert got == want
    else:
        assert isinstance(got, tuple) and got[0] == want[0] and want[1] in got[1], got


def ns_pods(*placements: tuple[str, str]) -> list[dict]:
    return [pod(S1, node=node, namespace=namespace) for node, namespace in placements]


@pytest.mark.parametrize(
    ("incoming", "existing", "nodes", "ignore_existing", "want"),
    [
        pytest.param(
            pod(S1),
            [],
            nodes_with(("node1", CHINA), ("node2", INDIA), ("node3", AZ1)),
            False,
            SKIPPED,
            id="all nodes are same priority as Affinity is nil",
        ),
        pytest.param(
            pod(S1, **STAY_WITH_S1_IN_REGION),
            [pod(S1, node="node1"), pod(S2, node="node2"), pod(S1, node="node3")],
            nodes_with(("node1", CHINA), ("node2", INDIA), ("node3", AZ1)),
            False,
            [100, 0, 0],
            id="Affinity: pod that matches topology key & pods in nodes will get high score comparing to otherswhich "
            "doesn't match either pods in nodes or in topology key",
        ),
        pytest.param(
            pod(**STAY_WITH_S1_IN_REGION),
            [pod(S1, node="node1")],
            nodes_with(("node1", CHINA), ("node2", CHINA_AZ1_ONLY), ("node3", INDIA)),
            False,
            [100, 100, 0],
            id="All the nodes that have the same topology key & label value with one of them has an existing pod that "
            "match the affinity rules, have the same score",
        ),
        pytest.param(
            pod(S1, **STAY_WITH_S2_IN_REGION),
            [pod(S2, node=n) for n in ("node1", "node1", "node2", "node3", "node4", "node5")],
            nodes_with(("node1", CHINA), ("node2", INDIA), ("node3", CHINA), ("node4", CHINA), ("node5", INDIA)),
            False,
            [100, 0, 100, 100, 0],
            id="Affinity: nodes in one region has more matching pods comparing to other region, so the region which has "
            "more matches will get high score",
        ),
        pytest.param(
            pod(S1, **AFFINITY3),
            [pod(S1, node="node1"), pod(S2, node="node2"), pod(S1, node="node3")],
            nodes_with(("node1", CHINA), ("node2", INDIA), ("node3", AZ1)),
            False,
            [20, 100, 0],
            id="Affinity: different Label operators and values for pod affinity scheduling preference, including some "
            "match failures ",
        ),
        pytest.param(
            pod(S2),
            [pod(S1, node="node1", **STAY_WITH_S1_IN_REGION), pod(S2, node="node2", **STAY_WITH_S2_IN_REGION)],
            nodes_with(("node1", CHINA), ("node2", INDIA), ("node3", AZ1)),
            False,
            [0, 100, 0],
            id="Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod affinity "
            "symmetry",
        ),
        pytest.param(
            pod(S1, namespace="subteam1.team1"),
            [pod(S1, node="node1", **AFFINITY_NAMESPACE_SELECTOR), pod(S2, node="node2", **STAY_WITH_S2_IN_REGION)],
            nodes_with(("node1", CHINA), ("node2", INDIA), ("node3", AZ1)),
            False,
            [100, 0, 0],
            id="Affinity symmetry with namespace selector",
        ),
        pytest.param(
            pod(S1, namespace="subteam1.team1"),
            [
                pod(S1, node="node1", **ANTI_AFFINITY_NAMESPACE_SELECTOR),
                pod(S2, node="node2", **STAY_WITH_S2_IN_REGION),
            ],
            nodes_with(("node1", CHINA), ("node2", INDIA), ("node3", AZ1)),
            False,
            [0, 100, 100],
            id="AntiAffinity symmetry with namespace selector",
        ),
        pytest.param(
            pod(S1),
            [pod(S1, node="node1", **HARD_AFFINITY), pod(S2, node="node2", **HARD_AFFINITY)],
            nodes_with(("node1", CHINA), ("node2", INDIA), ("node3", AZ1)),
            False,
            [100, 100, 0],
            id="Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
        ),
        pytest.param(
            pod(S1, **AWAY_FROM_S1_IN_AZ),
            [pod(S1, node="node1"), pod(S2, node="node2")],
            nodes_with(("node1", AZ1), ("node2", CHINA)),
            False,
            [0, 100],
            id="Anti Affinity: pod that does not match existing pods in node will get high score ",
        ),
        pytest.param(
            pod(S1, **AWAY_FROM_S1_IN_AZ),
            [pod(S1, node="node1"), pod(S1, node="node2")],
            nodes_with(("node1", AZ1), ("node2", CHINA)),
            False,
            [0, 100],
            id="Anti Affinity: pod that does not match topology key & match the pods in nodes will get higher score "
            "comparing to others ",
        ),
        pytest.param(
            pod(S1, **AWAY_FROM_S1_IN_AZ),
            [pod(S1, node="node1"), pod(S1, node="node1"), pod(S2, node="node2")],
            nodes_with(("node1", AZ1), ("node2", INDIA)),
            False,
            [0, 100],
            id="Anti Affinity: one node has more matching pods comparing to other node, so the node which has more "
            "unmatches will get high score",
        ),
        pytest.param(
            pod(S2),
            [pod(S1, node="node1", **AWAY_FROM_S2_IN_AZ), pod(S2, node="node2", **AWAY_FROM_S1_IN_AZ)],
            nodes_with(("node1", AZ1), ("node2", AZ2)),
            False,
            [0, 100],
            id="Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high score",
        ),
        pytest.param(
            pod(S1, **STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
            [pod(S1, node="node1"), pod(S1, node="node2")],
            nodes_with(("node1", CHINA), ("node2", AZ1)),
            False,
            [100, 0],
            id="Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod "
            "affinity & anti affinity",
        ),
        pytest.param(
            pod(S1, **STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
            [pod(S1, node=n) for n in ("node1", "node1", "node2", "node3", "node3", "node4", "node5")],
            nodes_with(
                ("node1", CHINA_AZ1_ONLY), ("node2", INDIA), ("node3", CHINA), ("node4", CHINA), ("node5", INDIA)
            ),
            False,
            [100, 0, 100, 100, 0],
            id="Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and "
            "existing pods have the same labels",
        ),
        pytest.param(
            pod(S1, **STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
            [
                pod(S1, node="node1"),
                pod(S2, node="node2"),
                pod(node="node3", **STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
                pod(node="node4", **AWAY_FROM_S1_IN_AZ),
            ],
            nodes_with(("node1", CHINA), ("node2", AZ1), ("node3", INDIA), ("node4", AZ2)),
            False,
            [100, 0, 100, 0],
            id="Affinity and Anti Affinity and symmetry: considered only preferredDuringSchedulingIgnoredDuringExecution "
            "in both pod affinity & anti affinity & symmetry",
        ),
        pytest.param(
            pod(S1),
            [pod(S1, node="node1"), pod(node="node2", **STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ)],
            nodes_with(("node1", CHINA), ("node2", CHINA)),
            False,
            [0, 0],
            id="Avoid panic when partial nodes in a topology don't have pods with affinity",
        ),
        pytest.param(
            pod(**INVALID_AFFINITY),
            [],
            nodes_with(("node1", CHINA), ("node2", CHINA)),
            False,
            INVALID_VALUE,
            id="invalid Affinity fails PreScore",
        ),
        pytest.param(
            pod(**INVALID_ANTI_AFFINITY),
            [],
            nodes_with(("node1", CHINA), ("node2", CHINA)),
            False,
            INVALID_VALUE,
            id="invalid AntiAffinity fails PreScore",
        ),
        pytest.param(
            pod(S1, namespace="subteam1.team1", **AFFINITY_NAMESPACE_SELECTOR),
            ns_pods(
                ("node1", "subteam1.team1"),
                ("node1", "subteam1.team1"),
                ("node1", "subteam1.team2"),
                ("node2", "subteam2.team1"),
            ),
            nodes_with(("node1", CHINA), ("node2", INDIA)),
            False,
            [100, 0],
            id="Affinity with pods matching NamespaceSelector",
        ),
        pytest.param(
            pod(S1, namespace="subteam1.team1", **AFFINITY_NAMESPACE_SELECTOR),
            ns_pods(
                ("node1", "subteam1.team1"),
                ("node1", "subteam1.team1"),
                ("node1", "subteam2.team2"),
                ("node2", "subteam2.team1"),
            ),
            nodes_with(("node1", CHINA), ("node2", INDIA)),
            False,
            [100, 0],
            id="Affinity with pods matching both NamespaceSelector and Namespaces fields",
        ),
        # upstream reuses the two names above for their anti-affinity twins.
        pytest.param(
            pod(S1, namespace="subteam1.team1", **ANTI_AFFINITY_NAMESPACE_SELECTOR),
            ns_pods(
                ("node1", "subteam1.team1"),
                ("node1", "subteam1.team1"),
                ("node1", "subteam1.team2"),
                ("node2", "subteam2.team1"),
            ),
            nodes_with(("node1", CHINA), ("node2", INDIA)),
            False,
            [0, 100],
            id="Affinity with pods matching NamespaceSelector (anti-affinity)",
        ),
        pytest.param(
            pod(S1, namespace="subteam1.team1", **ANTI_AFFINITY_NAMESPACE_SELECTOR),
            ns_pods(
                ("node1", "subteam1.team1"),
                ("node1", "subteam1.team1"),
                ("node1", "subteam2.team2"),
                ("node2", "subteam2.team1"),
            ),
            nodes_with(("node1", CHINA), ("node2", INDIA)),
            False,
            [0, 100],
            id="Affinity with pods matching both NamespaceSelector and Namespaces fields (anti-affinity)",
        ),
        pytest.param(
            pod(S2),
            [
                pod(S1, node="node1", **STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
                pod(S2, node="node2", **STAY_WITH_S2_IN_REGION),
            ],
            nodes_with(("node1", CHINA), ("node2", INDIA)),
            True,
            SKIPPED,
            id="Ignore preferred terms of existing pods",
        ),
        pytest.param(
            pod(S2),
            [
                pod(S1, node="node1", **STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
                pod(S2, node="node2", **STAY_WITH_S2_IN_REGION),
            ],
            nodes_with(("node1", CHINA), ("node2", INDIA)),
            False,
            [0, 100],
            id="Do not ignore preferred terms of existing pods",
        ),
        pytest.param(pod(S2), [], [], False, SKIPPED, id="No nodes to score"),
    ],
)
def test_preferred_affinity(incoming, existing, nodes, ignore_existing, want):
    got = run_score(incoming, existing, nodes, ignore_preferred_terms_of_existing_pods=ignore_existing)
    assert_scores(got, want)


# upstream lists the namespaces "" and subteam2.team2; its "" is the empty namespace of its Pods,
# which reads as default here.
HARD_POD_AFFINITY = {
    "affinity": (term("service", "In", "S1", topology="region", namespaces=["default", "subteam2.team2"], **TEAM1),)
}
HARD_NODES = (("node1", CHINA), ("node2", INDIA), ("node3", AZ1))


@pytest.mark.parametrize(
    ("namespace", "weight", "want"),
    [
        pytest.param("default", 1, [100, 100, 0], id="with default weight"),
        pytest.param("default", 0, SKIPPED, id="with zero weight"),
        pytest.param("subteam1.team2", 1, SKIPPED, id="with no matching namespace"),
        pytest.param("subteam1.team1", 1, [100, 100, 0], id="with matching NamespaceSelector"),
        pytest.param("subteam2.team2", 1, [100, 100, 0], id="with matching Namespaces"),
    ],
)
def test_preferred_affinity_with_hard_pod_affinity_symmetric_weight(namespace, weight, want):
    existing = [pod(node="node1", **HARD_POD_AFFINITY), pod(node="node2", **HARD_POD_AFFINITY)]
    got = run_score(
        pod({"service": "S1"}, namespace=namespace), existing, nodes_with(*HARD_NODES), hard_pod_affinity_weight=weight
    )
    assert_scores(got, want)
