"""InterPodAffinity: required and preferred (anti-)affinity in both directions, per topology key."""

from __future__ import annotations

from clusterviz.scheduler.framework import Code
from clusterviz.scheduler.plugins.inter_pod_affinity import (
    REASON_AFFINITY_RULES_NOT_MATCH,
    REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
    InterPodAffinity,
)
from tests.scheduler.helpers import filter_status, make_node, make_pod, run, scores, snap

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"


def term(labels, key=HOST, **extra):
    return {"labelSelector": {"matchLabels": labels}, "topologyKey": key, **extra}


def affinity(kind, required=(), preferred=()):
    block = {}
    if required:
        block["requiredDuringSchedulingIgnoredDuringExecution"] = list(required)
    if preferred:
        block["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": w, "podAffinityTerm": t} for w, t in preferred
        ]
    return {kind: block}


def zoned():
    return [
        make_node("a1", labels={ZONE: "a"}),
        make_node("a2", labels={ZONE: "a"}),
        make_node("b1", labels={ZONE: "b"}),
    ]


def statuses(pod, nodes, pods, **kw):
    snapshot = snap(nodes, pods, **kw)
    return {n.name: filter_status(InterPodAffinity(), pod, snapshot, n.name) for n in snapshot.list()}


class TestRequiredAffinity:
    def test_same_zone_as_a_matching_pod(self):
        pod = make_pod("web", affinity=affinity("podAffinity", [term({"app": "cache"}, ZONE)]))
        got = statuses(pod, zoned(), [make_pod("cache", labels={"app": "cache"}, node="a1")])
        assert got["a1"].is_success and got["a2"].is_success
        assert (got["b1"].code, got["b1"].reasons) == (
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            (REASON_AFFINITY_RULES_NOT_MATCH,),
        )

    def test_first_pod_of_a_group_may_go_anywhere_with_the_key(self):
        pod = make_pod("web", labels={"app": "web"}, affinity=affinity("podAffinity", [term({"app": "web"}, ZONE)]))
        got = statuses(pod, [*zoned(), make_node("nozone")], [])
        assert got["a1"].is_success and got["b1"].is_success
        assert not got["nozone"].is_success

    def test_pod_not_matching_its_own_term_cannot_start_a_group(self):
        pod = make_pod("web", affinity=affinity("podAffinity", [term({"app": "cache"}, ZONE)]))
        assert not any(s.is_success for s in statuses(pod, zoned(), []).values())

    def test_other_namespace_does_not_match_by_default(self):
        pod = make_pod("web", affinity=affinity("podAffinity", [term({"app": "cache"})]))
        got = statuses(pod, zoned(), [make_pod("cache", "other", labels={"app": "cache"}, node="a1")])
        assert not got["a1"].is_success

    def test_namespace_selector_uses_namespace_labels(self):
        t = term({"app": "cache"}, namespaceSelector={"matchLabels": {"team": "blue"}})
        pod = make_pod("web", affinity=affinity("podAffinity", [t]))
        ns = [{"metadata": {"name": "other", "labels": {"team": "blue"}}}]
        got = statuses(pod, zoned(), [make_pod("cache", "other", labels={"app": "cache"}, node="a1")], namespaces=ns)
        assert got["a1"].is_success and not got["a2"].is_success


class TestRequiredAntiAffinity:
    def test_node_with_a_matching_pod_is_rejected(self):
        pod = make_pod("web-2", labels={"app": "web"}, affinity=affinity("podAntiAffinity", [term({"app": "web"})]))
        got = statuses(pod, zoned(), [make_pod("web-1", labels={"app": "web"}, node="a1")])
        assert (got["a1"].code, got["a1"].reasons) == (Code.UNSCHEDULABLE, (REASON_ANTI_AFFINITY_RULES_NOT_MATCH,))
        assert got["a2"].is_success

    def test_existing_pods_anti_affinity_protects_their_whole_zone(self):
        guard = make_pod("guard", node="a1", affinity=affinity("podAntiAffinity", [term({"app": "noisy"}, ZONE)]))
        got = statuses(make_pod("noisy", labels={"app": "noisy"}), zoned(), [guard])
        assert got["a1"].reasons == (REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,)
        assert got["a2"].reasons == (REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,)
        assert got["b1"].is_success

    def test_no_rule_on_either_side_skips(self):
        assert filter_status(InterPodAffinity(), make_pod("p"), snap(zoned()), "a1").is_skip


class TestScore:
    def test_preferred_affinity_and_anti_affinity_weights(self):
        aff = affinity("podAffinity", preferred=[(5, term({"app": "cache"}, ZONE))])
        aff.update(affinity("podAntiAffinity", preferred=[(3, term({"app": "batch"}))]))
        pods = [
            make_pod("cache", labels={"app": "cache"}, node="a1"),
            make_pod("batch", labels={"app": "batch"}, node="a2"),
        ]
        got = scores(InterPodAffinity(), make_pod("web", affinity=aff), snap(zoned(), pods))
        assert got["raw"] == {"a1": 5, "a2": 2, "b1": 0}
        assert got["normalized"] == {"a1": 100, "a2": 40, "b1": 0}

    def test_existing_pods_required_affinity_adds_hard_pod_affinity_weight(self):
        existing = make_pod("client", node="b1", affinity=affinity("podAffinity", [term({"app": "db"}, ZONE)]))
        pod = make_pod("db", labels={"app": "db"})
        assert scores(InterPodAffinity(), pod, snap(zoned(), [existing]))["raw"] == {"a1": 0, "a2": 0, "b1": 1}
        assert scores(InterPodAffinity(5), pod, snap(zoned(), [existing]))["raw"]["b1"] == 5
        assert scores(InterPodAffinity(0), pod, snap(zoned(), [existing])) == {"skip": True}

    def test_existing_pods_preferred_anti_affinity_pushes_away(self):
        existing = make_pod(
            "quiet", node="a1", affinity=affinity("podAntiAffinity", preferred=[(8, term({"app": "loud"}, ZONE))])
        )
        got = scores(InterPodAffinity(), make_pod("loud", labels={"app": "loud"}), snap(zoned(), [existing]))
        assert got["raw"] == {"a1": -8, "a2": -8, "b1": 0}
        assert got["normalized"] == {"a1": 0, "a2": 0, "b1": 100}

    def test_min_max_normalisation_examples_from_the_spec(self):
        plugin = InterPodAffinity()
        assert plugin.normalize_score(None, None, {"a": 2, "b": 10, "c": 0}) == {"a": 20, "b": 100, "c": 0}
        assert plugin.normalize_score(None, None, {"a": 8, "b": -5, "c": 8, "d": -5}) == {
            "a": 100,
            "b": 0,
            "c": 100,
            "d": 0,
        }

    def test_ignore_preferred_terms_of_existing_pods_skips_without_own_preferences(self):
        existing = make_pod(
            "quiet", node="a1", affinity=affinity("podAntiAffinity", preferred=[(8, term({"app": "loud"}))])
        )
        plugin = InterPodAffinity(ignore_preferred_terms_of_existing_pods=True)
        assert scores(plugin, make_pod("loud", labels={"app": "loud"}), snap(zoned(), [existing])) == {"skip": True}


def test_anti_affinity_spreads_replicas_across_hostnames_in_the_cycle():
    rule = affinity("podAntiAffinity", [term({"app": "web"})])
    existing = [make_pod("web-1", labels={"app": "web"}, node="a1", affinity=rule)]
    record = run(make_pod("web-2", labels={"app": "web"}, affinity=rule), zoned(), existing)
    assert record.selected in ("a2", "b1")
    assert record.node("a1").feasible is False
