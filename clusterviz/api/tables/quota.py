"""The ResourceQuota printer: what kubectl get quota shows (used/hard of each resource, limits apart)."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import dict_or_empty, str_or_empty

from .common import Printed, _meta, _since


def _print_resource_quota(quota: dict[str, Any], now_ns: int) -> Printed:
    status = dict_or_empty(quota.get("status"))
    hard, used = dict_or_empty(status.get("hard")), dict_or_empty(status.get("used"))
    requests: list[str] = []
    limits: list[str] = []
    for name in sorted(hard):
        column = limits if name.split(".")[0] == "limits" and "." in name else requests
        column.append(f"{name}: {used.get(name, '0')}/{hard[name]}")
    return [
        str_or_empty(_meta(quota).get("name")),
        _since(_meta(quota).get("creationTimestamp"), now_ns),
        ", ".join(requests),
        ", ".join(limits),
    ], []
