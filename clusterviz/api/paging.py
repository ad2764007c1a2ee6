"""``limit`` and ``continue`` on list requests: kubectl fetches big lists in chunks of 500.

A continue token carries the revision of the first page and the last object
returned; the next page starts after that object. Unlike etcd, the store keeps
no old revisions to read from, so later pages show objects as they are now
(kubectl merges the pages all the same).
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from . import errors


def _key(obj: dict[str, Any]) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


def parse(query: dict[str, str]) -> tuple[int, tuple[str, str] | None]:
    """The page size (0: everything) and where the page starts (after this (namespace, name))."""
    raw = query.get("limit", "") or "0"
    try:
        limit = int(raw)
    except ValueError:
        raise errors.bad_request(f'invalid value for limit: "{raw}"') from None
    token = query.get("continue", "")
    if not token:
        return max(limit, 0), None
    try:
        decoded = json.loads(base64.urlsafe_b64decode(token.encode() + b"=" * (-len(token) % 4)))
        after = (str(decoded["start"][0]), str(decoded["start"][1]))
    except (binascii.Error, ValueError, KeyError, TypeError, IndexError, UnicodeDecodeError):
        raise errors.bad_request(
            "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"
        ) from None
    return max(limit, 0), after


def page(items: list[dict[str, Any]], limit: int, after: tuple[str, str] | None) -> tuple[list[dict[str, Any]], int]:
    """The items of this page, in (namespace, name) order, and how many remain after it."""
    ordered = sorted(items, key=_key)
    if after is not None:
        ordered = [o for o in ordered if _key(o) > after]
    if not limit or len(ordered) <= limit:
        return ordered, 0
    return ordered[:limit], len(ordered) - limit


def token(revision: int, last: dict[str, Any]) -> str:
    """The continue token for the page ending with ``last``."""
    raw = json.dumps({"rv": revision, "start": list(_key(last))}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")
