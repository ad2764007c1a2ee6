"""A decision record carries, per node and plugin, the inputs its verdicts and scores were computed from."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from clusterviz.scheduler.cycle import schedule
from clusterviz.scheduler.decision import DETAIL_LIMIT, DecisionRecord
from clusterviz.scheduler.profile import default_profile
from tests.scheduler.helpers import MiB, container, make_node, make_pod, run, snap

GiB = 1024 * MiB


def body(record: DecisionRecord) -> dict[str, Any]:
    """The record as the API serves it (through JSON, as it is stored)."""
    return json.loads(json.dumps(record.to_dict()))


def entry(record: dict[str, Any], node: str, kind: str, plugin: str) -> dict[str, Any]:
    found = next(n for n in record["nodes"] if n["name"] == node)
    return next(e for e in found[kind] if e["plugin"] == plugin)


def inputs(record: dict[str, Any], node: str, kind: str, plugin: str) -> dict[str, Any]:
    return entry(record, node, kind, plugin)["inputs"]


def seeds_cluster() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The seeds' example: node01 at 20% CPU : 60% memory, node02 at 50% : 50%, both 4 CPU / 8Gi."""
    nodes = [make_node("node01"), make_node("node02")]
    pods = [
        make_pod("busy-1", cpu="800m", memory="4915Mi", node="node01"),
        make_pod("busy-2", cpu="2", memory="4Gi", node="node02"),
    ]
    return nodes, pods


class TestResources:
    def test_balanced_allocation_lists_each_fraction_and_the_standard_deviation(self):
        nodes, pods = seeds_cluster()
        record = body(run(make_pod("web", cpu="200m", memory="200Mi"), nodes, pods))
        node01 = inputs(record, "node01", "scores", "NodeResourcesBalancedAllocation")
        cpu, memory = node01["resources"]
        assert cpu == {
            "name": "cpu",
            "podRequest": 200,
            "nodeRequested": 800,
            "allocatable": 4000,
            "fraction": 0.25,
            "fractionBefore": 0.2,
        }
        assert memory["nodeRequested"] == 4915 * MiB and memory["allocatable"] == 8 * GiB
        assert round(memory["fractionBefore"], 2) == 0.60 and round(memory["fraction"], 2) == 0.62
        assert node01["std"] == pytest.approx((memory["fraction"] - 0.25) / 2)
        node02 = inputs(record, "node02", "scores", "NodeResourcesBalancedAllocation")
        assert [r["fractionBefore"] for r in node02["resources"]] == [0.5, 0.5]
        assert entry(record, "node01", "scores", "NodeResourcesBalancedAllocation")["raw"] == 81
        assert entry(record, "node02", "scores", "NodeResourcesBalancedAllocation")["raw"] == 98
        assert record["selected"] == "node02"

    def test_least_allocated_lists_each_resource_score_and_weight(self):
        nodes, pods = seeds_cluster()
        record = body(run(make_pod("web", cpu="200m", memory="200Mi"), nodes, pods))
        fit = inputs(record, "node01", "scores", "NodeResourcesFit")
        assert fit["strategy"] == "LeastAllocated"
        assert [
            (r["name"], r["podRequest"], r["nodeRequested"], r["score"], r["weight"]) for r in fit["resources"]
        ] == [
            ("cpu", 200, 800, 75, 1),
            ("memory", 200 * MiB, 4915 * MiB, 37, 1),
        ]
        assert all("nonZeroDefault" not in r for r in fit["resources"])

    def test_a_pod_without_requests_is_scored_with_the_non_zero_defaults(self):
        nodes, pods = seeds_cluster()
        record = body(run(make_pod("best-effort"), nodes, pods))
        cpu, memory = inputs(record, "node01", "scores", "NodeResourcesFit")["resources"]
        assert (cpu["podRequest"], cpu["podRequestActual"], cpu["nonZeroDefault"]) == (100, 0, 100)
        assert (memory["podRequest"], memory["podRequestActual"], memory["nonZeroDefault"]) == (200 * MiB, 0, 200 * MiB)
        # BalancedAllocation skips a best-effort Pod: no score, so no inputs either.
        assert "inputs" not in entry(record, "node01", "scores", "NodeResourcesBalancedAllocation")

    def test_the_filter_lists_the_request_against_what_is_used_and_allocatable(self):
        nodes, pods = seeds_cluster()
        record = body(run(make_pod("big", cpu="3500m"), nodes, pods))
        fit = inputs(record, "node02", "filters", "NodeResourcesFit")
        assert fit == {
            "pods": {"used": 1, "allocatable": 110},
            "resources": [{"name": "cpu", "request": 3500, "used": 2000, "allocatable": 4000}],
        }
        assert entry(record, "node02", "filters", "NodeResourcesFit")["reason"] == "Insufficient cpu"


def test_preferred_node_affinity_terms_are_listed_with_their_weights_and_matches():
    preferred = [
        {"weight": 80, "preference": {"matchExpressions": [{"key": "disktype", "operator": "In", "values": ["ssd"]}]}},
        {"weight": 20, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}},
    ]
    pod = make_pod(
        "p", cpu="100m", affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": preferred}}
    )
    nodes = [make_node("fast", labels={"disktype": "ssd"}), make_node("near", labels={"zone": "a"})]
    record = body(run(pod, nodes))
    terms = inputs(record, "fast", "scores", "NodeAffinity")["terms"]
    assert [(t["weight"], t["matched"]) for t in terms] == [(80, True), (20, False)]
    assert terms[0]["expressions"][0] == {
        "expression": "disktype In [ssd]",
        "key": "disktype",
        "nodeValue": "ssd",
        "matched": True,
    }
    assert entry(record, "fast", "scores", "NodeAffinity")["raw"] == 80


def test_the_failing_required_node_affinity_expression_is_named():
    required = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "disktype", "operator": "In", "values": ["ssd"]}]}]}
    pod = make_pod("p", affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}})
    record = body(run(pod, [make_node("hdd", labels={"disktype": "hdd"})]))
    term = inputs(record, "hdd", "filters", "NodeAffinity")["requiredTerms"][0]
    assert term["matched"] is False and term["expressions"][0]["nodeValue"] == "hdd"


def test_image_locality_lists_the_sizes_on_the_node_and_their_spread():
    nodes = [
        make_node("node01", images=[(["nginx:1.25"], 500 * MiB)]),
        make_node("node02"),
        make_node("node03"),
    ]
    record = body(run(make_pod("web", cpu="100m"), nodes))
    image = inputs(record, "node01", "scores", "ImageLocality")
    assert image["images"] == [
        {"name": "nginx:1.25", "present": True, "size": 500 * MiB, "numNodes": 1, "scaled": int(500 * MiB / 3)}
    ]
    assert (image["totalNodes"], image["sum"], image["minThreshold"], image["maxThreshold"]) == (
        3,
        int(500 * MiB / 3),
        23 * MiB,
        1000 * MiB,
    )
    assert inputs(record, "node02", "scores", "ImageLocality")["images"] == [{"name": "nginx:1.25", "present": False}]


def test_a_taken_host_port_names_the_pod_holding_it():
    port = {"containerPort": 80, "hostPort": 8080}
    holder = make_pod("holder", containers=[container(ports=[port])], node="node01")
    record = body(run(make_pod("web", containers=[container(ports=[port])]), [make_node("node01")], [holder]))
    assert inputs(record, "node01", "filters", "NodePorts") == {
        "ports": [{"ip": "0.0.0.0", "protocol": "TCP", "port": 8080, "heldBy": "default/holder"}]
    }


def test_taints_behind_the_filter_and_the_score():
    soft = {"key": "spot", "value": "yes", "effect": "PreferNoSchedule"}
    hard = {"key": "gpu", "effect": "NoSchedule"}
    nodes = [make_node("soft", taints=[soft]), make_node("hard", taints=[hard]), make_node("plain")]
    record = body(run(make_pod("p", cpu="100m"), nodes))
    assert inputs(record, "hard", "filters", "TaintToleration")["untoleratedTaint"] == {
        "key": "gpu",
        "value": "",
        "effect": "NoSchedule",
    }
    assert inputs(record, "soft", "scores", "TaintToleration")["intolerableTaints"] == [
        {"key": "spot", "value": "yes", "effect": "PreferNoSchedule"}
    ]
    assert inputs(record, "plain", "scores", "TaintToleration")["intolerableTaints"] == []


def test_a_pending_pods_nodes_carry_the_inputs_of_their_failing_filters():
    nodes, pods = seeds_cluster()
    record = body(run(make_pod("huge", cpu="3900m"), nodes, pods))
    assert record["selected"] is None and record["message"].startswith("0/2 nodes are available")
    for node, used in (("node01", 800), ("node02", 2000)):
        fit = entry(record, node, "filters", "NodeResourcesFit")
        assert fit["status"] == "Unschedulable"
        assert fit["inputs"]["resources"] == [{"name": "cpu", "request": 3900, "used": used, "allocatable": 4000}]


def test_spread_and_pod_affinity_count_matching_pods_per_domain():
    zone = "topology.kubernetes.io/zone"
    nodes = [
        make_node("a1", labels={zone: "a"}),
        make_node("a2", labels={zone: "a"}),
        make_node("b1", labels={zone: "b"}),
    ]
    placed = [make_pod(f"web-{i}", labels={"app": "web"}, node=n) for i, n in enumerate(("a1", "a2", "a2"))]
    spread = [{"maxSkew": 1, "topologyKey": zone, "whenUnsatisfiable": "ScheduleAnyway",
               "labelSelector": {"matchLabels": {"app": "web"}}}]  # fmt: skip
    preferred = [
        {"weight": 30, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": zone}}
    ]
    pod = make_pod(
        "web-3",
        cpu="100m",
        labels={"app": "web"},
        topologySpreadConstraints=spread,
        affinity={"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": preferred}},
    )
    record = body(run(pod, nodes, placed))
    constraint = inputs(record, "a1", "scores", "PodTopologySpread")["constraints"][0]
    assert (constraint["topologyKey"], constraint["domain"], constraint["matching"], constraint["maxSkew"]) == (
        zone,
        "a",
        3,
        1,
    )
    term = inputs(record, "a1", "scores", "InterPodAffinity")["terms"][0]
    assert (term["incoming"], term["kind"], term["domain"], term["pods"], term["weight"]) == (
        True,
        "affinity",
        "a",
        3,
        30,
    )
    assert entry(record, "a1", "scores", "InterPodAffinity")["raw"] == 90
    assert inputs(record, "b1", "scores", "InterPodAffinity")["terms"] == []


def test_a_clashing_disk_names_the_volume_and_the_pod():
    disk = {"name": "data", "gcePersistentDisk": {"pdName": "pd-1"}}
    holder = make_pod("db-0", node="node01", volumes=[disk])
    record = body(run(make_pod("db-1", volumes=[disk]), [make_node("node01")], [holder]))
    assert inputs(record, "node01", "filters", "VolumeRestrictions")["conflict"] == {
        "volume": "data",
        "source": "gcePersistentDisk",
        "heldBy": "default/db-0",
    }


def test_inputs_are_left_out_once_the_cluster_has_moved_on():
    nodes, pods = seeds_cluster()
    snapshot = snap(nodes, pods)
    record = schedule(make_pod("web", cpu="200m"), snapshot, default_profile(), random.Random(0))
    snapshot.add_pod(make_pod("late", cpu="1", node="node01"))
    assert all("inputs" not in e for n in record.to_dict()["nodes"] for e in n["filters"] + n["scores"])


def test_a_big_clusters_record_carries_no_inputs():
    nodes = [make_node(f"node{i:04d}") for i in range(DETAIL_LIMIT + 1)]
    record = run(make_pod("web", cpu="100m"), nodes)
    assert record.explainer is None and record.inputs == {}
    assert all("inputs" not in e for n in record.to_dict()["nodes"] for e in n["filters"] + n["scores"])


def test_a_hard_spread_constraint_shows_the_skew_and_required_anti_affinity_the_pods_in_the_domain():
    zone = "topology.kubernetes.io/zone"
    nodes = [make_node("a1", labels={zone: "a"}), make_node("b1", labels={zone: "b"})]
    placed = [make_pod("web-0", labels={"app": "web"}, node="a1")]
    spread = [{"maxSkew": 1, "topologyKey": zone, "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {"app": "web"}}}]  # fmt: skip
    record = body(run(make_pod("web-1", labels={"app": "web"}, topologySpreadConstraints=spread), nodes, placed))
    assert inputs(record, "a1", "filters", "PodTopologySpread")["constraints"] == [
        {"topologyKey": zone, "domain": "a", "matching": 1, "selfMatch": 1, "globalMin": 0, "skew": 2, "maxSkew": 1}
    ]
    anti = [{"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": zone}]
    pod = make_pod(
        "web-2",
        labels={"app": "web"},
        affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": anti}},
    )
    record = body(run(pod, nodes, placed))
    assert inputs(record, "a1", "filters", "InterPodAffinity")["antiAffinity"] == [
        {"selector": "app=web", "topologyKey": zone, "domain": "a", "pods": 1}
    ]
    assert (
        entry(record, "a1", "filters", "InterPodAffinity")["reason"] == "node(s) didn't match pod anti-affinity rules"
    )


def test_inputs_kept_between_attempts_are_those_of_a_fresh_snapshot():
    """Pods placed one after another (and a node given more room half-way): every record lists the inputs a
    scheduler that has just listed the same nodes and Pods would list."""
    nodes = [
        make_node(f"node{i:02d}", cpu=str(2 + i % 3), images=[(["nginx:1.25"], 300 * MiB)] if i % 4 == 0 else [])
        for i in range(8)
    ]
    placed: list[dict[str, Any]] = []
    profile = default_profile()
    running = snap(nodes)
    for j in range(24):
        if j == 12:
            nodes[3] = make_node("node03", cpu="16", memory="32Gi")
            running.update_node(nodes[3])
        pod = make_pod(f"web-{j}", cpu=("100m", "250m", "500m")[j % 3], memory="64Mi", labels={"app": "web"})
        kept = body(schedule(pod, running, profile, random.Random(j)))
        fresh = body(schedule(pod, snap(nodes, placed), profile, random.Random(j)))
        assert kept == fresh
        assert kept["selected"] is not None
        bound = {**pod, "spec": {**pod["spec"], "nodeName": kept["selected"]}}
        placed.append(bound)
        running.update_pod(bound)
