"""The Event printer."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import dict_or_empty, str_or_empty

from .common import Printed, _i, _meta, _since, parse_timestamp_ns


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
    involved = dict_or_empty(ev.get("involvedObject"))
    kind = str_or_empty(involved.get("kind")).lower()
    name = str_or_empty(involved.get("name"))
    target = f"{kind}/{name}" if name else kind
    source = dict_or_empty(ev.get("source"))
    component = str_or_empty(source.get("component")) or str_or_empty(ev.get("reportingComponent"))
    host = str_or_empty(source.get("host")) or str_or_empty(ev.get("reportingInstance"))
    cells = [
        last_seen,
        str_or_empty(ev.get("type")),
        str_or_empty(ev.get("reason")),
        target,
        str_or_empty(involved.get("fieldPath")),
        f"{component}, {host}" if host else component,
        str_or_empty(ev.get("message")).strip(),
        first_seen,
        count,
        str_or_empty(meta.get("name")),
    ]
    return cells, []
