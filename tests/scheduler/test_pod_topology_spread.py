"""PodTopologySpread: hard skew filter, soft scoring, and the system default constraints."""

from __future__ import annotations

import math

from clusterviz.scheduler.framework import Code
from clusterviz.scheduler.plugins.pod_topology_spread import (
    REASON_CONSTRAINTS_NOT_MATCH,
    REASON_NODE_LABEL_NOT_MATCH,
    PodTopologySpread,
)
from tests.scheduler.helpers import filter_status, make_node, make_pod, scores, snap

APP = {"app": "web"}


def constraint(key="kubernetes.io/hostname", max_skew=1, action="DoNotSchedule", **extra):
    return {
        "maxSkew": max_skew,
        "topologyKey": key,
        "whenUnsatisfiable": action,
        "labelSelector": {"matchLabels": APP},
        **extra,
    }


def web(name, node):
    return make_pod(name, labels=APP, node=node)


def three_nodes(**labels):
    return [make_node(n, labels=labels.get(n)) for n in ("a", "b", "c")]


class TestFilter:
    def test_skew_over_max_skew_is_rejected(self):
        snapshot = snap(three_nodes(), [web("w1", "a"), web("w2", "a"), web("w3", "b")])
        pod = make_pod("new", labels=APP, topologySpreadConstraints=[constraint()])
        got = {n: filter_status(PodTopologySpread(), pod, snapshot, n) for n in ("a", "b", "c")}
        assert (got["a"].code, got["a"].reasons) == (Code.UNSCHEDULABLE, (REASON_CONSTRAINTS_NOT_MATCH,))
        assert not got["b"].is_success  # 1 + 1 - 0 = 2 > 1
        assert got["c"].is_success

    def test_node_without_the_topology_key_is_unresolvable(self):
        nodes = [make_node("a", labels={"zone": "z1"}), make_node("b")]
        pod = make_pod("new", labels=APP, topologySpreadConstraints=[constraint("zone")])
        status = filter_status(PodTopologySpread(), pod, snap(nodes), "b")
        assert (status.code, status.reasons) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (REASON_NODE_LABEL_NOT_MATCH,))

    def test_pod_not_matching_its_own_selector_adds_no_self_match(self):
        snapshot = snap(three_nodes(), [web("w1", "a")])
        pod = make_pod("other", topologySpreadConstraints=[constraint()])
        assert filter_status(PodTopologySpread(), pod, snapshot, "a").is_success  # 1 + 0 - 0 = 1

    def test_min_domains_forces_the_global_minimum_to_zero(self):
        snapshot = snap(three_nodes(), [web("w1", "a"), web("w2", "b"), web("w3", "c")])
        pod = make_pod("new", labels=APP, topologySpreadConstraints=[constraint(minDomains=4)])
        assert not filter_status(PodTopologySpread(), pod, snapshot, "a").is_success  # 1 + 1 - 0 = 2
        plain = make_pod("new", labels=APP, topologySpreadConstraints=[constraint()])
        assert filter_status(PodTopologySpread(), plain, snapshot, "a").is_success  # 1 + 1 - 1 = 1

    def test_nodes_failing_the_pods_node_selector_do_not_count(self):
        nodes = [make_node("a", labels={"pool": "x"}), make_node("b", labels={"pool": "x"}), make_node("c")]
        snapshot = snap(nodes, [web("w1", "a")])
        pod = make_pod("new", labels=APP, nodeSelector={"pool": "x"}, topologySpreadConstraints=[constraint()])
        assert not filter_status(PodTopologySpread(), pod, snapshot, "a").is_success  # min over a, b is 0

    def test_no_hard_constraint_skips(self):
        assert filter_status(PodTopologySpread(), make_pod("p"), snap(three_nodes()), "a").is_skip


class TestScore:
    def test_explicit_soft_constraint(self):
        snapshot = snap(three_nodes(), [web("w1", "a"), web("w2", "a"), web("w3", "b")])
        pod = make_pod("new", labels=APP, topologySpreadConstraints=[constraint(action="ScheduleAnyway")])
        got = scores(PodTopologySpread(), pod, snapshot)
        # count x ln(3 + 2) + (maxSkew - 1), rounded: 3.22 -> 3, 1.61 -> 2, 0
        assert got["raw"] == {"a": 3, "b": 2, "c": 0}
        assert got["normalized"] == {"a": 0, "b": 33, "c": 100}  # 100 * (3 + 0 - raw) / 3

    def test_node_missing_an_explicit_key_is_ignored(self):
        nodes = [make_node("a", labels={"zone": "z1"}), make_node("b", labels={"zone": "z2"}), make_node("c")]
        pod = make_pod("new", labels=APP, topologySpreadConstraints=[constraint("zone", action="ScheduleAnyway")])
        got = scores(PodTopologySpread(), pod, snap(nodes, [web("w1", "a")]))
        assert got["normalized"]["c"] == 0
        assert got["normalized"]["b"] == 100

    def test_system_defaults_use_the_owning_replicaset_selector(self):
        rs = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {"name": "web-rs", "namespace": "default"},
            "spec": {"selector": {"matchLabels": APP}},
        }
        owner = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-rs", "controller": True}]
        pod = make_pod("new", labels=APP)
        pod["metadata"]["ownerReferences"] = owner
        snapshot = snap(three_nodes(), [web("w1", "a"), web("w2", "a"), web("w3", "b")], workloads=[rs])
        got = scores(PodTopologySpread(), pod, snapshot)
        # hostname: count x ln(3 + 2) + (3 - 1); no node has a zone label, so that constraint adds nothing.
        assert got["raw"] == {"a": 5, "b": 4, "c": 2}
        assert got["normalized"] == {"a": 40, "b": 60, "c": 100}

    def test_system_defaults_add_zone_spreading_when_zones_exist(self):
        svc = {"kind": "Service", "metadata": {"name": "web", "namespace": "default"}, "spec": {"selector": APP}}
        nodes = three_nodes(
            a={"topology.kubernetes.io/zone": "z1"},
            b={"topology.kubernetes.io/zone": "z1"},
            c={"topology.kubernetes.io/zone": "z2"},
        )
        snapshot = snap(nodes, [web("w1", "a")], workloads=[svc])
        got = scores(PodTopologySpread(), make_pod("new", labels=APP), snapshot)
        host_w, zone_w = math.log(5), math.log(4)
        assert got["raw"] == {
            "a": round(1 * host_w + 2 + 1 * zone_w + 4),
            "b": round(0 * host_w + 2 + 1 * zone_w + 4),
            "c": round(0 * host_w + 2 + 0 * zone_w + 4),
        }

    def test_bare_pod_gets_no_default_spreading(self):
        assert scores(PodTopologySpread(), make_pod("p", labels=APP), snap(three_nodes())) == {"skip": True}

    def test_all_zero_raw_scores_give_100(self):
        pod = make_pod("new", labels=APP, topologySpreadConstraints=[constraint(action="ScheduleAnyway")])
        got = scores(PodTopologySpread(), pod, snap(three_nodes()))
        assert got["normalized"] == {"a": 100, "b": 100, "c": 100}
