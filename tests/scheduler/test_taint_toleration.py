"""TaintToleration: hard taints filter, PreferNoSchedule taints score in reverse."""

from __future__ import annotations

from clusterviz.scheduler.framework import Code
from clusterviz.scheduler.plugins.taint_toleration import (
    REASON_UNTOLERATED_TAINT,
    TaintToleration,
    legacy_reason,
    tolerates,
)
from tests.scheduler.helpers import filter_status, make_node, make_pod, scores, snap

UNREACHABLE = {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}


def check(pod, taints):
    return filter_status(TaintToleration(), pod, snap([make_node("n", taints=taints)]), "n")


def test_untolerated_no_schedule_taint_rejects_with_the_v135_reason():
    status = check(make_pod("p"), [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])
    assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.reasons == (REASON_UNTOLERATED_TAINT,) == ("node(s) had untolerated taint(s)",)


def test_no_execute_taints_filter_too():
    assert not check(make_pod("p"), [UNREACHABLE]).is_success


def test_legacy_reason_names_the_taint():
    assert legacy_reason(UNREACHABLE) == "node(s) had untolerated taint {node.kubernetes.io/unreachable: }"


def test_prefer_no_schedule_never_filters():
    assert check(make_pod("p"), [{"key": "soft", "effect": "PreferNoSchedule"}]).is_success


def test_matching_toleration_passes():
    pod = make_pod("p", tolerations=[{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}])
    assert check(pod, [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]).is_success


def test_equal_needs_the_same_value():
    pod = make_pod("p", tolerations=[{"key": "dedicated", "value": "cpu"}])
    assert not check(pod, [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]).is_success


def test_exists_without_key_tolerates_everything():
    assert tolerates({"operator": "Exists"}, UNREACHABLE)


def test_effect_must_match_when_set():
    assert not tolerates(
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoSchedule"}, UNREACHABLE
    )


def test_gt_and_lt_tolerations_tolerate_nothing_while_the_alpha_gate_is_off():
    assert not tolerates(
        {"key": "k", "operator": "Gt", "value": "1"}, {"key": "k", "value": "2", "effect": "NoSchedule"}
    )


def test_score_counts_intolerable_soft_taints_and_normalises_in_reverse():
    soft = {"key": "soft", "effect": "PreferNoSchedule"}
    soft2 = {"key": "soft2", "effect": "PreferNoSchedule"}
    nodes = [make_node("a"), make_node("b", taints=[soft]), make_node("c", taints=[soft, soft2])]
    got = scores(TaintToleration(), make_pod("p"), snap(nodes))
    assert got["raw"] == {"a": 0, "b": 1, "c": 2}
    assert got["normalized"] == {"a": 100, "b": 50, "c": 0}


def test_no_soft_taints_anywhere_gives_everyone_100():
    got = scores(TaintToleration(), make_pod("p"), snap([make_node("a"), make_node("b")]))
    assert got["normalized"] == {"a": 100, "b": 100}


def test_only_tolerations_with_empty_or_prefer_effect_count_for_scoring():
    soft = {"key": "soft", "effect": "PreferNoSchedule"}
    pod = make_pod("p", tolerations=[{"key": "soft", "operator": "Exists", "effect": "NoSchedule"}])
    got = scores(TaintToleration(), pod, snap([make_node("a", taints=[soft]), make_node("b")]))
    assert got["raw"] == {"a": 1, "b": 0}
