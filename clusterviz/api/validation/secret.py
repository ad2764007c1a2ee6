"""Secrets: config keys, 1 MiB of data, the keys each well-known type requires, and immutability.

Validation sees a Secret after its body was decoded: ``data`` holds base64
text that decodes (see ``api.secret_data``) and ``stringData`` was already
folded into it, so a bad ``stringData`` key is reported under ``data``.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any, Final

from clusterviz.apimachinery.field import FieldError, forbidden, invalid, required

from ..secret_data import go_json_type
from .common import Errors, as_dict, child, get_bool, get_str, key
from .env import config_map_key_errors
from .meta import immutable, name_is_dns_subdomain, validate_object_meta, validate_object_meta_update

MAX_SECRET_SIZE: Final = 1024 * 1024
IMMUTABLE_SET_MSG: Final = "field is immutable when `immutable` is set"
REDACTED: Final = "<secret contents redacted>"

SERVICE_ACCOUNT_TOKEN: Final = "kubernetes.io/service-account-token"
DOCKERCFG: Final = "kubernetes.io/dockercfg"
DOCKER_CONFIG_JSON: Final = "kubernetes.io/dockerconfigjson"
BASIC_AUTH: Final = "kubernetes.io/basic-auth"
SSH_AUTH: Final = "kubernetes.io/ssh-auth"
TLS: Final = "kubernetes.io/tls"
SERVICE_ACCOUNT_NAME_KEY: Final = "kubernetes.io/service-account.name"


def _decoded(value: Any) -> bytes:
    if not isinstance(value, str):
        return b""
    try:
        return base64.b64decode(value)
    except (binascii.Error, ValueError):
        return b""  # refused as undecodable before validation; never counted twice


def _go_json_error(raw: bytes) -> str | None:
    """What Go's ``json.Unmarshal`` into a ``map[string]interface{}`` says about ``raw``, or None."""
    text = raw.decode("utf-8", errors="replace")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text.rstrip()):
            return "unexpected end of JSON input"
        bad = text[exc.pos]
        if exc.msg.startswith("Extra data"):
            return f"invalid character '{bad}' after top-level value"
        if exc.msg.startswith("Expecting property name"):
            return f"invalid character '{bad}' looking for beginning of object key string"
        if exc.msg.startswith("Expecting ':'"):
            return f"invalid character '{bad}' after object key"
        if exc.msg.startswith("Expecting ',' delimiter"):
            return f"invalid character '{bad}' after object key:value pair"
        return f"invalid character '{bad}' looking for beginning of value"
    if value is None or isinstance(value, dict):
        return None
    return f"json: cannot unmarshal {go_json_type(value)} into Go value of type map[string]interface {{}}"


def _type_errors(secret_type: str, meta: dict[str, Any], data: dict[str, Any]) -> Errors:
    """The keys a well-known type needs, and well-formed JSON where it holds a docker config."""
    errs: Errors = []
    if secret_type == SERVICE_ACCOUNT_TOKEN:
        annotations = meta.get("annotations")
        if not isinstance(annotations, dict) or not annotations.get(SERVICE_ACCOUNT_NAME_KEY):
            errs.append(required(key(child("metadata", "annotations"), SERVICE_ACCOUNT_NAME_KEY), ""))
    elif secret_type in (DOCKERCFG, DOCKER_CONFIG_JSON):
        name = ".dockercfg" if secret_type == DOCKERCFG else ".dockerconfigjson"
        if name not in data:
            errs.append(required(key("data", name), ""))
        elif (problem := _go_json_error(_decoded(data[name]))) is not None:
            errs.append(invalid(key("data", name), REDACTED, problem))
    elif secret_type == BASIC_AUTH:
        if "username" not in data and "password" not in data:
            errs.append(required(key("data", "username"), ""))
            errs.append(required(key("data", "password"), ""))
    elif secret_type == SSH_AUTH:
        if not _decoded(data.get("ssh-privatekey")):
            errs.append(required(key("data", "ssh-privatekey"), ""))
    elif secret_type == TLS:
        for name in ("tls.crt", "tls.key"):
            if name not in data:
                errs.append(required(key("data", name), ""))
    return errs


def _validate(obj: dict[str, Any]) -> Errors:
    meta, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    data = as_dict(obj.get("data"), "data", errs) or {}
    total = 0
    for k, value in data.items():
        errs.extend(invalid(key("data", k), k, msg) for msg in config_map_key_errors(k))
        total += len(_decoded(value))
    if total > MAX_SECRET_SIZE:
        errs.append(FieldError("FieldValueTooLong", "data", f"must have at most {MAX_SECRET_SIZE} bytes"))
    secret_type = get_str(obj, "type", "", errs)
    get_bool(obj, "immutable", "", errs)
    if isinstance(secret_type, str):
        errs.extend(_type_errors(secret_type, meta, data))
    return errs


def validate_secret(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """``ValidateSecret``, and on update ``ValidateSecretUpdate`` (whose checks come first)."""
    errs: Errors = []
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
        errs.extend(immutable(obj.get("type"), old.get("type"), "type"))
        if old.get("immutable") is True:
            if obj.get("immutable") is not True:
                errs.append(forbidden("immutable", IMMUTABLE_SET_MSG))
            if (obj.get("data") or {}) != (old.get("data") or {}):
                errs.append(forbidden("data", IMMUTABLE_SET_MSG))
    errs.extend(_validate(obj))
    return errs
