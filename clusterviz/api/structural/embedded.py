"""The type and object meta of resources embedded in a custom resource (``x-kubernetes-embedded-resource``).

The API server checks every embedded object the schema marks: apiVersion and
kind present and well formed, metadata valid as any object's (a missing name is
fine there). The resource's own root is not checked here; its metadata is the
API server's ordinary ObjectMeta validation. Paths are field.Path's, so a map
value is ``spec.templates[web].kind``.
"""

from __future__ import annotations

from typing import Any

from clusterviz.api.validation.autoscaling import path_segment_errors
from clusterviz.api.validation.common import child, index, key
from clusterviz.api.validation.meta import validate_object_meta
from clusterviz.apimachinery.field import FieldError, invalid, required
from clusterviz.apimachinery.names import is_dns1035_label

from .schema import EMBEDDED_RESOURCE, Schema, additional_properties, flag, items, properties

__all__ = ["embedded_resource_errors"]


def embedded_resource_errors(schema: Schema, obj: Any, path: str = "") -> list[FieldError]:
    """The problems of every embedded resource in ``obj``, walking only where the schema declares."""
    errs: list[FieldError] = []
    _walk(schema, obj, path, errs)
    return errs


def _walk(schema: Schema | None, value: Any, path: str, errs: list[FieldError]) -> None:
    if schema is None:
        return
    if isinstance(value, dict):
        if flag(schema, EMBEDDED_RESOURCE):
            errs.extend(_embedded(value, path))
        props = properties(schema)
        extra_set, extra = additional_properties(schema)
        for name, sub in value.items():
            if name in props:
                _walk(props[name], sub, child(path, str(name)), errs)
            elif extra_set:
                _walk(extra, sub, key(path, str(name)), errs)
    elif isinstance(value, list):
        item_schema = items(schema)
        for i, item in enumerate(value):
            _walk(item_schema, item, index(path, i), errs)


def _embedded(obj: dict[Any, Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for name in ("apiVersion", "kind"):
        if name not in obj:
            errs.append(required(child(path, name)))
    for name, value in obj.items():
        where = child(path, str(name))
        if name in ("apiVersion", "kind") and not isinstance(value, str):
            errs.append(invalid(where, value, "must be a string"))
        elif name in ("apiVersion", "kind") and not value:
            errs.append(required(where))
        elif name == "apiVersion" and value.count("/") > 1:
            errs.append(invalid(where, value, f"unexpected GroupVersion string: {value}"))
        elif name == "kind":
            found = is_dns1035_label(value.lower())
            if found:
                errs.append(
                    invalid(where, value, "may have mixed case, but should otherwise match: " + ",".join(found))
                )
        elif name == "metadata":
            errs.extend(_metadata(value, where))
    return errs


def _metadata(meta: Any, path: str) -> list[FieldError]:
    """ObjectMeta validation with names checked as path segments; a missing name stands in as "fakename"."""
    if meta is None:
        meta = {}  # null decodes as an empty ObjectMeta
    if not isinstance(meta, dict):
        # Upstream decodes the metadata first and reports only the decoder's complaint.
        kind = "bool" if isinstance(meta, bool) else "string" if isinstance(meta, str) else "array"
        kind = "number" if isinstance(meta, (int, float)) and not isinstance(meta, bool) else kind
        return [invalid(path, meta, f"json: cannot unmarshal {kind} into Go value of type v1.ObjectMeta")]
    if not meta.get("name"):
        meta = {**meta, "name": "fakename"}
    namespaced = bool(meta.get("namespace"))
    _, errs = validate_object_meta({"metadata": meta}, namespaced=namespaced, name_fn=_path_segment, path=path)
    return errs


def _path_segment(name: str, prefix: bool) -> list[str]:
    """ValidatePathSegmentName: a generateName prefix may be "." or "..", a name may not."""
    return [msg for msg in path_segment_errors(name) if not prefix or "contain" in msg]
