"""Comparing and printing decoded JSON values as Go sees them.

Go holds a decoded integer as int64 and anything else as float64, so values that
are equal in Python (``1`` and ``1.0``, ``1`` and ``true``) may differ there. The
helpers work without recursion where a value may nest far deeper than a schema.
"""

from __future__ import annotations

import json
from typing import Any

from .numbers import go_number, is_number


def go_json(value: Any) -> str:
    """A schema value (an enum member) as Go's json.Marshal writes it: decoded as float64, 1.0 is ``1``."""

    def normal(v: Any) -> Any:
        if isinstance(v, float) and v.is_integer() and abs(v) < 1e21:
            return int(v)
        if isinstance(v, list):
            return [normal(x) for x in v]
        if isinstance(v, dict):
            return {str(k): normal(x) for k, x in v.items()}
        return v

    try:
        return json.dumps(normal(value), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return type(value).__name__


def strict_key(value: Any, *, json_numbers: bool = False) -> tuple[Any, ...]:
    """A hashable form equal only for values Go's DeepEqual finds equal (an int64 1 is not a float64 1.0).

    With ``json_numbers``, equal for values whose Go JSON encodings are equal instead (1 and 1.0 both
    encode as ``1``). Built without recursion, as a value may nest far deeper than the schema.
    """
    tokens: list[Any] = []
    stack: list[tuple[bool, Any]] = [(False, value)]
    while stack:
        is_token, node = stack.pop()
        if is_token:
            tokens.append(node)
        elif isinstance(node, dict):
            tokens.append(("object", len(node)))
            for key in sorted(node, key=str, reverse=True):
                stack.append((False, node[key]))
                stack.append((True, ("key", str(key))))
        elif isinstance(node, list):
            tokens.append(("array", len(node)))
            stack.extend((False, item) for item in reversed(node))
        else:
            if is_number(node):
                node = go_number(node)
                if json_numbers:
                    integral = isinstance(node, float) and node.is_integer()
                    tokens.append(("number", int(node) if integral else node))
                    continue
            hashable = isinstance(node, (str, int, float, bool)) or node is None
            tokens.append((type(node).__name__, node if hashable else repr(node)))
    return tuple(tokens)
