"""Structural defaulting of a custom resource, as apiextensions-apiserver's ``defaulting.Default`` does it.

Defaults apply top-down: a property's default is set only where its parent
object exists, then the walk goes on into what is there (a defaulted value
included), through properties, ``additionalProperties`` values and array items.
A ``null`` where the schema is not ``nullable`` counts as absent and takes the
default. Only the main structure is read: defaults inside allOf/anyOf/oneOf/not
are not structural and do nothing.
"""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import deep_copy

from .schema import Schema, additional_properties, as_schema, has_default, items, properties

__all__ = ["apply_defaults"]


def apply_defaults(schema: dict[str, Any], obj: Any) -> Any:
    """A copy of ``obj`` with the schema's ``default`` values filled in where a property is absent."""
    try:
        copied = deep_copy(obj)
    except RecursionError:
        copied = _copy_deep(obj)
    root = as_schema(schema)
    if root is not None:
        _default(copied, root)
    return copied


def _copy_deep(obj: Any) -> Any:
    """A copy of JSON nested beyond what ``deep_copy``'s recursive fallback reaches, made without recursion."""

    def shell(value: Any) -> Any:
        return {} if isinstance(value, dict) else [] if isinstance(value, list) else value

    copied = shell(obj)
    stack = [(obj, copied)]
    while stack:
        source, target = stack.pop()
        if isinstance(source, dict):
            for key, value in source.items():
                target[key] = shell(value)
                stack.append((value, target[key]))
        elif isinstance(source, list):
            for value in source:
                target.append(shell(value))
                stack.append((value, target[-1]))
    return copied


def _non_nullable_null(value: Any, schema: Schema | None) -> bool:
    return value is None and schema is not None and schema.get("nullable") is not True


def _default(value: Any, schema: Schema) -> None:
    if isinstance(value, dict):
        props = properties(schema)
        for name, prop in props.items():
            if has_default(prop) and (name not in value or _non_nullable_null(value[name], prop)):
                value[name] = deep_copy(prop["default"])
        _, extra = additional_properties(schema)
        for key in list(value):
            declared = props.get(key)
            if declared is not None:
                _default(value[key], declared)
            elif extra is not None:
                if _non_nullable_null(value[key], extra) and has_default(extra):
                    value[key] = deep_copy(extra["default"])
                _default(value[key], extra)
    elif isinstance(value, list):
        item_schema = items(schema)
        if item_schema is None:
            return
        for i, item in enumerate(value):
            if _non_nullable_null(item, item_schema) and has_default(item_schema):
                value[i] = deep_copy(item_schema["default"])
            _default(value[i], item_schema)
