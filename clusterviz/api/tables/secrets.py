"""Printers for Secrets and ServiceAccounts: counts only, never a Secret's values."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import dict_or_empty, str_or_empty

from .common import Printed, _meta, _since


def _print_secret(secret: dict[str, Any], now_ns: int) -> Printed:
    meta = _meta(secret)
    return [
        str_or_empty(meta.get("name")),
        str_or_empty(secret.get("type")),
        len(dict_or_empty(secret.get("data"))),
        _since(meta.get("creationTimestamp"), now_ns),
    ], []


def _print_service_account(account: dict[str, Any], now_ns: int) -> Printed:
    meta = _meta(account)
    secrets = account.get("secrets")
    return [
        str_or_empty(meta.get("name")),
        len(secrets) if isinstance(secrets, list) else 0,
        _since(meta.get("creationTimestamp"), now_ns),
    ], []
