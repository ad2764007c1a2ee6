"""Resource quantities (``500m``, ``128Mi``, ``1e3``) in the shape of apimachinery's ``resource.Quantity``.

A quantity is an exact decimal number plus the *format* it was written in,
which decides how it prints:

* ``DecimalSI``: ``n u m "" k M G T P E`` suffixes, powers of 1000;
* ``BinarySI``: ``Ki Mi Gi Ti Pi Ei`` suffixes, powers of 1024;
* ``DecimalExponent``: ``e3``/``E-6`` style exponents.

Parsing follows upstream's rules, quirks included: values are rounded *up*
(away from zero) to whole nano units, binary values are capped at 2^63-1, and
a binary value below 1 is shown in decimal form. :meth:`Quantity.canonical`
gives the string the real API server would store and return, e.g. ``0.5`` ->
``500m``, ``1024Mi`` -> ``1Gi``, ``1000`` -> ``1k``; a value already written
canonically keeps its spelling (``1e3`` stays ``1e3``, ``3Mi`` stays ``3Mi``).
"""

from __future__ import annotations

from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal
from functools import lru_cache, total_ordering
from typing import Any, Final

__all__ = [
    "BINARY_SI",
    "DECIMAL_EXPONENT",
    "DECIMAL_SI",
    "FORMAT_ERROR",
    "SUFFIX_ERROR",
    "Quantity",
    "QuantityError",
    "format_bytes",
    "format_cpu_millis",
    "parse_quantity",
]

DECIMAL_SI: Final = "DecimalSI"
BINARY_SI: Final = "BinarySI"
DECIMAL_EXPONENT: Final = "DecimalExponent"

FORMAT_ERROR: Final = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
SUFFIX_ERROR: Final = "unable to parse quantity's suffix"

MAX_INT64: Final = 2**63 - 1
MIN_INT64: Final = -(2**63)
_MAX_INT32: Final = 2**31 - 1
_NANO_EXPONENT: Final = -9
_MILLI_EXPONENT: Final = -3

_DIGITS: Final = frozenset("0123456789")
_SUFFIX_LETTERS: Final = frozenset("eEinumkKMGTP")

_DECIMAL_SUFFIXES: Final = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_BY_EXPONENT: Final = {exp: suffix for suffix, exp in _DECIMAL_SUFFIXES.items()}
_BINARY_SUFFIXES: Final = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_BINARY_BY_POWER: Final = {0: "", 1: "Ki", 2: "Mi", 3: "Gi", 4: "Ti", 5: "Pi", 6: "Ei"}

# Arithmetic on quantities must be exact; the default context rounds at 28 digits.
_EXACT: Final = Context(prec=4000, Emax=MAX_EMAX, Emin=MIN_EMIN)


class QuantityError(ValueError):
    """The text is not a quantity; ``str()`` is upstream's message."""


def _digits_end(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _DIGITS:
        pos += 1
    return pos


def _split(text: str) -> tuple[bool, str, str, str]:
    """Cut ``text`` into sign, integer digits, fraction digits and suffix.

    Leading zeros are dropped from the integer part ("0" when nothing is
    left). A text made of a sign and zeros only is zero, whatever follows the
    zeros would have been.
    """
    end = len(text)
    pos = 0
    positive = True
    if pos < end and text[pos] in "+-":
        positive = text[pos] == "+"
        pos += 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "", ""
    start = pos
    pos = _digits_end(text, pos)
    num = text[start:pos] or "0"
    denom = ""
    if pos < end and text[pos] == ".":
        start = pos + 1
        pos = _digits_end(text, start)
        denom = text[start:pos]
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_LETTERS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    pos = _digits_end(text, pos)
    if pos < end:
        raise QuantityError(FORMAT_ERROR)
    return positive, num, denom, text[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, str]:
    """Return (base, exponent, format) for a suffix."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        body = suffix[1:]
        digits = body[1:] if body[0] in "+-" else body
        if digits and all(c in _DIGITS for c in digits):
            exponent = int(body)
            # The exponent is stored in 32 bits and later negated, so the
            # accepted range is symmetric.
            if -_MAX_INT32 <= exponent <= _MAX_INT32:
                return 10, exponent, DECIMAL_EXPONENT
    raise QuantityError(SUFFIX_ERROR)


def _coefficient(value: Decimal) -> tuple[int, int, int]:
    """Return (sign, coefficient, exponent) with ``value == sign * coefficient * 10**exponent``."""
    sign, digits, exponent = value.as_tuple()
    coefficient = int("".join(map(str, digits))) if digits else 0
    assert isinstance(exponent, int)
    return (-1 if sign else 1), coefficient, exponent


def _make(sign: int, coefficient: int, exponent: int) -> Decimal:
    digits = tuple(int(c) for c in str(coefficient))
    return Decimal((1 if sign < 0 and coefficient else 0, digits, exponent))


def _round_up(value: Decimal, exponent: int) -> Decimal:
    """Round away from zero to a multiple of 10**exponent (exact, any magnitude)."""
    sign, coefficient, exp = _coefficient(value)
    if coefficient == 0 or exp >= exponent:
        return value
    shift = exponent - exp
    if len(str(coefficient)) <= shift:
        return _make(sign, 1, exponent)
    quotient, remainder = divmod(coefficient, 10**shift)
    return _make(sign, quotient + (1 if remainder else 0), exponent)


def _scaled_int(value: Decimal, power: int) -> int:
    """``value * 10**power`` rounded away from zero, saturated to the int64 range."""
    sign, coefficient, exp = _coefficient(value)
    exp += power
    if coefficient == 0:
        return 0
    if exp >= 0:
        magnitude = coefficient * 10**exp if exp <= 20 else MAX_INT64 + 1
    elif len(str(coefficient)) <= -exp:
        magnitude = 1
    else:
        quotient, remainder = divmod(coefficient, 10**-exp)
        magnitude = quotient + (1 if remainder else 0)
    result = sign * magnitude
    return max(MIN_INT64, min(MAX_INT64, result))


def _cached_spelling(text: str, num: str, denom: str, exponent: int, fmt: str) -> str | None:
    """The input itself when upstream keeps it as the quantity's string form.

    Upstream remembers the original text when the number took its fast
    integer path and was already written canonically; that text is what it
    prints back, so ``+1`` stays ``+1`` and ``3Mi`` stays ``3Mi``.
    """
    if fmt == BINARY_SI:
        if denom or exponent < 0:
            return None
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        if precision < 0:
            return None
        value = int(num)
        if (value << exponent) > MAX_INT64:
            return None
        return text if exponent % 10 == 0 and value & 0x07 else None
    if 18 - (len(num) + len(denom)) < 0:
        return None
    scale = exponent - len(denom)
    if scale < _NANO_EXPONENT:
        return None
    shifted = num + denom
    if scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0":
        return text
    return None


def _decimal_string(value: Decimal, fmt: str) -> str:
    sign, coefficient, exponent = _coefficient(value)
    while coefficient % 10 == 0:
        coefficient //= 10
        exponent += 1
    remainder = exponent % 3
    if remainder:
        coefficient *= 10**remainder
        exponent -= remainder
    if fmt == DECIMAL_SI and exponent in _DECIMAL_BY_EXPONENT:
        suffix = _DECIMAL_BY_EXPONENT[exponent]
    elif exponent == 0:
        suffix = ""
    else:
        # No SI suffix this large or small: exponent notation keeps the magnitude.
        suffix = f"e{exponent}"
    return ("-" if sign < 0 else "") + str(coefficient) + suffix


def _canonical(value: Decimal, fmt: str) -> str:
    if value == 0:
        return "0"
    if fmt == BINARY_SI:
        magnitude = value.copy_abs()
        if magnitude < 1024 or magnitude != _EXACT.to_integral_value(magnitude):
            # Small or fractional binary values read better (and exactly) in decimal.
            return _decimal_string(value, DECIMAL_SI)
        number = int(magnitude)
        power = 0
        while number % 1024 == 0 and power < 7:
            number //= 1024
            power += 1
        if power > 6:
            return _decimal_string(value, DECIMAL_SI)
        return ("-" if value < 0 else "") + str(number) + _BINARY_BY_POWER[power]
    if fmt not in (DECIMAL_SI, DECIMAL_EXPONENT):
        fmt = DECIMAL_EXPONENT
    return _decimal_string(value, fmt)


@total_ordering
class Quantity:
    """An exact amount and the format it prints in. Compare, add and subtract freely."""

    __slots__ = ("_value", "_format", "_spelling")

    def __init__(self, value: Decimal | int | str = 0, fmt: str = DECIMAL_SI, *, _spelling: str | None = None) -> None:
        if isinstance(value, bool):
            raise TypeError("a Quantity needs a number, not a bool")
        self._value = value if isinstance(value, Decimal) else Decimal(value)
        self._format = fmt
        self._spelling = _spelling

    @classmethod
    def from_milli(cls, millis: int, fmt: str = DECIMAL_SI) -> Quantity:
        """Build ``millis`` thousandths, e.g. ``from_milli(500)`` prints ``500m``."""
        return cls(Decimal(int(millis)).scaleb(-3, _EXACT), fmt)

    @property
    def format(self) -> str:
        """``DecimalSI``, ``BinarySI`` or ``DecimalExponent``."""
        return self._format

    def as_decimal(self) -> Decimal:
        """The exact value."""
        return self._value

    def milli_value(self) -> int:
        """The value in thousandths, rounded away from zero (``100u`` -> 1), as upstream's ``MilliValue``."""
        return _scaled_int(self._value, 3)

    def value(self) -> int:
        """The value rounded away from zero to a whole number (``1.5`` -> 2), as upstream's ``Value``."""
        return _scaled_int(self._value, 0)

    def sign(self) -> int:
        return (self._value > 0) - (self._value < 0)

    def is_zero(self) -> bool:
        return self._value == 0

    def round_up(self, exponent: int = _MILLI_EXPONENT) -> Quantity:
        """Round away from zero to a multiple of 10**exponent (milli by default), as ``RoundUp``.

        The API server does this to every resource list it stores, so ``0.5m``
        becomes ``1m``. An exact value keeps its spelling.
        """
        rounded = _round_up(self._value, exponent)
        if rounded == self._value and _coefficient(self._value)[2] >= exponent:
            return self
        return Quantity(rounded, self._format)

    def canonical(self) -> str:
        """The string the API server stores and returns for this quantity."""
        if self._spelling is not None:
            return self._spelling
        return _canonical(self._value, self._format)

    def __str__(self) -> str:
        return self.canonical()

    def __repr__(self) -> str:
        return f"Quantity({self.canonical()!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Quantity):
            return self._value == other._value
        return NotImplemented

    def __lt__(self, other: object) -> bool:
        if isinstance(other, Quantity):
            return self._value < other._value
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._value)

    def __add__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        # Like upstream's Add, a zero takes on the format of what is added to it.
        fmt = other._format if self.is_zero() else self._format
        return Quantity(_EXACT.add(self._value, other._value), fmt)

    def __sub__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        fmt = other._format if self.is_zero() else self._format
        return Quantity(_EXACT.subtract(self._value, other._value), fmt)

    def __neg__(self) -> Quantity:
        return Quantity(self._value.copy_negate(), self._format)


def parse_quantity(value: str | int | float | Decimal) -> Quantity:
    """Parse a quantity as upstream's ``ParseQuantity`` does, raising :class:`QuantityError`.

    JSON numbers (``cpu: 1``, ``cpu: 0.5``) are accepted as their decimal
    text. Whitespace is not trimmed here; a caller decoding an object may strip
    it first, as the API server's JSON decoder does.
    """
    if isinstance(value, bool):
        raise QuantityError(FORMAT_ERROR)
    if isinstance(value, (int, float, Decimal)):
        text = str(value)
    elif isinstance(value, str):
        text = value
    else:
        raise QuantityError(FORMAT_ERROR)
    if not text:
        raise QuantityError(FORMAT_ERROR)
    if text == "0":
        return Quantity(0, DECIMAL_SI, _spelling="0")

    positive, num, denom, suffix = _split(text)
    base, exponent, parsed_format = _interpret(suffix)
    fmt = parsed_format

    coefficient = int(num + denom)
    if base == 2:
        coefficient <<= exponent
        amount = _make(1, coefficient, -len(denom))
    else:
        amount = _make(1, coefficient, exponent - len(denom))

    amount = _round_up(amount, _NANO_EXPONENT)
    if fmt == BINARY_SI and amount > MAX_INT64:
        amount = Decimal(MAX_INT64)
    if fmt == BINARY_SI and 0 < amount < 1:
        fmt = DECIMAL_SI
    if not positive:
        amount = amount.copy_negate()

    spelling = _cached_spelling(text, num, denom, exponent, parsed_format) if amount != 0 else None
    return Quantity(amount, fmt, _spelling=spelling)


def format_cpu_millis(millis: int) -> str:
    """Print a CPU amount given in millicores the API server's way: 500 -> ``500m``, 2000 -> ``2``."""
    return Quantity.from_milli(millis).canonical()


def format_bytes(count: int) -> str:
    """Print a byte count the API server's way: 134217728 -> ``128Mi``, 1500 -> ``1500``."""
    return Quantity(int(count), BINARY_SI).canonical()


def parse_or_none(value: Any) -> Quantity | None:
    """``value`` (a string or a JSON number) as a quantity; None if it is no quantity."""
    if isinstance(value, str):
        return _parse_text(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return parse_quantity(value)
    except QuantityError:
        return None


# Every write of a Pod or a Node defaults its resource lists again (and works out a Pod's QoS class from
# them), and they hold the same few spellings ("100m", "64Mi"): parsing them anew was a fifth of the cost
# of defaulting a Pod. A Quantity never changes, so one may be shared.
@lru_cache(maxsize=4096)
def _parse_text(text: str) -> Quantity | None:
    try:
        return parse_quantity(text.strip())
    except QuantityError:
        return None


def rounded_to_milli(value: Any) -> str | None:
    """``value`` as a quantity rounded up to milli units, in canonical form; None if it is no quantity."""
    if isinstance(value, str):
        return _rounded_text(value)
    return _rounded(value)


def _rounded(value: Any) -> str | None:
    quantity = parse_or_none(value)
    return None if quantity is None else quantity.round_up(-3).canonical()


# The canonical forms of those spellings, remembered as their quantities are.
_rounded_text = lru_cache(maxsize=4096)(_rounded)
