"""Field selectors, as in apimachinery's ``pkg/fields``.

``?fieldSelector=metadata.name=web,status.phase!=Running`` is an AND of
equality tests on dotted field paths. kubectl relies on two of them: the
``metadata.name`` watch behind ``kubectl delete`` (waiting for deletion) and the
``involvedObject.name/namespace/uid`` query behind ``kubectl describe``.

This module only parses and evaluates. Which field names a kind supports is the
caller's decision: :func:`unsupported_fields` lists the names outside an allowed
set, and :func:`check_supported` raises the API server's
``field label not supported: <name>`` error for the first one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from clusterviz.apimachinery.labels import SelectorError

__all__ = [
    "EQUALS",
    "NOT_EQUALS",
    "Requirement",
    "SelectorError",
    "check_supported",
    "escape_value",
    "field_value",
    "format_field_selector",
    "matches",
    "parse_field_selector",
    "unescape_value",
    "unsupported_fields",
]

EQUALS = "="
NOT_EQUALS = "!="

# Order matters: "!=" and "==" must be tried before "=" so that "a==b" does not
# split into field "a" and value "=b".
_TERM_OPERATORS = ("!=", "==", "=")


@dataclass(frozen=True)
class Requirement:
    """One ``field <op> value`` term. ``operator`` is ``=`` (also for ``==``) or ``!=``."""

    field: str
    operator: str
    value: str

    def matches(self, obj: Mapping[str, Any]) -> bool:
        """Evaluate this term against an object, reading the field with :func:`field_value`."""
        actual = field_value(obj, self.field)
        if self.operator == NOT_EQUALS:
            return actual != self.value
        return actual == self.value

    def __str__(self) -> str:
        return f"{self.field}{self.operator}{escape_value(self.value)}"


def escape_value(value: str) -> str:
    """Escape ``\\``, ``,`` and ``=`` so a literal value can be embedded in a selector."""
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def unescape_value(value: str) -> str:
    """Undo :func:`escape_value`; raise :class:`SelectorError` on a bad or missing escape.

    Unescaped ``,`` or ``=`` inside a value is an error, as upstream.
    """
    if not any(ch in value for ch in "\\,="):
        return value
    out: list[str] = []
    in_slash = False
    for ch in value:
        if in_slash:
            if ch not in "\\,=":
                raise SelectorError(f"invalid field selector: invalid escape sequence: \\{ch}")
            out.append(ch)
            in_slash = False
            continue
        if ch == "\\":
            in_slash = True
        elif ch in ",=":
            # Upstream formats the offending rune with %v, which prints its
            # code point ("61" for "="); the message is kept identical.
            raise SelectorError(f"invalid field selector: unescaped character in value: {ord(ch)}")
        else:
            out.append(ch)
    if in_slash:
        raise SelectorError("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def _split_terms(text: str) -> list[str]:
    # Split on commas that are not escaped; escapes stay in the term and are
    # removed later by unescape_value.
    if not text:
        return []
    terms: list[str] = []
    start = 0
    in_slash = False
    for i, ch in enumerate(text):
        if in_slash:
            in_slash = False
        elif ch == "\\":
            in_slash = True
        elif ch == ",":
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return terms


def _split_term(term: str) -> tuple[str, str, str] | None:
    # The field part has no escaping, so the first operator found splits it.
    for i in range(len(term)):
        for op in _TERM_OPERATORS:
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op) :]
    return None


def parse_field_selector(text: str) -> list[Requirement]:
    """Parse a field selector string into its terms.

    Supports ``field=value``, ``field==value`` and ``field!=value`` joined by
    commas; ``\\,``, ``\\=`` and ``\\\\`` escape those characters inside values.
    Empty terms are skipped, so ``""`` means "everything". Terms come back
    sorted by their text, as upstream sorts them before parsing. Bad input
    raises :class:`SelectorError`, e.g.
    ``invalid selector: 'foo'; can't understand 'foo'``.
    """
    requirements: list[Requirement] = []
    for part in sorted(_split_terms(text)):
        if not part:
            continue
        split = _split_term(part)
        if split is None:
            raise SelectorError(f"invalid selector: '{text}'; can't understand '{part}'")
        field, op, raw_value = split
        value = unescape_value(raw_value)
        requirements.append(Requirement(field, NOT_EQUALS if op == "!=" else EQUALS, value))
    return requirements


def format_field_selector(requirements: Iterable[Requirement]) -> str:
    """Render terms back into selector syntax, escaping values."""
    return ",".join(str(req) for req in requirements)


# Field labels that name another field than their path, with the zero value the API server prints for it
# (a Job's status.successful is its status.succeeded count, 0 when there is none).
_LABELS = {"status.successful": ("status.succeeded", "0")}


def field_value(obj: Mapping[str, Any], path: str) -> str:
    """Read a dotted field path (``spec.nodeName``) from an object as a string.

    A missing field, or one whose parent is not an object, reads as ``""`` (so
    ``spec.nodeName=`` selects unscheduled pods, as on a real cluster).
    Booleans read as ``true``/``false`` and numbers in decimal, matching how
    the API server renders selectable fields such as ``spec.unschedulable``.
    Objects and lists are not selectable and read as ``""``.
    """
    path, zero = _LABELS.get(path, (path, ""))
    current: Any = obj
    for part in path.split("."):
        if not isinstance(current, Mapping) or part not in current:
            return zero
        current = current[part]
    if current is None:
        return ""
    if isinstance(current, bool):
        return "true" if current else "false"
    if isinstance(current, int):
        return str(current)
    if isinstance(current, float):
        return str(int(current)) if current.is_integer() else repr(current)
    if isinstance(current, str):
        return current
    return ""


def matches(obj: Mapping[str, Any], requirements: Iterable[Requirement]) -> bool:
    """Report whether an object satisfies every term (an empty list matches everything)."""
    return all(req.matches(obj) for req in requirements)


def unsupported_fields(requirements: Iterable[Requirement], allowed: Iterable[str]) -> list[str]:
    """List the field names used by ``requirements`` that are not in ``allowed``.

    Each name appears once, in the order of the requirements.
    """
    allowed_set = set(allowed)
    seen: dict[str, None] = {}
    for req in requirements:
        if req.field not in allowed_set:
            seen.setdefault(req.field, None)
    return list(seen)


def check_supported(requirements: Iterable[Requirement], allowed: Iterable[str]) -> None:
    """Raise :class:`SelectorError` ``field label not supported: <name>`` for the first unknown field."""
    unknown = unsupported_fields(requirements, allowed)
    if unknown:
        raise SelectorError(f"field label not supported: {unknown[0]}")
