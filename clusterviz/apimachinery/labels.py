"""Label selectors, as in apimachinery's ``pkg/labels`` and ``LabelSelectorAsSelector``.

Two inputs produce the same :class:`Selector`:

* the string syntax of ``?labelSelector=`` and ``kubectl get -l``
  (``app=web,tier!=db,env in (prod,staging),!canary``), via :func:`parse_selector`;
* the API object form found in ``spec.selector`` of Deployments and ReplicaSets
  (``matchLabels`` / ``matchExpressions``), via :func:`selector_from_label_selector`.

A Selector keeps its requirements sorted by key, so ``str(selector)`` is the
canonical form the real API server and kubectl print (``app=myapp``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from clusterviz.apimachinery.names import is_qualified_name, is_valid_label_value

# Operator spellings are the ones of apimachinery's selection package, so a
# Requirement can be compared with, or printed like, the upstream one.
DOES_NOT_EXIST = "!"
EQUALS = "="
DOUBLE_EQUALS = "=="
IN = "in"
NOT_EQUALS = "!="
NOT_IN = "notin"
EXISTS = "exists"
GREATER_THAN = "gt"
LESS_THAN = "lt"

BINARY_OPERATORS = (IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER_THAN, LESS_THAN)
UNARY_OPERATORS = (EXISTS, DOES_NOT_EXIST)
OPERATORS = BINARY_OPERATORS + UNARY_OPERATORS

# matchExpressions operators of the API object and what each becomes.
_LABEL_SELECTOR_OPERATORS = {"In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST}


class SelectorError(ValueError):
    """A label or field selector could not be parsed or is invalid; ``str()`` is the message."""

    @property
    def message(self) -> str:
        """The human-readable message, as the API server would report it."""
        return str(self.args[0]) if self.args else ""


def _go_quote(value: str) -> str:
    # Close enough to Go's %q for label keys and values, which are ASCII when valid.
    return json.dumps(value, ensure_ascii=False)


def _field_error(path: str, value: Any, detail: str) -> str:
    # The "<path>: Invalid value: <value>: <detail>" text of a field.Invalid error.
    if isinstance(value, str):
        rendered = _go_quote(value)
    else:
        rendered = json.dumps(value, separators=(",", ":"))
    return f"{path}: Invalid value: {rendered}: {detail}"


def aggregate(errors: list[str]) -> str:
    """Error messages as ``utilerrors.Aggregate`` prints them: a lone one bare, several as ``[a, b]``.

    Exact duplicates are dropped.
    """
    unique = list(dict.fromkeys(errors))
    if len(unique) == 1:
        return unique[0]
    return "[" + ", ".join(unique) + "]"


def _key_error(key: str, path: str) -> str | None:
    problems = is_qualified_name(key)
    if problems:
        return _field_error(path, key, "; ".join(problems))
    return None


@dataclass(frozen=True)
class Requirement:
    """One ``key <operator> values`` condition; a Selector is the AND of several.

    Build it with :meth:`Requirement.new` to get upstream's validation; the
    plain constructor trusts its arguments.
    """

    key: str
    operator: str
    values: tuple[str, ...] = ()

    @classmethod
    def new(cls, key: str, operator: str, values: Iterable[str] = ()) -> Requirement:
        """Validate and build a requirement, raising :class:`SelectorError` like ``labels.NewRequirement``.

        The key must be a qualified name and every value a valid label value;
        ``in``/``notin`` need at least one value, the equality operators exactly
        one, ``exists``/``!`` none, and ``gt``/``lt`` one integer.
        """
        return _build_requirement(key, operator, list(values), nil_when_empty=False)

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        """Report whether a label set satisfies this requirement.

        ``!=`` and ``notin`` match objects that lack the key entirely, as upstream does.
        """
        labels = labels or {}
        op = self.operator
        if op in (IN, EQUALS, DOUBLE_EQUALS):
            return self.key in labels and labels[self.key] in self.values
        if op in (NOT_IN, NOT_EQUALS):
            return self.key not in labels or labels[self.key] not in self.values
        if op == EXISTS:
            return self.key in labels
        if op == DOES_NOT_EXIST:
            return self.key not in labels
        if op in (GREATER_THAN, LESS_THAN):
            if self.key not in labels or len(self.values) != 1:
                return False
            have = _parse_int64(labels[self.key])
            want = _parse_int64(self.values[0])
            if have is None or want is None:
                return False
            return have > want if op == GREATER_THAN else have < want
        return False

    def __str__(self) -> str:
        op = self.operator
        if op == DOES_NOT_EXIST:
            return "!" + self.key
        if op == EXISTS:
            return self.key
        symbol = {
            EQUALS: "=",
            DOUBLE_EQUALS: "==",
            NOT_EQUALS: "!=",
            IN: " in ",
            NOT_IN: " notin ",
            GREATER_THAN: ">",
            LESS_THAN: "<",
        }.get(op, op)
        # Values print sorted so that equal selectors print equally, whatever
        # order the API object listed them in.
        joined = ",".join(sorted(self.values))
        if op in (IN, NOT_IN):
            return f"{self.key}{symbol}({joined})"
        return f"{self.key}{symbol}{joined}"


def _build_requirement(key: str, operator: str, vals: list[str], *, nil_when_empty: bool) -> Requirement:
    errors: list[str] = []
    key_problem = _key_error(key, "key")
    if key_problem:
        errors.append(key_problem)
    # Upstream prints the offending values with json.Marshal. Values copied from
    # an API object with no "values" form a nil Go slice, which prints as null;
    # nil_when_empty reproduces that for the LabelSelector path.
    bad_values: Any = None if (nil_when_empty and not vals) else vals
    if operator in (IN, NOT_IN):
        if not vals:
            errors.append(_field_error("values", bad_values, "for 'in', 'notin' operators, values set can't be empty"))
    elif operator in (EQUALS, DOUBLE_EQUALS, NOT_EQUALS):
        if len(vals) != 1:
            errors.append(_field_error("values", bad_values, "exact-match compatibility requires one single value"))
    elif operator in (EXISTS, DOES_NOT_EXIST):
        if vals:
            errors.append(_field_error("values", vals, "values set must be empty for exists and does not exist"))
    elif operator in (GREATER_THAN, LESS_THAN):
        if len(vals) != 1:
            errors.append(_field_error("values", bad_values, "for 'Gt', 'Lt' operators, exactly one value is required"))
        for i, val in enumerate(vals):
            if _parse_int64(val) is None:
                errors.append(
                    _field_error(f"values[{i}]", val, "for 'Gt', 'Lt' operators, the value must be an integer")
                )
    else:
        supported = ", ".join(_go_quote(op) for op in OPERATORS)
        errors.append(f"operator: Unsupported value: {_go_quote(operator)}: supported values: {supported}")
    for i, val in enumerate(vals):
        problems = is_valid_label_value(val)
        if problems:
            errors.append(_field_error(f"values[{i}][{key}]", val, "; ".join(problems)))
    if errors:
        raise SelectorError(aggregate(errors))
    return Requirement(key, operator, tuple(vals))


def _parse_int64(text: str) -> int | None:
    # strconv.ParseInt(s, 10, 64): optional sign, decimal digits, 64-bit range.
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    number = int(text)
    if not -(2**63) <= number < 2**63:
        return None
    return number


class Selector:
    """An AND of label requirements, kept sorted by key.

    ``Selector()`` selects everything; :func:`nothing` returns the special
    selector that selects no object at all (what a nil ``LabelSelector`` means).
    """

    __slots__ = ("_requirements", "_nothing", "_text")

    def __init__(self, requirements: Iterable[Requirement] = (), *, nothing: bool = False) -> None:
        # Stable sort by key: upstream sorts the same way, and it makes the
        # string form canonical ("app=web,tier=db" whatever the input order).
        self._requirements: tuple[Requirement, ...] = tuple(sorted(requirements, key=lambda r: r.key))
        self._nothing = nothing
        self._text: str | None = None  # the string form, made on first use (a selector never changes)

    @property
    def requirements(self) -> tuple[Requirement, ...]:
        """The requirements, sorted by key."""
        return self._requirements

    @property
    def empty(self) -> bool:
        """True when the selector does not restrict anything (it selects every object)."""
        return not self._nothing and not self._requirements

    @property
    def matches_nothing(self) -> bool:
        """True only for the :func:`nothing` selector."""
        return self._nothing

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        """Report whether an object with these labels is selected."""
        if self._nothing:
            return False
        # A loop rather than all() over a generator: controllers match every Pod of a workload on each sync.
        for req in self._requirements:
            if not req.matches(labels):
                return False
        return True

    def add(self, *requirements: Requirement) -> Selector:
        """Return a new selector with extra requirements (the original is unchanged)."""
        if self._nothing:
            return self
        return Selector(self._requirements + requirements)

    def requires_exact_match(self, key: str) -> str | None:
        """Return the single value ``key`` must have, or None if the selector does not pin it."""
        for req in self._requirements:
            if req.key == key:
                if req.operator in (EQUALS, DOUBLE_EQUALS, IN) and len(req.values) == 1:
                    return req.values[0]
                return None
        return None

    def __str__(self) -> str:
        if self._text is None:
            self._text = ",".join(str(req) for req in self._requirements)
        return self._text

    def __repr__(self) -> str:
        if self._nothing:
            return "Selector(nothing)"
        return f"Selector({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Selector):
            return NotImplemented
        return self._nothing == other._nothing and self._requirements == other._requirements

    def __hash__(self) -> int:
        return hash((self._nothing, self._requirements))


def everything() -> Selector:
    """Return a selector that matches every label set."""
    return Selector()


def nothing() -> Selector:
    """Return a selector that matches no label set, not even an empty one."""
    return Selector(nothing=True)


# --- string syntax -----------------------------------------------------------

# Token kinds of the selector lexer.
_EOS = "end"
_CLOSE = ")"
_COMMA = ","
_BANG = "!"
_DOUBLE_EQ = "=="
_EQ = "="
_GT = ">"
_IDENT = "identifier"
_IN = "in"
_LT = "<"
_NOT_EQ = "!="
_NOT_IN = "notin"
_OPEN = "("

_LITERAL_TOKENS = {
    ")": _CLOSE,
    ",": _COMMA,
    "!": _BANG,
    "==": _DOUBLE_EQ,
    "=": _EQ,
    ">": _GT,
    "in": _IN,
    "<": _LT,
    "!=": _NOT_EQ,
    "notin": _NOT_IN,
    "(": _OPEN,
}
_SPECIAL = frozenset("=!(),><")
_WHITESPACE = frozenset(" \t\r\n")


def _lex(text: str) -> list[tuple[str, str]]:
    """Split selector text into (kind, literal) tokens, ending with an end-of-string token."""
    tokens: list[tuple[str, str]] = []
    pos = 0
    n = len(text)
    while True:
        while pos < n and text[pos] in _WHITESPACE:
            pos += 1
        if pos >= n:
            tokens.append((_EOS, ""))
            return tokens
        if text[pos] in _SPECIAL:
            # Operators are at most two characters ("==", "!="); take the
            # longest one that fits, so "=(" is "=" followed by "(".
            pair = text[pos : pos + 2]
            literal = pair if pair in _LITERAL_TOKENS else text[pos]
            tokens.append((_LITERAL_TOKENS[literal], literal))
            pos += len(literal)
            continue
        start = pos
        while pos < n and text[pos] not in _SPECIAL and text[pos] not in _WHITESPACE:
            pos += 1
        word = text[start:pos]
        # "in" and "notin" are keywords here; the parser turns them back into
        # identifiers where a value is expected ("env in (in)").
        tokens.append((_LITERAL_TOKENS.get(word, _IDENT), word))


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _lex(text)
        self.pos = 0

    def _token(self, index: int, values_context: bool) -> tuple[str, str]:
        kind, literal = self.tokens[index]
        if values_context and kind in (_IN, _NOT_IN):
            kind = _IDENT
        return kind, literal

    def lookahead(self, values_context: bool = True) -> tuple[str, str]:
        return self._token(self.pos, values_context)

    def consume(self, values_context: bool = True) -> tuple[str, str]:
        token = self._token(self.pos, values_context)
        if self.pos < len(self.tokens) - 1:
            self.pos += 1
        return token

    def parse(self) -> list[Requirement]:
        requirements: list[Requirement] = []
        while True:
            kind, literal = self.lookahead()
            if kind in (_IDENT, _BANG):
                try:
                    requirements.append(self.parse_requirement())
                except SelectorError as err:
                    raise SelectorError(f"unable to parse requirement: {err}") from None
                kind, literal = self.consume()
                if kind == _EOS:
                    return requirements
                if kind == _COMMA:
                    next_kind, next_literal = self.lookahead()
                    if next_kind not in (_IDENT, _BANG):
                        raise SelectorError(f"found '{next_literal}', expected: identifier after ','")
                    continue
                raise SelectorError(f"found '{literal}', expected: ',' or 'end of string'")
            if kind == _EOS:
                return requirements
            raise SelectorError(f"found '{literal}', expected: !, identifier, or 'end of string'")

    def parse_requirement(self) -> Requirement:
        key, operator = self.parse_key_and_infer_operator()
        if operator in (EXISTS, DOES_NOT_EXIST):
            return Requirement.new(key, operator, [])
        operator = self.parse_operator()
        if operator in (IN, NOT_IN):
            values = self.parse_values()
        else:
            values = self.parse_exact_value()
        # The string form is set-valued: duplicates collapse and order is sorted.
        return Requirement.new(key, operator, sorted(values))

    def parse_key_and_infer_operator(self) -> tuple[str, str | None]:
        operator: str | None = None
        kind, literal = self.consume()
        if kind == _BANG:
            operator = DOES_NOT_EXIST
            kind, literal = self.consume()
        if kind != _IDENT:
            raise SelectorError(f"found '{literal}', expected: identifier")
        problem = _key_error(literal, "<nil>")
        if problem:
            raise SelectorError(problem)
        next_kind, _ = self.lookahead()
        if next_kind in (_EOS, _COMMA) and operator != DOES_NOT_EXIST:
            operator = EXISTS
        return literal, operator

    def parse_operator(self) -> str:
        kind, literal = self.consume(values_context=False)
        operator = {
            _IN: IN,
            _EQ: EQUALS,
            _DOUBLE_EQ: DOUBLE_EQUALS,
            _GT: GREATER_THAN,
            _LT: LESS_THAN,
            _NOT_IN: NOT_IN,
            _NOT_EQ: NOT_EQUALS,
        }.get(kind)
        if operator is None:
            raise SelectorError(f"found '{literal}', expected: {', '.join(BINARY_OPERATORS)}")
        return operator

    def parse_values(self) -> set[str]:
        kind, literal = self.consume()
        if kind != _OPEN:
            raise SelectorError(f"found '{literal}' expected: '('")
        kind, literal = self.lookahead()
        if kind in (_IDENT, _COMMA):
            values = self.parse_identifiers_list()
            closing, _ = self.consume()
            if closing != _CLOSE:
                raise SelectorError(f"found '{literal}', expected: ')'")
            return values
        if kind == _CLOSE:
            # "()" is a set holding the empty string, not an empty set.
            self.consume()
            return {""}
        raise SelectorError(f"found '{literal}', expected: ',', ')' or identifier")

    def parse_identifiers_list(self) -> set[str]:
        values: set[str] = set()
        while True:
            kind, literal = self.consume()
            if kind == _IDENT:
                values.add(literal)
                next_kind, next_literal = self.lookahead()
                if next_kind == _COMMA:
                    continue
                if next_kind == _CLOSE:
                    return values
                raise SelectorError(f"found '{next_literal}', expected: ',' or ')'")
            if kind == _COMMA:
                # Empty slots between commas stand for the empty value: "(a,,b)"
                # and "(,a)" both include "".
                if not values:
                    values.add("")
                next_kind, _ = self.lookahead()
                if next_kind == _CLOSE:
                    values.add("")
                    return values
                if next_kind == _COMMA:
                    values.add("")
                continue
            raise SelectorError(f"found '{literal}', expected: ',', or identifier")

    def parse_exact_value(self) -> set[str]:
        kind, _ = self.lookahead()
        if kind in (_EOS, _COMMA):
            return {""}
        kind, literal = self.consume()
        if kind == _IDENT:
            return {literal}
        raise SelectorError(f"found '{literal}', expected: identifier")


def parse_selector(text: str) -> Selector:
    """Parse the string syntax of a label selector.

    Grammar (comma means AND, whitespace around tokens is ignored)::

        key=value  key==value  key!=value  key in (v1,v2)  key notin (v1)  key  !key

    ``key>5`` and ``key<5`` (integer comparison) are accepted as upstream does.
    An empty string gives the selector that matches everything. Errors raise
    :class:`SelectorError` with upstream's wording, for example
    ``unable to parse requirement: <nil>: Invalid value: "Foo_%": name part must ...``.
    """
    return Selector(_Parser(text).parse())


# --- API object form -----------------------------------------------------------


def selector_from_set(labels: Mapping[str, str] | None) -> Selector:
    """Build an equality selector from a plain label map without validating it.

    This is how a Service's ``spec.selector`` map is turned into a selector;
    None and ``{}`` both give the match-everything selector, as upstream's
    ``SelectorFromSet`` does.
    """
    if not labels:
        return Selector()
    return Selector(Requirement(key, EQUALS, (value,)) for key, value in labels.items())


def selector_from_label_selector(obj: Mapping[str, Any] | None, *, none_matches_everything: bool = False) -> Selector:
    """Convert a ``LabelSelector`` API object into a :class:`Selector`.

    Semantics follow ``metav1.LabelSelectorAsSelector``:

    * ``None`` (the field is absent) selects **nothing**. Pass
      ``none_matches_everything=True`` where an absent selector should mean
      "everything" instead;
    * ``{}`` (or empty ``matchLabels`` and ``matchExpressions``) selects everything;
    * otherwise every ``matchLabels`` entry and every ``matchExpressions`` item
      must hold.

    Invalid keys, values or operators raise :class:`SelectorError`, for example
    ``"Equals" is not a valid pod selector operator``.
    """
    if obj is None:
        return everything() if none_matches_everything else nothing()
    if not isinstance(obj, Mapping):
        raise SelectorError("label selector must be an object")
    match_labels = obj.get("matchLabels") or {}
    match_expressions = obj.get("matchExpressions") or []
    if not isinstance(match_labels, Mapping):
        raise SelectorError("matchLabels must be a map of strings")
    if not isinstance(match_expressions, list):
        raise SelectorError("matchExpressions must be a list")
    if not match_labels and not match_expressions:
        return everything()

    requirements: list[Requirement] = []
    # Sorted so that, with several bad entries, the reported one is stable
    # (upstream walks a Go map, whose order is random).
    for key in sorted(match_labels):
        value = match_labels[key]
        if not isinstance(value, str):
            raise SelectorError(f"matchLabels[{key}]: value must be a string")
        requirements.append(Requirement.new(key, EQUALS, [value]))
    for expr in match_expressions:
        if not isinstance(expr, Mapping):
            raise SelectorError("matchExpressions items must be objects")
        raw_operator = expr.get("operator")
        operator = _LABEL_SELECTOR_OPERATORS.get(raw_operator) if isinstance(raw_operator, str) else None
        if operator is None:
            shown = (
                raw_operator if isinstance(raw_operator, str) else ("" if raw_operator is None else str(raw_operator))
            )
            raise SelectorError(f"{_go_quote(shown)} is not a valid pod selector operator")
        values = expr.get("values") or []
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise SelectorError("matchExpressions values must be a list of strings")
        key = expr.get("key", "")
        if not isinstance(key, str):
            raise SelectorError("matchExpressions key must be a string")
        requirements.append(_build_requirement(key, operator, list(values), nil_when_empty=True))
    return Selector(requirements)


def format_label_selector(obj: Mapping[str, Any] | None) -> str:
    """Render a ``LabelSelector`` object the way kubectl's tables and ``describe`` do.

    Gives ``app=myapp`` for a simple selector, ``<none>`` when it selects
    everything or is absent, and ``<error>`` when it is invalid.
    """
    try:
        text = str(selector_from_label_selector(obj))
    except SelectorError:
        return "<error>"
    return text or "<none>"
