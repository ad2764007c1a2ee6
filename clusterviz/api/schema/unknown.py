"""Which fields of an object its kind's description does not know."""

from __future__ import annotations

from typing import Any

from .model import DEFINITIONS, Definition, Type


def unknown_fields(definition: Definition, value: Any) -> list[str]:
    """Paths of unknown fields, in document order (``spec.replica``, ``spec.containers[0].imag``).

    Sub-objects a description leaves open are not looked into, so an
    incomplete description never flags valid input.
    """
    out: list[str] = []
    _object(definition, value, "", out)
    return out


def _object(definition: Definition, value: Any, path: str, out: list[str]) -> None:
    if definition.open or definition.scalar_v3 is not None or not isinstance(value, dict):
        return
    for key, item in value.items():
        where = f"{path}.{key}" if path else key
        found = definition.fields.get(key)
        if found is None:
            out.append(where)
        else:
            _typed(found.type, item, where, out)


def _typed(kind: Type, value: Any, path: str, out: list[str]) -> None:
    if kind.kind == "ref":
        definition = DEFINITIONS.get(kind.ref)
        if definition is not None:
            _object(definition, value, path, out)
    elif kind.kind == "array" and kind.item is not None and isinstance(value, list):
        for i, item in enumerate(value):
            _typed(kind.item, item, f"{path}[{i}]", out)
    elif kind.kind == "map" and kind.item is not None and isinstance(value, dict):
        for key, item in value.items():
            _typed(kind.item, item, f"{path}.{key}", out)
