"""Unknown and duplicate fields in a write, as the ``fieldValidation`` parameter asks them handled.

Strict refuses the write (400, the strict decoding message); Warn, the
default when a client sends no parameter, answers with one ``Warning``
header per field; Ignore says nothing. Objects are stored as sent: an
unknown field is reported, never dropped.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from . import codec, errors, schema
from .request import ApiRequest
from .resources import Resource
from .schema.unknown import unknown_fields

MODES = ("Ignore", "Strict", "Warn")
WARNINGS = "warnings"


def mode(req: ApiRequest) -> str:
    """The request's fieldValidation directive (Warn when absent, as upstream since 1.27)."""
    value = req.query.get("fieldValidation", "") or "Warn"
    if value not in MODES:
        raise errors.bad_request(
            f'fieldValidation: Unsupported value: "{value}": supported values: "Ignore", "Strict", "Warn"'
        )
    return value


def check(req: ApiRequest, resource: Resource, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
    """Report the fields of ``obj`` its kind does not know (those ``old`` already had are not news).

    In-process writes (the components') carry no body to decode, so only
    requests that came as bytes are checked.
    """
    if req.payload is not None or not req.body:
        return
    directive = mode(req)
    if directive == "Ignore":
        return
    described = schema.for_kind(resource.group, resource.version, resource.kind)
    before = set(unknown_fields(described, old)) if old is not None else set()
    problems = [f'duplicate field "{path}"' for path in duplicate_fields(req.body, req.content_type)]
    problems += [f'unknown field "{path}"' for path in unknown_fields(described, obj) if path not in before]
    if not problems:
        return
    if directive == "Strict":
        raise errors.bad_request(
            f'{resource.kind} in version "{resource.version}" cannot be handled as a {resource.kind}: '
            f"strict decoding error: {', '.join(problems)}"
        )
    req.context.setdefault(WARNINGS, []).extend(problems)


def warning_header(req: ApiRequest) -> dict[str, str]:
    """The ``Warning`` header (RFC 7234, code 299) carrying the request's warnings, or nothing."""
    found = list(dict.fromkeys(req.context.get(WARNINGS) or []))  # a retried patch reports once
    if not found:
        return {}
    return {"Warning": ", ".join(f"299 - {json.dumps(text)}" for text in found)}


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its key/value pairs in order, repeats kept."""


def duplicate_fields(raw: bytes, content_type: str | None) -> list[str]:
    """Paths of keys given twice in one object of a JSON or YAML body (the last one wins when stored)."""
    kind = codec.media_type(content_type)
    try:
        if kind in codec.JSON_TYPES:
            return _json_duplicates(json.loads(raw, object_pairs_hook=_Pairs), "")
        if kind in codec.YAML_TYPES:
            return _yaml_duplicates(yaml.compose(raw.decode("utf-8"), Loader=yaml.SafeLoader), "")
    except (ValueError, yaml.YAMLError, RecursionError):
        pass  # the decoder already accepted the body; a scan that cannot finish reports nothing
    return []


def _json_duplicates(value: Any, path: str) -> list[str]:
    out: list[str] = []
    if isinstance(value, _Pairs):
        seen: set[str] = set()
        for key, item in value:
            where = f"{path}.{key}" if path else key
            if key in seen:
                out.append(where)
            seen.add(key)
            out.extend(_json_duplicates(item, where))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out.extend(_json_duplicates(item, f"{path}[{i}]"))
    return out


def _yaml_duplicates(node: yaml.Node | None, path: str) -> list[str]:
    out: list[str] = []
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, item in node.value:
            key = str(key_node.value)
            where = f"{path}.{key}" if path else key
            if key in seen:
                out.append(where)
            seen.add(key)
            out.extend(_yaml_duplicates(item, where))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            out.extend(_yaml_duplicates(item, f"{path}[{i}]"))
    return out
