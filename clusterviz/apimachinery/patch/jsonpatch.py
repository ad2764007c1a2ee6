"""RFC 6902 JSON patch (``application/json-patch+json``).

A patch is a list of operations (``add``, ``remove``, ``replace``, ``move``,
``copy``, ``test``) addressed by RFC 6901 JSON pointers. The whole list is
applied to a private copy of the document, so a failing operation leaves
nothing half-applied: the caller either gets the fully patched document or a
:class:`PatchError`. Error texts follow the library the API server uses
(``add operation does not apply: doc is missing path: "/spec/x": missing value``,
``testing value /spec/replicas failed: test failed``).
"""

from __future__ import annotations

import re
from typing import Any

from clusterviz.apimachinery.patch.errors import PatchError
from clusterviz.apimachinery.unstructured import deep_copy

_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
_BAD_ESCAPE = re.compile(r"~(?![01])")
_OPERATIONS = ("add", "remove", "replace", "move", "copy", "test")


def parse_pointer(pointer: str) -> list[str]:
    """Split an RFC 6901 JSON pointer into unescaped reference tokens.

    ``""`` is the whole document; ``"/a~1b/0"`` is ``["a/b", "0"]``. ``~1`` is
    decoded before ``~0`` so that ``~01`` means the literal ``~1``.
    """
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PatchError(f'invalid JSON pointer "{pointer}": must be empty or start with "/"')
    tokens = pointer[1:].split("/")
    for token in tokens:
        if _BAD_ESCAPE.search(token):
            raise PatchError(f'invalid JSON pointer "{pointer}": "~" must be followed by "0" or "1"')
    return [token.replace("~1", "/").replace("~0", "~") for token in tokens]


def _json_equal(a: Any, b: Any) -> bool:
    # JSON equality, not Python equality: true is not 1, but 1 and 1.0 are the
    # same number.
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _index(token: str, length: int, *, allow_end: bool) -> int:
    """Turn an array reference token into an index, or raise."""
    if _ARRAY_INDEX.fullmatch(token) is None:
        raise PatchError(f"value was not a proper array index: '{token}'")
    index = int(token)
    limit = length if allow_end else length - 1
    if index > limit:
        raise PatchError(f"Unable to access invalid index: {index}: invalid index referenced")
    return index


def _find_parent(doc: Any, tokens: list[str]) -> Any | None:
    """Walk to the container that holds the last token; None when the path does not exist."""
    current = doc
    for token in tokens[:-1]:
        if isinstance(current, dict):
            if token not in current:
                return None
            current = current[token]
        elif isinstance(current, list):
            if _ARRAY_INDEX.fullmatch(token) is None or int(token) >= len(current):
                return None
            current = current[int(token)]
        else:
            return None
    if not isinstance(current, dict | list):
        return None
    return current


def _get(doc: Any, tokens: list[str]) -> tuple[bool, Any]:
    """Return (found, value) for the location the tokens point at."""
    if not tokens:
        return True, doc
    parent = _find_parent(doc, tokens)
    if parent is None:
        return False, None
    last = tokens[-1]
    if isinstance(parent, dict):
        return (last in parent), parent.get(last)
    if _ARRAY_INDEX.fullmatch(last) is None or int(last) >= len(parent):
        return False, None
    return True, parent[int(last)]


def _add(doc: Any, tokens: list[str], value: Any, path: str, op: str = "add") -> Any:
    if not tokens:
        return value
    parent = _find_parent(doc, tokens)
    if parent is None:
        raise PatchError(f'{op} operation does not apply: doc is missing path: "{path}": missing value')
    last = tokens[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif last == "-":
        parent.append(value)
    else:
        try:
            parent.insert(_index(last, len(parent), allow_end=True), value)
        except PatchError as err:
            raise PatchError(f"error in {op} for path: '{path}': {err}") from None
    return doc


def _remove(doc: Any, tokens: list[str], path: str, op: str = "remove") -> Any:
    parent = _find_parent(doc, tokens) if tokens else None
    if parent is None:
        raise PatchError(f'{op} operation does not apply: doc is missing path: "{path}": missing value')
    last = tokens[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise PatchError(
                f"error in {op} for path: '{path}': Unable to remove nonexistent key: {last}: missing value"
            )
        del parent[last]
    else:
        try:
            del parent[_index(last, len(parent), allow_end=False)]
        except PatchError as err:
            raise PatchError(f"error in {op} for path: '{path}': {err}") from None
    return doc


def _replace(doc: Any, tokens: list[str], value: Any, path: str) -> Any:
    if not tokens:
        return value
    parent = _find_parent(doc, tokens)
    if parent is None:
        raise PatchError(f"replace operation does not apply: doc is missing path: {path}: missing value")
    last = tokens[-1]
    if isinstance(parent, dict):
        # RFC 6902 requires the target to exist; replace never creates a key.
        if last not in parent:
            raise PatchError(f"replace operation does not apply: doc is missing key: {path}: missing value")
        parent[last] = value
    else:
        try:
            parent[_index(last, len(parent), allow_end=False)] = value
        except PatchError as err:
            raise PatchError(f"error in replace for path: '{path}': {err}") from None
    return doc


def _string_member(operation: dict[str, Any], member: str, op: str) -> str:
    value = operation.get(member)
    if not isinstance(value, str):
        what = "path" if member == "path" else "from"
        raise PatchError(f"{op} operation failed to decode {what}: operation, missing {what} field: missing value")
    return value


def _value_member(operation: dict[str, Any], op: str) -> Any:
    if "value" not in operation:
        raise PatchError(f"{op} operation failed: operation, missing value field: missing value")
    # Copied so the result never aliases the caller's patch document.
    return deep_copy(operation["value"])


def _apply_operation(doc: Any, operation: Any) -> Any:
    if not isinstance(operation, dict):
        raise PatchError(f"invalid JSON patch operation: expected an object, got {type(operation).__name__}")
    op = operation.get("op")
    if not isinstance(op, str) or op not in _OPERATIONS:
        raise PatchError(f"Unexpected kind: {op if isinstance(op, str) else 'unknown'}")
    path = _string_member(operation, "path", op)
    tokens = parse_pointer(path)

    if op == "add":
        return _add(doc, tokens, _value_member(operation, op), path)
    if op == "remove":
        return _remove(doc, tokens, path)
    if op == "replace":
        return _replace(doc, tokens, _value_member(operation, op), path)
    if op == "test":
        expected = _value_member(operation, op)
        if tokens and _find_parent(doc, tokens) is None:
            raise PatchError(f"test operation does not apply: is missing path: {path}: missing value")
        found, actual = _get(doc, tokens)
        if not found or not _json_equal(actual, expected):
            raise PatchError(f"testing value {path} failed: test failed")
        return doc

    # move and copy read from "from" first.
    source = _string_member(operation, "from", op)
    source_tokens = parse_pointer(source)
    found, value = _get(doc, source_tokens)
    if not found:
        raise PatchError(f"{op} operation does not apply: doc is missing from path: {source}: missing value")
    if op == "copy":
        return _add(doc, tokens, deep_copy(value), path, op)
    if source_tokens == tokens:
        return doc
    if tokens[: len(source_tokens)] == source_tokens:
        # RFC 6902 section 4.4: a value cannot be moved into one of its own children.
        raise PatchError(f"move operation does not apply: from path {source} is a prefix of path {path}")
    doc = _remove(doc, source_tokens, source, op)
    if tokens and _find_parent(doc, tokens) is None:
        raise PatchError(f"move operation does not apply: doc is missing destination path: {path}: missing value")
    return _add(doc, tokens, value, path, op)


def json_patch(target: Any, ops: list[dict[str, Any]]) -> Any:
    """Apply an RFC 6902 JSON patch and return the patched document.

    ``target`` and ``ops`` are left untouched. Operations run in order on a
    deep copy; any failure (unknown op, missing path, bad index, failed
    ``test``) raises :class:`PatchError` and no partial result escapes.
    ``-`` as the last token of an ``add`` path appends to an array.
    """
    if not isinstance(ops, list):
        raise PatchError("invalid JSON patch: expected a list of operations")
    doc = deep_copy(target)
    for operation in ops:
        doc = _apply_operation(doc, operation)
    return doc
