"""NodeAffinity: nodeSelector, required terms with every operator, preferred weights, PreFilter narrowing."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.framework import Code
from clusterviz.scheduler.plugins.node_affinity import REASON_ENFORCED, REASON_POD, NodeAffinity
from clusterviz.scheduler.profile import load_configuration
from tests.scheduler.helpers import filter_status, make_node, make_pod, run, scores, snap


def required(*terms):
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


def expr(key, operator, *values):
    e = {"key": key, "operator": operator}
    if values:
        e["values"] = list(values)
    return e


def fits(pod, labels):
    return filter_status(NodeAffinity(), pod, snap([make_node("n", labels=labels)]), "n")


class TestNodeSelector:
    def test_matching_labels_pass(self):
        assert fits(make_pod("p", nodeSelector={"disk": "ssd"}), {"disk": "ssd"}).is_success

    def test_missing_label_fails_with_the_upstream_reason(self):
        status = fits(make_pod("p", nodeSelector={"disk": "ssd"}), {"disk": "hdd"})
        assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        assert status.reasons == (REASON_POD,) == ("node(s) didn't match Pod's node affinity/selector",)

    def test_no_selector_and_no_required_affinity_skips(self):
        assert fits(make_pod("p"), {}).is_skip

    def test_no_matching_node_leaves_the_pod_pending_with_a_message(self):
        pod = make_pod("p", nodeSelector={"disktype": "ssd"})
        record = run(pod, [make_node("node01"), make_node("node02")])
        assert record.selected is None
        assert record.message.startswith(
            "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector."
        )


@pytest.mark.parametrize(
    ("expression", "labels", "matches"),
    [
        (expr("zone", "In", "a", "b"), {"zone": "b"}, True),
        (expr("zone", "In", "a"), {"zone": "c"}, False),
        (expr("zone", "NotIn", "a"), {"zone": "b"}, True),
        (expr("zone", "NotIn", "a"), {}, True),  # NotIn matches a node without the key
        (expr("zone", "NotIn", "a"), {"zone": "a"}, False),
        (expr("gpu", "Exists"), {"gpu": ""}, True),
        (expr("gpu", "Exists"), {}, False),
        (expr("gpu", "DoesNotExist"), {}, True),
        (expr("gpu", "DoesNotExist"), {"gpu": "x"}, False),
        (expr("cores", "Gt", "4"), {"cores": "8"}, True),
        (expr("cores", "Gt", "8"), {"cores": "8"}, False),  # strict
        (expr("cores", "Lt", "8"), {"cores": "4"}, True),
        (expr("cores", "Gt", "0204"), {"cores": "0206"}, True),  # both parse as integers
        (expr("cores", "Gt", "4"), {"cores": "many"}, False),
        (expr("cores", "Gt", "4"), {}, False),
        (expr("cores", "Gt", "4", "5"), {"cores": "8"}, False),  # malformed: exactly one value
        (expr("zone", "In"), {"zone": "a"}, False),  # malformed: In without values
    ],
)
def test_operators(expression, labels, matches):
    assert fits(make_pod("p", affinity=required({"matchExpressions": [expression]})), labels).is_success is matches


def test_expressions_are_anded_and_terms_are_ored():
    anded = required({"matchExpressions": [expr("a", "In", "1"), expr("b", "In", "2")]})
    assert not fits(make_pod("p", affinity=anded), {"a": "1"}).is_success
    ored = required({"matchExpressions": [expr("a", "In", "1")]}, {"matchExpressions": [expr("b", "In", "2")]})
    assert fits(make_pod("p", affinity=ored), {"b": "2"}).is_success


def test_a_malformed_term_fails_alone():
    terms = required(
        {"matchExpressions": [expr("x", "Gt", "not-a-number")]}, {"matchExpressions": [expr("b", "Exists")]}
    )
    assert fits(make_pod("p", affinity=terms), {"b": "", "x": "3"}).is_success


def test_empty_term_and_empty_term_list_match_nothing():
    assert not fits(make_pod("p", affinity=required({})), {"a": "1"}).is_success
    assert not fits(make_pod("p", affinity=required()), {"a": "1"}).is_success


def test_selector_and_affinity_must_both_hold():
    pod = make_pod(
        "p", nodeSelector={"disk": "ssd"}, affinity=required({"matchExpressions": [expr("zone", "In", "a")]})
    )
    assert not fits(pod, {"zone": "a"}).is_success
    assert fits(pod, {"zone": "a", "disk": "ssd"}).is_success


class TestMatchFields:
    def test_pinned_names_narrow_the_candidates(self):
        pin = required({"matchFields": [expr("metadata.name", "In", "node-b")]})
        record = run(make_pod("p", affinity=pin), [make_node("node-a"), make_node("node-b"), make_node("node-c")])
        assert record.selected == "node-b"

    def test_pin_to_a_missing_node_reports_the_plugin_set(self):
        pin = required({"matchFields": [expr("metadata.name", "In", "ghost")]})
        record = run(make_pod("p", affinity=pin), [make_node("node-a"), make_node("node-b")])
        assert record.message.startswith("0/2 nodes are available: 2 node(s) didn't satisfy plugin(s) [NodeAffinity].")

    def test_contradicting_pins_fail_at_prefilter(self):
        pin = required({"matchFields": [expr("metadata.name", "In", "a"), expr("metadata.name", "In", "b")]})
        record = run(make_pod("p", affinity=pin), [make_node("a"), make_node("b"), make_node("c")])
        assert record.message.startswith("0/3 nodes are available: pod affinity terms conflict.")


class TestPreferred:
    def preferred(self, *terms):
        return {
            "nodeAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": w, "preference": {"matchExpressions": [e]}} for w, e in terms
                ]
            }
        }

    def test_weights_sum_and_normalise_to_the_spec_example(self):
        affinity = self.preferred(
            (2, expr("foo", "In", "bar")), (4, expr("key", "In", "value")), (5, expr("az", "In", "az1"))
        )
        nodes = [
            make_node("node1", labels={"foo": "bar"}),
            make_node("node2", labels={"foo": "bar", "key": "value", "az": "az1"}),
            make_node("node3", labels={"key": "value"}),
        ]
        got = scores(NodeAffinity(), make_pod("p", affinity=affinity), snap(nodes))
        assert got["raw"] == {"node1": 2, "node2": 11, "node3": 4}
        assert got["normalized"] == {"node1": 18, "node2": 100, "node3": 36}

    def test_no_preferred_terms_skips_scoring(self):
        assert scores(NodeAffinity(), make_pod("p"), snap([make_node("a")])) == {"skip": True}

    def test_zero_weight_terms_are_ignored(self):
        affinity = self.preferred((0, expr("foo", "Exists")))
        got = scores(NodeAffinity(), make_pod("p", affinity=affinity), snap([make_node("a", labels={"foo": "x"})]))
        assert got["raw"] == {"a": 0}

    def test_hard_rules_first_then_soft(self):
        affinity = required({"matchExpressions": [expr("tier", "In", "web")]})
        affinity["nodeAffinity"].update(self.preferred((100, expr("disk", "In", "ssd")))["nodeAffinity"])
        nodes = [
            make_node("web-hdd", labels={"tier": "web"}),
            make_node("db-ssd", labels={"tier": "db", "disk": "ssd"}),
        ]
        record = run(make_pod("p", affinity=affinity), nodes)
        assert record.selected == "web-hdd"

    def test_several_soft_rules_are_decided_by_weight(self):
        affinity = self.preferred((80, expr("disk", "In", "ssd")), (20, expr("zone", "In", "a")))
        nodes = [make_node("zone-a", labels={"zone": "a"}), make_node("ssd", labels={"disk": "ssd"})]
        record = run(make_pod("p", affinity=affinity), nodes)
        assert record.selected == "ssd"
        na = {n.name: next(s for s in n.scores if s.plugin == "NodeAffinity") for n in record.nodes}
        assert (na["ssd"].raw, na["ssd"].normalized, na["ssd"].weighted) == (80, 100, 200)
        assert (na["zone-a"].raw, na["zone-a"].normalized, na["zone-a"].weighted) == (20, 25, 50)


def test_profile_added_affinity_is_enforced_with_its_own_reason():
    plugin = NodeAffinity(
        {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [expr("pool", "In", "class")]}]
            }
        }
    )
    status = filter_status(plugin, make_pod("p"), snap([make_node("n")]), "n")
    assert status.reasons == (REASON_ENFORCED,)


def test_added_affinity_from_configuration():
    config = {
        "profiles": [
            {
                "pluginConfig": [
                    {
                        "name": "NodeAffinity",
                        "args": {
                            "addedAffinity": {
                                "requiredDuringSchedulingIgnoredDuringExecution": {
                                    "nodeSelectorTerms": [{"matchExpressions": [expr("pool", "In", "class")]}]
                                }
                            }
                        },
                    }
                ]
            }
        ]
    }
    profile = load_configuration(config).profile
    record = run(make_pod("p"), [make_node("a"), make_node("b", labels={"pool": "class"})], profile=profile)
    assert record.selected == "b"
