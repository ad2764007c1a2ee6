import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterviz.apimachinery.patch import merge_patch

# The examples of RFC 7386, Appendix A.
RFC_7386_EXAMPLES = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]


@pytest.mark.parametrize(("target", "patch", "expected"), RFC_7386_EXAMPLES)
def test_rfc7386_appendix_examples(target, patch, expected):
    assert merge_patch(target, patch) == expected


def test_kubectl_label_patch_adds_a_label_and_keeps_the_others():
    node = {"metadata": {"name": "node01", "labels": {"kubernetes.io/os": "linux"}}}
    result = merge_patch(node, {"metadata": {"labels": {"disktype": "ssd"}}})
    assert result["metadata"]["labels"] == {"kubernetes.io/os": "linux", "disktype": "ssd"}


def test_kubectl_label_removal_uses_null():
    node = {"metadata": {"labels": {"disktype": "ssd", "a": "b"}}}
    assert merge_patch(node, {"metadata": {"labels": {"disktype": None}}}) == {"metadata": {"labels": {"a": "b"}}}


def test_null_for_missing_key_is_a_no_op():
    assert merge_patch({"a": 1}, {"b": None}) == {"a": 1}


def test_scale_patch_sets_replicas():
    scale = {"kind": "Scale", "spec": {"replicas": 1}, "status": {"replicas": 1}}
    assert merge_patch(scale, {"spec": {"replicas": 5}})["spec"] == {"replicas": 5}


def test_lists_are_replaced_not_merged():
    target = {"spec": {"containers": [{"name": "web", "ports": [{"containerPort": 80}]}]}}
    result = merge_patch(target, {"spec": {"containers": [{"name": "web", "image": "nginx:1.26"}]}})
    assert result["spec"]["containers"] == [{"name": "web", "image": "nginx:1.26"}]


def test_inputs_are_not_mutated():
    target = {"a": {"b": [1, {"c": 2}]}, "d": 1}
    patch = {"a": {"x": {"y": None, "z": [3]}}, "d": None}
    target_before = copy.deepcopy(target)
    patch_before = copy.deepcopy(patch)
    merge_patch(target, patch)
    assert target == target_before
    assert patch == patch_before


def test_result_does_not_share_mutable_parts_with_inputs():
    target = {"keep": {"inner": [1]}}
    patch = {"new": {"list": [1, 2]}}
    result = merge_patch(target, patch)
    result["keep"]["inner"].append(99)
    result["new"]["list"].append(99)
    assert target == {"keep": {"inner": [1]}}
    assert patch == {"new": {"list": [1, 2]}}


json_scalars = st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=2), children, max_size=3),
    max_leaves=10,
)


@given(json_values, json_values)
def test_applying_the_same_merge_patch_twice_changes_nothing_more(target, patch):
    once = merge_patch(target, patch)
    assert merge_patch(once, patch) == once


@given(json_values, json_values)
def test_merge_patch_never_mutates_random_inputs(target, patch):
    target_before = copy.deepcopy(target)
    patch_before = copy.deepcopy(patch)
    merge_patch(target, patch)
    assert target == target_before
    assert patch == patch_before
