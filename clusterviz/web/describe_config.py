"""``kubectl describe`` for ConfigMaps, Secrets and ServiceAccounts, as kubectl's describers print them.

A Secret's values are never shown, only their sizes in bytes (the one
exception kubectl makes, a service account token's ``token``, is kept).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from .describe import Text
from .describe_batch import _labels_and_annotations

SERVICE_ACCOUNT_TOKEN = "kubernetes.io/service-account-token"
SERVICE_ACCOUNT_NAME = "kubernetes.io/service-account.name"


def _name_and_labels(text: Text, obj: dict[str, Any]) -> None:
    meta = obj.get("metadata") or {}
    text.add(0, "Name", meta.get("name", ""))
    text.add(0, "Namespace", meta.get("namespace", ""))
    _labels_and_annotations(text, meta)


def _decoded(value: Any) -> bytes:
    try:
        return base64.b64decode(str(value or ""))
    except (binascii.Error, ValueError):
        return b""


def describe_secret(secret: dict[str, Any]) -> Text:
    """Name, labels, type, then each key with its size."""
    text = Text()
    _name_and_labels(text, secret)
    secret_type = str(secret.get("type") or "")
    text.raw(0, "")
    text.add(0, "Type", secret_type)
    text.raw(0, "")
    text.raw(0, "Data")
    text.raw(0, "====")
    for key, value in sorted((secret.get("data") or {}).items()):
        raw = _decoded(value)
        if key == "token" and secret_type == SERVICE_ACCOUNT_TOKEN:
            text.add(0, key, raw.decode("utf-8", errors="replace"))
        else:
            text.write(0, f"{key}:\t{len(raw)} bytes")
    return text


def describe_config_map(config_map: dict[str, Any]) -> Text:
    """Name, labels, each data key with its value, then binaryData keys with their sizes."""
    text = Text()
    _name_and_labels(text, config_map)
    text.raw(0, "")
    text.raw(0, "Data")
    text.raw(0, "====")
    for key, value in sorted((config_map.get("data") or {}).items()):
        text.raw(0, f"{key}:")
        text.raw(0, "----")
        for line in str(value).split("\n"):
            text.raw(0, line)
        text.raw(0, "")
    text.raw(0, "")
    text.raw(0, "BinaryData")
    text.raw(0, "====")
    for key, value in sorted((config_map.get("binaryData") or {}).items()):
        text.raw(0, f"{key}: {len(_decoded(value))} bytes")
    return text


def describe_service_account(account: dict[str, Any], secrets: list[dict[str, Any]]) -> Text:
    """Name, labels, then its image pull secrets, mountable secrets and token Secrets (``secrets``: its namespace's)."""
    text = Text()
    _name_and_labels(text, account)
    name = (account.get("metadata") or {}).get("name")
    existing = {(s.get("metadata") or {}).get("name") for s in secrets}
    tokens = sorted(
        str((s.get("metadata") or {}).get("name", ""))
        for s in secrets
        if s.get("type") == SERVICE_ACCOUNT_TOKEN
        and ((s.get("metadata") or {}).get("annotations") or {}).get(SERVICE_ACCOUNT_NAME) == name
    )
    mountable = [str(ref.get("name", "")) for ref in account.get("secrets") or [] if isinstance(ref, dict)]
    sections = (
        ("Image pull secrets:", [str(r.get("name", "")) for r in account.get("imagePullSecrets") or [] if isinstance(r, dict)]),
        ("Mountable secrets: ", [n if n in existing else f"{n} (not found)" for n in mountable]),
        ("Tokens:            ", tokens),
    )
    for header, names in sections:
        if not names:
            text.write(0, f"{header}\t<none>")
        for i, secret_name in enumerate(names):
            # kubectl pads its headers itself: a continuation line starts with as many spaces.
            text.write(0, f"{header if i == 0 else ' ' * len(header)}\t{secret_name}")
    return text
