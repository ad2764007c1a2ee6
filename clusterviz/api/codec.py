"""Request bodies in, JSON out: JSON, YAML and protobuf decoding with clear errors.

Everything a client sends goes through ``decode_body``; whatever the bytes,
the result is a plain JSON value or a 400 Status naming the line and column.
"""

from __future__ import annotations

import json
import math
from typing import Any

import yaml

import clusterviz.apimachinery.protobuf_auth  # noqa: F401  (adds TokenRequest to the protobuf kinds)
import clusterviz.apimachinery.protobuf_autoscaling  # noqa: F401  (adds HorizontalPodAutoscaler v1)
import clusterviz.apimachinery.protobuf_batch  # noqa: F401  (adds Jobs and CronJobs to the protobuf kinds)
import clusterviz.apimachinery.protobuf_networking  # noqa: F401  (adds Ingresses and IngressClasses)
import clusterviz.apimachinery.protobuf_options  # noqa: F401  (adds DeleteOptions, Eviction, Scale, Binding)
import clusterviz.apimachinery.protobuf_policy  # noqa: F401  (adds PodDisruptionBudgets and PriorityClasses)
import clusterviz.apimachinery.protobuf_quota  # noqa: F401  (adds ResourceQuotas and LimitRanges)
import clusterviz.apimachinery.protobuf_rbac  # noqa: F401  (adds Roles, ClusterRoles and their bindings)
from clusterviz.apimachinery import protobuf

from . import errors

# Guards against YAML alias bombs and absurdly nested documents.
MAX_NODES = 200_000
MAX_DEPTH = 100

JSON_TYPES = ("application/json", "")
YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", "application/apply-patch+yaml")
PROTOBUF_TYPE = "application/vnd.kubernetes.protobuf"


class _Loader(yaml.SafeLoader):
    """A safe loader that keeps timestamps as strings, as Kubernetes' YAML-to-JSON does."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def media_type(content_type: str | None) -> str:
    """The bare media type of a Content-Type header (parameters dropped)."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def normalize(value: Any) -> Any:
    """Make a decoded document plain JSON, refusing what JSON cannot hold."""
    budget = [MAX_NODES]

    def walk(v: Any, depth: int, path: str) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            raise errors.bad_request("the document is too large or too deeply aliased")
        if depth > MAX_DEPTH:
            raise errors.bad_request(f"the document is nested more than {MAX_DEPTH} levels deep")
        if isinstance(v, dict):
            out = {}
            for k, item in v.items():
                if isinstance(k, bool) or k is None or isinstance(k, (dict, list)):
                    raise errors.bad_request(f"invalid map key at {path or '<root>'}: {k!r} (keys must be strings)")
                key = str(k)
                _check_text(key, path)
                out[key] = walk(item, depth + 1, f"{path}.{key}" if path else key)
            return out
        if isinstance(v, (list, tuple)):
            return [walk(item, depth + 1, f"{path}[{i}]") for i, item in enumerate(v)]
        if isinstance(v, str):
            _check_text(v, path)
            return v
        if isinstance(v, float) and not math.isfinite(v):
            raise errors.bad_request(f"invalid number at {path or '<root>'}: {v} is not allowed in JSON")
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2**63 - 1:
            raise errors.bad_request(f"invalid number at {path or '<root>'}: {v} overflows a 64-bit integer")
        if v is None or isinstance(v, (bool, int, float)):
            return v
        if isinstance(v, bytes):
            raise errors.bad_request(f"binary value at {path or '<root>'} is not allowed")
        return str(v)

    return walk(value, 0, "")


def _check_text(text: str, path: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise errors.bad_request(f"invalid UTF-8 text at {path or '<root>'}") from None
    if "\x00" in text:
        raise errors.bad_request(f"NUL character in text at {path or '<root>'}")


def parse_json(raw: bytes | str) -> Any:
    """Parse JSON; errors give line and column."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as exc:
        raise errors.bad_request(f"the body is not valid UTF-8 (byte {exc.start})") from None
    try:
        return normalize(json.loads(text))
    except json.JSONDecodeError as exc:
        raise errors.bad_request(
            f"error decoding JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except RecursionError:
        raise errors.bad_request(f"the document is nested more than {MAX_DEPTH} levels deep") from None


def yaml_error_message(exc: yaml.YAMLError, text: str = "") -> str:
    """``yaml: line 3, column 7: mapping values are not allowed here`` (1-based)."""
    if isinstance(exc, yaml.reader.ReaderError) and text:
        # A character YAML does not allow (a control character) is reported by its offset, not a mark.
        line_start = text.rfind("\n", 0, exc.position) + 1
        line, column = text.count("\n", 0, exc.position) + 1, exc.position - line_start + 1
        return (
            f"error converting YAML to JSON: yaml: line {line}, column {column}: {exc.reason} (#x{exc.character:04x})"
        )
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context_mark", None)
    if "<stream end>" in problem and context is not None:
        # An unclosed bracket or quote: the line where it was opened is the one to fix.
        mark = context
        problem = f"{getattr(exc, 'context', '') or 'unclosed construct'} is never closed ({problem})"
    if mark is not None:
        return f"error converting YAML to JSON: yaml: line {mark.line + 1}, column {mark.column + 1}: {problem}"
    return f"error converting YAML to JSON: yaml: {problem}"


def parse_yaml(raw: bytes | str, *, multi: bool = False) -> Any:
    """Parse YAML with a safe loader (one document, or all of them when ``multi``)."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as exc:
        raise errors.bad_request(f"the body is not valid UTF-8 (byte {exc.start})") from None
    try:
        if multi:
            return [normalize(d) for d in yaml.load_all(text, Loader=_Loader) if d is not None]
        return normalize(yaml.load(text, Loader=_Loader))
    except yaml.YAMLError as exc:
        raise errors.bad_request(yaml_error_message(exc, text)) from None
    except RecursionError:
        raise errors.bad_request(f"the document is nested more than {MAX_DEPTH} levels deep") from None


def decode_body(raw: bytes, content_type: str | None) -> Any:
    """Decode a create/update body by its Content-Type (missing means JSON, as the Python client sends)."""
    kind = media_type(content_type)
    if not raw.strip():
        raise errors.bad_request("the request body is empty")
    if kind in JSON_TYPES:
        return parse_json(raw)
    if kind in YAML_TYPES:
        return parse_yaml(raw)
    if kind == PROTOBUF_TYPE:
        try:
            return normalize(protobuf.decode_object(raw))
        except protobuf.ProtobufError as exc:
            raise errors.bad_request(f"error decoding protobuf body: {exc}") from None
    raise errors.unsupported_media_type(kind)


def decode_object(raw: bytes, content_type: str | None) -> dict[str, Any]:
    """Like ``decode_body`` but the result must be a JSON object."""
    value = decode_body(raw, content_type)
    if not isinstance(value, dict):
        kind = type(value).__name__ if value is not None else "null"
        raise errors.bad_request(f"the request body must be an object, not {kind}")
    return value


def dumps(value: Any) -> bytes:
    """Compact JSON bytes."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
