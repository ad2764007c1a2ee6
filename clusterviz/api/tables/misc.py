"""Printers for ConfigMaps and for resources without a dedicated printer."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import dict_or_empty, str_or_empty

from .common import Printed, _meta, _rfc3339, _since, parse_timestamp_ns


def _print_configmap(cm: dict[str, Any], now_ns: int) -> Printed:
    meta = _meta(cm)
    entries = len(dict_or_empty(cm.get("data"))) + len(dict_or_empty(cm.get("binaryData")))
    return [str_or_empty(meta.get("name")), entries, _since(meta.get("creationTimestamp"), now_ns)], []


def _print_default(obj: dict[str, Any], now_ns: int) -> Printed:
    meta = _meta(obj)
    return [str_or_empty(meta.get("name")), _rfc3339(parse_timestamp_ns(meta.get("creationTimestamp")))], []
