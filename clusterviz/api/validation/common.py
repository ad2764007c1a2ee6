"""Shared pieces of the validators: field paths, typed getters and upstream's common messages.

Objects arrive as decoded JSON, so any field may hold any type. The getters
here never raise: a value of the wrong type becomes a ``FieldValueTypeInvalid``
error and the getter returns :data:`BAD` (or ``None`` for containers), so the
caller skips the checks that need the value.
"""

from __future__ import annotations

import enum
import ipaddress
import re
from typing import Any, Final, Literal

from clusterviz.apimachinery.field import FieldError, invalid, not_supported, required, type_invalid
from clusterviz.apimachinery.names import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
)
from clusterviz.apimachinery.quantity import FORMAT_ERROR, Quantity, QuantityError, parse_quantity

Errors = list[FieldError]


class _Bad(enum.Enum):
    """Marker for a field whose value had the wrong type (already reported).

    An enum member, so a type checker narrows ``value is not BAD`` as it does ``is not None``.
    """

    BAD = "BAD"

    def __repr__(self) -> str:
        return "BAD"

    def __bool__(self) -> Literal[False]:
        # Literal: a type checker then knows ``if value:`` has left BAD out.
        return False


BAD: Final = _Bad.BAD

INT32_MAX: Final = 2**31 - 1
INT32_MIN: Final = -(2**31)
INT64_MAX: Final = 2**63 - 1
INT64_MIN: Final = -(2**63)

# Upstream's shared messages.
IS_NEGATIVE_MSG: Final = "must be greater than or equal to 0"
IS_NOT_POSITIVE_MSG: Final = "must be greater than zero"
IS_NOT_INTEGER_MSG: Final = "must be an integer"
IMMUTABLE_MSG: Final = "field is immutable"
INVALID_IP_MSG: Final = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
SUPPORTED_PROTOCOLS: Final = ["SCTP", "TCP", "UDP"]


# --- paths --------------------------------------------------------------------


def child(path: str, *names: str) -> str:
    """``child("spec", "template", "spec")`` -> ``spec.template.spec``."""
    for name in names:
        path = f"{path}.{name}" if path else name
    return path


def index(path: str, i: int) -> str:
    return f"{path}[{i}]"


def key(path: str, k: str) -> str:
    """A map entry, printed the way upstream's ``Path.Key`` does: ``resources.limits[cpu]``."""
    return f"{path}[{k}]"


# --- typed getters --------------------------------------------------------------


def type_error(path: str, value: Any, type_name: str) -> FieldError:
    return type_invalid(path, value, f"must be of type {type_name}")


def as_dict(value: Any, path: str, errs: Errors) -> dict[str, Any] | None:
    """``value`` if it is an object, None if absent; a type error otherwise."""
    if value is None:
        return None
    if isinstance(value, dict):
        return value
    errs.append(type_error(path, value, "object"))
    return None


def as_list(value: Any, path: str, errs: Errors) -> list[Any] | None:
    if value is None:
        return None
    if isinstance(value, list):
        return value
    errs.append(type_error(path, value, "array"))
    return None


def get_dict(obj: dict[str, Any], name: str, path: str, errs: Errors) -> dict[str, Any] | None:
    return as_dict(obj.get(name), child(path, name), errs)


def get_list(obj: dict[str, Any], name: str, path: str, errs: Errors) -> list[Any] | None:
    return as_list(obj.get(name), child(path, name), errs)


def get_str(obj: dict[str, Any], name: str, path: str, errs: Errors) -> str | _Bad:
    """The string value, ``""`` when absent or null, :data:`BAD` when not a string."""
    value = obj.get(name)
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    errs.append(type_error(child(path, name), value, "string"))
    return BAD


def get_opt_str(obj: dict[str, Any], name: str, path: str, errs: Errors) -> str | None | _Bad:
    """Like :func:`get_str`, but None when absent (for optional pointer fields)."""
    value = obj.get(name)
    if value is None:
        return None
    if isinstance(value, str):
        return value
    errs.append(type_error(child(path, name), value, "string"))
    return BAD


def check_int(value: Any, path: str, errs: Errors, *, bits: int = 32) -> int | None | _Bad:
    """An integer of the given width; None when absent; floats and bools are type errors."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        errs.append(type_error(path, value, "integer"))
        return BAD
    low, high = (INT32_MIN, INT32_MAX) if bits == 32 else (INT64_MIN, INT64_MAX)
    if not low <= value <= high:
        errs.append(type_invalid(path, value, f"must fit in a {bits}-bit integer"))
        return BAD
    return value


def get_int(obj: dict[str, Any], name: str, path: str, errs: Errors, *, bits: int = 32) -> int | None | _Bad:
    return check_int(obj.get(name), child(path, name), errs, bits=bits)


def get_bool(obj: dict[str, Any], name: str, path: str, errs: Errors) -> bool | None | _Bad:
    value = obj.get(name)
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    errs.append(type_error(child(path, name), value, "boolean"))
    return BAD


def get_str_map(obj: dict[str, Any], name: str, path: str, errs: Errors) -> dict[str, str] | None:
    """A map of strings (labels, annotations, selectors); entries of other types are reported and dropped."""
    return as_str_map(obj.get(name), child(path, name), errs)


def as_str_map(value: Any, path: str, errs: Errors) -> dict[str, str] | None:
    mapping = as_dict(value, path, errs)
    if mapping is None:
        return None
    result: dict[str, str] = {}
    for k, v in mapping.items():
        if isinstance(v, str):
            result[k] = v
        elif v is None:
            result[k] = ""
        else:
            errs.append(type_error(key(path, k), v, "string"))
    return result


def get_str_list(obj: dict[str, Any], name: str, path: str, errs: Errors) -> list[str] | None:
    return as_str_list(obj.get(name), child(path, name), errs)


def as_str_list(value: Any, path: str, errs: Errors) -> list[str] | None:
    items = as_list(value, path, errs)
    if items is None:
        return None
    result: list[str] = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            result.append(item)
        else:
            errs.append(type_error(index(path, i), item, "string"))
    return result


def dict_items(items: list[Any] | None, path: str, errs: Errors) -> list[tuple[int, str, dict[str, Any]]]:
    """The object entries of a list with their index and path; other entries are type errors."""
    result: list[tuple[int, str, dict[str, Any]]] = []
    for i, item in enumerate(items or []):
        item_path = index(path, i)
        if isinstance(item, dict):
            result.append((i, item_path, item))
        else:
            errs.append(type_error(item_path, item, "object"))
    return result


def int_or_string(value: Any, path: str, errs: Errors) -> int | str | None | _Bad:
    """An IntOrString field (targetPort, maxSurge): an int32 or a string."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return check_int(value, path, errs)
    errs.append(type_invalid(path, value, "must be an integer or a string"))
    return BAD


def quantity_field(value: Any, path: str, errs: Errors) -> Quantity | None:
    """Parse a quantity the way the API server's decoder does (surrounding blanks are ignored)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        errs.append(invalid(path, value, FORMAT_ERROR))
        return None
    try:
        return parse_quantity(value.strip() if isinstance(value, str) else value)
    except QuantityError as exc:
        errs.append(invalid(path, value, str(exc)))
        return None


# --- common value checks -----------------------------------------------------


def nonnegative(value: int | None | _Bad, path: str) -> Errors:
    if isinstance(value, int) and value < 0:
        return [invalid(path, value, IS_NEGATIVE_MSG)]
    return []


def inclusive_range_error(low: int, high: int) -> str:
    return f"must be between {low} and {high}, inclusive"


def port_num_errors(port: int) -> list[str]:
    if 1 <= port <= 65535:
        return []
    return [inclusive_range_error(1, 65535)]


_PORT_NAME_CHARSET = re.compile(r"[-a-z0-9]+")
_PORT_NAME_LETTER = re.compile(r"[a-z]")


def port_name_errors(name: str) -> list[str]:
    """IANA_SVC_NAME rules for named ports, with upstream's messages."""
    errs: list[str] = []
    if len(name) > 15:
        errs.append("must be no more than 15 characters")
    if not _PORT_NAME_CHARSET.fullmatch(name):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _PORT_NAME_LETTER.search(name):
        errs.append("must contain at least one letter (a-z)")
    if "--" in name:
        errs.append("must not contain consecutive hyphens")
    if name and (name[0] == "-" or name[-1] == "-"):
        errs.append("must not begin or end with a hyphen")
    return errs


def parse_ip(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """Parse an IP as Kubernetes does, which also accepts IPv4 octets with leading zeros."""
    try:
        return ipaddress.ip_address(value)
    except ValueError:
        pass
    parts = value.split(".")
    if len(parts) == 4 and all(p.isascii() and p.isdigit() and len(p) <= 3 for p in parts):
        try:
            return ipaddress.ip_address(".".join(str(int(p)) for p in parts))
        except ValueError:
            return None
    return None


def ip_errors(value: str) -> list[str]:
    return [] if parse_ip(value) is not None else [INVALID_IP_MSG]


def each_invalid(path: str, value: Any, messages: list[str]) -> Errors:
    return [invalid(path, value, msg) for msg in messages]


def dns1123_label(value: str, path: str) -> Errors:
    return each_invalid(path, value, is_dns1123_label(value))


def dns1123_subdomain(value: str, path: str) -> Errors:
    return each_invalid(path, value, is_dns1123_subdomain(value))


def label_name(value: str, path: str) -> Errors:
    """Upstream's ``ValidateLabelName``: a qualified name such as ``app`` or ``example.com/tier``."""
    return each_invalid(path, value, is_qualified_name(value))


def semantic(value: Any) -> Any:
    """Normalise decoded JSON for equality the way upstream's semantic DeepEqual sees Go structs.

    Absent, null, empty strings, lists and maps are all the zero value, so they
    compare equal to each other.
    """
    if isinstance(value, dict):
        result = {}
        for k, v in value.items():
            norm = semantic(v)
            if norm not in (None, "", [], {}):
                result[k] = norm
        return result
    if isinstance(value, list):
        return [semantic(v) for v in value]
    return value


def validate_port_and_protocol(port: dict[str, Any], path: str, errs: Errors) -> None:
    """``port`` (1-65535) and ``protocol`` (TCP, UDP, SCTP) of a Service or Endpoints port."""
    number = get_int(port, "port", path, errs)
    if number is not BAD:
        value = number or 0
        errs.extend(invalid(child(path, "port"), value, msg) for msg in port_num_errors(value))
    protocol = get_str(port, "protocol", path, errs)
    if protocol == "":
        errs.append(required(child(path, "protocol"), ""))
    elif isinstance(protocol, str) and protocol not in SUPPORTED_PROTOCOLS:
        errs.append(not_supported(child(path, "protocol"), protocol, SUPPORTED_PROTOCOLS))


def validate_app_protocol(port: dict[str, Any], path: str, errs: Errors) -> None:
    """An optional ``appProtocol`` must be a qualified name."""
    app_protocol = get_opt_str(port, "appProtocol", path, errs)
    if isinstance(app_protocol, str):
        errs.extend(label_name(app_protocol, child(path, "appProtocol")))
