"""CustomResourceDefinitions: their description, their defaults and upstream's validation with its messages."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from clusterviz.api import schema
from clusterviz.api.defaulting import apply_defaults
from clusterviz.api.schema.model import DEFINITIONS, Type
from clusterviz.api.schema.unknown import unknown_fields
from clusterviz.api.validation import FieldError, validate
from clusterviz.api.validation.crd import validate_custom_resource_definition_status

KIND = "CustomResourceDefinition"
DNS1035 = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
           "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
           "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
ROOT = "spec.validation.openAPIV3Schema"


def crontab() -> dict[str, Any]:
    """The CronTab definition of the Kubernetes docs."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": KIND,
        "metadata": {"name": "crontabs.stable.example.com"},
        "spec": {
            "group": "stable.example.com",
            "versions": [{
                "name": "v1", "served": True, "storage": True,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {
                    "cronSpec": {"type": "string"}, "image": {"type": "string"}, "replicas": {"type": "integer"},
                }}}}},
            }],
            "scope": "Namespaced",
            "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab", "shortNames": ["ct"]},
        },
    }


def messages(obj: Any, old: Any = None) -> list[str]:
    return [str(e) for e in validate(KIND, obj, old)]


def spec_schema(crd: dict[str, Any]) -> dict[str, Any]:
    return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]


def cron_props(crd: dict[str, Any]) -> dict[str, Any]:
    return spec_schema(crd)["properties"]["spec"]["properties"]


# --- valid definitions ------------------------------------------------------------------------


def test_the_docs_crontab_definition_is_valid():
    assert messages(crontab()) == []


def test_defaulting_fills_in_singular_list_kind_conversion_and_the_stored_version():
    crd = crontab()
    del crd["spec"]["names"]["singular"]
    defaulted = apply_defaults(KIND, crd)
    assert defaulted["spec"]["names"]["singular"] == "crontab"
    assert defaulted["spec"]["names"]["listKind"] == "CronTabList"
    assert defaulted["spec"]["conversion"] == {"strategy": "None"}
    assert defaulted["status"]["storedVersions"] == ["v1"]
    assert "status" not in crd and "listKind" not in crd["spec"]["names"]


def test_defaulting_keeps_what_was_given_and_defaults_the_webhook_port():
    crd = crontab()
    crd["spec"]["names"].update(singular="tab", listKind="Tabs")
    crd["spec"]["conversion"] = {"strategy": "Webhook", "webhook": {
        "conversionReviewVersions": ["v1"], "clientConfig": {"service": {"namespace": "ns", "name": "conv"}}}}
    crd["status"] = {"storedVersions": ["v1beta1", "v1"]}
    defaulted = apply_defaults(KIND, crd)
    assert defaulted["spec"]["names"]["singular"] == "tab" and defaulted["spec"]["names"]["listKind"] == "Tabs"
    assert defaulted["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["port"] == 443
    assert defaulted["status"]["storedVersions"] == ["v1beta1", "v1"]


def test_the_crontab_definition_has_no_unknown_fields_after_defaulting():
    description = schema.for_kind("apiextensions.k8s.io", "v1", KIND)
    crd = crontab()
    crd["spec"]["versions"][0].update(
        subresources={"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                              "statusReplicasPath": ".status.replicas"}},
        additionalPrinterColumns=[{"name": "Spec", "type": "string", "jsonPath": ".spec.cronSpec"}],
    )
    spec_schema(crd)["x-kubernetes-validations"] = [{"rule": "self.spec.replicas >= 0"}]
    cron_props(crd)["image"]["x-kubernetes-anything"] = True
    assert unknown_fields(description, apply_defaults(KIND, crd)) == []
    assert not description.open


def test_the_description_finds_misspelt_fields_outside_the_schema():
    crd = crontab()
    crd["spec"]["scop"] = "Namespaced"
    crd["spec"]["versions"][0]["servd"] = True
    found = unknown_fields(schema.for_kind("apiextensions.k8s.io", "v1", KIND), crd)
    assert found == ["spec.versions[0].servd", "spec.scop"]


@pytest.mark.parametrize("change", [
    lambda c: spec_schema(c)["properties"].update(metadata={"type": "object", "properties": {"name": {
        "type": "string", "maxLength": 20}}}),
    lambda c: cron_props(c).update(port={"x-kubernetes-int-or-string": True}),
    lambda c: cron_props(c).update(extra={"type": "object", "x-kubernetes-preserve-unknown-fields": True}),
    lambda c: cron_props(c).update(port={"x-kubernetes-int-or-string": True,
                                         "anyOf": [{"type": "integer"}, {"type": "string"}]}),
    lambda c: cron_props(c).update(labels={"type": "object", "additionalProperties": {"type": "string"}}),
    lambda c: cron_props(c)["replicas"].update(default=1),
    lambda c: cron_props(c).update(items={"type": "array", "x-kubernetes-list-type": "map",
                                          "x-kubernetes-list-map-keys": ["name"], "items": {
                                              "type": "object", "required": ["name"],
                                              "properties": {"name": {"type": "string"}}}}),
    lambda c: c["spec"].update(conversion={"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
                               "clientConfig": {"url": "https://conv.example.com/convert"}}}),
    lambda c: c["metadata"].update(annotations={"api-approved.kubernetes.io": "https://github.com/kubernetes/pr/1"}),
], ids=["metadata-name-only", "int-or-string", "preserve-unknown", "int-or-string-any-of", "map",
        "pruned-default", "map-list", "webhook-url", "approved-protected-group"])
def test_these_definitions_are_valid(change: Callable[[dict[str, Any]], None]):
    crd = crontab()
    change(crd)
    if crd["metadata"].get("annotations"):
        crd["spec"]["group"] = "stable.k8s.io"
        crd["metadata"]["name"] = "crontabs.stable.k8s.io"
    assert messages(crd) == []


# --- each rule refused with upstream's message -----------------------------------------------------


def _versions(c: dict[str, Any], *names: str, storage: str = "v1") -> None:
    base = c["spec"]["versions"][0]
    c["spec"]["versions"] = [{**copy.deepcopy(base), "name": n, "storage": n == storage} for n in names]


def _root(**keys: Any) -> Callable[[dict[str, Any]], None]:
    return lambda c: spec_schema(c).update(keys)


def _prop(**keys: Any) -> Callable[[dict[str, Any]], None]:
    return lambda c: cron_props(c).update(keys)


REFUSED: list[tuple[str, Callable[[dict[str, Any]], Any], str]] = [
    ("name", lambda c: c["metadata"].update(name="crontab.stable.example.com"),
     'metadata.name: Invalid value: "crontab.stable.example.com": must be spec.names.plural+"."+spec.group'),
    ("group-one-label", lambda c: c["spec"].update(group="example") or c["metadata"].update(name="crontabs.example"),
     'spec.group: Invalid value: "example": should be a domain with at least one dot'),
    ("group-missing", lambda c: c["spec"].pop("group"), "spec.group: Required value"),
    ("group-not-dns", lambda c: c["spec"].update(group="Stable.example.com"),
     'spec.group: Invalid value: "Stable.example.com": a lowercase RFC 1123 subdomain must consist of lower case '
     "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
     "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
    ("scope", lambda c: c["spec"].update(scope="Global"),
     'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'),
    ("scope-missing", lambda c: c["spec"].pop("scope"), "spec.scope: Required value"),
    ("no-storage", lambda c: c["spec"]["versions"][0].update(storage=False),
     "must have exactly one version marked as storage version"),
    ("no-versions", lambda c: c["spec"].update(versions=[]),
     "spec.versions: Invalid value: []: must have exactly one version marked as storage version"),
    ("two-storage", lambda c: _versions(c, "v1", "v2") or c["spec"]["versions"][1].update(storage=True),
     "must have exactly one version marked as storage version"),
    ("duplicate-versions", lambda c: _versions(c, "v1", "v1"), "must contain unique version names"),
    ("version-name", lambda c: c["spec"]["versions"][0].update(name="V1"),
     f'spec.versions[0].name: Invalid value: "V1": {DNS1035}'),
    ("no-schema", lambda c: c["spec"]["versions"][0].pop("schema"),
     "spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required"),
    ("root-type", lambda c: spec_schema(c).pop("type"), f"{ROOT}.type: Required value: must not be empty at the root"),
    ("root-not-object", _root(type="string"), f'{ROOT}.type: Invalid value: "string": must be object at the root'),
    ("field-type", _prop(cronSpec={}),
     f"{ROOT}.properties[spec].properties[cronSpec].type: Required value: must not be empty for specified object "
     "fields"),
    ("array-items", _prop(tags={"type": "array"}), f"{ROOT}.properties[spec].properties[tags].items: Required value: "
                                                   "must be specified"),
    ("item-type", _prop(tags={"type": "array", "items": {}}),
     f"{ROOT}.properties[spec].properties[tags].items.type: Required value: must not be empty for specified array "
     "items"),
    ("unknown-type", _prop(cronSpec={"type": "text"}),
     f'{ROOT}.properties[spec].properties[cronSpec].type: Unsupported value: "text": supported values: "array", '
     '"boolean", "integer", "number", "object", "string"'),
    ("additional-and-properties", lambda c: spec_schema(c)["properties"]["spec"].update(
        additionalProperties={"type": "string"}),
     f"{ROOT}.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual "
     "exclusive"),
    ("additional-at-root", _root(properties={}, additionalProperties={"type": "string"}),
     f"{ROOT}.additionalProperties: Forbidden: must not be used at the root"),
    ("metadata-restricted", lambda c: spec_schema(c)["properties"].update(metadata={"type": "object", "properties": {
        "labels": {"type": "object", "additionalProperties": {"type": "string"}}}}),
     f"{ROOT}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but "
     "metadata is implicitly specified"),
    ("metadata-default", lambda c: spec_schema(c)["properties"].update(metadata={"type": "object", "default": {}}),
     f"{ROOT}.properties[metadata].default: Forbidden: must not be set in top-level metadata"),
    ("default-unpruned", lambda c: spec_schema(c)["properties"]["spec"].update(default={"cronSpec": "* * * * *",
                                                                                        "color": "red"}),
     f'{ROOT}.properties[spec].default: Invalid value: {{"color":"red","cronSpec":"* * * * *"}}: must not have '
     "unknown fields"),
    ("default-wrong-type", lambda c: cron_props(c)["replicas"].update(default="three"),
     f'{ROOT}.properties[spec].properties[replicas].default: Invalid value: "string":  in body must be of type '
     'integer: "string"'),
    ("default-invalid-field", lambda c: spec_schema(c)["properties"]["spec"].update(default={"replicas": "x"}),
     f'{ROOT}.properties[spec].default.replicas: Invalid value: "string": replicas in body must be of type integer: '
     '"string"'),
    ("default-with-preserve", lambda c: cron_props(c)["replicas"].update(default=1) or c["spec"].update(
        preserveUnknownFields=True),
     "spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema"),
    ("preserve-true", lambda c: c["spec"].update(preserveUnknownFields=True),
     "spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields "
     "to true in spec.versions[*].schema instead"),
    ("preserve-false", _prop(extra={"type": "object", "x-kubernetes-preserve-unknown-fields": False}),
     f"{ROOT}.properties[spec].properties[extra].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be "
     "true or undefined"),
    ("ref", _prop(image={"type": "string", "$ref": "#/definitions/Image"}),
     f"{ROOT}.properties[spec].properties[image].$ref: Forbidden: $ref is not supported"),
    ("unique-items", _prop(tags={"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
     f"{ROOT}.properties[spec].properties[tags].uniqueItems: Forbidden: uniqueItems cannot be set to true since the "
     "runtime complexity becomes quadratic"),
    ("type-in-any-of", _prop(size={"type": "string", "anyOf": [{"type": "string", "maxLength": 3}]}),
     f"{ROOT}.properties[spec].properties[size].anyOf[0].type: Forbidden: must be empty to be structural"),
    ("incomplete", _root(anyOf=[{"required": ["spec"]}, {"properties": {"status": {"required": ["a"]}}}]),
     f"{ROOT}.properties[status]: Required value: because it is defined in {ROOT}.anyOf[1].properties[status]"),
    ("nullable-root", _root(nullable=True), f"{ROOT}.nullable: Forbidden: nullable cannot be true at the root"),
    ("list-map-no-keys", _prop(items={"type": "array", "x-kubernetes-list-type": "map", "items": {
        "type": "object", "properties": {"name": {"type": "string"}}}}),
     f"{ROOT}.properties[spec].properties[items].x-kubernetes-list-map-keys: Required value: must not be empty if "
     "x-kubernetes-list-type is map"),
    ("list-map-key-optional", _prop(items={"type": "array", "x-kubernetes-list-type": "map",
                                           "x-kubernetes-list-map-keys": ["name"], "items": {
                                               "type": "object", "properties": {"name": {"type": "string"}}}}),
     f"{ROOT}.properties[spec].properties[items].items.properties[name].default: Required value: this property is in "
     "x-kubernetes-list-map-keys, so it must have a default or be a required property"),
    ("list-type-not-array", _prop(image={"type": "string", "x-kubernetes-list-type": "set"}),
     f'{ROOT}.properties[spec].properties[image].type: Invalid value: "string": must be array if '
     "x-kubernetes-list-type is specified"),
    ("rule-empty", _root(**{"x-kubernetes-validations": [{"rule": " "}]}),
     f"{ROOT}.x-kubernetes-validations[0].rule: Required value: rule is not specified"),
    ("rule-reason", _root(**{"x-kubernetes-validations": [{"rule": "true", "reason": "Bad"}]}),
     f'{ROOT}.x-kubernetes-validations[0].reason: Unsupported value: "Bad": supported values: "FieldValueDuplicate", '
     '"FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"'),
    ("status-root", lambda c: c["spec"]["versions"][0].update(subresources={"status": {}}) or spec_schema(c).update(
        maxProperties=3),
     f"{ROOT}: Invalid value: "),
    ("per-version-schema", lambda c: _versions(c, "v1", "v2") or c["spec"]["versions"][1]["schema"][
        "openAPIV3Schema"].pop("type"),
     "spec.versions[1].schema.openAPIV3Schema.type: Required value: must not be empty at the root"),
    ("plural", lambda c: c["spec"]["names"].update(plural="CronTabs") or c["metadata"].update(
        name="CronTabs.stable.example.com"), f'spec.names.plural: Invalid value: "CronTabs": {DNS1035}'),
    ("kind", lambda c: c["spec"]["names"].update(kind="Cron_Tab"),
     f'spec.names.kind: Invalid value: "Cron_Tab": may have mixed case, but should otherwise match: {DNS1035}'),
    ("kind-is-list-kind", lambda c: c["spec"]["names"].update(listKind="CronTab"),
     'spec.names.listKind: Invalid value: "CronTab": kind and listKind may not be the same'),
    ("kind-missing", lambda c: c["spec"]["names"].pop("kind"), "spec.names.kind: Required value"),
    ("short-name", lambda c: c["spec"]["names"].update(shortNames=["c t"]),
     f'spec.names.shortNames[0]: Invalid value: "c t": {DNS1035}'),
    ("column-type", lambda c: c["spec"]["versions"][0].update(additionalPrinterColumns=[
        {"name": "Spec", "type": "float", "jsonPath": ".spec.cronSpec"}]),
     'spec.additionalPrinterColumns[0].type: Invalid value: "float": must be one of boolean,date,integer,number,string'),
    ("column-json-path", lambda c: c["spec"]["versions"][0].update(additionalPrinterColumns=[
        {"name": "Spec", "type": "string"}]), "spec.additionalPrinterColumns[0].JSONPath: Required value"),
    ("column-simple-path", lambda c: c["spec"]["versions"][0].update(additionalPrinterColumns=[
        {"name": "Spec", "type": "string", "jsonPath": "spec.cronSpec"}]),
     'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.cronSpec": must be a simple json path starting '
     "with ."),
    ("column-name", lambda c: c["spec"]["versions"][0].update(additionalPrinterColumns=[
        {"type": "string", "jsonPath": ".spec.image"}]), "spec.additionalPrinterColumns[0].name: Required value"),
    ("scale-spec-path", lambda c: c["spec"]["versions"][0].update(subresources={"scale": {
        "specReplicasPath": ".status.replicas", "statusReplicasPath": ".status.replicas"}}),
     'spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec'),
    ("scale-status-path", lambda c: c["spec"]["versions"][0].update(subresources={"scale": {
        "specReplicasPath": ".spec.replicas"}}), "spec.subresources.scale.statusReplicasPath: Required value"),
    ("scale-selector-path", lambda c: c["spec"]["versions"][0].update(subresources={"scale": {
        "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas",
        "labelSelectorPath": ".metadata.labels"}}),
     'spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under '
     "either .spec or .status"),
    ("webhook-config", lambda c: c["spec"].update(conversion={"strategy": "Webhook"}),
     "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook"),
    ("webhook-review-versions", lambda c: c["spec"].update(conversion={"strategy": "Webhook"}),
     "spec.conversion.conversionReviewVersions: Required value"),
    ("webhook-url", lambda c: c["spec"].update(conversion={"strategy": "Webhook", "webhook": {
        "conversionReviewVersions": ["v1"], "clientConfig": {"url": "http://conv.example.com"}}}),
     "spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; "
     "desired format: https://host[/path]"),
    ("strategy", lambda c: c["spec"].update(conversion={"strategy": "Magic"}),
     'spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"'),
    ("protected-group", lambda c: c["spec"].update(group="stable.k8s.io") or c["metadata"].update(
        name="crontabs.stable.k8s.io"),
     'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval '
     'annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111'),
    ("deprecation-warning", lambda c: c["spec"]["versions"][0].update(deprecationWarning="old"),
     'spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions'),
    ("selectable-metadata", lambda c: spec_schema(c)["properties"].update(metadata={"type": "object", "properties": {
        "name": {"type": "string"}}}) or c["spec"]["versions"][0].update(selectableFields=[
            {"jsonPath": ".metadata.name"}]),
     'spec.selectableFields[0].jsonPath: Invalid value: ".metadata.name": must not point to fields in metadata'),
    ("selectable-unknown", lambda c: c["spec"]["versions"][0].update(selectableFields=[{"jsonPath": ".spec.color"}]),
     'spec.selectableFields[0].jsonPath: Invalid value: ".spec.color": is an invalid path: does not refer to a valid '
     "field"),
    ("selectable-object", lambda c: c["spec"]["versions"][0].update(selectableFields=[{"jsonPath": ".spec"}]),
     'spec.selectableFields[0].jsonPath: Invalid value: ".spec": must point to a field of type string, boolean or '
     "integer. Enum string fields and strings with formats are allowed."),
    ("selectable-twice", lambda c: c["spec"]["versions"][0].update(selectableFields=[
        {"jsonPath": ".spec.image"}, {"jsonPath": ".spec.image"}]),
     'spec.selectableFields[1].jsonPath: Duplicate value: ".spec.image"'),
]


@pytest.mark.parametrize(("change", "expected"), [(c, e) for _, c, e in REFUSED], ids=[n for n, _, _ in REFUSED])
def test_each_rule_is_refused_with_upstreams_message(change: Callable[[dict[str, Any]], Any], expected: str):
    crd = crontab()
    change(crd)
    found = messages(crd)
    assert any(m == expected or (expected.endswith(": ") and m.startswith(expected))
               or (not expected.startswith(("spec", "metadata", "status")) and m.endswith(expected))
               for m in found), found


def test_the_root_of_a_schema_with_status_may_only_have_certain_fields():
    crd = crontab()
    crd["spec"]["versions"][0]["subresources"] = {"status": {}}
    spec_schema(crd)["maxProperties"] = 3
    found = messages(crd)
    assert len(found) == 1 and found[0].endswith(
        "only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength "
        "Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example "
        "XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource "
        "is enabled")


def test_a_bad_first_version_name_is_also_reported_as_spec_version():
    crd = crontab()
    crd["spec"]["versions"][0]["name"] = "V1"
    assert f'spec.version: Invalid value: "V1": {DNS1035}' in messages(crd)


def test_structural_errors_are_sorted_by_their_text():
    crd = crontab()
    cron_props(crd).update(b={}, a={})
    found = [m for m in messages(crd) if "must not be empty" in m]
    assert found == sorted(found) and len(found) == 2


# --- updates ---------------------------------------------------------------------------------


def established(crd: dict[str, Any]) -> dict[str, Any]:
    crd = apply_defaults(KIND, crd)
    crd["status"]["conditions"] = [{"type": "Established", "status": "True"}]
    return crd


def test_scope_and_kind_are_immutable_once_established():
    old = established(crontab())
    new = copy.deepcopy(old)
    new["spec"]["scope"] = "Cluster"
    new["spec"]["names"]["kind"] = "Tab"
    assert messages(new, old) == [
        'spec.scope: Invalid value: "Cluster": field is immutable',
        'spec.names.kind: Invalid value: "Tab": field is immutable',
    ]


def test_scope_may_change_before_the_definition_is_established():
    old = apply_defaults(KIND, crontab())
    new = copy.deepcopy(old)
    new["spec"]["scope"] = "Cluster"
    assert messages(new, old) == []


def test_group_and_plural_never_change():
    old = established(crontab())
    new = copy.deepcopy(old)
    new["spec"]["group"] = "other.example.com"
    assert 'spec.group: Invalid value: "other.example.com": field is immutable' in messages(new, old)


def test_a_stored_version_may_not_leave_spec_versions():
    old = established(crontab())
    old["status"]["storedVersions"] = ["v1beta1", "v1"]
    new = copy.deepcopy(old)
    assert messages(new, old) == [
        'status.storedVersions[0]: Invalid value: "v1beta1": missing from spec.versions; v1beta1 was previously a '
        "storage version, and must remain in spec.versions until a storage migration ensures no data remains "
        "persisted in v1beta1 and removes v1beta1 from status.storedVersions",
    ]


def test_the_storage_version_must_be_stored():
    old = established(crontab())
    new = copy.deepcopy(old)
    new["status"]["storedVersions"] = ["v0"]
    new["spec"]["versions"].append({**new["spec"]["versions"][0], "name": "v0", "storage": False})
    assert 'status.storedVersions: Invalid value: ["v0"]: must have the storage version v1' in messages(new, old)


def test_an_update_keeps_an_invalid_type_the_stored_definition_already_had():
    old = established(crontab())
    cron_props(old)["cronSpec"]["type"] = "text"
    new = copy.deepcopy(old)
    new["spec"]["versions"][0]["served"] = False
    assert messages(new, old) == []
    assert len(messages(new)) == 1


def test_a_status_write_judges_only_the_accepted_names():
    old = established(crontab())
    old["status"]["storedVersions"] = ["v1beta1", "v1"]
    new = copy.deepcopy(old)
    new["status"]["storedVersions"] = []
    assert validate_custom_resource_definition_status(new, old) == []
    new["status"]["acceptedNames"] = {"plural": "Cron Tabs", "kind": "CronTab"}
    assert [str(e) for e in validate_custom_resource_definition_status(new, old)] == [
        f'status.acceptedNames.plural: Invalid value: "Cron Tabs": {DNS1035}']


# --- nasty shapes ---------------------------------------------------------------------------------


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*path, i))


def _replaced(obj: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    target: Any = out
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return out


NASTY_VALUES = [[], [1, "a"], {}, {"a": 1}, 3, 2.5, "x", True, None]


@pytest.mark.parametrize("value", NASTY_VALUES, ids=repr)
def test_every_field_replaced_by_a_nasty_value_gives_errors_never_exceptions(value: Any):
    crd = crontab()
    crd["spec"]["versions"][0]["subresources"] = {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                                          "statusReplicasPath": ".status.replicas"}}
    crd["spec"]["versions"][0]["additionalPrinterColumns"] = [{"name": "S", "type": "string", "jsonPath": ".spec.a"}]
    crd["spec"]["conversion"] = {"strategy": "Webhook", "webhook": {
        "conversionReviewVersions": ["v1"], "clientConfig": {"service": {"namespace": "n", "name": "s", "path": "/c"}}}}
    for path in list(_paths(crd))[1:]:
        changed = _replaced(crd, path, value)
        found = validate(KIND, changed, crd) + validate(KIND, crd, changed)
        assert all(isinstance(e, FieldError) for e in found)
        apply_defaults(KIND, changed)


@pytest.mark.parametrize("obj", [
    {}, {"spec": []}, {"spec": None}, {"spec": {"versions": {"v1": {}}}}, {"spec": {"names": "crontabs"}},
    {"spec": {"versions": [None, 1, "v1", {"schema": []}, {"schema": {"openAPIV3Schema": []}}]}},
    {"spec": {"versions": [{"schema": {"openAPIV3Schema": {"properties": [], "items": 3, "anyOf": {}, "type": 5,
                                                           "x-kubernetes-validations": "x", "required": "a"}}}]}},
    {"spec": {"conversion": [], "preserveUnknownFields": "yes", "scope": 1}, "status": []},
    {"metadata": [], "spec": {"group": {}, "names": {"plural": 1, "kind": []}}},
])
def test_nasty_shapes_give_errors_never_exceptions(obj: dict[str, Any]):
    found = messages(obj)
    assert found and all(": " in m for m in found)
    assert messages(obj, crontab()) and messages(crontab(), obj) is not None


def controller_gen_style() -> dict[str, Any]:
    """A definition written the way controller-gen writes them: descriptions, status and scale, extensions."""
    string = {"type": "string"}
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": KIND,
        "metadata": {"name": "widgets.apps.example.com", "annotations": {"controller-gen.kubebuilder.io/version": "v0.16"}},
        "spec": {
            "group": "apps.example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList",
                      "categories": ["all"]},
            "versions": [{
                "name": "v1alpha1", "served": True, "storage": True, "deprecated": True,
                "deprecationWarning": "apps.example.com/v1alpha1 Widget is deprecated",
                "additionalPrinterColumns": [
                    {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
                    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp", "priority": 1},
                ],
                "selectableFields": [{"jsonPath": ".spec.color"}],
                "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                         "statusReplicasPath": ".status.replicas",
                                                         "labelSelectorPath": ".status.selector"}},
                "schema": {"openAPIV3Schema": {
                    "description": "Widget is the Schema for the widgets API.", "type": "object",
                    "properties": {
                        "apiVersion": {"description": "APIVersion defines the versioned schema.", **string},
                        "kind": {"description": "Kind is a string value.", **string},
                        "metadata": {"type": "object"},
                        "spec": {"type": "object", "required": ["color"], "properties": {
                            "color": {"type": "string", "enum": ["red", "blue"]},
                            "replicas": {"type": "integer", "format": "int32", "default": 1, "minimum": 0},
                            "port": {"anyOf": [{"type": "integer"}, {"type": "string"}],
                                     "x-kubernetes-int-or-string": True},
                            "selector": {"type": "object", "x-kubernetes-map-type": "atomic", "properties": {
                                "matchLabels": {"type": "object", "additionalProperties": string}}},
                            "ports": {"type": "array", "x-kubernetes-list-type": "map",
                                      "x-kubernetes-list-map-keys": ["containerPort", "protocol"], "items": {
                                          "type": "object", "required": ["containerPort"], "properties": {
                                              "containerPort": {"type": "integer"},
                                              "protocol": {"type": "string", "default": "TCP"}}}},
                            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": string},
                            "template": {"type": "object", "x-kubernetes-embedded-resource": True,
                                         "x-kubernetes-preserve-unknown-fields": True},
                            "config": {"type": "object", "default": {"mode": "fast"},
                                       "properties": {"mode": string}},
                        }, "x-kubernetes-validations": [{"rule": "self.replicas <= 10", "message": "at most 10"}]},
                        "status": {"type": "object", "properties": {
                            "replicas": {"type": "integer"}, "selector": string,
                            "conditions": {"type": "array", "items": {"type": "object", "required": ["type"],
                                                                      "properties": {"type": string}}}}},
                    },
                }},
            }],
        },
    }


def test_a_controller_gen_style_definition_is_valid_and_fully_known():
    crd = controller_gen_style()
    assert messages(crd) == []
    description = schema.for_kind("apiextensions.k8s.io", "v1", KIND)
    assert unknown_fields(description, apply_defaults(KIND, crd)) == []


def test_every_definition_the_description_names_is_described():
    def refs(t: Type) -> list[str]:
        return [t.ref] if t.kind == "ref" else refs(t.item) if t.item is not None else []

    todo, seen = [schema.for_kind("apiextensions.k8s.io", "v1", KIND).name], set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            assert name in DEFINITIONS, name
            todo.extend(r for f in DEFINITIONS[name].fields.values() for r in refs(f.type))
    assert {n.rsplit(".", 1)[1] for n in seen} >= {"JSONSchemaProps", "CustomResourceColumnDefinition",
                                                     "CustomResourceSubresourceScale", "WebhookClientConfig"}
