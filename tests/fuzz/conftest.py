"""The fuzz tests' shared set-up."""

from __future__ import annotations

import pytest

from clusterviz.classroom import ratelimit


@pytest.fixture(autouse=True)
def unlimited_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """No per-address write limit: it would refuse examples by timing alone, and runs would differ."""
    monkeypatch.setattr(ratelimit, "writes", lambda: ratelimit.RateLimiter(0, 0))
