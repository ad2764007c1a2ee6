"""Which fields of an object its kind's description does not know."""

from __future__ import annotations

import json
from typing import Any

from .model import DEFINITIONS, Definition, Type


def unknown_fields(definition: Definition, value: Any, *, by_key: bool = False) -> list[str]:
    """Paths of unknown fields, in document order (``spec.replica``, ``spec.containers[0].imag``).

    With ``by_key`` the paths are written as server-side apply writes them:
    a leading dot, and list items merged by key named by their keys
    (``.spec.containers[name="web"].imag``). Sub-objects a description
    leaves open are not looked into, so an incomplete description never
    flags valid input.
    """
    out: list[str] = []
    _object(definition, value, "", out, by_key)
    return out


def _object(definition: Definition, value: Any, path: str, out: list[str], by_key: bool) -> None:
    if definition.open or definition.scalar_v3 is not None or not isinstance(value, dict):
        return
    for key, item in value.items():
        where = f"{path}.{key}" if path or by_key else key
        found = definition.fields.get(key)
        if found is None:
            out.append(where)
        else:
            _typed(found.type, item, where, out, by_key)


def _item(kind: Type, item: Any, index: int, by_key: bool) -> str:
    if by_key and kind.map_keys and isinstance(item, dict):
        return ",".join(f"{k}={json.dumps(item[k])}" for k in kind.map_keys if k in item)
    return str(index)


def _typed(kind: Type, value: Any, path: str, out: list[str], by_key: bool) -> None:
    if kind.kind == "ref":
        definition = DEFINITIONS.get(kind.ref)
        if definition is not None:
            _object(definition, value, path, out, by_key)
    elif kind.kind == "array" and kind.item is not None and isinstance(value, list):
        for i, item in enumerate(value):
            _typed(kind.item, item, f"{path}[{_item(kind, item, i, by_key)}]", out, by_key)
    elif kind.kind == "map" and kind.item is not None and isinstance(value, dict):
        for key, item in value.items():
            _typed(kind.item, item, f"{path}.{key}", out, by_key)
