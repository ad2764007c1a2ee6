"""The swagger 2.0 document in the protobuf form kubectl asks /openapi/v2 for (gnostic's openapi.v2.Document).

kubectl reads only the definitions (for ``explain --output=plaintext-openapiv2``
and its client-side validation); vendor extensions travel as YAML text, which
JSON is.
"""

from __future__ import annotations

import json
from typing import Any

# Field numbers of gnostic's openapi.v2 messages.
_DOC_SWAGGER, _DOC_INFO, _DOC_DEFINITIONS = 1, 2, 9
_INFO_TITLE, _INFO_VERSION = 1, 2
_NAMED_NAME, _NAMED_VALUE = 1, 2
_ANY_YAML = 2
_SCHEMA_STRINGS = {"$ref": 1, "format": 2, "title": 3, "description": 4}
_SCHEMA_REQUIRED, _SCHEMA_ENUM, _SCHEMA_ADDITIONAL = 19, 20, 21
_SCHEMA_TYPE, _SCHEMA_ITEMS, _SCHEMA_ALL_OF, _SCHEMA_PROPERTIES, _SCHEMA_EXTENSION = 22, 23, 24, 25, 31
_ADDITIONAL_SCHEMA, _ADDITIONAL_BOOL = 1, 2


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _bytes(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _text(number: int, value: str) -> bytes:
    return _bytes(number, value.encode("utf-8"))


def _bool(number: int, value: bool) -> bytes:
    return _varint(number << 3) + _varint(int(value))


def _any(value: Any) -> bytes:
    return _text(_ANY_YAML, json.dumps(value))


def _named(name: str, payload: bytes) -> bytes:
    return _text(_NAMED_NAME, name) + _bytes(_NAMED_VALUE, payload)


def schema(s: dict[str, Any]) -> bytes:
    """One Schema message."""
    out = bytearray()
    for key, number in _SCHEMA_STRINGS.items():
        if isinstance(s.get(key), str):
            out += _text(number, s[key])
    for name in s.get("required", []):
        out += _text(_SCHEMA_REQUIRED, name)
    for value in s.get("enum", []):
        out += _bytes(_SCHEMA_ENUM, _any(value))
    extra = s.get("additionalProperties")
    if isinstance(extra, dict):
        out += _bytes(_SCHEMA_ADDITIONAL, _bytes(_ADDITIONAL_SCHEMA, schema(extra)))
    elif isinstance(extra, bool):
        out += _bytes(_SCHEMA_ADDITIONAL, _bool(_ADDITIONAL_BOOL, extra))
    if "type" in s:
        out += _bytes(_SCHEMA_TYPE, _text(1, s["type"]))
    if "items" in s:
        out += _bytes(_SCHEMA_ITEMS, _bytes(1, schema(s["items"])))
    for part in s.get("allOf", []):
        out += _bytes(_SCHEMA_ALL_OF, schema(part))
    if "properties" in s:
        props = b"".join(_bytes(1, _named(n, schema(p))) for n, p in s["properties"].items())
        out += _bytes(_SCHEMA_PROPERTIES, props)
    for key, value in s.items():
        if key.startswith("x-"):
            out += _bytes(_SCHEMA_EXTENSION, _named(key, _any(value)))
    return bytes(out)


def document(swagger: dict[str, Any]) -> bytes:
    """The Document message: version, info and definitions."""
    info = _text(_INFO_TITLE, swagger["info"]["title"]) + _text(_INFO_VERSION, swagger["info"]["version"])
    definitions = b"".join(_bytes(1, _named(n, schema(s))) for n, s in swagger["definitions"].items())
    return _text(_DOC_SWAGGER, swagger["swagger"]) + _bytes(_DOC_INFO, info) + _bytes(_DOC_DEFINITIONS, definitions)
