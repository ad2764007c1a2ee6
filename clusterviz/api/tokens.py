"""TokenRequest: ``POST .../serviceaccounts/<name>/token``, what ``kubectl create token`` asks for.

The API server signs a short-lived JWT for the account (it is never
stored): issuer and audience the cluster's, ``sub`` ``system:serviceaccount:
<namespace>:<name>``, and the account's uid in the ``kubernetes.io`` claim,
so a class can decode it and see whom it names. Each cluster signs with its
own Ed25519 key, derived from its name as its CA is.
"""

from __future__ import annotations

import base64
import datetime
import functools
import hashlib
import json
import uuid
from typing import Any, Final

from cryptography.hazmat.primitives.asymmetric import ed25519

from clusterviz.apimachinery.field import FieldError, invalid
from clusterviz.apimachinery.unstructured import dict_or_empty
from clusterviz.store import kv
from clusterviz.store.threads import in_thread

from . import clock, codec, errors, handlers
from .request import ApiRequest, ApiResponse, ResourcePath

ISSUER: Final = "https://kubernetes.default.svc.cluster.local"
# SetDefaults_TokenRequestSpec: an hour; validation: at least ten minutes, at most 2^32 seconds.
DEFAULT_EXPIRATION_SECONDS: Final = 3600
MIN_EXPIRATION_SECONDS: Final = 600
MAX_EXPIRATION_SECONDS: Final = 1 << 32

_get = in_thread(kv.get)


@functools.cache
def _signing_key(cluster: str) -> ed25519.Ed25519PrivateKey:
    seed = hashlib.sha256(f"clusterviz service account signing key {cluster}".encode()).digest()
    return ed25519.Ed25519PrivateKey.from_private_bytes(seed)


def _segment(data: dict[str, Any] | bytes) -> str:
    raw = data if isinstance(data, bytes) else json.dumps(data, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def sign_token(cluster: str, account: dict[str, Any], audiences: list[str], seconds: int, now: int) -> str:
    """A JWT for ``account`` (a ServiceAccount object), valid ``seconds`` from ``now`` (Unix time)."""
    meta = dict_or_empty(account.get("metadata"))
    namespace, name = str(meta.get("namespace", "")), str(meta.get("name", ""))
    claims = {
        "aud": audiences,
        "exp": now + seconds,
        "iat": now,
        "iss": ISSUER,
        "jti": str(uuid.uuid4()),
        "kubernetes.io": {"namespace": namespace, "serviceaccount": {"name": name, "uid": meta.get("uid", "")}},
        "nbf": now,
        "sub": f"system:serviceaccount:{namespace}:{name}",
    }
    signed = f"{_segment({'alg': 'EdDSA', 'kid': cluster})}.{_segment(claims)}"
    return f"{signed}.{_segment(_signing_key(cluster).sign(signed.encode()))}"


def _spec_errors(spec: dict[str, Any]) -> list[FieldError]:
    seconds = spec.get("expirationSeconds")
    path = "spec.expirationSeconds"
    if not isinstance(seconds, int) or isinstance(seconds, bool):
        return [invalid(path, seconds, "must be an integer")]
    if seconds < MIN_EXPIRATION_SECONDS:
        return [invalid(path, seconds, "may not specify a duration less than 10 minutes")]
    if seconds > MAX_EXPIRATION_SECONDS:
        return [invalid(path, seconds, "may not specify a duration larger than 2^32 seconds")]
    audiences = spec.get("audiences")
    if not isinstance(audiences, list) or not all(isinstance(a, str) for a in audiences):
        return [invalid("spec.audiences", audiences, "must be a list of strings")]
    return []


async def request_token(req: ApiRequest, rp: ResourcePath) -> ApiResponse:
    """Sign a token for the ServiceAccount at ``rp``; 404 when it does not exist, 422 for a bad spec."""
    body = req.payload if isinstance(req.payload, dict) else codec.decode_object(req.body, req.content_type)
    spec = dict(dict_or_empty(body.get("spec")))
    spec.setdefault("expirationSeconds", DEFAULT_EXPIRATION_SECONDS)
    if not spec.get("audiences"):
        spec["audiences"] = [ISSUER]
    problems = _spec_errors(spec)
    if problems:
        raise errors.invalid("TokenRequest", "authentication.k8s.io", rp.name, problems)
    account = await _get(await handlers.cluster_of(req), handlers.store_key(rp))
    if account is None:
        raise handlers.not_found(rp)
    issued = clock.now()
    now = int(issued.timestamp())
    token = sign_token(req.cluster, account, spec["audiences"], spec["expirationSeconds"], now)
    expires = clock.rfc3339(issued + datetime.timedelta(seconds=spec["expirationSeconds"]))
    return handlers.ok(
        {
            "kind": "TokenRequest",
            "apiVersion": "authentication.k8s.io/v1",
            "metadata": {"name": rp.name, "namespace": rp.namespace, "creationTimestamp": None},
            "spec": {"audiences": spec["audiences"], "expirationSeconds": spec["expirationSeconds"], "boundObjectRef": None},
            "status": {"token": token, "expirationTimestamp": expires},
        },
        201,
    )
