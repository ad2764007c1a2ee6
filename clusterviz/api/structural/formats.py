"""The string formats a CRD schema may declare, checked as kube-openapi's ``strfmt.Default`` registry does.

Format names are compared with dashes removed (``date-time`` is ``datetime``), as
go-openapi normalises them. A format the apiextensions server does not support
is dropped from the schema before validation, so it checks nothing.
"""

from __future__ import annotations

import datetime
import ipaddress
import re
from collections.abc import Callable

from clusterviz.apimachinery.duration import parse_go_duration
from clusterviz.apimachinery.quantity import QuantityError, parse_quantity

# Upstream's regular expressions for the formats defined by one.
_UUID = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
_UUID3 = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
_UUID4 = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")
_UUID5 = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")
# Go's \p{S}\p{L} (symbols and letters) read here as "any non-ASCII character".
_HOST_CHAR = r"[a-zA-Z0-9\u0080-\U0010ffff]"
_HOSTNAME = re.compile(
    rf"^({_HOST_CHAR}((-?{_HOST_CHAR}{{0,62}})?)|({_HOST_CHAR}(([a-zA-Z0-9\-\u0080-\U0010ffff]{{0,61}}{_HOST_CHAR})?)(\.)){{1,}}"
    r"([a-zA-Z\u0080-\U0010ffff]){2,63})$"
)
_HEXCOLOR = re.compile(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")
_OCTET = r"\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*"
_RGBCOLOR = re.compile(rf"^rgb\({_OCTET},{_OCTET},{_OCTET}\)$")
_SSN = re.compile(r"^\d{3}[- ]?\d{2}[- ]?\d{4}$")
_BASE64 = re.compile(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$")
_CREDITCARD = re.compile(
    r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}"
    r"|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$"
)
_ISBN10 = re.compile(r"^(?:[0-9]{9}X|[0-9]{10})$")
_ISBN13 = re.compile(r"^(?:[0-9]{13})$")
_MAC = re.compile(
    r"^(?:[0-9a-fA-F]{2}(?P<sep>[:-]))(?:[0-9a-fA-F]{2}(?P=sep)){4,18}[0-9a-fA-F]{2}$"
    r"|^(?:[0-9a-fA-F]{4}\.){2,9}[0-9a-fA-F]{4}$"
)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:")
_EMAIL = re.compile(r"^[^@\s<>]+@[^@\s<>]+$")
_DURATION_PART = re.compile(r"(\d+)\s*([A-Za-zµ]+)")
_DURATION_UNITS = frozenset(
    "ns nanosecond nanoseconds us µs microsecond microseconds ms millisecond milliseconds s sec second seconds "
    "m min minute minutes h hr hour hours d day days w wk week weeks".split()
)


def _is_ipv4(text: str) -> bool:
    # ParseIPSloppy tolerates leading zeros; an IPv4-mapped IPv6 address with a dot also passes.
    parts = text.split(".")
    if len(parts) == 4 and all(p.isascii() and p.isdigit() and len(p) <= 3 and int(p) <= 255 for p in parts):
        return True
    return "." in text and _is_ipv6(text)


def _is_ipv6(text: str) -> bool:
    if ":" not in text or "%" in text:
        return False
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def _is_cidr(text: str) -> bool:
    address, _, prefix = text.partition("/")
    if not prefix.isascii() or not prefix.isdigit():
        return False
    if _is_ipv4(address) and "." in address and ":" not in address:
        return int(prefix) <= 32
    return _is_ipv6(address) and int(prefix) <= 128


def _is_date(text: str) -> bool:
    if not _DATE.match(text):
        return False
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _is_datetime(text: str) -> bool:
    if len(text) < 4:
        return False
    parts = text.lower().split("t")
    if len(parts) < 2 or not _is_date(parts[0]):
        return False
    match = _TIME.match(parts[1])
    return match is not None and match[1] <= "23" and match[2] <= "59" and match[3] <= "59"


def _is_duration(text: str) -> bool:
    try:
        parse_go_duration(text)
        return True
    except ValueError:
        pass
    return any(unit.lower() in _DURATION_UNITS for _, unit in _DURATION_PART.findall(text))


def _is_uri(text: str) -> bool:
    # url.ParseRequestURI: an absolute URI or an absolute path, without control characters.
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        return False
    if text.startswith("/"):
        return True
    if not _SCHEME.match(text):
        return False
    rest = text.split(":", 1)[1]
    host = rest[2:].split("/", 1)[0] if rest.startswith("//") else ""
    return " " not in host


def _is_email(text: str) -> bool:
    if text.endswith(">") and "<" in text:
        text = text[text.rindex("<") + 1 : -1]
    return bool(_EMAIL.match(text))


def _is_quantity(text: str) -> bool:
    try:
        parse_quantity(text)
    except QuantityError:
        return False
    return True


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def _is_creditcard(text: str) -> bool:
    digits = re.sub(r"[^0-9]", "", text)
    return bool(_CREDITCARD.match(digits)) and _luhn(digits)


def _is_isbn10(text: str) -> bool:
    s = re.sub(r"[\s-]", "", text)
    if not _ISBN10.match(s):
        return False
    total = sum((10 - i) * int(c) for i, c in enumerate(s[:9])) + (10 if s[9] == "X" else int(s[9]))
    return total % 11 == 0


def _is_isbn13(text: str) -> bool:
    s = re.sub(r"[\s-]", "", text)
    if not _ISBN13.match(s):
        return False
    total = sum(int(c) * (3 if i % 2 else 1) for i, c in enumerate(s[:12]))
    return (10 - total % 10) % 10 == int(s[12])


def _is_hostname(text: str) -> bool:
    return bool(_HOSTNAME.match(text)) and len(text) <= 255 and all(len(p) <= 63 for p in text.split("."))


def _is_bson_object_id(text: str) -> bool:
    return len(text) == 24 and all(c in "0123456789abcdefABCDEF" for c in text)


FORMATS: dict[str, Callable[[str], bool]] = {
    "bsonobjectid": _is_bson_object_id,
    "uri": _is_uri,
    "email": _is_email,
    "hostname": _is_hostname,
    "ipv4": _is_ipv4,
    "ipv6": _is_ipv6,
    "cidr": _is_cidr,
    "mac": lambda s: bool(_MAC.match(s)),
    "uuid": lambda s: bool(_UUID.match(s)),
    "uuid3": lambda s: bool(_UUID3.match(s)),
    "uuid4": lambda s: bool(_UUID4.match(s)),
    "uuid5": lambda s: bool(_UUID5.match(s)),
    "isbn": lambda s: _is_isbn10(s) or _is_isbn13(s),
    "isbn10": _is_isbn10,
    "isbn13": _is_isbn13,
    "creditcard": _is_creditcard,
    "ssn": lambda s: len(s) == 11 and bool(_SSN.match(s)),
    "hexcolor": lambda s: bool(_HEXCOLOR.match(s)),
    "rgbcolor": lambda s: bool(_RGBCOLOR.match(s)),
    "byte": lambda s: bool(_BASE64.match(s)),
    "password": lambda s: True,
    "date": _is_date,
    "duration": _is_duration,
    "datetime": _is_datetime,
    "quantity": _is_quantity,
}


def effective_format(schema_format: object, types: list[str]) -> str:
    """The format left after the apiextensions server strips what it does not support for the type.

    Strings (or no type) keep a supported string format, integers int32/int64, numbers float/double.
    """
    if not isinstance(schema_format, str) or not schema_format:
        return ""
    kind = types[0] if len(types) == 1 else ""
    if kind in ("", "string"):
        return schema_format if schema_format.replace("-", "") in FORMATS else ""
    if kind == "integer":
        return schema_format if schema_format in ("int32", "int64") else ""
    if kind == "number":
        return schema_format if schema_format in ("float", "double") else ""
    return ""


def string_format_checker(schema_format: str) -> Callable[[str], bool] | None:
    """The check of a string format, or None when the registry does not know it."""
    return FORMATS.get(schema_format.replace("-", ""))
