"""Service account tokens: signed by the cluster's own key, with the claims upstream's tokens carry."""

from __future__ import annotations

import base64
import json

import pytest
from cryptography.exceptions import InvalidSignature

from clusterviz.api.tokens import _signing_key, sign_token

ACCOUNT = {"metadata": {"name": "builder", "namespace": "ci", "uid": "u-1"}}


def parts(token: str) -> tuple[dict, dict, bytes, bytes]:
    header, payload, signature = token.split(".")
    decode = lambda s: base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))  # noqa: E731
    return json.loads(decode(header)), json.loads(decode(payload)), decode(signature), f"{header}.{payload}".encode()


def test_a_token_is_signed_by_its_clusters_key_only():
    header, claims, signature, signed = parts(sign_token("demo", ACCOUNT, ["api"], 600, 1_000_000))
    assert header == {"alg": "EdDSA", "kid": "demo"}
    _signing_key("demo").public_key().verify(signature, signed)
    with pytest.raises(InvalidSignature):
        _signing_key("other").public_key().verify(signature, signed)
    assert claims["sub"] == "system:serviceaccount:ci:builder"
    assert (claims["iat"], claims["nbf"], claims["exp"]) == (1_000_000, 1_000_000, 1_000_600)
    assert claims["kubernetes.io"] == {"namespace": "ci", "serviceaccount": {"name": "builder", "uid": "u-1"}}
