"""The OpenAPI v3 schema of a CustomResourceDefinition, as upstream judges it when the definition is written.

Three passes, as upstream's: what the schema language allows
(``ValidateCustomResourceDefinitionOpenAPISchema``), whether the schema is
structural (``ValidateStructural``: a type at every level, nothing new under
``anyOf``/``allOf``/``oneOf``/``not``, metadata restricted to name and
generateName), and whether its defaults are pruned. Each error carries the
requirement it comes from, so an update may keep a flaw the stored definition
already had (upstream never tightens validation of persisted data).

Schemas arrive as decoded JSON of any shape: a key of the wrong type is
reported once (by the first pass) and ignored by the others.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Any, Final

# Modules, not their functions: the engine imports this package's helpers, so either may be imported first.
from clusterviz.api.structural import pruning
from clusterviz.api.structural import validation as engine
from clusterviz.apimachinery.field import FieldError, forbidden, invalid, not_supported, required
from clusterviz.apimachinery.unstructured import deep_copy

from .common import BAD, as_dict, as_list, child, get_bool, get_opt_str, get_str, get_str_list, index, key, type_error

OPENAPI_V3_TYPES: Final = ["array", "boolean", "integer", "number", "object", "string"]
LIST_TYPES: Final = ["atomic", "set", "map"]
MAP_TYPES: Final = ["atomic", "granular"]
VALIDATION_REASONS: Final = ["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"]
META_FIELDS: Final = ("metadata", "kind", "apiVersion")
# The keys a root schema may have when the status subresource is on, by the names upstream's message uses.
ROOT_FIELDS_WITH_STATUS: Final = {
    "description": "Description", "type": "Type", "format": "Format", "title": "Title", "maximum": "Maximum",
    "exclusiveMaximum": "ExclusiveMaximum", "minimum": "Minimum", "exclusiveMinimum": "ExclusiveMinimum",
    "maxLength": "MaxLength", "minLength": "MinLength", "pattern": "Pattern", "maxItems": "MaxItems",
    "minItems": "MinItems", "uniqueItems": "UniqueItems", "multipleOf": "MultipleOf", "required": "Required",
    "items": "Items", "properties": "Properties", "externalDocs": "ExternalDocs", "example": "Example",
    "x-kubernetes-preserve-unknown-fields": "XPreserveUnknownFields", "x-kubernetes-validations": "XValidations",
}
# The order of JSONSchemaProps' fields: the root check stops at the first key that is not allowed.
_FIELD_ORDER: Final = (
    "id", "$schema", "$ref", "description", "type", "format", "title", "default", "maximum", "exclusiveMaximum",
    "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems",
    "multipleOf", "enum", "maxProperties", "minProperties", "required", "items", "allOf", "oneOf", "anyOf", "not",
    "properties", "additionalProperties", "patternProperties", "dependencies", "additionalItems", "definitions",
    "externalDocs", "example", "nullable", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string", "x-kubernetes-list-map-keys", "x-kubernetes-list-type", "x-kubernetes-map-type",
    "x-kubernetes-validations",
)
_ROOT_FIELDS_MSG: Final = (
    "only [" + " ".join(ROOT_FIELDS_WITH_STATUS.values()) + "] fields are allowed at the root of the schema if the "
    "status subresource is enabled"
)
_INT_OR_STRING_ANY_OF: Final = [{"type": "integer"}, {"type": "string"}]
# What the structural form of a schema keeps besides type and default (which metadata may have).
_STRUCTURAL_KEYS: Final = frozenset(_FIELD_ORDER) - {"id", "$schema", "type", "default", "externalDocs", "example"}


class Rule(enum.Enum):
    """The requirement an error comes from; an update keeps those the stored definition already broke."""

    ALWAYS = "always"
    PROPERTY_TYPE = "property type"
    STRUCTURAL = "structural"
    PRUNED_DEFAULTS = "pruned defaults"
    ATOMIC_SET = "atomic set"
    MAP_LIST_KEYS = "map list keys"


Found = list[tuple[Rule, FieldError]]


class _Level(enum.Enum):
    ROOT = "root"
    ITEM = "item"
    FIELD = "field"


@dataclass(frozen=True)
class _Frame:
    """Where the first pass is: whether defaults are allowed here (and why not), and inside resource meta."""

    defaults_forbidden: str | None = None
    inside_meta: bool = False


# --- lenient reads (the first pass has reported wrong types) -----------------------


def _str(node: dict[str, Any], name: str) -> str:
    value = node.get(name)
    return value if isinstance(value, str) else ""


def _true(node: dict[str, Any], name: str) -> bool:
    return node.get(name) is True


def _dict(node: dict[str, Any], name: str) -> dict[str, Any] | None:
    value = node.get(name)
    return value if isinstance(value, dict) else None


def _schemas(node: dict[str, Any], name: str) -> list[dict[str, Any]]:
    value = node.get(name)
    return [s for s in value if isinstance(s, dict)] if isinstance(value, list) else []


def _properties(node: dict[str, Any]) -> dict[str, dict[str, Any]]:
    props = _dict(node, "properties") or {}
    return {k: v for k, v in props.items() if isinstance(v, dict)}


def _present(node: dict[str, Any], name: str) -> bool:
    """The key is set to something other than null (a Go pointer that is not nil)."""
    return node.get(name) is not None


def _zero(value: Any) -> bool:
    return value is None or value is False or value in ("", 0, [], {})


def walk(schema: dict[str, Any], visit: Any) -> bool:
    """True when ``visit`` is true of the schema or of any schema inside it."""
    if visit(schema):
        return True
    inner: list[dict[str, Any]] = [*_properties(schema).values(), *_schemas(schema, "allOf"),
                                   *_schemas(schema, "anyOf"), *_schemas(schema, "oneOf"), *_schemas(schema, "items")]
    for name in ("items", "not", "additionalProperties", "additionalItems"):
        found = _dict(schema, name)
        if found is not None:
            inner.append(found)
    for name in ("patternProperties", "definitions", "dependencies"):
        inner.extend(v for v in (_dict(schema, name) or {}).values() if isinstance(v, dict))
    return any(walk(s, visit) for s in inner)


def has_defaults(schema: dict[str, Any]) -> bool:
    return walk(schema, lambda s: "default" in s and s["default"] is not None)


def has_kubernetes_extensions(schema: dict[str, Any]) -> bool:
    """An x-kubernetes-* extension anywhere: only structural schemas may use them."""
    return walk(schema, lambda s: _true(s, "x-kubernetes-embedded-resource") or _true(s, "x-kubernetes-int-or-string")
                or _present(s, "x-kubernetes-preserve-unknown-fields") or bool(s.get("x-kubernetes-list-map-keys"))
                or _present(s, "x-kubernetes-list-type") or bool(s.get("x-kubernetes-validations")))


# --- the entry point ---------------------------------------------------------------


def validate_schema(schema: dict[str, Any], path: str, *, status_enabled: bool, structural: bool) -> Found:
    """Every problem with an ``openAPIV3Schema`` at ``path``; ``structural`` when it must be structural."""
    found: Found = []
    if status_enabled:
        found.extend((Rule.ALWAYS, e) for e in _root_with_status(schema, path))
    if schema.get("nullable") is True:
        found.append((Rule.ALWAYS, forbidden(child(path, "nullable"), "nullable cannot be true at the root")))
    if structural:
        errors: list[FieldError] = []
        _invariants(schema, _Level.ROOT, path, errors)
        _completeness(schema, schema, path, path, errors)
        # Upstream sorts these by their text, as map iteration has no order.
        found.extend((Rule.STRUCTURAL, e) for e in sorted(errors, key=str))
        if not errors:
            found.extend((Rule.PRUNED_DEFAULTS, e) for e in _defaults(schema, path, embedded=True))
    _Language(found).schema(schema, path, _Frame(), is_root=True)
    return found


def _root_with_status(schema: dict[str, Any], path: str) -> list[FieldError]:
    # Keys that are no field of a schema are dropped when upstream decodes it, so only the fields count.
    for name in _FIELD_ORDER:
        if _zero(schema.get(name)):
            continue
        if name == "type":
            if schema["type"] != "object":
                return [invalid(child(path, "type"), schema["type"],
                                'only "object" is allowed as the type at the root of the schema if the status '
                                "subresource is enabled")]
        elif name not in ROOT_FIELDS_WITH_STATUS:
            return [invalid(path, schema, _ROOT_FIELDS_MSG)]
    return []


# --- first pass: what the schema language allows --------------------------------------


class _Language:
    """ValidateCustomResourceDefinitionOpenAPISchema with the v3 standard's restrictions."""

    def __init__(self, found: Found) -> None:
        self.found = found

    def add(self, error: FieldError, rule: Rule = Rule.ALWAYS) -> None:
        self.found.append((rule, error))

    def _sub(self, value: Any, path: str, frame: _Frame) -> None:
        errs: list[FieldError] = []
        node = as_dict(value, path, errs)
        for error in errs:
            self.add(error)
        if node is not None:
            self.schema(node, path, frame, is_root=False)

    def _sub_map(self, node: dict[str, Any], name: str, path: str) -> dict[str, Any]:
        errs: list[FieldError] = []
        mapping = as_dict(node.get(name), child(path, name), errs) or {}
        for error in errs:
            self.add(error)
        return mapping

    def _sub_list(self, node: dict[str, Any], name: str, path: str, frame: _Frame) -> None:
        errs: list[FieldError] = []
        items = as_list(node.get(name), child(path, name), errs) or []
        for error in errs:
            self.add(error)
        for i, item in enumerate(items):
            self._sub(item, index(child(path, name), i), frame)

    def schema(self, node: dict[str, Any], path: str, frame: _Frame, *, is_root: bool) -> None:
        self._standard(node, path, frame)
        if node.get("uniqueItems") is True:
            self.add(forbidden(child(path, "uniqueItems"),
                               "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
        props = self._sub_map(node, "properties", path)
        extra = node.get("additionalProperties")
        if extra is not None:
            if props and (extra is False or isinstance(extra, dict)):
                self.add(forbidden(child(path, "additionalProperties"),
                                   "additionalProperties and properties are mutual exclusive"))
            if isinstance(extra, dict):
                sub = frame
                if frame.inside_meta:
                    sub = replace(frame, defaults_forbidden="inside additionalProperties applying to object metadata")
                self.schema(extra, child(path, "additionalProperties"), sub, is_root=False)
            elif not isinstance(extra, bool):
                self.add(type_error(child(path, "additionalProperties"), extra, "object"))
        embedded = node.get("x-kubernetes-embedded-resource") is True
        for name, value in props.items():
            sub = frame
            if (is_root or embedded) and name in META_FIELDS:
                sub = replace(sub, inside_meta=True)
                if is_root:
                    sub = replace(sub, defaults_forbidden=f"in top-level {name}")
            self._sub(value, key(child(path, "properties"), name), sub)
        if node.get("not") is not None:
            self._sub(node["not"], child(path, "not"), frame)
        for name in ("allOf", "oneOf", "anyOf"):
            self._sub_list(node, name, path, frame)
        for k, value in self._sub_map(node, "definitions", path).items():
            self._sub(value, key(child(path, "definitions"), k), frame)
        for k, value in self._sub_map(node, "dependencies", path).items():
            if isinstance(value, dict):  # a list of field names is the other form
                self._sub(value, key(child(path, "dependencies"), k), frame)
        items = node.get("items")
        if isinstance(items, list):
            self._sub_list(node, "items", path, frame)
        elif items is not None:
            self._sub(items, child(path, "items"), frame)
        self._extensions(node, path)
        self._validations(node, path)

    def _standard(self, node: dict[str, Any], path: str, frame: _Frame) -> None:
        errs: list[FieldError] = []
        schema_type = get_str(node, "type", path, errs)
        for name in ("format", "description", "title", "pattern", "id", "$ref", "$schema"):
            get_str(node, name, path, errs)
        for name in ("nullable", "uniqueItems", "x-kubernetes-preserve-unknown-fields",
                     "x-kubernetes-embedded-resource", "x-kubernetes-int-or-string"):
            get_bool(node, name, path, errs)
        get_str_list(node, "required", path, errs)
        for error in errs:
            self.add(error)
        if schema_type and schema_type not in OPENAPI_V3_TYPES:
            self.add(not_supported(child(path, "type"), schema_type, OPENAPI_V3_TYPES), Rule.PROPERTY_TYPE)
        if node.get("default") is not None and frame.defaults_forbidden is not None:
            detail = " ".join(filter(None, ("must not be set", frame.defaults_forbidden)))
            self.add(forbidden(child(path, "default"), detail))
        unsupported = {
            "id": bool(_str(node, "id")),
            "additionalItems": _present(node, "additionalItems"),
            "patternProperties": bool(node.get("patternProperties")),
            "definitions": bool(node.get("definitions")),
            "dependencies": _present(node, "dependencies"),
            "$ref": _present(node, "$ref"),
        }
        for name in (name for name, found in unsupported.items() if found):
            self.add(forbidden(child(path, name), f"{name} is not supported"))
        if schema_type == "null":
            self.add(forbidden(child(path, "type"), "type cannot be set to null, use nullable as an alternative"))
        if isinstance(node.get("items"), list) and node["items"]:
            self.add(forbidden(child(path, "items"), "items must be a schema object and not an array"))
        if frame.inside_meta and node.get("x-kubernetes-embedded-resource") is True:
            self.add(forbidden(child(path, "x-kubernetes-embedded-resource"), "must not be used inside of resource "
                                                                              "meta"))

    def _extensions(self, node: dict[str, Any], path: str) -> None:
        schema_type = _str(node, "type")
        if node.get("x-kubernetes-preserve-unknown-fields") is False:
            self.add(invalid(child(path, "x-kubernetes-preserve-unknown-fields"), False, "must be true or undefined"))
        errs: list[FieldError] = []
        map_type = get_opt_str(node, "x-kubernetes-map-type", path, errs)
        list_type = get_opt_str(node, "x-kubernetes-list-type", path, errs)
        map_keys = get_str_list(node, "x-kubernetes-list-map-keys", path, errs) or []
        for error in errs:
            self.add(error)
        if isinstance(map_type, str) and schema_type != "object":
            self.add(_must_be(path, schema_type, "must be object if x-kubernetes-map-type is specified"))
        if isinstance(map_type, str) and map_type not in MAP_TYPES:
            self.add(not_supported(child(path, "x-kubernetes-map-type"), map_type, MAP_TYPES))
        items = _dict(node, "items")
        if isinstance(list_type, str) and schema_type != "array":
            self.add(_must_be(path, schema_type, "must be array if x-kubernetes-list-type is specified"))
        elif list_type == "set" and items is not None:
            self._atomic_set_items(items, path)
        if isinstance(list_type, str) and list_type not in LIST_TYPES:
            self.add(not_supported(child(path, "x-kubernetes-list-type"), list_type, LIST_TYPES))
        if map_keys:
            list_type_path = child(path, "x-kubernetes-list-type")
            detail = "must be map if x-kubernetes-list-map-keys is non-empty"
            if list_type is None:
                self.add(required(list_type_path, detail))
            elif list_type != "map":
                self.add(invalid(list_type_path, list_type, detail))
        if list_type == "map":
            self._map_list(node, path, map_keys)
        if list_type in ("set", "map") and items is not None:
            self._map_set_items(items, path, list_type, map_keys)

    def _atomic_set_items(self, items: dict[str, Any], path: str) -> None:
        detail = "must be atomic as item of a list with x-kubernetes-list-type=set"
        item_type = _str(items, "type")
        item_list_type = items.get("x-kubernetes-list-type")
        if item_type == "array" and item_list_type is not None and item_list_type != "atomic":
            self.add(invalid(child(path, "items", "x-kubernetes-list-type"), item_list_type, detail), Rule.ATOMIC_SET)
        elif item_type == "object" and items.get("x-kubernetes-map-type") != "atomic":
            # Upstream reports the item's list type here, which is normally unset.
            value = item_list_type if item_list_type is not None else "null"
            self.add(invalid(child(path, "items", "x-kubernetes-map-type"), value, detail), Rule.ATOMIC_SET)

    def _map_list(self, node: dict[str, Any], path: str, map_keys: list[str]) -> None:
        items = node.get("items")
        if not map_keys:
            self.add(required(child(path, "x-kubernetes-list-map-keys"),
                              "must not be empty if x-kubernetes-list-type is map"))
        if items is None:
            self.add(required(child(path, "items"), "must have a schema if x-kubernetes-list-type is map"))
            return
        if not isinstance(items, dict):
            self.add(invalid(child(path, "items"), items, "must only have a single schema if x-kubernetes-list-type "
                                                          "is map"))
            return
        if _str(items, "type") != "object":
            self.add(invalid(child(path, "items", "type"), _str(items, "type"),
                             "must be object if parent array's x-kubernetes-list-type is map"))
            return
        props = _properties(items)
        seen: set[str] = set()
        for name in map_keys:
            if name in props:
                if _str(props[name], "type") in ("array", "object"):
                    self.add(invalid(child(key(child(path, "items", "properties"), name), "type"), "object",
                                     "must be a scalar type if parent array's x-kubernetes-list-type is map"))
            else:
                self.add(invalid(child(path, "x-kubernetes-list-map-keys"), map_keys,
                                 "entries must all be names of item properties"))
            if name in seen:
                self.add(invalid(child(path, "x-kubernetes-list-map-keys"), map_keys,
                                 "must not contain duplicate entries"))
            seen.add(name)

    def _map_set_items(self, items: dict[str, Any], path: str, list_type: str, map_keys: list[str]) -> None:
        if items.get("nullable") is True:
            self.add(forbidden(child(path, "items", "nullable"), "cannot be nullable when x-kubernetes-list-type is "
                               + list_type), Rule.MAP_LIST_KEYS)
        if list_type != "map":
            return
        must = items.get("required")
        required_keys = set(must) if isinstance(must, list) else set()
        props = _properties(items)
        for name in map_keys:
            prop = props.get(name)
            if prop is None:
                continue
            prop_path = key(child(path, "items", "properties"), name)
            if name not in required_keys and prop.get("default") is None:
                self.add(required(child(prop_path, "default"), "this property is in x-kubernetes-list-map-keys, so it "
                                                               "must have a default or be a required property"),
                         Rule.MAP_LIST_KEYS)
            if prop.get("nullable") is True:
                self.add(forbidden(child(prop_path, "nullable"), "this property is in x-kubernetes-list-map-keys, so "
                                                                 "it cannot be nullable"), Rule.MAP_LIST_KEYS)

    def _validations(self, node: dict[str, Any], path: str) -> None:
        errs: list[FieldError] = []
        rules = as_list(node.get("x-kubernetes-validations"), child(path, "x-kubernetes-validations"), errs) or []
        for error in errs:
            self.add(error)
        for i, entry in enumerate(rules):
            rule_path = index(child(path, "x-kubernetes-validations"), i)
            if not isinstance(entry, dict):
                self.add(type_error(rule_path, entry, "object"))
                continue
            self._validation(entry, rule_path)

    def _validation(self, entry: dict[str, Any], path: str) -> None:
        errs: list[FieldError] = []
        values = {name: get_str(entry, name, path, errs)
                  for name in ("rule", "message", "messageExpression", "fieldPath", "reason")}
        for error in errs:
            self.add(error)
        rule, message, message_expr, field_path, reason = (v if v is not BAD else "" for v in values.values())
        if not rule.strip():
            self.add(required(child(path, "rule"), "rule is not specified"))
        elif message and not message.strip():
            self.add(invalid(child(path, "message"), message, "message must be non-empty if specified"))
        elif _has_newlines(message.strip()):
            self.add(invalid(child(path, "message"), message, "message must not contain line breaks"))
        elif _has_newlines(rule.strip()) and not message.strip():
            self.add(required(child(path, "message"), "message must be specified if rule contains line breaks"))
        if message_expr and not message_expr.strip():
            self.add(required(child(path, "messageExpression"), "messageExpression must be non-empty if specified"))
        if reason and reason not in VALIDATION_REASONS:
            self.add(not_supported(child(path, "reason"), reason, VALIDATION_REASONS))
        if field_path and not field_path.strip():
            self.add(invalid(child(path, "fieldPath"), field_path, "fieldPath must be non-empty if specified"))
        if _has_newlines(field_path):
            self.add(invalid(child(path, "fieldPath"), field_path, "fieldPath must not contain line breaks"))


def _must_be(path: str, schema_type: str, detail: str) -> FieldError:
    if not schema_type:
        return required(child(path, "type"), detail)
    return invalid(child(path, "type"), schema_type, detail)


def _has_newlines(text: str) -> bool:
    return "\n" in text or "\r" in text


# --- second pass: structural ----------------------------------------------------------


def _invariants(node: dict[str, Any], level: _Level, path: str, errs: list[FieldError]) -> None:
    """validateStructuralInvariants: the schema, its items, properties and additionalProperties."""
    schema_type = _str(node, "type")
    items = _dict(node, "items")
    if schema_type == "array" and items is None:
        errs.append(required(child(path, "items"), "must be specified"))
    if items is not None:
        _invariants(items, _Level.ITEM, child(path, "items"), errs)
    props = _properties(node)
    for name, prop in props.items():
        _invariants(prop, _Level.FIELD, key(child(path, "properties"), name), errs)
    extra = node.get("additionalProperties")
    if extra is not None:
        if level is _Level.ROOT:
            errs.append(forbidden(child(path, "additionalProperties"), "must not be used at the root"))
        if isinstance(extra, dict):
            _invariants(extra, _Level.FIELD, child(path, "additionalProperties"), errs)
    int_or_string = _true(node, "x-kubernetes-int-or-string")
    preserve = _true(node, "x-kubernetes-preserve-unknown-fields")
    embedded = _true(node, "x-kubernetes-embedded-resource")
    if int_or_string and preserve:
        errs.append(invalid(child(path, "x-kubernetes-preserve-unknown-fields"), True,
                            "must be false if x-kubernetes-int-or-string is true"))
    if int_or_string and embedded:
        errs.append(invalid(child(path, "x-kubernetes-embedded-resource"), True,
                            "must be false if x-kubernetes-int-or-string is true"))
    _value_validation(node, _any_of_is_int_or_string(node), _all_of_starts_int_or_string(node), level, path, errs)
    if embedded and schema_type != "object":
        errs.append(_must_be(path, schema_type, "must be object if x-kubernetes-embedded-resource is true"))
    elif not schema_type and not int_or_string and not preserve:
        where = {_Level.ROOT: "at the root", _Level.ITEM: "for specified array items",
                 _Level.FIELD: "for specified object fields"}[level]
        errs.append(required(child(path, "type"), f"must not be empty {where}"))
    if embedded and extra is not None:
        errs.append(forbidden(child(path, "additionalProperties"), "must not be used if x-kubernetes-embedded-resource "
                                                                   "is set"))
    if level is _Level.ROOT and schema_type and schema_type != "object":
        errs.append(invalid(child(path, "type"), schema_type, "must be object at the root"))
    check_meta = level is _Level.ROOT or embedded
    props_path = child(path, "properties")
    for name in ("kind", "apiVersion"):
        if name in props and check_meta and _str(props[name], "type") != "string":
            errs.append(invalid(child(key(props_path, name), "type"), _str(props[name], "type"), "must be string"))
    if "metadata" in props:
        _metadata(props["metadata"], check_meta, level, key(props_path, "metadata"), errs)
    if embedded and not preserve and not props:
        errs.append(required(props_path, "must not be empty if x-kubernetes-embedded-resource is true without "
                                         "x-kubernetes-preserve-unknown-fields"))


def _metadata(node: dict[str, Any], check_meta: bool, level: _Level, path: str, errs: list[FieldError]) -> None:
    if check_meta and _str(node, "type") != "object":
        errs.append(invalid(child(path, "type"), _str(node, "type"), "must be object"))
    if level is not _Level.ROOT:
        return
    rest = {k: v for k, v in node.items() if k in _STRUCTURAL_KEYS and not _zero(v)}
    props = _dict(rest, "properties")
    if props is not None and 0 < len(props) == len(set(props) & {"name", "generateName"}):
        del rest["properties"]
    if rest:
        errs.append(forbidden(path, "must not specify anything other than name and generateName, but metadata is "
                                    "implicitly specified"))


def _any_of_is_int_or_string(node: dict[str, Any]) -> bool:
    return node.get("anyOf") == _INT_OR_STRING_ANY_OF


def _all_of_starts_int_or_string(node: dict[str, Any]) -> bool:
    all_of = _schemas(node, "allOf")
    return bool(all_of) and all_of[0].get("anyOf") == _INT_OR_STRING_ANY_OF


def _value_validation(node: dict[str, Any], skip_any_of: bool, skip_first_all_of_any_of: bool, level: _Level,
                      path: str, errs: list[FieldError]) -> None:
    """The schemas under anyOf, allOf, oneOf and not may only narrow values, never describe new ones."""
    if not skip_any_of:
        for i, sub in enumerate(_schemas(node, "anyOf")):
            _nested(sub, False, level, index(child(path, "anyOf"), i), errs)
    for i, sub in enumerate(_schemas(node, "allOf")):
        _nested(sub, skip_first_all_of_any_of and i == 0, level, index(child(path, "allOf"), i), errs)
    for i, sub in enumerate(_schemas(node, "oneOf")):
        _nested(sub, False, level, index(child(path, "oneOf"), i), errs)
    not_schema = _dict(node, "not")
    if not_schema is not None:
        _nested(not_schema, False, level, child(path, "not"), errs)


# What a schema under anyOf, allOf, oneOf or not may not say, and when it counts as said.
_SET, _TRUE, _NONEMPTY = "set", "true", "non-empty"
_NESTED_FORBIDDEN: Final = (
    ("type", _NONEMPTY, "must be empty to be structural"),
    ("default", _SET, "must be undefined to be structural"),
    ("title", _NONEMPTY, "must be empty to be structural"),
    ("description", _NONEMPTY, "must be empty to be structural"),
    ("nullable", _TRUE, "must be false to be structural"),
    ("x-kubernetes-preserve-unknown-fields", _TRUE, "must be false to be structural"),
    ("x-kubernetes-embedded-resource", _TRUE, "must be false to be structural"),
    ("x-kubernetes-int-or-string", _TRUE, "must be false to be structural"),
    ("x-kubernetes-list-map-keys", _NONEMPTY, "must be empty to be structural"),
    ("x-kubernetes-list-type", _SET, "must be undefined to be structural"),
    ("x-kubernetes-map-type", _SET, "must be undefined to be structural"),
    ("x-kubernetes-validations", _NONEMPTY, "must be empty to be structural"),
)


def _says(value: Any, how: str) -> bool:
    if how == _SET:
        return value is not None
    if how == _TRUE:
        return value is True
    return not _zero(value)


def _nested(node: dict[str, Any], skip_any_of: bool, level: _Level, path: str, errs: list[FieldError]) -> None:
    _value_validation(node, skip_any_of, False, level, path, errs)
    items = _dict(node, "items")
    if items is not None:
        _nested(items, False, level, child(path, "items"), errs)
    for name, prop in _properties(node).items():
        _nested(prop, False, _Level.FIELD, key(child(path, "properties"), name), errs)
    if node.get("additionalProperties") is not None:
        errs.append(forbidden(child(path, "additionalProperties"), "must be undefined to be structural"))
    for name, how, detail in _NESTED_FORBIDDEN:
        if _says(node.get(name), how):
            errs.append(forbidden(child(path, name), detail))
    if "metadata" in _properties(node):
        errs.append(forbidden(key(child(path, "properties"), "metadata"), "must not be specified in a nested context"))


def _completeness(validation: dict[str, Any], node: dict[str, Any] | None, s_path: str, v_path: str,
                  errs: list[FieldError]) -> None:
    """Every field or item named under anyOf, allOf, oneOf or not is also described outside them."""
    for i, sub in enumerate(_schemas(validation, "allOf")):
        _nested_completeness(sub, node, s_path, index(child(v_path, "allOf"), i), errs)
    for i, sub in enumerate(_schemas(validation, "anyOf")):
        _nested_completeness(sub, node, s_path, index(child(v_path, "anyOf"), i), errs)
    for i, sub in enumerate(_schemas(validation, "oneOf")):
        _nested_completeness(sub, node, s_path, index(child(v_path, "oneOf"), i), errs)
    not_schema = _dict(validation, "not")
    if not_schema is not None:
        _nested_completeness(not_schema, node, s_path, child(v_path, "not"), errs)


def _nested_completeness(validation: dict[str, Any], node: dict[str, Any] | None, s_path: str, v_path: str,
                         errs: list[FieldError]) -> None:
    if node is None:
        errs.append(required(s_path, f"because it is defined in {v_path}"))
        return
    _completeness(validation, node, s_path, v_path, errs)
    items = _dict(validation, "items")
    if items is not None:
        _nested_completeness(items, _dict(node, "items"), child(s_path, "items"), child(v_path, "items"), errs)
    props = _properties(node)
    for name, sub in _properties(validation).items():
        s_prop_path, v_prop_path = key(child(s_path, "properties"), name), key(child(v_path, "properties"), name)
        if name not in props:
            errs.append(required(s_prop_path, f"because it is defined in {v_prop_path}"))
        else:
            _nested_completeness(sub, props[name], s_prop_path, v_prop_path, errs)


# --- third pass: defaults ---------------------------------------------------------------


def _defaults(node: dict[str, Any], path: str, *, embedded: bool, inside_meta: bool = False) -> list[FieldError]:
    """Defaults must survive pruning unchanged and be valid by their own schema (those in resource meta are
    refused by the first pass)."""
    errs: list[FieldError] = []
    embedded = embedded or _true(node, "x-kubernetes-embedded-resource")
    if embedded:
        inside_meta = False
    default = node.get("default")
    if default is not None and not inside_meta:
        default_path = child(path, "default")
        pruned = deep_copy(default)
        pruning.prune(node, pruned)
        if pruned != default:
            errs.append(invalid(default_path, default, "must not have unknown fields"))
        # The engine names fields from the default's own root, which is the default itself here.
        errs.extend(replace(e, field=child(default_path, e.field) if e.field else default_path)
                    for e in engine.validate(node, default))
    items = _dict(node, "items")
    if items is not None:
        errs.extend(_defaults(items, child(path, "items"), embedded=False, inside_meta=inside_meta))
    for name, prop in _properties(node).items():
        sub_meta = inside_meta or (embedded and name in META_FIELDS)
        errs.extend(_defaults(prop, key(child(path, "properties"), name), embedded=False, inside_meta=sub_meta))
    return errs
