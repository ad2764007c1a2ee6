"""``limit``, ``continue`` and ``resourceVersion`` on list requests: kubectl fetches big lists in chunks of 500.

As kube-apiserver's store does with etcd, a page holds up to ``limit`` objects that match the request's
selectors, taken in key order from where its continue token says. The token is the real one: base64 (URL
alphabet, no padding) of ``{"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key>\\u0000"}``, where the key
is the last one returned, relative to the listed collection (``<namespace>/<name>`` across namespaces,
``<name>`` within one or for a cluster-scoped resource), and the revision is the first page's, which every
page reports. Unlike etcd, the store keeps no old revisions to read from, so later pages show objects as
they are now (kubectl merges the pages all the same). A token whose revision the watch log no longer holds
is 410 Expired, with a token to go on from at the latest revision, as after etcd's compaction.
"""

from __future__ import annotations

import base64
import binascii
import json
import posixpath
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from clusterviz.apimachinery import field

from . import errors

TOKEN_VERSION = "meta.k8s.io/v1"
# A token's revision meaning "at the latest revision" (etcd's pages after a compaction).
LATEST = -1
INCONSISTENT_CONTINUE = (
    "The provided continue parameter is too old to display a consistent list result. You can start a new list "
    "without the continue parameter, or use the continue token in this response to retrieve the remainder of the "
    "results. Continuing with the provided token results in an inconsistent list - objects that were created, "
    "modified, or deleted between the time the first chunk was returned and now may show up in the list."
)
EXPIRED_LIST = "The resourceVersion for the provided list is too old."

Where = tuple[str, str]  # (namespace, name): the store's key order


@dataclass(frozen=True)
class Options:
    """How much of a collection a list request asks for, and from where."""

    limit: int  # 0: everything
    # The page starts at this key or after it (a token's start is just after the key it ends with).
    start: Where | None
    # The continue token's revision (LATEST: whatever is current); None without a token.
    revision: int | None
    # The revision an exact read asks for (resourceVersionMatch=Exact, or a resourceVersion with a limit).
    exact: int | None


def parse(query: dict[str, str], namespace: str | None) -> Options:
    """The request's paging (``namespace``: the one every listed key has, None across namespaces); 400 or 422
    when the parameters are wrong together, as ValidateListOptions and the store find them."""
    raw = query.get("limit", "") or "0"
    try:
        limit = max(int(raw), 0)
    except ValueError:
        raise errors.bad_request(f'invalid value for limit: "{raw}"') from None
    rv_text = query.get("resourceVersion", "")
    match = query.get("resourceVersionMatch", "")
    token = query.get("continue", "")
    _validate(query, rv_text, match, token)
    if token:
        start, revision = _decode(token, namespace)
        if rv_text not in ("", "0"):
            raise errors.bad_request("specifying resource version is not allowed when using continue")
        return Options(limit, start, revision, None)
    if rv_text == "0":
        # resourceVersion=0 is answered from kube-apiserver's watch cache, which ignores the limit.
        return Options(0, None, None, None)
    exact = None
    if rv_text and (match == "Exact" or (not match and limit)):
        exact = revision_of(rv_text)
    return Options(limit, None, None, exact)


def revision_of(text: str) -> int:
    """A resourceVersion given as a number (400 otherwise), as watches read theirs."""
    try:
        revision = int(text)
    except ValueError:
        revision = -1
    if revision < 0:
        raise errors.bad_request(f"invalid resource version: {text!r}")
    return revision


def _validate(query: dict[str, str], rv_text: str, match: str, token: str) -> None:
    """ValidateListOptions: resourceVersionMatch's rules (422 on ListOptions)."""
    problems = []
    if match:
        if not rv_text:
            problems.append(field.forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"))
        if token:
            problems.append(field.forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))
        if match not in ("Exact", "NotOlderThan"):
            problems.append(field.not_supported("resourceVersionMatch", match, ["Exact", "NotOlderThan", ""]))
        if match == "Exact" and rv_text == "0":
            problems.append(field.forbidden("resourceVersionMatch", 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'))
    if "sendInitialEvents" in query:
        problems.append(field.forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))
    if problems:
        raise errors.invalid("ListOptions", "meta.k8s.io", "", problems)


def _invalid_token(why: str) -> errors.StatusError:
    return errors.bad_request(f"invalid continue token: continue key is not valid{why}")


def _decode(token: str, namespace: str | None) -> tuple[Where, int]:
    """Where a continue token's page starts, and its revision (storage.DecodeContinue)."""
    try:
        raw = base64.b64decode(token + "=" * (-len(token) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        bad = next((i for i, c in enumerate(token) if not (c.isascii() and (c.isalnum() or c in "-_"))), len(token))
        raise _invalid_token(f": illegal base64 data at input byte {bad}") from None
    try:
        decoded = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise _invalid_token(f": {exc}") from None
    if not isinstance(decoded, dict):
        raise _invalid_token(": cannot unmarshal into a continue token")
    version, revision, start = decoded.get("v", ""), decoded.get("rv", 0), decoded.get("start", "")
    if version != TOKEN_VERSION:
        raise _invalid_token(f": server does not recognize this encoded version {version}")
    if not isinstance(revision, int) or not isinstance(start, str):
        raise _invalid_token(": cannot unmarshal into a continue token")
    if revision == 0:
        raise _invalid_token(": incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
    if not start:
        raise _invalid_token(": encoded start key empty (version meta.k8s.io/v1)")
    # As the real one, refuse a key that would climb out of the listed collection.
    key = start if start.startswith("/") else "/" + start
    if posixpath.normpath(key) != key or key.startswith("//"):
        raise _invalid_token(f": {start}")
    key = key[1:]
    if namespace is not None:
        return (namespace, key), revision
    ns, _, name = key.partition("/")
    return (ns, name), revision


def token(revision: int, last: Where, namespace: str | None) -> str:
    """The continue token of a page that ended with the object at ``last``: its successor is where the next starts."""
    return _encode(revision, _relative(last, namespace) + "\x00")


def resume(start: Where, namespace: str | None) -> str:
    """A token that goes on from ``start`` (a token's) at the latest revision: what an expired token is answered."""
    return _encode(LATEST, _relative(start, namespace))


def _relative(where: Where, namespace: str | None) -> str:
    return where[1] if namespace is not None else f"{where[0]}/{where[1]}"


def _encode(revision: int, start: str) -> str:
    # The field order and compact form of Go's encoding of the real token (which writes NUL as \u0000 too).
    raw = json.dumps({"v": TOKEN_VERSION, "rv": revision, "start": start}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def key_of(obj: dict[str, Any]) -> Where:
    """An object's place in the store's key order."""
    meta = obj.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


def take(
    entries: Iterable[tuple[Where, dict[str, Any]]], limit: int, wanted: Callable[[dict[str, Any]], bool]
) -> tuple[list[dict[str, Any]], Where | None]:
    """Up to ``limit`` (0: all) of the ``wanted`` objects of ``entries`` (in key order), and the key of the last
    one when any entry is left after it, wanted or not (the store's "more").

    Only the objects looked at are touched: ``entries`` may read them as it goes.
    """
    items: list[dict[str, Any]] = []
    last: Where | None = None
    for key, obj in entries:
        if limit and len(items) >= limit:
            return items, last
        last = key
        if wanted(obj):
            items.append(obj)
    return items, None
