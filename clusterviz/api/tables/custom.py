"""Custom resources' tables: the Name column, then each additionalPrinterColumn of the CRD version.

As the CRD handler's table convertor: a column's JSONPath takes its first match;
string columns print it, integer, number and boolean columns keep the JSON value,
date columns become an age, and a column that finds nothing is empty (kubectl
prints ``<none>``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from jsonpath_ng import JSONPath
from jsonpath_ng.exceptions import JsonPathLexerError, JsonPathParserError
from jsonpath_ng.ext import parse

from clusterviz.apimachinery.unstructured import str_or_empty

from .columns import _col, _name_col
from .common import Printed, _meta, _since


@functools.lru_cache(maxsize=512)
def _compiled(json_path: str) -> JSONPath | None:
    """A column's path (``.spec.cronSpec``) compiled once; None when it does not parse."""
    try:
        return parse("$" + json_path if json_path.startswith((".", "[")) else "$." + json_path)
    except (JsonPathLexerError, JsonPathParserError, ValueError, AttributeError):
        return None


def _first_match(obj: dict[str, Any], json_path: str) -> Any:
    path = _compiled(json_path)
    if path is None:
        return None
    found = path.find(obj)
    return found[0].value if found else None


def _cell(type_: str, value: Any, now_ns: int) -> Any:
    """cellForJSONValue: the value as the column's type shows it, None when it is not of that type."""
    if value is None:
        return None
    if type_ == "string":
        return value if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)
    if type_ == "integer" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    if type_ == "number" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if type_ == "boolean" and isinstance(value, bool):
        return value
    if type_ == "date" and isinstance(value, str):
        age = _since(value, now_ns)
        return "<invalid>" if age == "<unknown>" else age
    return None


def column_definitions(columns: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    """The table's columns: Name, then the version's printer columns with their priority."""
    return [_name_col()] + [
        _col(str_or_empty(c.get("name")), str_or_empty(c.get("type")), str_or_empty(c.get("description")),
             int(c.get("priority") or 0), str_or_empty(c.get("format")))
        for c in columns
    ]


def printer(columns: tuple[dict[str, Any], ...]) -> Callable[[dict[str, Any], int], Printed]:
    """The row printer of a custom resource version."""
    def print_row(obj: dict[str, Any], now_ns: int) -> Printed:
        cells: list[Any] = [str_or_empty(_meta(obj).get("name"))]
        for column in columns:
            value = _first_match(obj, str_or_empty(column.get("jsonPath")))
            cells.append(_cell(str_or_empty(column.get("type")), value, now_ns))
        return cells, []

    return print_row
