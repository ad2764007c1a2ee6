"""ConfigMaps: keys valid as file names, at most 1 MiB of data, and the ``immutable`` flag."""

from __future__ import annotations

import base64
import binascii
from typing import Any, Final

from clusterviz.apimachinery.field import FieldError, forbidden, invalid
from clusterviz.scheduler import profile as scheduler_profile

from .common import Errors, as_dict, get_bool, key, semantic, type_error
from .meta import name_is_dns_subdomain, validate_object_meta, validate_object_meta_update
from .pod import config_map_key_errors

MAX_CONFIG_MAP_SIZE: Final = 1024 * 1024
IMMUTABLE_SET_MSG: Final = "field is immutable when `immutable` is set"


def validate_config_map(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    data = as_dict(obj.get("data"), "data", errs) or {}
    binary = as_dict(obj.get("binaryData"), "binaryData", errs) or {}
    total = 0
    for k, value in data.items():
        path = key("data", k)
        errs.extend(invalid(path, k, msg) for msg in config_map_key_errors(k))
        if k in binary:
            errs.append(invalid(path, k, "duplicate of key present in binaryData"))
        if isinstance(value, str):
            total += len(value.encode())
        elif value is not None:
            errs.append(type_error(path, value, "string"))
    for k, value in binary.items():
        path = key("binaryData", k)
        errs.extend(invalid(path, k, msg) for msg in config_map_key_errors(k))
        if not isinstance(value, str):
            errs.append(type_error(path, value, "string"))
            continue
        try:
            total += len(base64.b64decode(value, validate=True))
        except (binascii.Error, ValueError):
            errs.append(invalid(path, value, "must be base64-encoded data"))
    if total > MAX_CONFIG_MAP_SIZE:
        errs.append(FieldError("FieldValueTooLong", "", f"must have at most {MAX_CONFIG_MAP_SIZE} bytes"))
    get_bool(obj, "immutable", "", errs)
    errs.extend(_scheduler_configuration_errors(obj, data))
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
        if old.get("immutable") is True:
            if obj.get("immutable") is not True:
                errs.append(forbidden("immutable", IMMUTABLE_SET_MSG))
            if semantic(obj.get("data")) != semantic(old.get("data")):
                errs.append(forbidden("data", IMMUTABLE_SET_MSG))
            if semantic(obj.get("binaryData")) != semantic(old.get("binaryData")):
                errs.append(forbidden("binaryData", IMMUTABLE_SET_MSG))
    return errs


def _scheduler_configuration_errors(obj: dict[str, Any], data: dict[str, Any]) -> list[FieldError]:
    """Refuse a ``kube-system/kube-scheduler`` ConfigMap whose scheduler configuration would not load."""
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    text = data.get(scheduler_profile.CONFIG_MAP_KEY)
    if (
        meta.get("namespace") != scheduler_profile.CONFIG_MAP_NAMESPACE
        or meta.get("name") != scheduler_profile.CONFIG_MAP_NAME
        or not isinstance(text, str)
    ):
        return []
    path = key("data", scheduler_profile.CONFIG_MAP_KEY)
    # No value in the message: kubectl would print the whole YAML document before the problem.
    return [FieldError("FieldValueInvalid", path, problem) for problem in scheduler_profile.configuration_errors(text)]
