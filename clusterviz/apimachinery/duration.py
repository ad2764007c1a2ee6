"""Human-readable durations in the style of apimachinery's ``util/duration``.

kubectl never computes AGE or LAST SEEN itself: the API server puts the text
into Table cells. These helpers produce exactly the strings a real
kube-apiserver would, e.g. ``95s``, ``5m3s``, ``45m``, ``2h5m``, ``30h``,
``3d4h``, ``200d``, ``2y30d`` and ``9y``.

Go's ``time.Duration`` is an integer count of nanoseconds and the upstream
code truncates toward zero at every step, so the arithmetic here works on
integer nanoseconds as well; the float-second entry points only convert.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

__all__ = [
    "human_duration",
    "human_duration_ns",
    "parse_go_duration",
    "short_human_duration",
    "short_human_duration_ns",
]

_SECOND = 1_000_000_000
_MINUTE = 60 * _SECOND
_HOUR = 60 * _MINUTE

# Go durations are int64 nanoseconds; time.Sub saturates at these bounds.
_MAX_NS = 2**63 - 1
_MIN_NS = -(2**63)


def _trunc_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, like Go's ``/`` on integers."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _to_ns(seconds: float | int | Fraction) -> int | None:
    """Convert seconds to saturated int64 nanoseconds; None for NaN or non-numbers."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float, Fraction)):
        return None
    if isinstance(seconds, float):
        if math.isnan(seconds):
            return None
        if math.isinf(seconds):
            return _MAX_NS if seconds > 0 else _MIN_NS
    # Fraction keeps the conversion exact, so 120.0 never becomes 119.999...s.
    ns = math.trunc(Fraction(seconds) * _SECOND)
    return max(_MIN_NS, min(_MAX_NS, ns))


def human_duration_ns(nanoseconds: int) -> str:
    """Format a duration given in integer nanoseconds like Go's ``duration.HumanDuration``.

    Durations of -2s or less print ``<invalid>``; anything in (-2s, 0) prints
    ``0s`` because upstream tolerates small clock skew between machines.
    """
    d = max(_MIN_NS, min(_MAX_NS, int(nanoseconds)))
    seconds = _trunc_div(d, _SECOND)
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 60 * 2:
        return f"{seconds}s"
    minutes = d // _MINUTE
    if minutes < 10:
        s = (d // _SECOND) % 60
        return f"{minutes}m" if s == 0 else f"{minutes}m{s}s"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = d // _HOUR
    if hours < 8:
        m = minutes % 60
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        years = hours // 24 // 365
        days = (hours // 24) % 365
        return f"{years}y" if days == 0 else f"{years}y{days}d"
    return f"{hours // 24 // 365}y"


def human_duration(seconds: float) -> str:
    """Format ``seconds`` (may be negative) exactly as apimachinery's ``HumanDuration``.

    Used for AGE, LAST SEEN, FIRST SEEN and the RESTARTS ``(5m ago)`` suffix.
    NaN (which Go cannot represent) prints ``<invalid>``; infinities saturate
    like Go's ``time.Sub``.
    """
    ns = _to_ns(seconds)
    if ns is None:
        return "<invalid>"
    return human_duration_ns(ns)


def short_human_duration_ns(nanoseconds: int) -> str:
    """Format integer nanoseconds like Go's ``duration.ShortHumanDuration`` (one unit only)."""
    d = max(_MIN_NS, min(_MAX_NS, int(nanoseconds)))
    seconds = _trunc_div(d, _SECOND)
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 60:
        return f"{seconds}s"
    minutes = d // _MINUTE
    if minutes < 60:
        return f"{minutes}m"
    hours = d // _HOUR
    if hours < 24:
        return f"{hours}h"
    if hours < 24 * 365:
        return f"{hours // 24}d"
    return f"{hours // 24 // 365}y"


def short_human_duration(seconds: float) -> str:
    """Format ``seconds`` as apimachinery's ``ShortHumanDuration`` does (``5s``, ``3m``, ``2d``, ``1y``)."""
    ns = _to_ns(seconds)
    if ns is None:
        return "<invalid>"
    return short_human_duration_ns(ns)


_GO_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_GO_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_go_duration(text: str) -> float:
    """Seconds of a Go duration string (``10s``, ``1m30s``, ``-1.5h``), as ``time.ParseDuration`` reads it.

    Raises ValueError with Go's message (``time: invalid duration "x"``) for anything else.
    """
    body = text[1:] if text[:1] in ("+", "-") else text
    if body == "0":
        return 0.0
    pos, total = 0, 0.0
    while pos < len(body):
        match = _GO_DURATION_PART.match(body, pos)
        if match is None:
            break
        total += float(match.group(1)) * _GO_UNIT_SECONDS[match.group(2)]
        pos = match.end()
    if not body or pos < len(body):
        raise ValueError(f'time: invalid duration "{text}"')
    return -total if text.startswith("-") else total
