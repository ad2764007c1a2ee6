"""Pruning: undeclared fields dropped in place and reported by path; type and object meta kept at the root."""

from __future__ import annotations

from typing import Any

import pytest

from clusterviz.api.structural import prune


def spec_schema(props: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": props, **spec}}}


CASES = [
    # (id, spec schema properties, spec keywords, spec value, pruned spec value, dropped paths)
    ("unknown field", {"a": {"type": "string"}}, {}, {"a": "x", "foo": 1}, {"a": "x"}, ["spec.foo"]),
    ("nothing unknown", {"a": {"type": "string"}}, {}, {"a": "x"}, {"a": "x"}, []),
    ("in list items", {"ports": {"type": "array", "items": {"type": "object", "properties": {"port": {}}}}}, {},
     {"ports": [{"port": 1, "bar": 2}, {"port": 2}]}, {"ports": [{"port": 1}, {"port": 2}]}, ["spec.ports[0].bar"]),
    ("in map values, joined with a dot",
     {"m": {"type": "object", "additionalProperties": {"type": "object", "properties": {"w": {}}}}}, {},
     {"m": {"a": {"w": 1, "x": 2}}}, {"m": {"a": {"w": 1}}}, ["spec.m.a.x"]),
    ("map keys are kept", {"m": {"type": "object", "additionalProperties": {"type": "string"}}}, {},
     {"m": {"a": "1", "b": "2"}}, {"m": {"a": "1", "b": "2"}}, []),
    ("additionalProperties true has no schema below", {"m": {"type": "object", "additionalProperties": True}}, {},
     {"m": {"a": {"x": 1}, "b": 2}}, {"m": {"a": {}, "b": 2}}, ["spec.m.a.x"]),
    ("preserve-unknown-fields keeps unknown fields", {"known": {"type": "object", "properties": {"a": {}}}},
     {"x-kubernetes-preserve-unknown-fields": True},
     {"extra": {"deep": 1}, "known": {"a": 1, "b": 2}}, {"extra": {"deep": 1}, "known": {"a": 1}},
     ["spec.known.b"]),
    ("preserve-unknown-fields through arrays",
     {"l": {"type": "array", "x-kubernetes-preserve-unknown-fields": True,
            "items": {"type": "object", "properties": {"k": {"type": "object", "properties": {}}}}}}, {},
     {"l": [{"free": 1, "k": {"gone": 1}}]}, {"l": [{"free": 1, "k": {}}]}, ["spec.l[0].k.gone"]),
    ("embedded resource keeps its type and object meta",
     {"template": {"type": "object", "x-kubernetes-embedded-resource": True, "properties": {"spec": {}}}}, {},
     {"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "odd": 1}, "spec": {}, "x": 1}},
     {"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "odd": 1}, "spec": {}}},
     ["spec.template.x"]),
    ("kind is pruned where it is not an embedded resource", {"a": {}}, {}, {"kind": "X", "a": 1}, {"a": 1},
     ["spec.kind"]),
    ("an array without items loses its objects' fields", {"l": {"type": "array"}}, {},
     {"l": [{"a": 1}, 2, [{"b": 3}]]}, {"l": [{}, 2, [{}]]}, ["spec.l[0].a", "spec.l[2][0].b"]),
    ("wrong shapes are left alone", {"m": {"type": "object", "properties": {"a": {}}}}, {},
     {"m": [1, "x"]}, {"m": [1, "x"]}, []),
]


@pytest.mark.parametrize(("props", "keywords", "spec", "expected", "dropped"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_each_rule(props, keywords, spec, expected, dropped):
    obj = {"spec": spec}
    assert prune(spec_schema(props, **keywords), obj) == dropped
    assert obj == {"spec": expected}


def test_the_root_keeps_type_and_object_meta_and_does_not_descend_into_metadata():
    obj = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "whatever": [1]},
           "spec": {}, "status": {}, "extra": 1}
    schema = {"type": "object", "properties": {"spec": {"type": "object"}}}
    assert prune(schema, obj) == ["extra", "status"]
    assert obj == {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "whatever": [1]},
                   "spec": {}}


def test_the_root_keeps_type_and_object_meta_even_when_metadata_is_declared():
    obj = {"metadata": {"name": "w", "labels": {"a": "b"}}}
    schema = {"type": "object", "properties": {"metadata": {"type": "object", "properties": {"name": {}}}}}
    assert prune(schema, obj) == []
    assert obj == {"metadata": {"name": "w", "labels": {"a": "b"}}}


def test_paths_are_sorted():
    obj = {"spec": {"z": 1, "a": 1, "m": {"b": 1}}}
    schema = spec_schema({"m": {"type": "object"}})
    assert prune(schema, obj) == ["spec.a", "spec.m.b", "spec.z"]


def test_a_schema_without_properties_keeps_nothing_but_type_and_object_meta():
    obj = {"spec": {"a": {"b": 1}}, "kind": "Widget"}
    assert prune({}, obj) == ["spec"]
    assert obj == {"kind": "Widget"}


def test_an_empty_property_schema_declares_no_fields_below():
    obj = {"spec": {"a": {"b": 1}}}
    assert prune(spec_schema({"a": {}}), obj) == ["spec.a.b"]
    assert obj == {"spec": {"a": {}}}


def test_deeply_nested_arrays_without_schema_never_raise():
    deep: Any = [{"a": 1}]
    for _ in range(5000):
        deep = [deep]
    obj = {"spec": {"l": deep}}
    dropped = prune(spec_schema({"l": {"type": "array"}}), obj)
    assert len(dropped) == 1 and dropped[0].endswith("[0][0].a")


@pytest.mark.parametrize("obj", [None, 1, "x", [], [None, {"a": 1}], {"spec": None}, {"spec": [{}]}, {1: 2}])
def test_never_raises_whatever_the_shapes(obj):
    prune(spec_schema({"a": {}}, additionalProperties={"type": "object"}), obj)


@pytest.mark.parametrize("schema", [None, [], {"properties": []}, {"properties": {"a": 1}}, {"items": [{}]},
                                    {"additionalProperties": 3}])
def test_a_malformed_schema_never_raises(schema):
    prune(schema, {"a": [{"b": 1}], "kind": "K"})


NULL_CASES = [
    ("a non-nullable null without default goes", {"r": {"type": "integer"}}, {"r": None}, {}),
    ("a nullable null stays", {"r": {"type": "integer", "nullable": True}}, {"r": None}, {"r": None}),
    ("a null with a default stays for defaulting", {"r": {"type": "integer", "default": 1}}, {"r": None},
     {"r": None}),
    ("in map values", {"m": {"type": "object", "additionalProperties": {"type": "string"}}},
     {"m": {"a": None, "b": "x"}}, {"m": {"b": "x"}}),
    ("in objects inside items",
     {"l": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}}},
     {"l": [{"a": None}, None]}, {"l": [{}, None]}),
    ("below preserve-unknown-fields only declared nulls go",
     {"p": {"type": "object", "x-kubernetes-preserve-unknown-fields": True, "properties": {"a": {}}}},
     {"p": {"a": None, "free": None}}, {"p": {"free": None}}),
]


@pytest.mark.parametrize(("props", "spec", "expected"), [c[1:] for c in NULL_CASES], ids=[c[0] for c in NULL_CASES])
def test_nulls_the_schema_neither_allows_nor_defaults_are_dropped_unreported(props, spec, expected):
    obj = {"spec": spec}
    assert prune(spec_schema(props), obj) == []
    assert obj == {"spec": expected}


def test_below_the_resource_root_type_and_object_meta_are_ordinary_fields_and_nulls_stay():
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    value = {"a": None, "kind": "K", "metadata": {}}
    assert prune(schema, value, resource_root=False) == ["kind", "metadata"]
    assert value == {"a": None}


def test_below_the_resource_root_an_embedded_resource_keeps_its_type_and_object_meta():
    schema = {"type": "object", "x-kubernetes-embedded-resource": True, "properties": {}}
    value = {"apiVersion": "v1", "kind": "Pod", "metadata": {"x": 1}, "spec": {}}
    assert prune(schema, value, resource_root=False) == ["spec"]
    assert value == {"apiVersion": "v1", "kind": "Pod", "metadata": {"x": 1}}
