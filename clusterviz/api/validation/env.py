"""Container environment variables: variable names, ``valueFrom`` sources and ConfigMap keys."""

from __future__ import annotations

import re
from typing import Any, Final

from clusterviz.apimachinery.field import (
    invalid,
    not_supported,
    required,
)
from clusterviz.apimachinery.names import is_qualified_name

from .common import (
    Errors,
    child,
    dict_items,
    get_bool,
    get_dict,
    get_str,
)

_DOWNWARD_ENV_FIELD_PATHS: Final = [
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
]
_SUBSCRIPTED_FIELD_PATH = re.compile(r"(metadata\.(?:labels|annotations))\['(.*)'\]")
_CONFIG_KEY = re.compile(r"[-._a-zA-Z0-9]+")


def config_map_key_errors(value: str) -> list[str]:
    """Upstream's ``IsConfigMapKey``: keys of ConfigMap data and of key references."""
    errs: list[str] = []
    if len(value) > 253:
        errs.append("must be no more than 253 characters")
    if not _CONFIG_KEY.fullmatch(value):
        errs.append(
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  "
            "or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
        )
    if value == ".":
        errs.append("must not be '.'")
    elif value == "..":
        errs.append("must not be '..'")
    elif value.startswith(".."):
        errs.append("must not start with '..'")
    return errs


def env_var_name_errors(name: str) -> list[str]:
    """The relaxed environment variable rule: printable ASCII except ``=``."""
    if any(not (32 <= ord(c) <= 126) or c == "=" for c in name):
        return ["a valid environment variable name must consist only of printable ASCII characters other than '='"]
    return []


def _key_selector(ref: dict[str, Any], path: str, errs: Errors) -> None:
    name = get_str(ref, "name", path, errs)
    if name == "":
        errs.append(required(child(path, "name"), ""))
    ref_key = get_str(ref, "key", path, errs)
    if ref_key == "":
        errs.append(required(child(path, "key"), ""))
    elif isinstance(ref_key, str):
        errs.extend(invalid(child(path, "key"), ref_key, msg) for msg in config_map_key_errors(ref_key))
    get_bool(ref, "optional", path, errs)


def _field_ref(ref: dict[str, Any], path: str, errs: Errors) -> None:
    api_version = get_str(ref, "apiVersion", path, errs)
    if api_version == "":
        errs.append(required(child(path, "apiVersion"), ""))
    field_path = get_str(ref, "fieldPath", path, errs)
    fp_path = child(path, "fieldPath")
    if field_path == "":
        errs.append(required(fp_path, ""))
        return
    if not isinstance(field_path, str):
        return
    match = _SUBSCRIPTED_FIELD_PATH.fullmatch(field_path)
    if match:
        subscript = match.group(2)
        check = is_qualified_name(subscript.lower() if "annotations" in match.group(1) else subscript)
        errs.extend(invalid(fp_path, subscript, msg) for msg in check)
    elif field_path not in _DOWNWARD_ENV_FIELD_PATHS or field_path in ("metadata.labels", "metadata.annotations"):
        supported = [p for p in _DOWNWARD_ENV_FIELD_PATHS if p not in ("metadata.annotations", "metadata.labels")]
        errs.append(not_supported(fp_path, field_path, supported))


def _validate_env(env: list[Any] | None, path: str) -> Errors:
    errs: Errors = []
    for _, var_path, var in dict_items(env, path, errs):
        name = get_str(var, "name", var_path, errs)
        if name == "":
            errs.append(required(child(var_path, "name"), ""))
        elif isinstance(name, str):
            errs.extend(invalid(child(var_path, "name"), name, msg) for msg in env_var_name_errors(name))
        value = get_str(var, "value", var_path, errs)
        value_from = get_dict(var, "valueFrom", var_path, errs)
        if value_from is None:
            continue
        from_path = child(var_path, "valueFrom")
        sources = 0
        for source in ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef"):
            ref = get_dict(value_from, source, from_path, errs)
            if ref is None:
                continue
            sources += 1
            ref_path = child(from_path, source)
            if source == "fieldRef":
                _field_ref(ref, ref_path, errs)
            elif source == "resourceFieldRef":
                if get_str(ref, "resource", ref_path, errs) == "":
                    errs.append(required(child(ref_path, "resource"), ""))
            else:
                _key_selector(ref, ref_path, errs)
        if sources == 0:
            errs.append(
                invalid(
                    from_path,
                    "",
                    "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
                )
            )
        elif value:
            errs.append(invalid(from_path, "", "may not be specified when `value` is not empty"))
        elif sources > 1:
            errs.append(invalid(from_path, "", "may not have more than one field specified at a time"))
    return errs
