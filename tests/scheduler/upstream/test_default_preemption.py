"""DefaultPreemption cases from upstream
``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go``
(TestPostFilter, TestDryRunPreemption, TestSelectBestCandidate).

As upstream, the profile under test holds only the plugins a case registers (NodeResourcesFit,
InterPodAffinity, PodTopologySpread); their PreFilter and Filter decide every dry run."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from clusterviz.scheduler.framework import Code, CycleState, Status
from clusterviz.scheduler.nodeinfo import NodeInfo, PodInfo
from clusterviz.scheduler.plugins.default_preemption import DefaultPreemption, select_victims_on_node
from clusterviz.scheduler.plugins.inter_pod_affinity import InterPodAffinity
from clusterviz.scheduler.plugins.node_resources_fit import NodeResourcesFit
from clusterviz.scheduler.plugins.pod_topology_spread import PodTopologySpread
from clusterviz.scheduler.snapshot import Snapshot
from tests.scheduler.helpers import capacity_node, req_pod, snap

NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
SMALL = {"cpu": "100m", "memory": "100"}
MEDIUM = {"cpu": "200m", "memory": "200"}
LARGE = {"cpu": "300m", "memory": "300"}
VERY_LARGE = {"cpu": "500m", "memory": "500"}


def epoch(nanoseconds: int) -> str:
    """upstream's ``epochTimeN``: N nanoseconds after the Unix epoch, as an RFC 3339 timestamp."""
    return f"1970-01-01T00:00:00.{nanoseconds:09d}Z"


def pod(
    name: str,
    priority: int | None = None,
    requests: dict | None = None,
    *,
    node: str | None = None,
    start: int | None = None,
    **spec,
) -> dict:
    """A Pod with one container holding ``requests`` (none: no containers), as ``MakePod().Req()``."""
    obj = req_pod(name, *([requests] if requests else []), node=node, priority=priority, **spec)
    if start is not None:
        obj["status"]["startTime"] = epoch(start)
    return obj


def node(name: str, allocatable: dict, **labels: str) -> dict:
    # upstream's MakeNode().Capacity() always includes room for 32 Pods unless told otherwise.
    return capacity_node(name, {"pods": "32", **allocatable}, labels=labels)


def filter_runner(plugins: Sequence, incoming: dict):
    """Run the given plugins' PreFilter then Filter on a node, as upstream's test framework does."""
    info = PodInfo.from_pod(incoming)

    def run(snapshot: Snapshot, node_info: NodeInfo) -> Status:
        state = CycleState(snapshot)
        for plugin in plugins:
            status, _ = plugin.pre_filter(state, info)
            if status.is_skip:
                continue
            if status.is_success:
                status = plugin.filter(state, info, node_info)
            if not status.is_success:
                return status
        return Status()

    return run


# --- TestPostFilter -------------------------------------------------------------------------------

# onePodRes: room for one Pod and no cpu or memory at all.
ONE_POD = {"pods": "1"}
NODE_RES = {"cpu": "200m", "memory": "400"}
U, UU = Status.unschedulable(), Status.unresolvable()


def post_filter(incoming: dict, existing: list[dict], nodes: list[dict], statuses: dict[str, Status]):
    snapshot = snap(nodes, existing)
    state = CycleState(snapshot)
    outcome = DefaultPreemption().post_filter(
        state, PodInfo.from_pod(incoming), statuses, filter_runner([NodeResourcesFit()], incoming)
    )
    return outcome.status.code, outcome.status.message, outcome.nominated_node


@pytest.mark.parametrize(
    ("incoming", "existing", "nodes", "statuses", "want"),
    [
        pytest.param(
            pod("p", HIGH),
            [pod("p1", node="node1")],
            [capacity_node("node1", ONE_POD)],
            {"node1": U},
            (Code.SUCCESS, "", "node1"),
            id="pod with higher priority can be made schedulable",
        ),
        pytest.param(
            pod("p"),
            [pod("p1", node="node1")],
            [capacity_node("node1", ONE_POD)],
            {"node1": U},
            (
                Code.UNSCHEDULABLE,
                "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
                None,
            ),
            id="pod with tied priority is still unschedulable",
        ),
        pytest.param(
            pod("p", HIGH),
            [pod("p1", node="node1")],
            [capacity_node("node1", ONE_POD)],
            {"node1": UU},
            (
                Code.UNSCHEDULABLE,
                "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
                None,
            ),
            id="preemption should respect filteredNodesStatuses",
        ),
        pytest.param(
            pod("p", MID),
            [pod("p1", HIGH, node="node1"), pod("p2", LOW, node="node2")],
            [capacity_node("node1", ONE_POD), capacity_node("node2", ONE_POD)],
            {"node1": U, "node2": U},
            (Code.SUCCESS, "", "node2"),
            id="pod can be made schedulable on one node",
        ),
        pytest.param(
            pod("p", HIGH, LARGE),
            [pod("p1", node="node1"), pod("p2", node="node2")],
            [node("node1", NODE_RES), node("node2", NODE_RES)],
            {"node1": U, "node2": U},
            (Code.UNSCHEDULABLE, "preemption: 0/2 nodes are available: 2 Insufficient cpu.", None),
            id="no candidate nodes found, no enough resource after removing low priority pods",
        ),
        pytest.param(
            pod("p", HIGH, LARGE),
            [pod("p1", HIGH, node="node1"), pod("p2", node="node2"), pod("p3", HIGH, node="node3")],
            [capacity_node("node1", ONE_POD), node("node2", NODE_RES), capacity_node("node3", ONE_POD)],
            {"node1": U, "node2": U, "node3": U},
            (
                Code.UNSCHEDULABLE,
                "preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No preemption victims found for incoming "
                "pod.",
                None,
            ),
            id="no candidate nodes found with mixed reasons, no lower priority pod and no enough CPU resource",
        ),
        # node3 has no status at all: like node4's UnschedulableAndUnresolvable, preemption can't help there.
        pytest.param(
            pod("p", HIGH, LARGE),
            [pod("p1", node="node1"), pod("p2", node="node2")],
            [node(f"node{i}", NODE_RES) for i in range(1, 5)],
            {"node1": U, "node2": U, "node4": UU},
            (
                Code.UNSCHEDULABLE,
                "preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not helpful for scheduling.",
                None,
            ),
            id="no candidate nodes found with mixed reason, 2 UnschedulableAndUnresolvable nodes and 2 nodes don't "
            "have enough CPU resource",
        ),
    ],
)
def test_post_filter(incoming, existing, nodes, statuses, want):
    assert post_filter(incoming, existing, nodes, statuses) == want


# --- TestDryRunPreemption -------------------------------------------------------------------------

LABEL_KEYS = ("hostname", "zone", "region")


def dry_run_nodes(*names: str) -> list[dict]:
    """Nodes named "<host>/<zone>/<region>", labelled with those parts, each with veryLargeRes."""
    out = []
    for spec in names:
        parts = spec.split("/")
        out.append(node(parts[0], VERY_LARGE, **dict(zip(LABEL_KEYS, parts, strict=False))))
    return out


FIT = (NodeResourcesFit(),)


@pytest.mark.parametrize(
    ("plugins", "incoming", "existing", "nodes", "want"),
    [
        pytest.param(
            FIT,
            pod("p", HIGH, LARGE),
            [pod("p1", MID, LARGE, node="node1"), pod("p2", MID, LARGE, node="node2")],
            dry_run_nodes("node1", "node2"),
            {"node1": ["p1"], "node2": ["p2"]},
            id="a pod that fits on both nodes when lower priority pods are preempted",
        ),
        pytest.param(
            FIT,
            pod("p", LOW, LARGE),
            [pod("p1", MID, LARGE, node="node1"), pod("p2", MID, LARGE, node="node2")],
            dry_run_nodes("node1", "node2"),
            {},
            id="a pod that would fit on the nodes, but other pods running are higher priority, no preemption would "
            "happen",
        ),
        pytest.param(
            FIT,
            pod("p", HIGH, LARGE),
            [
                pod("p1.1", LOW, SMALL, node="node1"),
                pod("p1.2", MID, LARGE, node="node1"),
                pod("p2", MID, LARGE, node="node2"),
            ],
            dry_run_nodes("node1", "node2"),
            {"node1": ["p1.2"], "node2": ["p2"]},
            id="medium priority pod is preempted, but lower priority one stays as it is small",
        ),
        pytest.param(
            FIT,
            pod("p", HIGH, LARGE),
            [
                pod("p1.1", MID, SMALL, node="node1"),
                pod("p1.2", LOW, SMALL, node="node1"),
                pod("p1.3", MID, MEDIUM, node="node1"),
                pod("p1.4", HIGH, SMALL, node="node1"),
                pod("p2", HIGH, LARGE, node="node2"),
            ],
            dry_run_nodes("node1", "node2"),
            {"node1": ["p1.2", "p1.3"]},
            id="mixed priority pods are preempted",
        ),
        pytest.param(
            FIT,
            pod("p", HIGH, LARGE),
            [
                pod("p1.1", LOW, SMALL, node="node1", start=5),
                pod("p1.2", LOW, SMALL, node="node1", start=4),
                pod("p1.3", MID, MEDIUM, node="node1", start=3),
                pod("p1.4", HIGH, SMALL, node="node1", start=2),
                pod("p2", HIGH, LARGE, node="node2", start=1),
            ],
            dry_run_nodes("node1", "node2"),
            {"node1": ["p1.1", "p1.3"]},
            id="mixed priority pods are preempted, pick later StartTime one when priorities are equal",
        ),
        pytest.param(
            (NodeResourcesFit(), InterPodAffinity()),
            pod("p", HIGH, SMALL, labels={"foo": ""}),
            [
                pod(
                    "p1.1",
                    LOW,
                    SMALL,
                    node="node1",
                    labels={"foo": ""},
                    affinity={
                        "podAntiAffinity": {
                            "requiredDuringSchedulingIgnoredDuringExecution": [
                                {
                                    "labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
                                    "topologyKey": "hostname",
                                }
                            ]
                        }
                    },
                ),
                pod("p1.2", MID, SMALL, node="node1"),
                pod("p1.3", HIGH, SMALL, node="node1"),
                pod("p2", HIGH, SMALL, node="node2"),
            ],
            dry_run_nodes("node1", "node2"),
            {"node1": ["p1.1"]},
            id="pod with anti-affinity is preempted",
        ),
        pytest.param(
            (PodTopologySpread("List"),),
            pod(
                "p",
                HIGH,
                labels={"foo": ""},
                topologySpreadConstraints=[
                    {
                        "maxSkew": 1,
                        "topologyKey": key,
                        "whenUnsatisfiable": "DoNotSchedule",
                        "labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
                    }
                    for key in ("zone", "hostname")
                ],
            ),
            [
                pod("pod-a1", MID, node="node-a", labels={"foo": ""}),
                pod("pod-a2", LOW, node="node-a", labels={"foo": ""}),
                pod("pod-b1", LOW, node="node-b", labels={"foo": ""}),
                pod("pod-x1", HIGH, node="node-x", labels={"foo": ""}),
                pod("pod-x2", HIGH, node="node-x", labels={"foo": ""}),
            ],
            dry_run_nodes("node-a/zone1", "node-b/zone1", "node-x/zone2"),
            {"node-a": ["pod-a2"], "node-b": ["pod-b1"]},
            id="preemption to resolve pod topology spread filter failure",
        ),
    ],
)
def test_dry_run_preemption(plugins, incoming, existing, nodes, want):
    snapshot = snap(nodes, existing)
    runner = filter_runner(plugins, incoming)
    info = PodInfo.from_pod(incoming)
    got = {}
    for node_info in snapshot.list():
        victims, status = select_victims_on_node(info, node_info, snapshot, runner)
        if status.is_success and victims:
            got[node_info.name] = sorted(v.name for v in victims)
    assert got == want


# --- TestSelectBestCandidate ----------------------------------------------------------------------


def placed(name: str, priority: int, requests: dict, start: int = 0) -> dict:
    """A Pod "pN.M" on nodeN."""
    return pod(name, priority, requests, node=f"node{name[1]}", start=start)


@pytest.mark.parametrize(
    ("incoming", "existing", "node_count", "want"),
    [
        pytest.param(
            pod("p", HIGH, LARGE),
            [placed("p1", MID, LARGE), placed("p2", MID, LARGE)],
            2,
            {"node1", "node2"},
            id="a pod that fits on both nodes when lower priority pods are preempted",
        ),
        pytest.param(
            pod("p", HIGH, VERY_LARGE),
            [
                placed("p1.1", MID, MEDIUM),
                placed("p1.2", MID, LARGE),
                placed("p2.1", MID, MEDIUM),
                placed("p2.2", LOW, MEDIUM),
                placed("p3.1", LOW, MEDIUM),
                placed("p3.2", LOW, MEDIUM),
            ],
            3,
            {"node3"},
            id="node with min highest priority pod is picked",
        ),
        pytest.param(
            pod("p", HIGH, VERY_LARGE),
            [
                placed("p1.1", MID, MEDIUM),
                placed("p1.2", MID, LARGE),
                placed("p2.1", MID, LARGE),
                placed("p2.2", LOW, MEDIUM),
                placed("p3.1", MID, MEDIUM),
                placed("p3.2", MID, MEDIUM),
            ],
            3,
            {"node2"},
            id="when highest priorities are the same, minimum sum of priorities is picked",
        ),
        pytest.param(
            pod("p", HIGH, VERY_LARGE),
            [
                placed("p1.1", MID, SMALL),
                placed("p1.2", NEG, SMALL),
                placed("p1.3", MID, SMALL),
                placed("p1.4", NEG, SMALL),
                placed("p2.1", MID, LARGE),
                placed("p2.2", NEG, MEDIUM),
                placed("p3.1", MID, MEDIUM),
                placed("p3.2", NEG, SMALL),
                placed("p3.3", LOW, SMALL),
            ],
            3,
            {"node2"},
            id="when highest priority and sum are the same, minimum number of pods is picked",
        ),
        pytest.param(
            pod("p", HIGH, VERY_LARGE),
            [
                placed("p1.1", MID, SMALL),
                placed("p1.2", NEG, SMALL),
                placed("p1.3", NEG, SMALL),
                placed("p2.1", MID, LARGE),
                placed("p2.2", NEG, MEDIUM),
                placed("p3.1", MID, MEDIUM),
                placed("p3.2", NEG, SMALL),
                placed("p3.3", LOW, SMALL),
            ],
            3,
            {"node2"},
            id="sum of adjusted priorities is considered",
        ),
        pytest.param(
            pod("p", VERY_HIGH, VERY_LARGE),
            [
                placed("p1.1", MID, SMALL),
                placed("p1.2", LOW, SMALL),
                placed("p1.3", LOW, SMALL),
                placed("p2.1", HIGH, LARGE),
                placed("p3.1", MID, MEDIUM),
                placed("p3.2", LOW, SMALL),
                placed("p3.3", LOW, SMALL),
                placed("p3.4", LOW, MEDIUM),
                placed("p4.1", MID, MEDIUM),
                placed("p4.2", MID, SMALL),
                placed("p4.3", MID, SMALL),
                placed("p4.4", NEG, SMALL),
            ],
            4,
            {"node1"},
            id="non-overlapping lowest high priority, sum priorities, and number of pods",
        ),
        pytest.param(
            pod("p", HIGH, VERY_LARGE),
            [
                placed("p1.1", MID, MEDIUM, 2),
                placed("p1.2", MID, MEDIUM, 2),
                placed("p2.1", MID, MEDIUM, 3),
                placed("p2.2", MID, MEDIUM, 3),
                placed("p3.1", MID, MEDIUM, 1),
                placed("p3.2", MID, MEDIUM, 1),
            ],
            3,
            {"node2"},
            id="same priority, same number of victims, different start time for each node's pod",
        ),
        pytest.param(
            pod("p", HIGH, VERY_LARGE),
            [
                placed("p1.1", MID, MEDIUM, 4),
                placed("p1.2", MID, MEDIUM, 2),
                placed("p2.1", MID, MEDIUM, 5),
                placed("p2.2", MID, MEDIUM, 1),
                placed("p3.1", MID, MEDIUM, 3),
                placed("p3.2", MID, MEDIUM, 6),
            ],
            3,
            {"node3"},
            id="same priority, same number of victims, different start time for all pods",
        ),
        pytest.param(
            pod("p", HIGH, VERY_LARGE),
            [
                placed("p1.1", LOW, MEDIUM, 4),
                placed("p1.2", MID, MEDIUM, 2),
                placed("p2.1", MID, MEDIUM, 6),
                placed("p2.2", LOW, MEDIUM, 1),
                placed("p3.1", LOW, MEDIUM, 3),
                placed("p3.2", MID, MEDIUM, 5),
            ],
            3,
            {"node2"},
            id="different priority, same number of victims, different start time for all pods",
        ),
    ],
)
def test_select_best_candidate(incoming, existing, node_count, want):
    nodes = [node(f"node{i}", VERY_LARGE) for i in range(1, node_count + 1)]
    snapshot = snap(nodes, existing)
    runner = filter_runner(FIT, incoming)
    statuses = {n.name: runner(snapshot, n) for n in snapshot.list()}
    outcome = DefaultPreemption().post_filter(CycleState(snapshot), PodInfo.from_pod(incoming), statuses, runner)
    assert outcome.nominated_node in want
