"""The APIService printer: what kubectl get apiservices shows (the aggregator's table)."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import dict_or_empty, list_or_empty, str_or_empty

from .common import Printed, _meta, _since


def api_service_backend(api_service: dict[str, Any]) -> str:
    """``Local``, or the extension server's Service as namespace/name."""
    ref = dict_or_empty(api_service.get("spec")).get("service")
    if not isinstance(ref, dict):
        return "Local"
    return f"{str_or_empty(ref.get('namespace'))}/{str_or_empty(ref.get('name'))}"


def api_service_available(api_service: dict[str, Any]) -> str:
    """The Available condition: ``True``, ``False (Reason)``, or ``Unknown`` before it is judged."""
    for condition in list_or_empty(dict_or_empty(api_service.get("status")).get("conditions")):
        if isinstance(condition, dict) and condition.get("type") == "Available":
            value = str_or_empty(condition.get("status"))
            return value if value == "True" else f"{value} ({str_or_empty(condition.get('reason'))})"
    return "Unknown"


def _print_api_service(api_service: dict[str, Any], now_ns: int) -> Printed:
    return [
        str_or_empty(_meta(api_service).get("name")),
        api_service_backend(api_service),
        api_service_available(api_service),
        _since(_meta(api_service).get("creationTimestamp"), now_ns),
    ], []
