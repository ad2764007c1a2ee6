"""PodTopologySpread's default constraints, from upstream ``pkg/scheduler/framework/plugins/podtopologyspread/``:
the "default constraints" cases of ``filtering_test.go`` (TestPreFilterState) and ``scoring_test.go``
(TestPreScoreStateEmptyNodes), checked through the state PreFilter and PreScore leave in the CycleState.

A Pod without constraints of its own gets the defaults (``System``: hostname maxSkew 3 and zone
maxSkew 5, both ScheduleAnyway; ``List``: the configured ones), each with the selector merged from
the Services selecting the Pod and the ReplicationController, ReplicaSet or StatefulSet owning it
(``helper.DefaultSelector``); with no such selector there are no default constraints at all."""

from __future__ import annotations

import math

import pytest

from clusterviz.apimachinery.labels import selector_from_label_selector
from clusterviz.scheduler.framework import CycleState
from clusterviz.scheduler.nodeinfo import PodInfo
from clusterviz.scheduler.plugins.pod_topology_spread import NAME, PodTopologySpread
from tests.scheduler.helpers import make_node, make_pod, snap

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
FOO_EXISTS = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
BAR_EXISTS = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}


def labels(**match: str) -> dict:
    return {"matchLabels": match}


def service(selector: dict, name: str = "svc") -> dict:
    return {"kind": "Service", "metadata": {"name": name, "namespace": "default"}, "spec": {"selector": selector}}


def owner(kind: str, name: str, selector, api: str = "apps/v1") -> dict:
    return {"kind": kind, "apiVersion": api, "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": selector}}  # fmt: skip


def owned(pod: dict, kind: str, name: str, api: str = "apps/v1") -> dict:
    pod["metadata"]["ownerReferences"] = [{"apiVersion": api, "kind": kind, "name": name, "controller": True}]
    return pod


def pod(*constraints: dict, **pod_labels: str) -> dict:
    spec = {"topologySpreadConstraints": list(constraints)} if constraints else {}
    return make_pod("p", labels=pod_labels, **spec)


def constraint(max_skew: int, key: str, action: str, selector: dict | None = None) -> dict:
    out: dict = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": action}
    if selector is not None:
        out["labelSelector"] = selector
    return out


def node(name: str, **node_labels: str) -> dict:
    return make_node(name, labels=node_labels, hostname_label=False)


def summary(constraints) -> list[tuple[int, str, object]]:
    return [(c.max_skew, c.topology_key, c.selector) for c in constraints]


def want(*triples: tuple[int, str, dict]) -> list[tuple[int, str, object]]:
    return [(skew, key, selector_from_label_selector(sel)) for skew, key, sel in triples]


# --- TestPreFilterState: the hard (DoNotSchedule) default constraints ---------------------------------

LIST_DEFAULTS = [
    constraint(3, "node", "DoNotSchedule"),
    constraint(2, "node", "ScheduleAnyway"),
    constraint(5, "rack", "DoNotSchedule"),
]


@pytest.mark.parametrize(
    ("incoming", "defaults", "workloads", "expected"),
    [
        pytest.param(
            pod(foo="bar", baz="kar"),
            LIST_DEFAULTS,
            [service({"foo": "bar"})],
            want((3, "node", labels(foo="bar")), (5, "rack", labels(foo="bar"))),
            id="default constraints and a service",
        ),
        pytest.param(
            pod(foo="bar"),
            [constraint(3, "node", "DoNotSchedule")],
            [service({"baz": "kep"})],
            "skip",
            id="default constraints and a service that doesn't match",
        ),
        pytest.param(
            pod(
                constraint(1, "zone", "DoNotSchedule", labels(baz="tar")),
                constraint(2, "planet", "ScheduleAnyway", labels(fot="rok")),
                foo="bar",
                baz="tar",
            ),
            [constraint(2, "node", "DoNotSchedule")],
            [service({"foo": "bar"})],
            want((1, "zone", labels(baz="tar"))),
            id="default constraints and a service, but pod has constraints",
        ),
        pytest.param(
            pod(foo="bar"),
            [constraint(2, "node", "ScheduleAnyway")],
            [service({"foo": "bar"})],
            "skip",
            id="default soft constraints and a service",
        ),
    ],
)
def test_pre_filter_state(incoming, defaults, workloads, expected):
    state = CycleState(snap([], workloads=workloads))
    status, _ = PodTopologySpread("List", defaults).pre_filter(state, PodInfo.from_pod(incoming))
    if expected == "skip":
        assert status.is_skip
        return
    assert status.is_success
    got = state.get(NAME)
    assert summary(got.constraints) == expected
    assert got.counts == [{} for _ in expected]  # no nodes: no domains counted


# --- TestPreScoreStateEmptyNodes: the soft (ScheduleAnyway) default constraints -----------------------

RS1 = owner("ReplicaSet", "rs1", FOO_EXISTS)


def weight(size: int) -> float:
    """upstream's topologyNormalizingWeight: ln(size + 2)."""
    return math.log(size + 2)


@pytest.mark.parametrize(
    ("incoming", "plugin", "nodes", "workloads", "expected", "counts", "weights"),
    [
        pytest.param(
            owned(pod(foo="tar", baz="sup"), "ReplicaSet", "rs1"),
            PodTopologySpread("System"),
            [
                node("node-a", **{HOSTNAME: "node-a", ZONE: "mars"}),
                node("node-b", **{HOSTNAME: "node-b", ZONE: "mars"}),
                # Nodes with no zone are not left out: together they are one more zone, "".
                node("node-c", **{HOSTNAME: "node-c"}),
                node("node-d", **{HOSTNAME: "node-d"}),
            ],
            [RS1],
            want((3, HOSTNAME, FOO_EXISTS), (5, ZONE, FOO_EXISTS)),
            [{}, {"mars": 0, "": 0}],
            [weight(4), weight(2)],
            id="system defaults constraints and a replica set",
        ),
        pytest.param(
            owned(pod(foo="tar", baz="sup"), "ReplicaSet", "rs1"),
            PodTopologySpread(
                "List",
                [
                    constraint(1, HOSTNAME, "ScheduleAnyway"),
                    constraint(2, "rack", "DoNotSchedule"),
                    constraint(2, "planet", "ScheduleAnyway"),
                ],
            ),
            [node("node-a", rack="rack1", planet="mars", **{HOSTNAME: "node-a"})],
            [RS1],
            want((1, HOSTNAME, FOO_EXISTS), (2, "planet", FOO_EXISTS)),
            [{}, {"mars": 0}],
            [weight(1), weight(1)],
            id="default constraints and a replicaset",
        ),
        pytest.param(
            owned(
                pod(
                    constraint(1, "zone", "DoNotSchedule", BAR_EXISTS),
                    constraint(2, "planet", "ScheduleAnyway", labels(baz="sup")),
                    foo="bar",
                    baz="sup",
                ),
                "ReplicaSet",
                "rs1",
            ),
            PodTopologySpread("List", [constraint(2, "galaxy", "ScheduleAnyway")]),
            [node("node-a", planet="mars", galaxy="andromeda")],
            [RS1],
            want((2, "planet", labels(baz="sup"))),
            [{"mars": 0}],
            [weight(1)],
            id="default constraints and a replicaset, but pod has constraints",
        ),
    ],
)
def test_pre_score_state(incoming, plugin, nodes, workloads, expected, counts, weights):
    snapshot = snap(nodes, workloads=workloads)
    state = CycleState(snapshot)
    status = plugin.pre_score(state, PodInfo.from_pod(incoming), snapshot.list())
    assert status.is_success, status
    got = state.read(NAME + "/score")
    assert summary(got.constraints) == expected
    assert got.ignored == set()
    assert got.counts == counts
    assert got.weights == pytest.approx(weights)


# --- helper.DefaultSelector: which objects give the default constraints their selector -------------


@pytest.mark.parametrize(
    ("incoming", "workloads", "expected"),
    [
        pytest.param(
            owned(pod(app="db", tier="x"), "ReplicationController", "db", api="v1"),
            [owner("ReplicationController", "db", {"app": "db"}, api="v1")],
            labels(app="db"),
            id="a replication controller's selector map",
        ),
        pytest.param(
            owned(pod(app="db", tier="x"), "StatefulSet", "db"),
            [owner("StatefulSet", "db", labels(app="db"))],
            labels(app="db"),
            id="a statefulset's label selector",
        ),
        pytest.param(
            owned(pod(app="web", tier="front"), "ReplicaSet", "web"),
            [service({"tier": "front"}), owner("ReplicaSet", "web", labels(app="web"))],
            labels(tier="front", app="web"),
            id="a service's selector and the owning replicaset's, ANDed",
        ),
        pytest.param(
            owned(pod(app="web"), "ReplicaSet", "gone"),
            [owner("ReplicaSet", "web", labels(app="web"))],
            None,
            id="an owner the informer has not seen: no default constraints",
        ),
        pytest.param(
            pod(app="web"),
            [service({"app": "web"}, name="a"), service({"app": "web", "extra": "y"}, name="b")],
            labels(app="web"),
            id="only services whose selector matches the pod count",
        ),
    ],
)
def test_default_selector(incoming, workloads, expected):
    nodes = [node("node-a", **{HOSTNAME: "node-a"})]
    snapshot = snap(nodes, workloads=workloads)
    state = CycleState(snapshot)
    status = PodTopologySpread("System").pre_score(state, PodInfo.from_pod(incoming), snapshot.list())
    if expected is None:
        assert status.is_skip
        return
    got = state.read(NAME + "/score")
    assert {c.selector for c in got.constraints} == {selector_from_label_selector(expected)}
