"""Typed reads of decoded JSON, as apimachinery's ``unstructured`` helpers do.

Objects reach the API server and the components as plain decoded JSON, where
any field may hold anything. These give the Go zero value for a field of the
wrong type, so a caller never raises on a malformed object and a type checker
knows what it holds.
"""

from __future__ import annotations

from typing import Any


def dict_or_empty(value: object) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def list_or_empty(value: object) -> list[Any]:
    """``value`` if it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def str_or_empty(value: object) -> str:
    """``value`` if it is a string, else ""."""
    return value if isinstance(value, str) else ""


def resource_version(obj: object) -> int:
    """An object's ``metadata.resourceVersion`` as the store's revision (0 when missing or not a number)."""
    value = dict_or_empty(dict_or_empty(obj).get("metadata")).get("resourceVersion")
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0
