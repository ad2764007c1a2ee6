"""The Event printer."""

from __future__ import annotations

from typing import Any

from .common import Printed, _d, _i, _meta, _s, _since, parse_timestamp_ns


def _print_event(ev: dict[str, Any], now_ns: int) -> Printed:
    meta = _meta(ev)
    if parse_timestamp_ns(ev.get("firstTimestamp")) is None:
        first_seen = _since(ev.get("eventTime"), now_ns)
    else:
        first_seen = _since(ev.get("firstTimestamp"), now_ns)
    if parse_timestamp_ns(ev.get("lastTimestamp")) is None:
        last_seen = first_seen
    else:
        last_seen = _since(ev.get("lastTimestamp"), now_ns)
    count = _i(ev.get("count"))
    series = ev.get("series")
    if isinstance(series, dict):
        last_seen = _since(series.get("lastObservedTime"), now_ns)
        count = _i(series.get("count"))
    elif count == 0:
        # Events from the events.k8s.io API leave count unset for singletons.
        count = 1
    involved = _d(ev.get("involvedObject"))
    kind = _s(involved.get("kind")).lower()
    name = _s(involved.get("name"))
    target = f"{kind}/{name}" if name else kind
    source = _d(ev.get("source"))
    component = _s(source.get("component")) or _s(ev.get("reportingComponent"))
    host = _s(source.get("host")) or _s(ev.get("reportingInstance"))
    cells = [
        last_seen,
        _s(ev.get("type")),
        _s(ev.get("reason")),
        target,
        _s(involved.get("fieldPath")),
        f"{component}, {host}" if host else component,
        _s(ev.get("message")).strip(),
        first_seen,
        count,
        _s(meta.get("name")),
    ]
    return cells, []
