"""JSON numbers as Go's decoder and kube-openapi see them.

The API server decodes a custom resource into ``int64`` when a number has no
fraction and fits, and ``float64`` otherwise; kube-openapi's checks and messages
depend on which of the two a value became, and print floats with Go's ``%v``.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any, TypeGuard

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
# The largest integer a float64 holds exactly (go-openapi's maxJSONFloat).
MAX_JSON_FLOAT = float(2**53 - 1)
_EPSILON = 1e-9


def is_number(value: Any) -> TypeGuard[int | float]:
    """A JSON number (Python's bool is an int, but JSON's true is not a number)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def go_number(value: int | float) -> int | float:
    """The value Go holds for a decoded JSON number: an int64, or a float64 when it does not fit."""
    if isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
        try:
            return float(value)
        except OverflowError:  # beyond float64 too; Go's decoder would have refused the body
            return math.inf if value > 0 else -math.inf
    return value


def to_float(value: int | float) -> float:
    """``float(value)`` that never overflows."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def go_int64(value: float) -> int:
    """Go's ``int64(f)``: truncation toward zero, clamped where Go's conversion is undefined."""
    if math.isnan(value):
        return INT64_MIN
    if math.isinf(value):
        return INT64_MAX if value > 0 else INT64_MIN
    return max(INT64_MIN, min(INT64_MAX, math.trunc(value)))


def is_json_integer(value: float) -> bool:
    """go-openapi's ``IsFloat64AJSONInteger``: integral within 2^53, allowing a relative error of 1e-9.

    The tolerance is why ``multipleOf: 0.01`` accepts ``0.07`` (1 / 0.01 * 0.07 is 7.000000000000001).
    """
    if not math.isfinite(value) or abs(value) > MAX_JSON_FLOAT:
        return False
    whole = float(math.trunc(value))
    if value == whole:
        return True
    if value < 0:
        # Go truncates through uint64, which wraps a negative value: only exact integers pass.
        return False
    # Go compares with the truncated value only: 6.999999999999999 is not an integer, 7.000000000000001 is.
    return whole != 0 and abs(value - whole) / (abs(value) + abs(whole)) < _EPSILON


def go_float(value: float) -> str:
    """A float64 printed as Go's ``%v`` does: shortest digits, ``e+06`` style from an exponent of 6 on."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits))
    point = len(text) + exponent  # position of the decimal point within the digits
    exp10 = point - 1
    prefix = "-" if sign else ""
    if exp10 < -4 or exp10 >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{prefix}{mantissa}e{'-' if exp10 < 0 else '+'}{abs(exp10):02d}"
    if point <= 0:
        return f"{prefix}0.{'0' * -point}{text}"
    if point >= len(text):
        return prefix + text + "0" * (point - len(text))
    return f"{prefix}{text[:point]}.{text[point:]}"


def go_value(value: Any) -> str:
    """A bound or factor as kube-openapi's ``%v`` prints it (an int64, or a float64)."""
    return str(value) if isinstance(value, int) else go_float(value)
