"""Field errors in the shape of apimachinery's field.Error.

The API server turns a list of these into a 422 Invalid Status whose
``details.causes`` kubectl prints as ``spec.replicas: Invalid value: -1: ...``.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

# Reason codes used in Status causes, and the words kubectl shows for each.
ERROR_WORDS = {
    "FieldValueRequired": "Required value",
    "FieldValueInvalid": "Invalid value",
    "FieldValueNotSupported": "Unsupported value",
    "FieldValueDuplicate": "Duplicate value",
    "FieldValueForbidden": "Forbidden",
    "FieldValueTooLong": "Too long",
    "FieldValueTooMany": "Too many",
    "FieldValueTypeInvalid": "Invalid value",
    "FieldValueNotFound": "Not found",
}

_NO_VALUE = object()


def format_value(value: Any) -> str:
    """Render a bad value the way Go's field.Error does (strings quoted, numbers bare)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return str(value)
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    except TypeError:
        # YAML keys of several types (1: a, b: c) cannot be sorted: keep them in their order.
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


@dataclass(frozen=True)
class FieldError:
    """One invalid field: ``reason`` is a Status cause reason such as ``FieldValueInvalid``."""

    reason: str
    field: str
    detail: str = ""
    value: Any = dataclasses.field(default=_NO_VALUE, compare=False)

    @property
    def message(self) -> str:
        """The text after ``<field>: `` in kubectl's output."""
        words = ERROR_WORDS.get(self.reason, "Invalid value")
        parts = [words]
        if self.value is not _NO_VALUE and self.reason not in (
            "FieldValueRequired",
            "FieldValueForbidden",
        ):
            parts.append(format_value(self.value))
        if self.detail:
            parts.append(self.detail)
        return ": ".join(parts)

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"

    def as_cause(self) -> dict[str, str]:
        """The Status ``details.causes`` entry."""
        return {"reason": self.reason, "message": self.message, "field": self.field}


def required(path: str, detail: str = "") -> FieldError:
    return FieldError("FieldValueRequired", path, detail)


def invalid(path: str, value: Any, detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path, detail, value)


def not_supported(path: str, value: Any, supported: list[str]) -> FieldError:
    quoted = ", ".join(json.dumps(s) for s in supported)
    return FieldError("FieldValueNotSupported", path, f"supported values: {quoted}", value)


def duplicate(path: str, value: Any) -> FieldError:
    return FieldError("FieldValueDuplicate", path, "", value)


def too_many(path: str, count: int, limit: int) -> FieldError:
    """field.TooMany: a list longer than its limit ("Too many: 101: must have at most 100 items")."""
    return FieldError("FieldValueTooMany", path, f"must have at most {limit} items", count)


def forbidden(path: str, detail: str) -> FieldError:
    return FieldError("FieldValueForbidden", path, detail)


def not_found(path: str, value: Any) -> FieldError:
    return FieldError("FieldValueNotFound", path, "", value)


def type_invalid(path: str, value: Any, detail: str) -> FieldError:
    """A value of the wrong JSON type (a string where an object belongs, a float for an int32)."""
    return FieldError("FieldValueTypeInvalid", path, detail, value)
