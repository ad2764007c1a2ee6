"""A custom resource judged against its openAPIV3Schema, as kube-openapi's schema validator does.

The API server runs kube-openapi's ``SchemaValidator`` over the whole decoded
object and converts every error to a field error (apiextensions-apiserver's
``kubeOpenAPIResultToFieldErrors``). This module follows both steps: it builds
kube-openapi's errors, in its order and with its texts, paths and quirks, and
converts them at the end.

kube-openapi names paths its own way: a property is ``spec.replicas``, a list
item ``spec.ports[0]``, but a map value (``additionalProperties``) is
``spec.labels.app``, and a required field of the root is ``.apiVersion`` (the
leading dot is trimmed from the field, not from the message).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from clusterviz.api.validation.common import child, index
from clusterviz.apimachinery.field import FieldError, invalid, not_supported, required, too_many, type_invalid

from .embedded import embedded_resource_errors
from .formats import effective_format, string_format_checker
from .listtype import list_type_errors
from .numbers import go_float, go_int64, go_number, go_value, is_json_integer, is_number, to_float
from .schema import INT_OR_STRING, Schema, additional_properties, as_schema, flag, items, properties
from .values import go_json, strict_key

__all__ = ["validate"]


@dataclass
class _Error:
    """One kube-openapi error: its code decides the field error it becomes."""

    code: str  # required, enum, too_long, too_many, type, invalid, or composite (not a Validation error)
    name: str
    message: str
    value: Any = None
    limit: int = -1
    values: list[Any] = field(default_factory=list)


@dataclass
class _Result:
    """kube-openapi's Result: errors (a message only once) and the count of checks that passed.

    anyOf and oneOf report the failing alternative with the highest count, so the count is kept as
    kube-openapi keeps it.
    """

    errors: list[_Error] = field(default_factory=list)
    match_count: int = 0

    def add(self, error: _Error) -> None:
        if all(error.message != seen.message for seen in self.errors):
            self.errors.append(error)

    def merge(self, other: _Result | None) -> None:
        if other is not None:
            for error in other.errors:
                self.add(error)
            self.match_count += other.match_count

    @property
    def valid(self) -> bool:
        return not self.errors


def _fail(error: _Error) -> _Result:
    return _Result([error])


def validate(schema: dict[str, Any], obj: Any) -> list[FieldError]:
    """Every problem of the custom resource ``obj`` against its version's openAPIV3Schema ``schema``.

    First kube-openapi's errors, with its paths (see the module docstring) and messages, converted to
    field errors as the API server does; then the type and object meta of embedded resources, and the
    duplicates in ``x-kubernetes-list-type`` set and map lists. Never raises, whatever the shapes.
    """
    root = as_schema(schema)
    if root is None:
        return []
    errors = [_field_error(error) for error in _validate(root, obj, "").errors]
    # The API server then checks embedded resources and the uniqueness list types promise.
    return errors + embedded_resource_errors(root, obj) + list_type_errors(root, obj)


# --- conversion to field errors ------------------------------------------------------------


def _field_error(error: _Error) -> FieldError:
    if error.code == "composite":
        # Not a kube-openapi Validation error: upstream reports it at the object's root.
        return invalid("", "", error.message)
    path = "" if error.name in ("", ".") else error.name.removeprefix(".")
    value = "" if error.value is None else error.value
    if error.code == "required":
        return required(path)
    if error.code == "enum":
        return not_supported(path, error.value, [v if isinstance(v, str) else go_json(v) for v in error.values])
    if error.code == "too_long":
        unit = "byte" if error.limit == 1 else "bytes"
        return FieldError("FieldValueTooLong", path, f"may not be more than {error.limit} {unit}")
    if error.code == "too_many":
        if error.limit == 1:
            return FieldError("FieldValueTooMany", path, "must have at most 1 item", error.value)
        return too_many(path, error.value, error.limit)
    if error.code == "type":
        return type_invalid(path, value, error.message)
    return invalid(path, value, error.message)


def _quote(text: str) -> str:
    """Go's %q, near enough for the texts that reach it."""
    return json.dumps(text, ensure_ascii=False)


# --- the schema validator ------------------------------------------------------------------


def _types(schema: Schema) -> list[str]:
    if flag(schema, INT_OR_STRING):
        return ["integer", "string"]
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared] if declared else []
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    return []


def _kind(data: Any) -> str:
    """The JSON type kube-openapi infers from a decoded value ("" for what JSON cannot hold)."""
    if isinstance(data, bool):
        return "boolean"
    if isinstance(data, str):
        return "string"
    if isinstance(data, int):
        return "integer"
    if isinstance(data, float):
        return "number"
    if isinstance(data, list):
        return "array"
    if isinstance(data, dict):
        return "object"
    return ""


def _validate(schema: Schema, data: Any, path: str) -> _Result:
    """kube-openapi's SchemaValidator.Validate: each validator that applies to the value's kind, in order."""
    result = _Result()
    types = _types(schema)
    fmt = effective_format(schema.get("format"), types)
    if data is None:
        # Only the type (null needs nullable) and the enum (null is never a member) look at a null.
        result.merge(_check_type(types, schema.get("nullable") is True, fmt, None, path))
        result.merge(_check_enum(schema, None, path))
        return result
    if is_number(data):
        data = go_number(data)
    kind = _kind(data)
    checks: list[_Result | None] = []
    if types or fmt:
        checks.append(_check_type(types, schema.get("nullable") is True, fmt, data, path))
    checks.append(_check_schema_props(schema, data, path))
    if isinstance(data, str):
        checks.append(_check_string(schema, data, path))
        checker = string_format_checker(fmt) if fmt else None
        if checker is not None:
            checks.append(None if checker(data) else _fail(_type_error(path, fmt, data)))
    if kind in ("integer", "number"):
        checks.append(_check_number(schema, data, path))
    if isinstance(data, list):
        checks.append(_check_slice(schema, data, path))
    checks.append(_check_enum(schema, data, path))
    if isinstance(data, dict):
        checks.append(_check_object(schema, data, path))
    for check in checks:
        result.merge(check)
        result.match_count += 1
    result.match_count += 1
    return result


def _type_error(path: str, type_name: str, value: str) -> _Error:
    return _Error("type", path, f"{path} in body must be of type {type_name}: {_quote(value)}", value)


def _check_type(types: list[str], nullable: bool, fmt: str, data: Any, path: str) -> _Result:
    """kube-openapi's typeValidator, with its integer/number leniency (1.0 is an integer, 1 a number)."""
    if data is None:
        if types and "null" not in types and not nullable:
            return _fail(_type_error(path, ",".join(types), "null"))
        return _Result(match_count=1)
    kind = _kind(data)
    data_format = {"integer": "int64", "number": "float64"}.get(kind, "")
    float_int = kind == "number" and "integer" in types and is_json_integer(data)
    int_float = kind == "integer" and "number" in types
    if kind not in ("string", "array") and fmt and not (kind in types or data_format == fmt or float_int or int_float):
        return _fail(_type_error(path, fmt, data_format))
    if fmt and kind in ("string", "array") and "number" not in types and "integer" not in types:
        return _Result(match_count=1)
    if not (kind in types or float_int or int_float):
        return _fail(_type_error(path, ",".join(types), kind))
    return _Result(match_count=1)


def _check_schema_props(schema: Schema, data: Any, path: str) -> _Result:
    """allOf, anyOf, oneOf and not, each alternative validated at the same path."""
    main = _Result()
    any_of = _schema_list(schema.get("anyOf"))
    if any_of:
        best: _Result | None = None
        success: _Result | None = None
        for alternative in any_of:
            outcome = _validate(alternative, data, path)
            if outcome.valid:
                success, best = outcome, None
                break
            if best is None or outcome.match_count > best.match_count:
                best = outcome
        if success is None:
            main.add(_Error("composite", path, f"{_quote(path)} must validate at least one schema (anyOf)"))
        main.merge(best if best is not None else success)
    one_of = _schema_list(schema.get("oneOf"))
    if one_of:
        best = None
        first: _Result | None = None
        validated = 0
        for alternative in one_of:
            outcome = _validate(alternative, data, path)
            if outcome.valid:
                validated += 1
                best = None
                first = first or outcome
            elif validated == 0 and (best is None or outcome.match_count > best.match_count):
                best = outcome
        if validated != 1:
            found = "Found none valid" if validated == 0 else f"Found {validated} valid alternatives"
            main.add(
                _Error("composite", path, f"{_quote(path)} must validate one and only one schema (oneOf). {found}")
            )
            main.merge(best)
        else:
            main.merge(first)
    all_of = _schema_list(schema.get("allOf"))
    if all_of:
        validated = 0
        for alternative in all_of:
            outcome = _validate(alternative, data, path)
            validated += outcome.valid
            main.merge(outcome)
        if validated != len(all_of):
            none = ". None validated" if validated == 0 else ""
            main.add(_Error("composite", path, f"{_quote(path)} must validate all the schemas (allOf){none}"))
    negated = as_schema(schema.get("not"))
    if negated is not None and _validate(negated, data, path).valid:
        main.add(_Error("composite", path, f"{_quote(path)} must not validate the schema (not)"))
    main.match_count += 1
    return main


def _schema_list(value: Any) -> list[Schema]:
    return [s for s in value if isinstance(s, dict)] if isinstance(value, list) else []


def _count(schema: Schema, name: str) -> int | None:
    """A length or count keyword (an int64 upstream); anything else reads as absent."""
    value = schema.get(name)
    if is_number(value) and to_float(value).is_integer():
        return int(value)
    return None


def _bound(schema: Schema, name: str) -> float | None:
    value = schema.get(name)
    return to_float(value) if is_number(value) else None


def _check_string(schema: Schema, data: str, path: str) -> _Result | None:
    """maxLength, minLength (in characters) and pattern; the first failure only."""
    max_length = _count(schema, "maxLength")
    if max_length is not None and len(data) > max_length:
        message = f"{path} in body should be at most {max_length} chars long"
        return _fail(_Error("too_long", path, message, data, limit=max_length))
    min_length = _count(schema, "minLength")
    if min_length is not None and len(data) < min_length:
        return _fail(_Error("invalid", path, f"{path} in body should be at least {min_length} chars long", data))
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and pattern:
        try:
            # ASCII classes, as Go's RE2 reads \d, \w and \s.
            matched = re.search(pattern, data, re.ASCII) is not None
        except re.error as err:
            shown = f"{pattern}, but pattern is invalid: {err}"
            return _fail(_Error("invalid", path, f"{path} in body should match '{shown}'", data))
        if not matched:
            return _fail(_Error("invalid", path, f"{path} in body should match '{pattern}'", data))
    return None


def _check_number(schema: Schema, data: int | float, path: str) -> _Result:
    """multipleOf, minimum and maximum, compared as int64 for an integer value and as float64 otherwise."""
    result = _Result()
    factor = _bound(schema, "multipleOf")
    if factor is not None:
        result.merge(_multiple_of(data, factor, path))
    for name, exclusive_name, below in (("minimum", "exclusiveMinimum", True), ("maximum", "exclusiveMaximum", False)):
        limit = _bound(schema, name)
        if limit is None:
            continue
        exclusive = schema.get(exclusive_name) is True
        bound: int | float = go_int64(limit) if isinstance(data, int) else limit
        if below:
            failed = data <= bound if exclusive else data < bound
            words = "greater than" if exclusive else "greater than or equal to"
        else:
            failed = data >= bound if exclusive else data > bound
            words = "less than" if exclusive else "less than or equal to"
        if failed:
            result.add(_Error("invalid", path, f"{path} in body should be {words} {go_value(bound)}", data))
    result.match_count += 1
    return result


def _multiple_of(data: int | float, factor: float, path: str) -> _Result | None:
    int_factor = go_int64(factor)
    if isinstance(data, int) and int_factor != 0:
        if int_factor < 0:
            return _fail(_must_be_positive(path, int_factor))
        if data % int_factor:
            return _fail(_Error("invalid", path, f"{path} in body should be a multiple of {int_factor}", data))
        return None
    if factor < 0:
        return _fail(_must_be_positive(path, factor))
    value = to_float(data)
    if factor == 0:
        quotient = float("inf")
    else:
        quotient = 1 / factor * value if factor < 1 else value / factor
    if not is_json_integer(quotient):
        return _fail(_Error("invalid", path, f"{path} in body should be a multiple of {go_float(factor)}", data))
    return None


def _must_be_positive(path: str, factor: int | float) -> _Error:
    return _Error(
        "invalid", path, f"factor MultipleOf declared for {path} must be positive: {go_value(factor)}", factor
    )


def _check_slice(schema: Schema, data: list[Any], path: str) -> _Result:
    """Each item against ``items``, then minItems, maxItems and uniqueItems."""
    result = _Result()
    item_schema = items(schema)
    if item_schema is not None:
        for i, item in enumerate(data):
            result.merge(_validate(item_schema, item, index(path, i)))
    size = len(data)
    min_items = _count(schema, "minItems")
    if min_items is not None and size < min_items:
        result.add(_Error("invalid", path, f"{path} in body should have at least {min_items} items", size))
    max_items = _count(schema, "maxItems")
    if max_items is not None and size > max_items:
        message = f"{path} in body should have at most {max_items} items"
        result.add(_Error("too_many", path, message, size, limit=max_items))
    if schema.get("uniqueItems") is True and _has_duplicates(data):
        result.add(_Error("invalid", path, f"{path} in body shouldn't contain duplicates"))
    result.match_count += 1
    return result


def _has_duplicates(data: list[Any]) -> bool:
    keys = [strict_key(item) for item in data]
    return len(set(keys)) != len(keys)


def _enum_member(data: Any, member: Any) -> bool:
    """kube-openapi's enum comparison: a number matches a number of equal value; other kinds must match exactly."""
    if member is None or data is None:
        return False
    if isinstance(data, bool) or isinstance(member, bool):
        return data is member
    if is_number(data) and is_number(member):
        return to_float(data) == to_float(member)
    if isinstance(data, (dict, list)) and isinstance(member, type(data)):
        return strict_key(data) == strict_key(member)
    return type(data) is type(member) and data == member


def _check_enum(schema: Schema, data: Any, path: str) -> _Result | None:
    members = schema.get("enum")
    if not isinstance(members, list) or not members:
        return None
    if any(_enum_member(data, member) for member in members):
        return None
    shown = "[" + " ".join(go_json(m) if not isinstance(m, str) else m for m in members) + "]"
    return _fail(_Error("enum", path, f"{path} in body should be one of {shown}", data, values=list(members)))


def _check_object(schema: Schema, data: dict[Any, Any], path: str) -> _Result:
    """min/maxProperties (which stop the object's other checks), additionalProperties, properties, required."""
    size = len(data)
    min_props = _count(schema, "minProperties")
    if min_props is not None and size < min_props:
        return _fail(_Error("invalid", path, f"{path} in body should have at least {min_props} properties", size))
    max_props = _count(schema, "maxProperties")
    if max_props is not None and size > max_props:
        message = f"{path} in body should have at most {max_props} properties"
        return _fail(_Error("too_many", path, message, size, limit=max_props))
    result = _Result()
    props = properties(schema)
    _, extra_schema = additional_properties(schema)
    if schema.get("additionalProperties") is False:
        for key in data:
            if key not in props:
                result.add(_Error("invalid", path, f"{path}.{key} in body is a forbidden property", str(key)))
    elif extra_schema is not None:
        for key, value in data.items():
            if key not in props:
                # kube-openapi joins a map key with a dot, even at the root.
                result.merge(_validate(extra_schema, value, f"{path}.{key}"))
    for name, prop in props.items():
        if name in data:
            result.merge(_validate(prop, data[name], child(path, name)))
    required_names = schema.get("required")
    if isinstance(required_names, list):
        for name in required_names:
            if isinstance(name, str) and name not in data:
                result.add(_Error("required", f"{path}.{name}", f"{path}.{name} in body is required"))
    return result
