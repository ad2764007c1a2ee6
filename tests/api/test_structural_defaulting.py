"""Structural defaulting: defaults fill absent properties top-down, in items and map values, on a copy."""

from __future__ import annotations

from typing import Any

import pytest

from clusterviz.api.structural import apply_defaults


def spec_schema(props: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": props, **spec}}}


CASES = [
    # (id, spec properties, spec value, defaulted spec value)
    ("absent property", {"replicas": {"type": "integer", "default": 1}}, {}, {"replicas": 1}),
    ("present property kept", {"replicas": {"type": "integer", "default": 1}}, {"replicas": 3}, {"replicas": 3}),
    ("falsy values are present", {"n": {"default": 1}, "s": {"default": "x"}, "b": {"default": True}},
     {"n": 0, "s": "", "b": False}, {"n": 0, "s": "", "b": False}),
    ("non-nullable null takes the default", {"mode": {"type": "string", "default": "slow"}}, {"mode": None},
     {"mode": "slow"}),
    ("nullable null stays", {"mode": {"type": "string", "nullable": True, "default": "slow"}}, {"mode": None},
     {"mode": None}),
    ("a null default is no default", {"mode": {"type": "string", "default": None}}, {}, {}),
    ("nested default needs its parent",
     {"tls": {"type": "object", "properties": {"port": {"type": "integer", "default": 443}}}}, {}, {}),
    ("nested default inside an existing parent",
     {"tls": {"type": "object", "properties": {"port": {"type": "integer", "default": 443}}}}, {"tls": {}},
     {"tls": {"port": 443}}),
    ("a defaulted parent is defaulted inside",
     {"tls": {"type": "object", "default": {}, "properties": {"port": {"type": "integer", "default": 443}}}}, {},
     {"tls": {"port": 443}}),
    ("array items",
     {"ports": {"type": "array", "items": {"type": "object", "properties": {"protocol": {"default": "TCP"}}}}},
     {"ports": [{"port": 1}, {"port": 2, "protocol": "UDP"}]},
     {"ports": [{"port": 1, "protocol": "TCP"}, {"port": 2, "protocol": "UDP"}]}),
    ("null array item takes the items default", {"l": {"type": "array", "items": {"type": "string", "default": "x"}}},
     {"l": ["a", None]}, {"l": ["a", "x"]}),
    ("map values",
     {"m": {"type": "object", "additionalProperties": {"type": "object", "properties": {"w": {"default": 1}}}}},
     {"m": {"a": {}, "b": {"w": 5}}}, {"m": {"a": {"w": 1}, "b": {"w": 5}}}),
    ("null map value takes the default", {"m": {"type": "object", "additionalProperties": {"default": "d"}}},
     {"m": {"a": None}}, {"m": {"a": "d"}}),
    ("map values do not appear", {"m": {"type": "object", "additionalProperties": {"default": "d"}}}, {"m": {}},
     {"m": {}}),
    ("defaults under anyOf are not structural", {"x": {"anyOf": [{"default": 1}]}}, {}, {}),
    ("wrong shape left alone", {"tls": {"type": "object", "properties": {"port": {"default": 443}}}}, {"tls": [1]},
     {"tls": [1]}),
    ("a list where the object belongs",
     {"tls": {"type": "object", "properties": {"port": {"default": 443}}}}, {"tls": "x"}, {"tls": "x"}),
]


@pytest.mark.parametrize(("props", "spec", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_rule(props, spec, expected):
    assert apply_defaults(spec_schema(props), {"spec": spec}) == {"spec": expected}


def test_spec_itself_is_defaulted_only_when_declared():
    schema = {"type": "object", "properties": {"spec": {"type": "object", "default": {"a": 1}}}}
    assert apply_defaults(schema, {"kind": "Widget"}) == {"kind": "Widget", "spec": {"a": 1}}


def test_the_object_given_is_not_changed():
    obj: dict[str, Any] = {"spec": {}}
    result = apply_defaults(spec_schema({"a": {"default": 1}}), obj)
    assert obj == {"spec": {}}
    assert result == {"spec": {"a": 1}}


def test_defaults_are_copies_of_the_schemas_value():
    schema = spec_schema({"a": {"type": "object", "default": {"b": [1]}}})
    first = apply_defaults(schema, {"spec": {}})
    first["spec"]["a"]["b"].append(2)
    assert apply_defaults(schema, {"spec": {}}) == {"spec": {"a": {"b": [1]}}}
    assert schema["properties"]["spec"]["properties"]["a"]["default"] == {"b": [1]}


@pytest.mark.parametrize("obj", [None, 1, "x", [], [None], {"spec": None}, {"spec": [{}]}, {1: 2}])
def test_never_raises_whatever_the_shapes(obj):
    schema = spec_schema({"a": {"default": 1}}, additionalProperties={"default": 2})
    apply_defaults(schema, obj)


@pytest.mark.parametrize("schema", [None, [], {"properties": []}, {"properties": {"a": 1}}, {"items": [{}]},
                                    {"additionalProperties": 3}])
def test_a_malformed_schema_never_raises(schema):
    assert apply_defaults(schema, {"a": [None]}) == {"a": [None]}


def test_a_value_nested_deeper_than_recursion_allows_is_still_copied():
    deep: Any = [{"a": 1}]
    for _ in range(5000):
        deep = [deep]
    obj = {"spec": {"l": deep}}
    result = apply_defaults(spec_schema({"l": {"type": "array"}, "d": {"default": 1}}), obj)
    assert result["spec"]["d"] == 1 and "d" not in obj["spec"]
    assert result["spec"]["l"] is not deep and result["spec"]["l"][0] is not deep[0]
