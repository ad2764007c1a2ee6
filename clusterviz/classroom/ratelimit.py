"""Token buckets per caller: a classroom of eager students must not starve the simulation."""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.conf import settings


@dataclass
class _Bucket:
    tokens: float
    updated: float


class RateLimiter:
    """``rate`` writes per second per key, with ``burst`` saved up; in this process only."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: dict[str, _Bucket] = {}

    def allow(self, key: str, now: float | None = None) -> float:
        """Take one token for ``key``: 0 when allowed, else the seconds until one is available."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic() if now is None else now
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= MAX_KEYS:
                self._forget_idle(now)
            bucket = self._buckets[key] = _Bucket(float(self.burst), now)
        bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.updated) * self.rate)
        bucket.updated = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return 0.0
        return (1 - bucket.tokens) / self.rate

    def _forget_idle(self, now: float) -> None:
        # A bucket that has refilled completely holds nothing worth keeping.
        full = [k for k, b in self._buckets.items() if b.tokens + (now - b.updated) * self.rate >= self.burst]
        for key in full:
            del self._buckets[key]


MAX_KEYS = 10_000
_writes: RateLimiter | None = None


def writes() -> RateLimiter:
    """The process's limiter for writes, configured from settings."""
    global _writes
    if _writes is None:
        _writes = RateLimiter(settings.CLUSTERVIZ["WRITE_RATE"], settings.CLUSTERVIZ["WRITE_BURST"])
    return _writes
