"""Timestamps the API server and the components write (creationTimestamp, events, leases).

A simulated cluster has its own clock: the engine installs it as this
context's time source, so every timestamp of that cluster follows simulated
time (fast-forward jumps it; step mode holds it). Outside a simulation the
wall clock is used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime

TimeSource = Callable[[], datetime]

_source: ContextVar[TimeSource | None] = ContextVar("clusterviz_time_source", default=None)


def set_source(source: TimeSource | None) -> None:
    """Make ``source`` the time of the current context (and the tasks it starts)."""
    _source.set(source)


@contextmanager
def using(source: TimeSource | None) -> Iterator[None]:
    """Use ``source`` for the enclosed block."""
    token = _source.set(source)
    try:
        yield
    finally:
        _source.reset(token)


def now_precise() -> datetime:
    source = _source.get()
    return source() if source is not None else datetime.now(UTC)


def now() -> datetime:
    """The current time, to the second, as Kubernetes timestamps are."""
    return now_precise().replace(microsecond=0)


# The moment last formatted by ``rfc3339`` and its text: the writes of one second, stamping it one after
# another, format it once.
_last_formatted: tuple[datetime, str] | None = None


def rfc3339(moment: datetime | None = None) -> str:
    """``2025-01-01T00:00:00Z``."""
    global _last_formatted
    moment = moment or now()
    last = _last_formatted
    if last is not None and last[0] == moment:  # never equal to a naive moment
        return last[1]
    text = moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    # Only a moment with its time zone is remembered: a naive one is read in the local zone, which may change.
    if moment.utcoffset() is not None:
        _last_formatted = (moment, text)
    return text


def rfc3339_micro(moment: datetime | None = None) -> str:
    """``2025-01-01T00:00:00.123456Z`` (MicroTime, as Leases use)."""
    return (moment or now_precise()).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse(text: str) -> datetime | None:
    """Parse an RFC 3339 timestamp (with or without fractions); None if it is not one."""
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (TypeError, ValueError, AttributeError):
        return None
