"""Custom resources judged against their openAPIV3Schema, with kube-openapi's paths and messages as kubectl prints them."""

from __future__ import annotations

from typing import Any

import pytest

from clusterviz.api.structural import validate


def spec_schema(props: dict[str, Any], **spec: Any) -> dict[str, Any]:
    """A root schema whose spec has the given properties (and other spec keywords)."""
    return {
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": props, **spec},
        },
    }


CRON = r"^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$"

CASES = [
    # (id, spec properties, spec keywords, spec value, expected errors)
    ("type", {"replicas": {"type": "integer"}}, {}, {"replicas": "string"},
     ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"']),
    ("required", {"cronSpec": {"type": "string"}}, {"required": ["cronSpec"]}, {},
     ["spec.cronSpec: Required value"]),
    ("maximum", {"replicas": {"type": "integer", "maximum": 10}}, {}, {"replicas": 11},
     ["spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10"]),
    ("maximum reached", {"replicas": {"type": "integer", "maximum": 10}}, {}, {"replicas": 10}, []),
    ("exclusive maximum", {"replicas": {"type": "integer", "maximum": 10, "exclusiveMaximum": True}}, {},
     {"replicas": 10}, ["spec.replicas: Invalid value: 10: spec.replicas in body should be less than 10"]),
    ("minimum", {"replicas": {"type": "integer", "minimum": 0}}, {}, {"replicas": -1},
     ["spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0"]),
    ("exclusive minimum", {"replicas": {"type": "integer", "minimum": 0, "exclusiveMinimum": True}}, {},
     {"replicas": 0}, ["spec.replicas: Invalid value: 0: spec.replicas in body should be greater than 0"]),
    ("float bound for a float", {"x": {"type": "number", "maximum": 10.25}}, {}, {"x": 10.5},
     ["spec.x: Invalid value: 10.5: spec.x in body should be less than or equal to 10.25"]),
    ("float bound truncated for an integer", {"x": {"type": "integer", "maximum": 10.5}}, {}, {"x": 11},
     ["spec.x: Invalid value: 11: spec.x in body should be less than or equal to 10"]),
    ("float bound printed as Go does", {"x": {"type": "number", "maximum": 1e6}}, {}, {"x": 2e6},
     ["spec.x: Invalid value: 2000000.0: spec.x in body should be less than or equal to 1e+06"]),
    ("multipleOf", {"x": {"type": "integer", "multipleOf": 3}}, {}, {"x": 7},
     ["spec.x: Invalid value: 7: spec.x in body should be a multiple of 3"]),
    ("multipleOf met", {"x": {"type": "integer", "multipleOf": 3}}, {}, {"x": 9}, []),
    ("multipleOf float within tolerance", {"x": {"type": "number", "multipleOf": 0.01}}, {}, {"x": 0.07}, []),
    ("multipleOf float, negative: only exact quotients pass, as in Go", {"x": {"type": "number", "multipleOf": 0.01}},
     {}, {"x": -0.07}, ["spec.x: Invalid value: -0.07: spec.x in body should be a multiple of 0.01"]),
    ("multipleOf float", {"x": {"type": "number", "multipleOf": 0.1}}, {}, {"x": 0.35},
     ["spec.x: Invalid value: 0.35: spec.x in body should be a multiple of 0.1"]),
    ("enum", {"mode": {"type": "string", "enum": ["slow", "medium"]}}, {}, {"mode": "fast"},
     ['spec.mode: Unsupported value: "fast": supported values: "slow", "medium"']),
    ("enum of numbers", {"x": {"type": "integer", "enum": [1, 2]}}, {}, {"x": 3},
     ['spec.x: Unsupported value: 3: supported values: "1", "2"']),
    ("enum matches 1.0 for 1", {"x": {"type": "number", "enum": [1, 2]}}, {}, {"x": 1.0}, []),
    ("enum does not take true for 1", {"x": {"enum": [1]}}, {}, {"x": True},
     ['spec.x: Unsupported value: true: supported values: "1"']),
    ("minLength", {"name": {"type": "string", "minLength": 3}}, {}, {"name": "ab"},
     ['spec.name: Invalid value: "ab": spec.name in body should be at least 3 chars long']),
    ("maxLength", {"name": {"type": "string", "maxLength": 3}}, {}, {"name": "abcd"},
     ["spec.name: Too long: may not be more than 3 bytes"]),
    ("maxLength counts characters", {"name": {"type": "string", "maxLength": 3}}, {}, {"name": "äöü"}, []),
    ("pattern", {"cronSpec": {"type": "string", "pattern": CRON}}, {}, {"cronSpec": "x"},
     [f'spec.cronSpec: Invalid value: "x": spec.cronSpec in body should match \'{CRON}\'']),
    ("pattern met", {"cronSpec": {"type": "string", "pattern": CRON}}, {}, {"cronSpec": "*/5 * * * *"}, []),
    ("pattern digits are ASCII", {"n": {"type": "string", "pattern": r"^\d+$"}}, {}, {"n": "١٢"},
     ['spec.n: Invalid value: "١٢": spec.n in body should match \'^\\d+$\'']),
    ("minItems", {"list": {"type": "array", "minItems": 1}}, {}, {"list": []},
     ["spec.list: Invalid value: 0: spec.list in body should have at least 1 items"]),
    ("maxItems", {"list": {"type": "array", "maxItems": 2}}, {}, {"list": [1, 2, 3]},
     ["spec.list: Too many: 3: must have at most 2 items"]),
    ("maxItems of one", {"list": {"type": "array", "maxItems": 1}}, {}, {"list": [1, 2]},
     ["spec.list: Too many: 2: must have at most 1 item"]),
    ("uniqueItems", {"list": {"type": "array", "uniqueItems": True}}, {}, {"list": [{"a": 1}, {"a": 1}]},
     ['spec.list: Invalid value: "": spec.list in body shouldn\'t contain duplicates']),
    ("uniqueItems tells 1 from 1.0 and true", {"list": {"type": "array", "uniqueItems": True}}, {},
     {"list": [1, 1.0, True]}, []),
    ("minProperties", {"m": {"type": "object", "minProperties": 2}}, {}, {"m": {"a": 1}},
     ["spec.m: Invalid value: 1: spec.m in body should have at least 2 properties"]),
    ("maxProperties", {"m": {"type": "object", "maxProperties": 1}}, {}, {"m": {"a": 1, "b": 2}},
     ["spec.m: Too many: 2: must have at most 1 item"]),
    ("maxProperties stops the object's other checks",
     {"m": {"type": "object", "maxProperties": 2, "required": ["z"], "properties": {"a": {"type": "string"}}}}, {},
     {"m": {"a": 1, "b": 2, "c": 3}}, ["spec.m: Too many: 3: must have at most 2 items"]),
    ("format date-time", {"t": {"type": "string", "format": "date-time"}}, {}, {"t": "yesterday"},
     ['spec.t: Invalid value: "yesterday": spec.t in body must be of type date-time: "yesterday"']),
    ("format date-time met", {"t": {"type": "string", "format": "date-time"}}, {}, {"t": "2024-05-01T10:00:00Z"}, []),
    ("format byte", {"b": {"type": "string", "format": "byte"}}, {}, {"b": "not base64!"},
     ['spec.b: Invalid value: "not base64!": spec.b in body must be of type byte: "not base64!"']),
    ("format int32 is not range-checked", {"n": {"type": "integer", "format": "int32"}}, {}, {"n": 2**40}, []),
    ("unsupported format is ignored", {"s": {"type": "string", "format": "zip-code"}}, {}, {"s": "x"}, []),
    ("format on a string-typed schema strips int32", {"s": {"type": "string", "format": "int32"}}, {}, {"s": "x"}, []),
    ("null for a non-nullable field", {"s": {"type": "string"}}, {}, {"s": None},
     ['spec.s: Invalid value: "null": spec.s in body must be of type string: "null"']),
    ("null for a nullable field", {"s": {"type": "string", "nullable": True}}, {}, {"s": None}, []),
    ("1.0 is an integer", {"n": {"type": "integer"}}, {}, {"n": 1.0}, []),
    ("1.5 is not", {"n": {"type": "integer"}}, {}, {"n": 1.5},
     ['spec.n: Invalid value: "number": spec.n in body must be of type integer: "number"']),
    ("an integer is a number", {"n": {"type": "number"}}, {}, {"n": 3}, []),
    ("a bool is no integer", {"n": {"type": "integer", "minimum": 5}}, {}, {"n": True},
     ['spec.n: Invalid value: "boolean": spec.n in body must be of type integer: "boolean"']),
    ("a bool is no number", {"n": {"type": "number"}}, {}, {"n": False},
     ['spec.n: Invalid value: "boolean": spec.n in body must be of type number: "boolean"']),
    ("beyond int64 is a float", {"n": {"type": "integer"}}, {}, {"n": 2**70},
     ['spec.n: Invalid value: "number": spec.n in body must be of type integer: "number"']),
    ("beyond float64 never raises", {"n": {"type": "integer"}}, {}, {"n": 10**400},
     ['spec.n: Invalid value: "number": spec.n in body must be of type integer: "number"']),
    ("a list where an object belongs", {"m": {"type": "object", "required": ["a"]}}, {}, {"m": []},
     ['spec.m: Invalid value: "array": spec.m in body must be of type object: "array"']),
    ("an object where a list belongs", {"l": {"type": "array", "items": {"type": "string"}}}, {}, {"l": {}},
     ['spec.l: Invalid value: "object": spec.l in body must be of type array: "object"']),
    ("items", {"ports": {"type": "array", "items": {"type": "object", "required": ["name"],
                                                     "properties": {"port": {"type": "integer"}}}}}, {},
     {"ports": [{"name": "a", "port": 1}, {"port": "x"}]},
     ['spec.ports[1].port: Invalid value: "string": spec.ports[1].port in body must be of type integer: "string"',
      "spec.ports[1].name: Required value"]),
    ("additionalProperties schema", {"labels": {"type": "object", "additionalProperties": {"type": "string"}}}, {},
     {"labels": {"app": 1, "tier": "web"}},
     ['spec.labels.app: Invalid value: "integer": spec.labels.app in body must be of type string: "integer"']),
    ("additionalProperties false", {"a": {"type": "string"}}, {"additionalProperties": False}, {"a": "x", "foo": 1},
     ['spec: Invalid value: "foo": spec.foo in body is a forbidden property']),
    ("int-or-string", {"port": {"x-kubernetes-int-or-string": True}}, {}, {"port": "http"}, []),
    ("int-or-string refuses a list", {"port": {"x-kubernetes-int-or-string": True}}, {}, {"port": [1]},
     ['spec.port: Invalid value: "array": spec.port in body must be of type integer,string: "array"']),
    ("anyOf", {"port": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]}}, {},
     {"port": True},
     ['spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
      ': Invalid value: "": "spec.port" must validate at least one schema (anyOf)',
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer: "boolean"']),
    ("anyOf met", {"port": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}, {}, {"port": "x"}, []),
    ("oneOf with two matches", {"x": {"oneOf": [{"type": "integer"}, {"minimum": 0}]}}, {}, {"x": 1},
     [': Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found 2 valid alternatives']),
    ("oneOf with none", {"x": {"oneOf": [{"type": "string"}, {"type": "boolean"}]}}, {}, {"x": 1},
     [': Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found none valid',
      'spec.x: Invalid value: "integer": spec.x in body must be of type string: "integer"']),
    ("allOf", {"x": {"allOf": [{"type": "integer"}, {"maximum": 0}]}}, {}, {"x": 1},
     ["spec.x: Invalid value: 1: spec.x in body should be less than or equal to 0",
      ': Invalid value: "": "spec.x" must validate all the schemas (allOf)']),
    ("allOf with none", {"x": {"allOf": [{"type": "string"}, {"maximum": 0}]}}, {}, {"x": 1},
     ['spec.x: Invalid value: "integer": spec.x in body must be of type string: "integer"',
      "spec.x: Invalid value: 1: spec.x in body should be less than or equal to 0",
      ': Invalid value: "": "spec.x" must validate all the schemas (allOf). None validated']),
    ("not", {"x": {"not": {"type": "integer"}}}, {}, {"x": 1},
     [': Invalid value: "": "spec.x" must not validate the schema (not)']),
    ("preserve-unknown-fields takes anything", {"raw": {"x-kubernetes-preserve-unknown-fields": True}}, {},
     {"raw": [{"a": None}, 1, "x"]}, []),
    ("deep nesting", {"a": {"type": "object", "properties": {"b": {"type": "array", "items": {
        "type": "object", "properties": {"c": {"type": "object", "additionalProperties": {
            "type": "array", "items": {"type": "integer", "minimum": 1}}}}}}}}}, {},
     {"a": {"b": [{"c": {"k": [1, 0]}}]}},
     ["spec.a.b[0].c.k[1]: Invalid value: 0: spec.a.b[0].c.k[1] in body should be greater than or equal to 1"]),
]


@pytest.mark.parametrize(("props", "keywords", "spec", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_rule_reports_upstreams_message(props, keywords, spec, expected):
    errors = validate(spec_schema(props, **keywords), {"apiVersion": "example.com/v1", "kind": "Widget", "spec": spec})
    assert [str(e) for e in errors] == expected


def test_a_valid_resource_has_no_errors():
    schema = spec_schema({"replicas": {"type": "integer", "minimum": 1}}, required=["replicas"])
    assert validate(schema, {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"replicas": 2}}) == []


def test_a_required_root_field_is_named_without_the_leading_dot():
    schema = {"type": "object", "required": ["spec"], "properties": {"spec": {"type": "object"}}}
    assert [str(e) for e in validate(schema, {})] == ["spec: Required value"]


def test_a_root_of_the_wrong_type_is_reported_at_the_root():
    errors = validate({"type": "object"}, [])
    assert [(e.reason, e.field, e.detail) for e in errors] == [
        ("FieldValueTypeInvalid", "", ' in body must be of type object: "array"')
    ]


def test_error_reasons_are_the_api_servers():
    schema = spec_schema(
        {"a": {"type": "integer"}, "b": {"enum": ["x"]}, "c": {"type": "string", "maxLength": 1}},
        required=["d"],
    )
    errors = validate(schema, {"spec": {"a": "1", "b": "y", "c": "zz"}})
    assert [(e.field, e.reason) for e in errors] == [
        ("spec.a", "FieldValueTypeInvalid"),
        ("spec.b", "FieldValueNotSupported"),
        ("spec.c", "FieldValueTooLong"),
        ("spec.d", "FieldValueRequired"),
    ]


NASTY_VALUES: list[Any] = [None, True, 0, -1, 2**64, 10**400, 1.5, float("inf"), float("nan"), "", "x" * 300,
                           [], [None], [[[]]], {}, {"": None}, {1: 2}, (1, 2), {"spec": None}, {"spec": []}]

RICH_SCHEMA = spec_schema(
    {
        "i": {"type": "integer", "format": "int32", "minimum": 0, "maximum": 10, "multipleOf": 2, "enum": [0, 2]},
        "n": {"type": "number", "multipleOf": 0.5, "exclusiveMaximum": True, "maximum": 0},
        "s": {"type": "string", "minLength": 1, "maxLength": 3, "pattern": "^a", "format": "uuid"},
        "l": {"type": "array", "minItems": 1, "maxItems": 1, "uniqueItems": True, "items": {"type": "object"}},
        "m": {"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 1},
        "o": {"anyOf": [{"type": "integer"}], "oneOf": [{"type": "string"}], "allOf": [{}], "not": {}},
        "p": {"x-kubernetes-int-or-string": True, "nullable": True},
        "e": {"type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True},
        "t": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"]},
        "u": {"type": "array", "x-kubernetes-list-type": "set"},
    },
    required=["i"],
    additionalProperties=False,
)


@pytest.mark.parametrize("value", NASTY_VALUES, ids=repr)
def test_never_raises_whatever_the_shapes(value):
    for field in ("i", "n", "s", "l", "m", "o", "p", "e", "t", "u", "extra"):
        for spec in ({field: value}, {field: [value, value]}):
            errors = validate(RICH_SCHEMA, {"spec": spec})
            assert all(isinstance(str(e), str) for e in errors)
    embedded = {"apiVersion": value, "kind": value, "metadata": value}
    assert all(isinstance(str(e), str) for e in validate(RICH_SCHEMA, {"spec": {"e": embedded}}))
    assert all(isinstance(str(e), str) for e in validate(RICH_SCHEMA, {"spec": {"e": {"metadata": {"name": value}}}}))
    validate(RICH_SCHEMA, value)


@pytest.mark.parametrize("schema", [None, [], "object", {"type": 3}, {"properties": []}, {"properties": {"a": 1}},
                                    {"items": [{}]}, {"required": "a"}, {"enum": "a"}, {"maximum": "x"},
                                    {"pattern": "("}, {"multipleOf": 0}, {"multipleOf": -1}, {"anyOf": {}}])
def test_a_malformed_schema_never_raises(schema):
    for value in ({"a": 1}, [1], "s", 3, 2.5, None):
        validate(schema, value)


def test_values_nested_deeper_than_recursion_allows_are_compared():
    deep: Any = [{"a": 1}]
    for _ in range(5000):
        deep = [deep]
    unique = spec_schema({"l": {"type": "array", "uniqueItems": True}, "e": {"enum": [[1]]}})
    errors = validate(unique, {"spec": {"l": [deep, deep], "e": deep}})
    assert [(e.field, e.reason) for e in errors] == [("spec.l", "FieldValueInvalid"), ("spec.e", "FieldValueNotSupported")]


SET = {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}
PORTS = {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
         "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}}
ROUTES = {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["host", "port"],
          "items": {"type": "object"}}

LIST_TYPE_CASES = [
    ("set duplicate", {"tags": SET}, {"tags": ["a", "b", "a"]}, ['spec.tags[2]: Duplicate value: "a"']),
    ("set reports each value once, at its second appearance", {"tags": SET}, {"tags": ["a", "a", "a", "b", "b"]},
     ['spec.tags[1]: Duplicate value: "a"', 'spec.tags[4]: Duplicate value: "b"']),
    ("set tells 1 from 1.0 and true", {"l": {"type": "array", "x-kubernetes-list-type": "set"}},
     {"l": [1, 1.0, True]}, []),
    ("set compares objects by their JSON", {"l": {"type": "array", "x-kubernetes-list-type": "set"}},
     {"l": [{"a": 1}, {"a": 1.0}]}, ['spec.l[1]: Duplicate value: {"a":1.0}']),
    ("map duplicate key", {"ports": PORTS}, {"ports": [{"name": "http", "port": 80}, {"name": "http", "port": 81}]},
     ['spec.ports[1]: Duplicate value: {"name":"http"}']),
    ("map missing keys repeat", {"ports": PORTS}, {"ports": [{"port": 80}, {"port": 81}]},
     ["spec.ports[1]: Duplicate value: {}"]),
    ("map with several keys", {"routes": ROUTES},
     {"routes": [{"host": "a", "port": 1}, {"host": "a", "port": 2}, {"host": "a", "port": 1}]},
     ['spec.routes[2]: Duplicate value: {"host":"a","port":1}']),
    ("map of non-objects", {"ports": PORTS}, {"ports": [{"name": "a"}, "b"]},
     ['spec.ports[1]: Invalid value: "b": must be an object for an array of list-type map',
      'spec.ports[1]: Invalid value: "string": spec.ports[1] in body must be of type object: "string"']),
    ("lists inside map values use field.Path keys", {"m": {"type": "object", "additionalProperties": SET}},
     {"m": {"x": ["a", "a"]}}, ['spec.m[x][1]: Duplicate value: "a"']),
    ("lists inside items", {"l": {"type": "array", "items": SET}}, {"l": [["a"], ["b", "b"]]},
     ['spec.l[1][1]: Duplicate value: "b"']),
]


@pytest.mark.parametrize(("props", "spec", "expected"), [c[1:] for c in LIST_TYPE_CASES],
                         ids=[c[0] for c in LIST_TYPE_CASES])
def test_list_types_are_unique_as_promised(props, spec, expected):
    errors = validate(spec_schema(props), {"spec": spec})
    assert sorted(str(e) for e in errors) == sorted(expected)


def test_list_type_errors_come_after_the_schemas():
    schema = spec_schema({"tags": SET, "n": {"type": "integer"}})
    errors = validate(schema, {"spec": {"tags": ["a", "a"], "n": "x"}})
    assert [e.field for e in errors] == ["spec.n", "spec.tags[1]"]


EMBEDDED = {"type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True}

EMBEDDED_CASES = [
    ("apiVersion and kind required", {"t": EMBEDDED}, {"t": {}},
     ["spec.t.apiVersion: Required value", "spec.t.kind: Required value"]),
    ("a well-formed embedded resource", {"t": EMBEDDED},
     {"t": {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"labels": {"app": "x"}}}}, []),
    ("apiVersion with two slashes", {"t": EMBEDDED}, {"t": {"apiVersion": "a/b/c", "kind": "K"}},
     ['spec.t.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c']),
    ("apiVersion not a string, kind empty", {"t": EMBEDDED}, {"t": {"apiVersion": 1, "kind": ""}},
     ["spec.t.apiVersion: Invalid value: 1: must be a string", "spec.t.kind: Required value"]),
    ("kind not a DNS-1035 label", {"t": EMBEDDED}, {"t": {"apiVersion": "v1", "kind": "my_kind"}},
     ['spec.t.kind: Invalid value: "my_kind": may have mixed case, but should otherwise match: a DNS-1035 label '
      "must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with "
      "an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
      "'[a-z]([-a-z0-9]*[a-z0-9])?')"]),
    ("metadata name is a path segment", {"t": EMBEDDED},
     {"t": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a/b"}}},
     ['spec.t.metadata.name: Invalid value: "a/b": may not contain \'/\'']),
    ("metadata not an object", {"t": EMBEDDED}, {"t": {"apiVersion": "v1", "kind": "Pod", "metadata": []}},
     ["spec.t.metadata: Invalid value: []: json: cannot unmarshal array into Go value of type v1.ObjectMeta"]),
    ("in map values, with field.Path keys", {"m": {"type": "object", "additionalProperties": EMBEDDED}},
     {"m": {"web": {"apiVersion": "v1"}}}, ["spec.m[web].kind: Required value"]),
    ("in items", {"l": {"type": "array", "items": EMBEDDED}}, {"l": [{"kind": "Pod"}]},
     ["spec.l[0].apiVersion: Required value"]),
]


@pytest.mark.parametrize(("props", "spec", "expected"), [c[1:] for c in EMBEDDED_CASES],
                         ids=[c[0] for c in EMBEDDED_CASES])
def test_embedded_resources_carry_sound_type_and_object_meta(props, spec, expected):
    assert [str(e) for e in validate(spec_schema(props), {"spec": spec})] == expected


def test_the_root_is_not_checked_as_an_embedded_resource():
    assert validate({"type": "object", "properties": {"spec": {"type": "object"}}}, {"spec": {}}) == []
