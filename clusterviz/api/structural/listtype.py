"""The uniqueness ``x-kubernetes-list-type: set`` and ``map`` promise, checked as apiextensions-apiserver does.

After kube-openapi's validation the API server walks the schema's properties,
map values and items, and in every list typed ``set`` reports each element that
repeats an earlier one, and in every ``map`` list each element whose key fields
repeat an earlier one's (once per repeated value, at its second appearance).
These paths are field.Path's own, so a map value is ``spec.labels[app]``.
"""

from __future__ import annotations

from typing import Any

from clusterviz.api.validation.common import child, index, key
from clusterviz.apimachinery.field import FieldError, duplicate, invalid

from .numbers import go_number, is_number
from .schema import Schema, additional_properties, items, properties
from .values import strict_key

__all__ = ["list_type_errors"]

_LIST_TYPE = "x-kubernetes-list-type"
_LIST_MAP_KEYS = "x-kubernetes-list-map-keys"
# A map-list element without its key field (or a null element): equal to every other such element.
_UNSPECIFIED = ("unspecified",)


def list_type_errors(schema: Schema, obj: Any, path: str = "") -> list[FieldError]:
    """The duplicates in the set and map lists of ``obj``, walking only where the schema declares."""
    errs: list[FieldError] = []
    if isinstance(obj, dict):
        _object(schema, obj, path, errs)
    return errs


def _value(schema: Schema, value: Any, path: str, errs: list[FieldError]) -> None:
    if isinstance(value, list):
        _array(schema, value, path, errs)
    elif isinstance(value, dict):
        _object(schema, value, path, errs)


def _object(schema: Schema, obj: dict[Any, Any], path: str, errs: list[FieldError]) -> None:
    _, extra = additional_properties(schema)
    if extra is not None:
        for name, value in obj.items():
            _value(extra, value, key(path, str(name)), errs)
    props = properties(schema)
    for name, value in obj.items():
        if name in props:
            _value(props[name], value, child(path, name), errs)


def _array(schema: Schema, values: list[Any], path: str, errs: list[FieldError]) -> None:
    list_type = schema.get(_LIST_TYPE)
    if list_type == "set":
        errs.extend(duplicate(index(path, i), values[i]) for i in _repeats(values))
    elif list_type == "map":
        errs.extend(_map_errors(schema, values, path))
    item_schema = items(schema)
    if item_schema is not None:
        for i, value in enumerate(values):
            _value(item_schema, value, index(path, i), errs)


def _identity(value: Any) -> Any:
    """What makes two elements the same: Go compares scalars by type and value, compounds by their JSON."""
    if value is _UNSPECIFIED:
        return value
    if isinstance(value, (dict, list)):
        return ("compound", strict_key(value, json_numbers=True))
    if is_number(value):
        value = go_number(value)
    return (type(value).__name__, value) if isinstance(value, (str, int, float, bool)) or value is None else repr(value)


def _repeats(values: list[Any]) -> list[int]:
    """The index of the second appearance of every value that appears more than once."""
    seen: dict[Any, int] = {}
    repeated: list[int] = []
    for i, value in enumerate(values):
        identity = _identity(value)
        seen[identity] = seen.get(identity, 0) + 1
        if seen[identity] == 2:
            repeated.append(i)
    return repeated


def _map_errors(schema: Schema, values: list[Any], path: str) -> list[FieldError]:
    for i, value in enumerate(values):
        if value is not None and not isinstance(value, dict):
            return [invalid(index(path, i), value, "must be an object for an array of list-type map")]
    if len(values) <= 1:
        return []
    declared = schema.get(_LIST_MAP_KEYS)
    key_fields = [k for k in declared if isinstance(k, str)] if isinstance(declared, list) else []
    if len(key_fields) == 1:
        field_name = key_fields[0]
        keys = [
            value[field_name] if isinstance(value, dict) and field_name in value else _UNSPECIFIED for value in values
        ]
        return [
            duplicate(index(path, i), {} if keys[i] is _UNSPECIFIED else {field_name: keys[i]}) for i in _repeats(keys)
        ]
    compound = [{k: v[k] for k in key_fields if k in v} if isinstance(v, dict) else {} for v in values]
    return [duplicate(index(path, i), compound[i]) for i in _repeats(compound)]
