"""Timestamps the API server writes (creationTimestamp, event times)."""

from __future__ import annotations

from datetime import UTC, datetime


def now() -> datetime:
    """The current time, to the second, as Kubernetes timestamps are."""
    return datetime.now(UTC).replace(microsecond=0)


def rfc3339(moment: datetime | None = None) -> str:
    """``2025-01-01T00:00:00Z``."""
    return (moment or now()).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
