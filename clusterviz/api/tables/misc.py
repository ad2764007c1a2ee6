"""Printers for ConfigMaps and for resources without a dedicated printer."""

from __future__ import annotations

from typing import Any

from .common import Printed, _d, _meta, _rfc3339, _s, _since, parse_timestamp_ns


def _print_configmap(cm: dict[str, Any], now_ns: int) -> Printed:
    meta = _meta(cm)
    entries = len(_d(cm.get("data"))) + len(_d(cm.get("binaryData")))
    return [_s(meta.get("name")), entries, _since(meta.get("creationTimestamp"), now_ns)], []


def _print_default(obj: dict[str, Any], now_ns: int) -> Printed:
    meta = _meta(obj)
    return [_s(meta.get("name")), _rfc3339(parse_timestamp_ns(meta.get("creationTimestamp")))], []
