"""PodTopologySpread cases from upstream ``pkg/scheduler/framework/plugins/podtopologyspread/``:
``filtering_test.go`` (TestSingleConstraint, TestMultipleConstraints; they compare status codes only)
and ``scoring_test.go`` (TestPodTopologySpreadScore, TestPreScoreSkip).

The plugin runs with ``defaultingType: List`` and no default constraints, as upstream's tables do,
unless a case says otherwise. Node inclusion policies are honoured, as in v1.35."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.framework import Code, CycleState
from clusterviz.scheduler.nodeinfo import PodInfo
from clusterviz.scheduler.plugins.pod_topology_spread import PodTopologySpread
from tests.scheduler.helpers import make_node, make_pod, scores, snap

S, U, UU = Code.SUCCESS, Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
UNSCHEDULABLE_TAINT = [{"key": "node.kubernetes.io/unschedulable", "value": "", "effect": "NoSchedule"}]


def spread(
    max_skew: int,
    key: str,
    selector: str | None = "foo",
    action: str = "DoNotSchedule",
    *,
    min_domains: int | None = None,
    affinity_policy: str | None = None,
    taints_policy: str | None = None,
) -> dict:
    """A topologySpreadConstraint; ``selector`` names the label that must exist (None: no selector)."""
    constraint: dict = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": action}
    if selector is not None:
        constraint["labelSelector"] = {"matchExpressions": [{"key": selector, "operator": "Exists"}]}
    if min_domains is not None:
        constraint["minDomains"] = min_domains
    if affinity_policy is not None:
        constraint["nodeAffinityPolicy"] = affinity_policy
    if taints_policy is not None:
        constraint["nodeTaintsPolicy"] = taints_policy
    return constraint


def incoming(*constraints: dict, labels: tuple[str, ...] = ("foo",), **spec) -> dict:
    return make_pod("p", labels=dict.fromkeys(labels, ""), topologySpreadConstraints=list(constraints), **spec)


def placed(name: str, node: str, *labels: str, namespace: str = "default", terminating: bool = False) -> dict:
    pod = make_pod(name, namespace, labels=dict.fromkeys(labels, ""), node=node)
    if terminating:
        pod["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return pod


def node(name: str, taints: list | None = None, **labels: str) -> dict:
    return make_node(name, labels=labels, taints=taints or (), hostname_label=False)


def zoned(*extra: dict) -> list[dict]:
    """node-a, node-b in zone1 and node-x, node-y in zone2, each with a "node" label."""
    return [
        node("node-a", zone="zone1", node="node-a"),
        node("node-b", zone="zone1", node="node-b"),
        node("node-x", zone="zone2", node="node-x"),
        node("node-y", zone="zone2", node="node-y"),
        *extra,
    ]


def foo_pods(*placements: str) -> list[dict]:
    """Pods labelled foo, one per "node-suffix/index" placement such as "a1" (on node-a)."""
    return [placed(f"p-{p}", f"node-{p[0]}", "foo") for p in placements]


def inclusion_nodes(y_taint: bool = False, y_foo: bool = False, b_foo: bool = True) -> list[dict]:
    """The four nodes of the node-inclusion-policy cases: "node" labels, some also "foo"."""
    return [
        node("node-a", node="node-a", foo=""),
        node("node-b", node="node-b", **({"foo": ""} if b_foo else {})),
        node("node-x", node="node-x", foo=""),
        node("node-y", UNSCHEDULABLE_TAINT if y_taint else None, node="node-y", **({"foo": ""} if y_foo else {})),
    ]


def zoned_inclusion_nodes(y_taint: bool = False, y_foo: bool = False, b_foo: bool = True) -> list[dict]:
    nodes = inclusion_nodes(y_taint, y_foo, b_foo)
    for n, zone in zip(nodes, ("zone1", "zone1", "zone2", "zone2"), strict=True):
        n["metadata"]["labels"]["zone"] = zone
    return nodes


def filter_codes(pod: dict, nodes: list[dict], existing: list[dict]) -> tuple[Code, ...]:
    snapshot = snap(nodes, existing)
    plugin = PodTopologySpread("List")
    state = CycleState(snapshot)
    info = PodInfo.from_pod(pod)
    status, _ = plugin.pre_filter(state, info)
    assert status.is_success, status
    return tuple(plugin.filter(state, info, snapshot.get(n["metadata"]["name"])).code for n in nodes)


INCLUSION_PODS = ("b1", "a"), ("b2", "b"), ("y1", "y")


def inclusion_pods() -> list[dict]:
    # upstream names these p-b1 (on node-a), p-b2 (on node-b) and p-y1 (on node-y).
    return [placed(f"p-{name}", f"node-{n}", "foo") for name, n in INCLUSION_PODS]


@pytest.mark.parametrize(
    ("pod", "nodes", "existing", "want"),
    [
        pytest.param(incoming(spread(1, "zone")), zoned(), [], (S, S, S, S), id="no existing pods"),
        pytest.param(
            incoming(spread(1, "zone", "bar")),
            zoned(),
            [],
            (S, S, S, S),
            id="no existing pods, incoming pod doesn't match itself",
        ),
        pytest.param(
            incoming(spread(1, "zone")),
            zoned(),
            [
                placed("p-a1", "node-a", "foo", namespace="ns1"),
                placed("p-b1", "node-a", "foo", namespace="ns2"),
                *foo_pods("x1", "y1"),
            ],
            (S, S, U, U),
            id="existing pods in a different namespace do not count",
        ),
        pytest.param(
            incoming(spread(1, "zone", None)),
            zoned(),
            foo_pods("x1", "y1"),
            (S, S, S, S),
            id="existing pods do not match null selector",
        ),
        pytest.param(
            incoming(spread(1, "zone")),
            zoned(),
            foo_pods("a1", "a2", "b1", "y1", "y2", "y3"),
            (S, S, S, S),
            id="pods spread across zones as 3/3, all nodes fit",
        ),
        pytest.param(
            incoming(spread(1, "zone")),
            [
                node("node-a", zone="zone1", node="node-a"),
                node("node-b", zon="zone1", node="node-b"),
                node("node-x", zone="zone2", node="node-x"),
                node("node-y", zone="zone2", node="node-y"),
            ],
            foo_pods("a1", "b1", "x1", "y1"),
            (S, UU, U, U),
            id="pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
        ),
        pytest.param(
            incoming(spread(1, "rack")),
            [node("node-a", zone="zone1", node="node-a"), node("node-x", zone="zone2", node="node-x")],
            [],
            (UU, UU),
            id="pod cannot be scheduled as all nodes don't have label 'rack'",
        ),
        pytest.param(
            incoming(spread(1, "node")),
            zoned(),
            foo_pods("a1", "a2", "b1", "y1", "y2", "y3"),
            (U, U, S, U),
            id="pods spread across nodes as 2/1/0/3, only node-x fits",
        ),
        pytest.param(
            incoming(spread(2, "node")),
            zoned(),
            foo_pods("a1", "a2", "b1", "y1", "y2", "y3"),
            (U, S, S, U),
            id="pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
        ),
        pytest.param(
            incoming(spread(1, "node"), labels=("bar",)),
            zoned(),
            foo_pods("a1", "a2", "b1", "y1", "y2", "y3"),
            (U, S, S, U),
            id="pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
        ),
        # Only node-a and node-y pass the Pod's node affinity, so they alone set the minimum;
        # node-b and node-x still pass here because this test runs no NodeAffinity filter.
        pytest.param(
            incoming(
                spread(1, "node"),
                affinity={
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {"key": "node", "operator": "In", "values": ["node-a", "node-y"]}
                                    ]
                                }
                            ]
                        }
                    }
                },
            ),
            zoned(),
            foo_pods("a1", "a2", "b1", "y1", "y2", "y3"),
            (S, S, S, U),
            id="incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
        ),
        pytest.param(
            incoming(spread(1, "node")),
            [node("node-a", node="node-a"), node("node-b", node="node-b")],
            [placed("p-a", "node-a", "foo", terminating=True), placed("p-b", "node-b", "foo")],
            (S, U),
            id="terminating Pods should be excluded",
        ),
        pytest.param(
            incoming(
                spread(1, "zone"),
                affinity={
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {"matchExpressions": [{"key": "node", "operator": "NotIn", "values": ["node-b"]}]}
                            ]
                        }
                    }
                },
            ),
            zoned(),
            foo_pods("b1", "b2", "y1"),
            (S, S, U, U),
            id="incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
        ),
        pytest.param(
            incoming(spread(2, "node", min_domains=4)),
            [node("node-a", node="node-a"), node("node-b", node="node-b"), node("node-c", node="node-c")],
            foo_pods("a1", "a2", "b1", "b2", "c1"),
            (U, U, S),
            id="pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then the "
            "third node fits",
        ),
        pytest.param(
            incoming(spread(2, "node", min_domains=2)),
            [node("node-a", node="node-a"), node("node-b", node="node-b"), node("node-c", node="node-c")],
            foo_pods("a1", "a2", "b1", "b2", "c1"),
            (S, S, S),
            id="pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then the all "
            "nodes fit",
        ),
        pytest.param(
            incoming(spread(2, "zone", min_domains=3)),
            zoned(),
            [placed("p-b1", "node-a", "foo"), placed("p-b2", "node-b", "foo"), placed("p-y1", "node-y", "foo")],
            (U, U, S, S),
            id="pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third "
            "and fourth nodes fit",
        ),
        pytest.param(
            incoming(spread(2, "zone", min_domains=1)),
            zoned(),
            [placed("p-b1", "node-a", "foo"), placed("p-b2", "node-b", "foo"), placed("p-y1", "node-y", "foo")],
            (S, S, S, S),
            id="pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all nodes "
            "fit",
        ),
        # node-y passes here only because this test runs no NodeAffinity / TaintToleration filter.
        pytest.param(
            incoming(spread(1, "node"), nodeSelector={"foo": ""}),
            inclusion_nodes(),
            inclusion_pods(),
            (U, U, S, S),
            id="NodeAffinityPolicy honored with labelSelectors",
        ),
        pytest.param(
            incoming(spread(1, "node", affinity_policy="Ignore"), nodeSelector={"foo": ""}),
            inclusion_nodes(),
            inclusion_pods(),
            (U, U, S, U),
            id="NodeAffinityPolicy ignored with labelSelectors",
        ),
        pytest.param(
            incoming(
                spread(1, "node"),
                affinity={
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {"matchExpressions": [{"key": "foo", "operator": "In", "values": [""]}]}
                            ]
                        }
                    }
                },
            ),
            inclusion_nodes(),
            inclusion_pods(),
            (U, U, S, S),
            id="NodeAffinityPolicy honored with nodeAffinity",
        ),
        # upstream reuses the name of the second policy case for this nodeAffinity variant.
        pytest.param(
            incoming(
                spread(1, "node", affinity_policy="Ignore"),
                affinity={
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {"matchExpressions": [{"key": "foo", "operator": "In", "values": [""]}]}
                            ]
                        }
                    }
                },
            ),
            inclusion_nodes(),
            inclusion_pods(),
            (U, U, S, U),
            id="NodeAffinityPolicy ignored with labelSelectors (nodeAffinity)",
        ),
        pytest.param(
            incoming(spread(1, "node", taints_policy="Honor")),
            inclusion_nodes(y_taint=True),
            inclusion_pods(),
            (U, U, S, S),
            id="NodeTaintsPolicy honored",
        ),
        pytest.param(
            incoming(spread(1, "node")),
            inclusion_nodes(y_taint=True),
            inclusion_pods(),
            (U, U, S, U),
            id="NodeTaintsPolicy ignored",
        ),
    ],
)
def test_single_constraint(pod, nodes, existing, want):
    assert filter_codes(pod, nodes, existing) == want


@pytest.mark.parametrize(
    ("pod", "nodes", "existing", "want"),
    [
        pytest.param(
            incoming(spread(1, "zone"), spread(1, "node")),
            zoned(),
            foo_pods("a1", "a2", "b1", "y1", "y2", "y3"),
            (U, U, S, U),
            id="two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
        ),
        pytest.param(
            incoming(spread(1, "zone"), spread(1, "node")),
            zoned(),
            foo_pods("a1", "a2", "b1", "y1", "y2", "y3", "y4"),
            (U, U, U, U),
            id="two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
        ),
        pytest.param(
            incoming(spread(1, "zone"), spread(1, "node", "bar"), labels=("foo", "bar")),
            zoned(),
            [placed("p-a1", "node-a", "foo"), placed("p-y1", "node-y", "bar")],
            (U, U, S, U),
            id="Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
        ),
        pytest.param(
            incoming(spread(1, "zone"), spread(1, "node", "bar"), labels=("foo", "bar")),
            zoned(),
            [placed("p-a1", "node-a", "foo"), placed("p-x1", "node-x", "bar"), placed("p-y1", "node-y", "bar")],
            (U, U, U, U),
            id="Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
        ),
        pytest.param(
            incoming(spread(1, "zone"), spread(1, "node", "bar"), labels=("foo", "bar")),
            zoned(),
            [
                placed("p-a1", "node-a", "foo"),
                placed("p-a2", "node-a", "foo", "bar"),
                placed("p-y1", "node-y", "foo"),
                placed("p-y2", "node-y", "foo", "bar"),
                placed("p-y3", "node-y", "foo"),
            ],
            (U, S, U, U),
            id="Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
        ),
        pytest.param(
            incoming(spread(1, "zone"), spread(1, "node", "bar"), labels=("bar",)),
            zoned(),
            [placed("p-a1", "node-a", "foo"), placed("p-x1", "node-x", "bar"), placed("p-y1", "node-y", "bar")],
            (S, S, U, U),
            id="Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
        ),
        pytest.param(
            incoming(spread(1, "zone"), spread(1, "node")),
            [
                node("node-a", zone="zone1", node="node-a"),
                node("node-b", zone="zone1", node="node-b"),
                node("node-x", zone="zone2"),
                node("node-y", zone="zone2", node="node-y"),
            ],
            [placed("p-a1", "node-a", "foo"), placed("p-y3", "node-y", "foo")],
            (U, S, UU, U),
            id="two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
        ),
        pytest.param(
            incoming(spread(1, "zone"), spread(1, "node", affinity_policy="Ignore"), nodeSelector={"foo": ""}),
            zoned_inclusion_nodes(),
            [placed("p-a1", "node-a", "foo"), placed("p-b1", "node-b", "foo"), placed("p-y1", "node-y", "foo")],
            (U, U, S, U),
            id="two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
        ),
        pytest.param(
            incoming(spread(1, "zone", taints_policy="Honor"), spread(1, "node")),
            zoned_inclusion_nodes(y_taint=True),
            [placed("p-a1", "node-a", "foo"), placed("p-b1", "node-b", "foo"), placed("p-y1", "node-y", "foo")],
            (U, U, S, U),
            id="two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
        ),
        pytest.param(
            incoming(spread(1, "zone"), spread(1, "node"), nodeSelector={"foo": ""}),
            zoned_inclusion_nodes(y_taint=True, y_foo=True, b_foo=False),
            [placed("p-a1", "node-a", "foo"), placed("p-b1", "node-b", "foo"), placed("p-y1", "node-y", "foo")],
            (U, S, S, U),
            id="two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
        ),
        pytest.param(
            incoming(
                spread(1, "zone", taints_policy="Honor"),
                spread(1, "node", affinity_policy="Ignore"),
                nodeSelector={"foo": ""},
            ),
            zoned_inclusion_nodes(y_taint=True, y_foo=True, b_foo=False),
            [placed("p-a1", "node-a", "foo"), placed("p-b1", "node-b", "foo"), placed("p-y1", "node-y", "foo")],
            (U, U, S, U),
            id="two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
        ),
    ],
)
def test_multiple_constraints(pod, nodes, existing, want):
    assert filter_codes(pod, nodes, existing) == want


# --- Score ----------------------------------------------------------------------------------------

HOSTNAME = "kubernetes.io/hostname"


def host(name: str, taints: list | None = None, **labels: str) -> dict:
    """A scoring-table node: its hostname label plus ``labels``."""
    return make_node(name, labels={HOSTNAME: name, **labels}, taints=taints or (), hostname_label=False)


def soft(max_skew: int, key: str, selector: str | None = "foo", **kwargs) -> dict:
    return spread(max_skew, key, selector, "ScheduleAnyway", **kwargs)


def score_list(
    pod: dict,
    candidates: list[dict],
    existing: list[dict] = (),
    failed: list[dict] = (),
    workloads: list[dict] = (),
    plugin: PodTopologySpread | None = None,
) -> list[int] | str:
    """Normalised scores of the candidate nodes (the others are in the snapshot but failed filtering)."""
    snapshot = snap([*candidates, *failed], existing, workloads=workloads)
    names = [n["metadata"]["name"] for n in candidates]
    result = scores(plugin or PodTopologySpread("System"), pod, snapshot, names)
    return "skip" if result.get("skip") else [result["normalized"][name] for name in names]


FOUR_HOSTS = [host("node-a"), host("node-b"), host("node-c"), host("node-d")]
SPREAD_2_1_0_3 = ("a1", "a2", "b1", "d1", "d2", "d3")
SPREAD_4_3_2_1 = ("a1", "a2", "a3", "a4", "b1", "b2", "b3", "c1", "c2", "d1")
SPREAD_4_2_1_3 = ("a1", "a2", "a3", "a4", "b1", "b2", "x1", "y1", "y2", "y3")
FOO_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "foo", "namespace": "default"},
    "spec": {"selector": {"foo": ""}},
}
NODE_FOO_AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "foo", "operator": "In", "values": [""]}]}]
        }
    }
}


def policy_nodes(c_taint: bool = False, ab_foo: bool = True) -> list[dict]:
    extra = {"foo": ""} if ab_foo else {}
    return [
        node("node-a", node="node-a", **extra),
        node("node-b", node="node-b", **extra),
        node("node-c", UNSCHEDULABLE_TAINT if c_taint else None, node="node-c"),
    ]


def policy_pods() -> list[dict]:
    return foo_pods("a1", "a2", "b1", "c1")


def match_label_keys_pods() -> list[dict]:
    return [
        placed("p-a1", "node-a", "foo"),
        placed("p-b1", "node-b", "foo", "bar"),
        placed("p-y1", "node-c", "foo"),
        placed("p-y2", "node-c", "bar"),
    ]


def zoned_hosts(*names_zones: tuple[str, str]) -> list[dict]:
    return [host(name, zone=zone) for name, zone in names_zones]


ABCD_ZONES = (("node-a", "zone1"), ("node-b", "zone1"), ("node-c", "zone2"), ("node-d", "zone2"))
ABXY_ZONES = (("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"), ("node-y", "zone2"))


@pytest.mark.parametrize(
    ("pod", "candidates", "existing", "failed", "workloads", "want"),
    [
        pytest.param(
            incoming(soft(1, HOSTNAME)),
            [host("node-a"), host("node-b")],
            [],
            [],
            [],
            [100, 100],
            id="one constraint on node, no existing pods",
        ),
        pytest.param(
            incoming(soft(1, HOSTNAME)),
            [host("node-a")],
            foo_pods("a1", "a2", "b1"),
            [host("node-b")],
            [],
            [100],
            id="one constraint on node, only one node is candidate",
        ),
        pytest.param(
            incoming(soft(1, HOSTNAME)),
            [host("node-a"), host("node-b")],
            foo_pods("a1", "b1"),
            [],
            [],
            [100, 100],
            id="one constraint on node, all nodes have the same number of matching pods",
        ),
        pytest.param(
            incoming(soft(1, HOSTNAME)),
            FOUR_HOSTS,
            foo_pods(*SPREAD_2_1_0_3),
            [],
            [],
            [20, 60, 100, 0],
            id="one constraint on node, all 4 nodes are candidates",
        ),
        pytest.param(
            incoming(soft(1, HOSTNAME, None)),
            FOUR_HOSTS,
            foo_pods(*SPREAD_2_1_0_3),
            [],
            [],
            [100, 100, 100, 100],
            id="one constraint on node, null selector",
        ),
        pytest.param(
            incoming(soft(2, HOSTNAME)),
            FOUR_HOSTS,
            foo_pods(*SPREAD_2_1_0_3),
            [],
            [],
            [33, 66, 100, 16],
            id="one constraint on node, all 4 nodes are candidates, maxSkew=2",
        ),
        pytest.param(
            incoming(soft(3, HOSTNAME)),
            FOUR_HOSTS,
            foo_pods(*SPREAD_4_3_2_1),
            [],
            [],
            [44, 66, 77, 100],
            id="one constraint on node, all 4 nodes are candidates, maxSkew=3",
        ),
        # No constraints: the system defaults apply, with the Service's selector.
        pytest.param(
            incoming(),
            FOUR_HOSTS,
            foo_pods(*SPREAD_4_3_2_1),
            [],
            [FOO_SERVICE],
            [44, 66, 77, 100],
            id="system defaulting, nodes don't have zone, pods match service",
        ),
        pytest.param(
            incoming(soft(1, HOSTNAME)),
            [host("node-a"), host("node-b"), host("node-x")],
            foo_pods(*SPREAD_4_2_1_3),
            [host("node-y")],
            [],
            [33, 83, 100],
            id="one constraint on node, 3 out of 4 nodes are candidates",
        ),
        pytest.param(
            incoming(soft(1, HOSTNAME)),
            [host("node-a"), node("node-b", n="node-b"), host("node-x")],
            foo_pods(*SPREAD_4_2_1_3),
            [host("node-y")],
            [],
            [16, 0, 100],
            id="one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
        ),
        pytest.param(
            incoming(soft(1, "zone")),
            zoned_hosts(*ABXY_ZONES[:3]),
            foo_pods(*SPREAD_4_2_1_3),
            zoned_hosts(ABXY_ZONES[3]),
            [],
            [75, 75, 100],
            id="one constraint on zone, 3 out of 4 nodes are candidates",
        ),
        pytest.param(
            incoming(soft(1, "zone"), soft(1, HOSTNAME)),
            zoned_hosts(("node-a", "zone1"), ("node-x", "zone2")),
            foo_pods("a1", "a2", "b1", "x1", "x2", "y1", "y2", "y3", "y4"),
            zoned_hosts(("node-b", "zone1"), ("node-y", "zone2")),
            [],
            [100, 63],
            id="two Constraints on zone and node, 2 out of 4 nodes are candidates",
        ),
        pytest.param(
            incoming(soft(1, "zone"), soft(1, HOSTNAME, "bar"), labels=("foo", "bar")),
            zoned_hosts(*ABXY_ZONES),
            [
                placed("p-a1", "node-a", "foo"),
                placed("p-b1", "node-b", "foo", "bar"),
                placed("p-y1", "node-y", "foo"),
                placed("p-y2", "node-y", "bar"),
            ],
            [],
            [],
            [60, 20, 100, 60],
            id="two Constraints on zone and node, with different labelSelectors",
        ),
        pytest.param(
            incoming(soft(1, "zone"), soft(1, HOSTNAME, "bar"), labels=("foo", "bar")),
            zoned_hosts(*ABXY_ZONES),
            [
                placed("p-b1", "node-b", "bar"),
                placed("p-x1", "node-x", "foo"),
                placed("p-y1", "node-y", "foo", "bar"),
            ],
            [],
            [],
            [100, 60, 40, 0],
            id="two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
        ),
        pytest.param(
            incoming(soft(1, "zone"), soft(1, HOSTNAME, "bar"), labels=("foo", "bar")),
            zoned_hosts(*ABXY_ZONES[:3]),
            [
                placed("p-a1", "node-a", "foo"),
                placed("p-b1", "node-b", "foo", "bar"),
                placed("p-y1", "node-y", "foo"),
                placed("p-y2", "node-y", "bar"),
            ],
            zoned_hosts(ABXY_ZONES[3]),
            [],
            [50, 25, 100],
            id="two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
        ),
        pytest.param(
            incoming(soft(1, HOSTNAME)),
            [host("node-a"), host("node-b")],
            [placed("p-a1", "node-a", "foo", namespace="ns1"), *foo_pods("a2", "b1", "b2")],
            [],
            [],
            [100, 33],
            id="existing pods in a different namespace do not count",
        ),
        pytest.param(
            incoming(soft(1, HOSTNAME)),
            [host("node-a"), host("node-b")],
            [placed("p-a", "node-a", "foo", terminating=True), placed("p-b", "node-b", "foo")],
            [],
            [],
            [100, 0],
            id="terminating Pods should be excluded",
        ),
        # Not a valid Pod for the API server (minDomains needs DoNotSchedule), but the plugin must ignore it.
        pytest.param(
            incoming(soft(2, "node", min_domains=10)),
            [node("node-a", node="node-a"), node("node-b", node="node-b"), node("node-c", node="node-c")],
            foo_pods("a1", "a2", "b1", "b2", "c1"),
            [],
            [],
            [75, 75, 100],
            id="minDomains has no effect when ScheduleAnyway",
        ),
        pytest.param(
            incoming(soft(1, "node"), nodeSelector={"foo": ""}),
            policy_nodes(),
            policy_pods(),
            [],
            [],
            [0, 33, 100],
            id="NodeAffinityPolicy honoed with labelSelectors",
        ),
        pytest.param(
            incoming(soft(1, "node", affinity_policy="Ignore"), nodeSelector={"foo": ""}),
            policy_nodes(),
            policy_pods(),
            [],
            [],
            [66, 100, 100],
            id="NodeAffinityPolicy ignored with labelSelectors",
        ),
        pytest.param(
            incoming(soft(1, "node"), affinity=NODE_FOO_AFFINITY),
            policy_nodes(),
            policy_pods(),
            [],
            [],
            [0, 33, 100],
            id="NodeAffinityPolicy honoed with nodeAffinity",
        ),
        pytest.param(
            incoming(soft(1, "node", affinity_policy="Ignore"), affinity=NODE_FOO_AFFINITY),
            policy_nodes(),
            policy_pods(),
            [],
            [],
            [66, 100, 100],
            id="NodeAffinityPolicy ignored with nodeAffinity",
        ),
        pytest.param(
            incoming(soft(1, "node", taints_policy="Honor")),
            policy_nodes(c_taint=True, ab_foo=False),
            policy_pods(),
            [],
            [],
            [0, 33, 100],
            id="NodeTaintsPolicy honored",
        ),
        pytest.param(
            incoming(soft(1, "node")),
            policy_nodes(c_taint=True, ab_foo=False),
            policy_pods(),
            [],
            [],
            [66, 100, 100],
            id="NodeTaintsPolicy ignored",
        ),
        # An empty selector selects every Pod; matchLabelKeys then adds "<key> = the Pod's value".
        pytest.param(
            incoming(
                {**soft(1, "zone", None), "labelSelector": {}, "matchLabelKeys": ["foo"]},
                {**soft(1, HOSTNAME, None), "labelSelector": {}, "matchLabelKeys": ["bar"]},
                labels=("foo", "bar"),
            ),
            zoned_hosts(*ABCD_ZONES),
            match_label_keys_pods(),
            [],
            [],
            [60, 20, 60, 100],
            id="matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
        ),
        pytest.param(
            incoming(
                soft(1, "zone"),
                {**soft(1, HOSTNAME, "bar"), "matchLabelKeys": ["baz"]},
                labels=("foo", "bar", "baz"),
            ),
            zoned_hosts(*ABCD_ZONES),
            [
                placed("p-a1", "node-a", "foo"),
                placed("p-b1", "node-b", "foo", "bar", "baz"),
                placed("p-c1", "node-c", "foo"),
                placed("p-c2", "node-c", "bar"),
                placed("p-d3", "node-c", "bar", "baz"),
            ],
            [],
            [],
            [60, 20, 60, 100],
            id="matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
        ),
    ],
)
def test_pod_topology_spread_score(pod, candidates, existing, failed, workloads, want):
    assert score_list(pod, candidates, existing, failed, workloads) == want


def owned_pod(labels: dict, kind: str, owner: str) -> dict:
    pod = make_pod("p", labels=labels)
    pod["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": kind, "name": owner, "controller": True}]
    return pod


@pytest.mark.parametrize(
    ("pod", "nodes", "workloads", "plugin"),
    [
        pytest.param(
            make_pod("p"),
            [host("node-a"), host("node-b")],
            [],
            PodTopologySpread("List"),
            id="the pod doesn't have soft topology spread Constraints",
        ),
        pytest.param(
            owned_pod({"foo": "bar", "baz": "sup"}, "ReplicaSet", "rs2"),
            [node("node-a", planet="mars")],
            [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "metadata": {"name": "rs1", "namespace": "default"},
                    "spec": {"selector": {"matchExpressions": [{"key": "tar", "operator": "Exists"}]}},
                }
            ],
            PodTopologySpread("List", [{"maxSkew": 2, "topologyKey": "planet", "whenUnsatisfiable": "ScheduleAnyway"}]),
            id="default constraints and a replicaset that doesn't match",
        ),
    ],
)
def test_pre_score_skip(pod, nodes, workloads, plugin):
    assert score_list(pod, nodes, workloads=workloads, plugin=plugin) == "skip"
