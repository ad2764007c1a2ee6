"""A Secret's data as the API server reads it: base64 in JSON, ``stringData`` folded into ``data``.

In the real API server this happens while the v1 body is decoded and
converted: ``data`` values are ``[]byte`` (so JSON carries them as standard
base64, and anything else is a 400 before validation runs), and
``stringData`` is written over ``data`` key by key, then dropped, so it is
never stored nor returned.
"""

from __future__ import annotations

import base64
from typing import Any, Final

__all__ = ["OPAQUE", "decoding_error", "default_secret", "go_json_type"]

OPAQUE: Final = "Opaque"
_ALPHABET: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def _base64_error(text: str) -> str | None:
    """Go's ``base64.StdEncoding`` complaint about ``text``, or None when it decodes.

    Go skips newlines, wants padding, and names the offset of the quantum
    (four characters) where decoding went wrong.
    """
    chars = [(i, c) for i, c in enumerate(text) if c not in "\r\n"]
    quantum_start = 0
    for n, (i, c) in enumerate(chars):
        if n % 4 == 0:
            quantum_start = i
        if c == "=":
            # Padding may only end the input, in the third or fourth place of the last quantum.
            rest = "".join(ch for _, ch in chars[n:])
            if n % 4 < 2 or rest not in ("=", "==") or (n % 4 == 2 and rest != "=="):
                return f"illegal base64 data at input byte {i}"
            return None
        if c not in _ALPHABET:
            return f"illegal base64 data at input byte {i}"
    if len(chars) % 4:
        return f"illegal base64 data at input byte {quantum_start}"
    return None


def go_json_type(value: Any) -> str:
    """How Go's JSON decoder names the type of a value it could not unmarshal."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, dict):
        return "object"
    return "array" if isinstance(value, list) else "string"


def decoding_error(secret: Any) -> str | None:
    """Why the body's ``data`` or ``stringData`` cannot be decoded (Go's wording), or None."""
    if not isinstance(secret, dict):
        return None
    for section, go_type in (("data", "[]uint8"), ("stringData", "string")):
        values = secret.get(section)
        if not isinstance(values, dict):
            continue
        for value in values.values():
            if value is None:
                continue
            if not isinstance(value, str):
                return f"json: cannot unmarshal {go_json_type(value)} into Go struct field Secret.{section} of type {go_type}"
            if section == "data" and (problem := _base64_error(value)) is not None:
                return problem
    return None


def default_secret(secret: dict[str, Any]) -> None:
    """``SetDefaults_Secret`` (type Opaque) and the stringData merge, in place."""
    if secret.get("type") in (None, ""):
        secret["type"] = OPAQUE
    string_data = secret.get("stringData")
    if not isinstance(string_data, dict):
        if string_data is None:
            secret.pop("stringData", None)
        return
    if not all(isinstance(v, str) for v in string_data.values()):
        return  # not decodable: the request is refused before anything is merged
    data = secret.get("data")
    if data is None:
        data = secret["data"] = {}
    if not isinstance(data, dict):
        return
    for k, v in string_data.items():
        data[k] = base64.b64encode(v.encode()).decode()
    del secret["stringData"]
