import copy

import pytest

from clusterviz.apimachinery.patch import PatchError, json_patch, parse_pointer

# --- RFC 6902 Appendix A ------------------------------------------------------------


def test_add_object_member():
    assert json_patch({"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}]) == {"foo": "bar", "baz": "qux"}


def test_add_array_element_inserts_before_index():
    result = json_patch({"foo": ["bar", "baz"]}, [{"op": "add", "path": "/foo/1", "value": "qux"}])
    assert result == {"foo": ["bar", "qux", "baz"]}


def test_add_at_array_length_appends():
    assert json_patch({"foo": ["a"]}, [{"op": "add", "path": "/foo/1", "value": "b"}]) == {"foo": ["a", "b"]}


def test_add_with_dash_appends_to_array():
    result = json_patch({"foo": ["bar"]}, [{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}])
    assert result == {"foo": ["bar", ["abc", "def"]]}


def test_add_replaces_existing_member():
    assert json_patch({"a": 1}, [{"op": "add", "path": "/a", "value": 2}]) == {"a": 2}


def test_add_nested_member_object():
    result = json_patch({"foo": "bar"}, [{"op": "add", "path": "/child", "value": {"grandchild": {}}}])
    assert result == {"foo": "bar", "child": {"grandchild": {}}}


def test_remove_object_member():
    assert json_patch({"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}]) == {"foo": "bar"}


def test_remove_array_element_shifts_the_rest():
    result = json_patch({"foo": ["bar", "qux", "baz"]}, [{"op": "remove", "path": "/foo/1"}])
    assert result == {"foo": ["bar", "baz"]}


def test_replace_value():
    result = json_patch({"baz": "qux", "foo": "bar"}, [{"op": "replace", "path": "/baz", "value": "boo"}])
    assert result == {"baz": "boo", "foo": "bar"}


def test_move_value_between_objects():
    doc = {"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}}
    result = json_patch(doc, [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}])
    assert result == {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}}


def test_move_array_element_within_array():
    doc = {"foo": ["all", "grass", "cows", "eat"]}
    result = json_patch(doc, [{"op": "move", "from": "/foo/1", "path": "/foo/3"}])
    assert result == {"foo": ["all", "cows", "eat", "grass"]}


def test_copy_duplicates_value_independently():
    result = json_patch({"a": {"x": [1]}}, [{"op": "copy", "from": "/a", "path": "/b"}])
    assert result == {"a": {"x": [1]}, "b": {"x": [1]}}
    result["b"]["x"].append(2)
    assert result["a"] == {"x": [1]}


def test_successful_tests_leave_document_unchanged():
    doc = {"baz": "qux", "foo": ["a", 2, "c"]}
    ops = [{"op": "test", "path": "/baz", "value": "qux"}, {"op": "test", "path": "/foo/1", "value": 2}]
    assert json_patch(doc, ops) == doc


def test_failed_test_raises_with_upstream_message():
    with pytest.raises(PatchError) as excinfo:
        json_patch({"baz": "qux"}, [{"op": "test", "path": "/baz", "value": "bar"}])
    assert str(excinfo.value) == "testing value /baz failed: test failed"


def test_unrecognized_operation_members_are_ignored():
    ops = [{"op": "add", "path": "/baz", "value": "qux", "xyz": 123}]
    assert json_patch({"foo": "bar"}, ops) == {"foo": "bar", "baz": "qux"}


def test_add_to_nonexistent_parent_fails():
    with pytest.raises(PatchError) as excinfo:
        json_patch({"foo": "bar"}, [{"op": "add", "path": "/baz/bat", "value": "qux"}])
    assert str(excinfo.value) == 'add operation does not apply: doc is missing path: "/baz/bat": missing value'


def test_tilde_escapes_decode_in_the_right_order():
    doc = {"/": 9, "~1": 10}
    assert json_patch(doc, [{"op": "test", "path": "/~01", "value": 10}]) == doc


def test_test_distinguishes_strings_from_numbers():
    with pytest.raises(PatchError):
        json_patch({"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": "10"}])


def test_test_distinguishes_booleans_from_numbers():
    with pytest.raises(PatchError):
        json_patch({"a": 1}, [{"op": "test", "path": "/a", "value": True}])


def test_test_treats_int_and_float_as_same_number():
    assert json_patch({"a": 1}, [{"op": "test", "path": "/a", "value": 1.0}]) == {"a": 1}


# --- Kubernetes-flavoured uses ---------------------------------------------------------------


def test_python_client_node_patch_adds_taint_and_label():
    node = {"metadata": {"name": "node01", "labels": {}}, "spec": {}}
    ops = [
        {"op": "add", "path": "/metadata/labels/disktype", "value": "ssd"},
        {"op": "add", "path": "/spec/taints", "value": [{"key": "k", "effect": "NoSchedule"}]},
    ]
    result = json_patch(node, ops)
    assert result["metadata"]["labels"] == {"disktype": "ssd"}
    assert result["spec"]["taints"] == [{"key": "k", "effect": "NoSchedule"}]


def test_slash_in_label_key_is_escaped_as_tilde_one():
    node = {"metadata": {"labels": {}}}
    ops = [{"op": "add", "path": "/metadata/labels/node-role.kubernetes.io~1worker", "value": ""}]
    assert json_patch(node, ops) == {"metadata": {"labels": {"node-role.kubernetes.io/worker": ""}}}


def test_replace_of_whole_document_uses_empty_pointer():
    assert json_patch({"a": 1}, [{"op": "replace", "path": "", "value": {"b": 2}}]) == {"b": 2}


# --- errors and atomicity ---------------------------------------------------------------------


def test_replace_of_missing_key_fails():
    with pytest.raises(PatchError) as excinfo:
        json_patch({"a": 1}, [{"op": "replace", "path": "/b", "value": 2}])
    assert str(excinfo.value) == "replace operation does not apply: doc is missing key: /b: missing value"


def test_remove_of_missing_key_fails():
    with pytest.raises(PatchError) as excinfo:
        json_patch({"a": {}}, [{"op": "remove", "path": "/a/x"}])
    assert str(excinfo.value) == "error in remove for path: '/a/x': Unable to remove nonexistent key: x: missing value"


def test_remove_beyond_array_end_fails():
    with pytest.raises(PatchError) as excinfo:
        json_patch({"a": [1]}, [{"op": "remove", "path": "/a/1"}])
    assert (
        str(excinfo.value)
        == "error in remove for path: '/a/1': Unable to access invalid index: 1: invalid index referenced"
    )


def test_add_beyond_array_length_fails():
    with pytest.raises(PatchError) as excinfo:
        json_patch({"a": [1]}, [{"op": "add", "path": "/a/5", "value": 2}])
    assert "Unable to access invalid index: 5" in str(excinfo.value)


@pytest.mark.parametrize("index", ["01", "-1", "x", "1.0"])
def test_malformed_array_index_fails(index):
    with pytest.raises(PatchError) as excinfo:
        json_patch({"a": [1, 2]}, [{"op": "replace", "path": f"/a/{index}", "value": 0}])
    assert f"value was not a proper array index: '{index}'" in str(excinfo.value)


def test_dash_is_only_valid_for_add():
    with pytest.raises(PatchError):
        json_patch({"a": [1]}, [{"op": "remove", "path": "/a/-"}])


def test_unknown_op_is_rejected():
    with pytest.raises(PatchError) as excinfo:
        json_patch({}, [{"op": "frobnicate", "path": "/a"}])
    assert str(excinfo.value) == "Unexpected kind: frobnicate"


def test_missing_op_is_rejected():
    with pytest.raises(PatchError) as excinfo:
        json_patch({}, [{"path": "/a"}])
    assert str(excinfo.value) == "Unexpected kind: unknown"


def test_missing_path_is_rejected():
    with pytest.raises(PatchError) as excinfo:
        json_patch({}, [{"op": "add", "value": 1}])
    assert "add operation failed to decode path" in str(excinfo.value)


def test_missing_value_is_rejected():
    with pytest.raises(PatchError) as excinfo:
        json_patch({}, [{"op": "add", "path": "/a"}])
    assert "missing value field" in str(excinfo.value)


def test_missing_from_is_rejected_for_move():
    with pytest.raises(PatchError) as excinfo:
        json_patch({"a": 1}, [{"op": "move", "path": "/b"}])
    assert "move operation failed to decode from" in str(excinfo.value)


def test_move_from_missing_location_fails():
    with pytest.raises(PatchError) as excinfo:
        json_patch({"a": 1}, [{"op": "move", "from": "/x", "path": "/b"}])
    assert str(excinfo.value) == "move operation does not apply: doc is missing from path: /x: missing value"


def test_move_into_own_child_is_rejected():
    with pytest.raises(PatchError):
        json_patch({"a": {"b": {}}}, [{"op": "move", "from": "/a", "path": "/a/b/c"}])


def test_move_to_same_location_is_a_no_op():
    assert json_patch({"a": {"b": 1}}, [{"op": "move", "from": "/a", "path": "/a"}]) == {"a": {"b": 1}}


def test_pointer_without_leading_slash_is_rejected():
    with pytest.raises(PatchError):
        json_patch({"a": 1}, [{"op": "remove", "path": "a"}])


def test_ops_must_be_a_list_of_objects():
    with pytest.raises(PatchError):
        json_patch({}, {"op": "add", "path": "/a", "value": 1})
    with pytest.raises(PatchError):
        json_patch({}, ["add"])


def test_failing_operation_leaves_no_partial_result():
    doc = {"spec": {"replicas": 1}, "metadata": {"labels": {}}}
    before = copy.deepcopy(doc)
    ops = [
        {"op": "replace", "path": "/spec/replicas", "value": 5},
        {"op": "add", "path": "/metadata/labels/a", "value": "b"},
        {"op": "test", "path": "/spec/replicas", "value": 1},
    ]
    with pytest.raises(PatchError):
        json_patch(doc, ops)
    assert doc == before


def test_inputs_are_not_mutated_and_values_are_not_aliased():
    doc = {"a": [1]}
    value = {"nested": [1]}
    ops = [{"op": "add", "path": "/b", "value": value}]
    result = json_patch(doc, ops)
    result["b"]["nested"].append(2)
    result["a"].append(2)
    assert doc == {"a": [1]}
    assert value == {"nested": [1]}


# --- pointers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pointer", "tokens"),
    [("", []), ("/", [""]), ("/a/b", ["a", "b"]), ("/a~1b", ["a/b"]), ("/m~0n", ["m~n"]), ("/~01", ["~1"])],
)
def test_parse_pointer_unescapes_tokens(pointer, tokens):
    assert parse_pointer(pointer) == tokens


def test_parse_pointer_rejects_bad_tilde_escape():
    with pytest.raises(PatchError):
        parse_pointer("/a~2")
