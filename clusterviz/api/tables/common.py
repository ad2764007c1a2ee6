"""Shared helpers of the Table printers: Go-zero-value accessors, timestamps and row helpers."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from clusterviz.apimachinery.duration import human_duration_ns
from clusterviz.apimachinery.unstructured import dict_or_empty, list_or_empty, str_or_empty

NONE = "<none>"
UNKNOWN = "<unknown>"


# --------------------------------------------------------------------------
# Safe accessors: never raise on wrong types, mimic Go zero values instead.
# --------------------------------------------------------------------------


def _i(value: Any) -> int:
    """An integer field; Go's zero for anything that would not decode into an int."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return 0


def _replicas(spec: dict[str, Any]) -> int:
    """spec.replicas, defaulted to 1 when absent as the API server does on create."""
    value = spec.get("replicas")
    return 1 if value is None else _i(value)


def _str_map(value: Any) -> dict[str, str]:
    """A map[string]string, keeping only string values."""
    return {k: v for k, v in dict_or_empty(value).items() if isinstance(k, str) and isinstance(v, str)}


# --------------------------------------------------------------------------
# Timestamps
# --------------------------------------------------------------------------

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NS = 1_000_000_000
_RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})")
# Go's zero time.Time (0001-01-01T00:00:00Z), which prints as <unknown>.
_ZERO_TIME_NS = (datetime(1, 1, 1, tzinfo=UTC) - _EPOCH) // timedelta(microseconds=1) * 1000


def parse_timestamp_ns(value: Any) -> int | None:
    """Parse an RFC 3339 timestamp into Unix nanoseconds.

    Returns None for anything Go would treat as a zero or undecodable
    ``metav1.Time``: missing, null, not a string, malformed, or the zero time.
    Fractional seconds (``MicroTime``) and numeric offsets are accepted.
    """
    if not isinstance(value, str):
        return None
    m = _RFC3339.fullmatch(value)
    if m is None:
        return None
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    try:
        base = datetime(year, month, day, hour, minute, second, tzinfo=UTC)
    except ValueError:
        return None
    frac = m.group(7) or ""
    nanos = int((frac + "000000000")[:9])
    offset = 0
    zone = m.group(8)
    if zone not in ("Z", "z"):
        oh, om = int(zone[1:3]), int(zone[4:6])
        if oh > 23 or om > 59:
            return None
        offset = (oh * 3600 + om * 60) * (1 if zone[0] == "+" else -1)
    delta = base - _EPOCH
    seconds = delta.days * 86400 + delta.seconds - offset
    ns = seconds * _NS + nanos
    return None if ns == _ZERO_TIME_NS else ns


def _datetime_to_ns(now: datetime) -> int:
    """Unix nanoseconds of ``now``; naive datetimes are taken to be UTC."""
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    delta = now - _EPOCH
    return (delta.days * 86400 + delta.seconds) * _NS + delta.microseconds * 1000


def _since(value: Any, now_ns: int) -> str:
    """Upstream's translateTimestampSince: HumanDuration(now - t), ``<unknown>`` for zero times."""
    ts = parse_timestamp_ns(value)
    if ts is None:
        return UNKNOWN
    return human_duration_ns(now_ns - ts)


def _rfc3339(ns: int | None) -> str:
    """Format Unix nanoseconds as Go's ``Time.UTC().Format(time.RFC3339)`` (whole seconds)."""
    if ns is None:
        return "0001-01-01T00:00:00Z"
    try:
        t = _EPOCH + timedelta(seconds=ns // _NS)
    except OverflowError:
        return "0001-01-01T00:00:00Z"
    return f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}Z"


# --------------------------------------------------------------------------
# Per-resource printers: each returns (cells, row conditions).
# --------------------------------------------------------------------------

Printed = tuple[list[Any], list[dict[str, Any]]]


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    return dict_or_empty(obj.get("metadata"))


def _container_cells(containers: Any) -> tuple[str, str]:
    """layoutContainerCells: container names and images, each joined by commas."""
    items = [dict_or_empty(c) for c in list_or_empty(containers)]
    return ",".join(str_or_empty(c.get("name")) for c in items), ",".join(str_or_empty(c.get("image")) for c in items)
