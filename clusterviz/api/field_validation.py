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

from clusterviz.api import structural
from clusterviz.apimachinery.unstructured import deep_copy, dict_or_empty

from . import codec, errors, schema
from .request import ApiRequest
from .resources import Resource
from .schema.model import Definition
from .schema.unknown import unknown_fields

DIRECTIVES = ("Ignore", "Strict", "Warn")
WARNINGS = "warnings"
APPLY_PATCH = "application/apply-patch+yaml"
# The most warning text one response carries.
MAX_WARNING_BYTES = 4096


def mode(req: ApiRequest) -> str:
    """The request's fieldValidation directive (Warn when absent, as upstream since 1.27)."""
    value = req.query.get("fieldValidation", "") or "Warn"
    if value not in DIRECTIVES:
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
    described = schema.for_kind(resource.group, resource.version, resource.kind)
    if codec.media_type(req.content_type) == APPLY_PATCH:
        _check_apply(req, resource, described, obj, directive)
        return
    if directive == "Ignore":
        return
    before = set(_unknown(resource, old)) if old is not None else set()
    problems = [f'duplicate field "{path}"' for path in duplicate_fields(req.body, req.content_type)]
    problems += [f'unknown field "{path}"' for path in _unknown(resource, obj) if path not in before]
    if not problems:
        return
    if directive == "Strict":
        raise errors.bad_request(
            f'{resource.kind} in version "{resource.version}" cannot be handled as a {resource.kind}: '
            f"strict decoding error: {', '.join(problems)}"
        )
    req.context.setdefault(WARNINGS, []).extend(problems)


def _unknown(resource: Resource, obj: dict[str, Any]) -> list[str]:
    """The fields of ``obj`` its kind does not declare: a custom resource's are those its schema would prune."""
    if resource.custom is not None:
        return structural.prune(resource.custom.schema, deep_copy(obj))
    # The object comes converted to the version it is stored in.
    return unknown_fields(schema.for_kind(resource.group, resource.stored_as, resource.kind), obj)


def _check_apply(
    req: ApiRequest, resource: Resource, described: Definition, obj: dict[str, Any], directive: str
) -> None:
    """Server-side apply, as upstream: a field the schema lacks fails the typed patch whatever the directive;
    a repeated key is a strict YAML decoding error (Strict) or a warning (Warn)."""
    unknown = unknown_fields(described, codec.parse_yaml(req.body), by_key=True)
    if unknown:
        meta = dict_or_empty(obj.get("metadata"))
        where = f"{meta.get('namespace', '')}/{meta.get('name', '')}; {resource.group}/{resource.version}, Kind={resource.kind}"
        problems = [f"{path}: field not declared in schema" for path in unknown]
        detail = problems[0] if len(problems) == 1 else "errors:\n  " + "\n  ".join(problems)
        raise errors.bad_request(f"failed to create typed patch object ({where}): {detail}")
    if directive == "Ignore":
        return
    lines = [f'line {line}: key "{path.rpartition(".")[2]}" already set in map' for path, line in _duplicates(req.body)]
    if not lines:
        return
    message = "error converting YAML to JSON: yaml: unmarshal errors:\n  " + "\n  ".join(lines)
    if directive == "Strict":
        raise errors.bad_request(f"error strict decoding YAML: {message}")
    req.context.setdefault(WARNINGS, []).append(message)


def warning_header(req: ApiRequest) -> dict[str, str]:
    """The ``Warning`` header (RFC 7234, code 299) carrying the request's warnings, or nothing."""
    found = list(dict.fromkeys(req.context.get(WARNINGS) or []))  # a retried patch reports once
    parts: list[str] = []
    for text in found:
        # JSON quoting keeps the header one line of ASCII whatever the field names hold.
        part = f"299 - {json.dumps(text)}"
        if sum(len(p) + 2 for p in parts) + len(part) > MAX_WARNING_BYTES:
            break  # as the real server, the warnings beyond the budget are left out
        parts.append(part)
    return {"Warning": ", ".join(parts)} if parts else {}


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its key/value pairs in order, repeats kept."""


def duplicate_fields(raw: bytes, content_type: str | None) -> list[str]:
    """Paths of keys given twice in one object of a JSON or YAML body (the last one wins when stored)."""
    kind = codec.media_type(content_type)
    try:
        if kind in codec.JSON_TYPES:
            return _json_duplicates(json.loads(raw, object_pairs_hook=_Pairs), "")
        if kind in codec.YAML_TYPES:
            return [path for path, _ in _duplicates(raw)]
    except (ValueError, RecursionError):
        pass  # the decoder already accepted the body; a scan that cannot finish reports nothing
    return []


def _duplicates(raw: bytes) -> list[tuple[str, int]]:
    """Repeated keys of a YAML (or JSON) body, with the line of each repeat."""
    try:
        return _yaml_duplicates(yaml.compose(raw.decode("utf-8"), Loader=yaml.SafeLoader), "")
    except (ValueError, yaml.YAMLError, RecursionError):
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


def _yaml_duplicates(node: yaml.Node | None, path: str) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, item in node.value:
            key = str(key_node.value)
            where = f"{path}.{key}" if path else key
            if key in seen:
                out.append((where, key_node.start_mark.line + 1))
            seen.add(key)
            out.extend(_yaml_duplicates(item, where))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            out.extend(_yaml_duplicates(item, f"{path}[{i}]"))
    return out
