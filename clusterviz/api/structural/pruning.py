"""Pruning of the fields a custom resource's schema does not declare, as apiextensions-apiserver does it.

Upstream prunes in place and reports each dropped field by its path
(``spec.foo``, ``spec.ports[0].bar``; a map key joins with a dot). Below
``x-kubernetes-preserve-unknown-fields: true`` unknown fields stay, though the
declared ones are still pruned inside. At the root and in an
``x-kubernetes-embedded-resource`` object, apiVersion, kind and metadata are kept
untouched (metadata has its own coercion). Where there is no schema at all (below
``additionalProperties: true``, or items of an array without ``items``), an object
loses every field.

Right after pruning the API server also drops every ``null`` the schema neither
allows (``nullable``) nor defaults, so ``replicas: null`` (or a YAML key left
empty) reads as absent; those are not unknown fields and are not reported.
"""

from __future__ import annotations

from typing import Any

from clusterviz.api.validation.common import child, index

from .schema import (
    EMBEDDED_RESOURCE,
    PRESERVE_UNKNOWN_FIELDS,
    Schema,
    additional_properties,
    as_schema,
    flag,
    has_default,
    items,
    properties,
)

__all__ = ["prune"]

_META_FIELDS = frozenset(("apiVersion", "kind", "metadata"))


def prune(schema: dict[str, Any], obj: Any, *, resource_root: bool = True) -> list[str]:
    """Drop, in place, every field of ``obj`` the schema does not declare; return their paths, sorted.

    For a whole resource (``resource_root``, the default), apiVersion, kind and metadata stay at the root
    and the nulls the schema neither allows nor defaults are dropped too, unreported, as upstream does
    next. With ``resource_root=False`` (a value below the root, such as a schema's ``default``) the root is
    an ordinary object unless the schema marks it an embedded resource, and nulls stay, as upstream's
    check of defaults prunes them.
    """
    root = dict(as_schema(schema) or {})
    if resource_root:
        root[EMBEDDED_RESOURCE] = True  # the resource itself keeps its type and object meta
    dropped: list[str] = []
    _prune(obj, root, "", dropped)
    if resource_root:
        _drop_disallowed_nulls(obj, root)
    return sorted(dropped)


def _prune(value: Any, schema: Schema | None, path: str, dropped: list[str]) -> None:
    if flag(schema, PRESERVE_UNKNOWN_FIELDS):
        _prune_declared(value, schema, path, dropped)
    elif schema is None:
        _prune_all(value, path, dropped)
    elif isinstance(value, dict):
        props = properties(schema)
        extra_set, extra = additional_properties(schema)
        embedded = flag(schema, EMBEDDED_RESOURCE)
        for key in list(value):
            if embedded and key in _META_FIELDS:
                continue
            if key in props:
                _prune(value[key], props[key], child(path, str(key)), dropped)
            elif extra_set:
                _prune(value[key], extra, child(path, str(key)), dropped)
            else:
                dropped.append(child(path, str(key)))
                del value[key]
    elif isinstance(value, list):
        item_schema = items(schema)
        for i, item in enumerate(value):
            _prune(item, item_schema, index(path, i), dropped)


def _drop_disallowed_nulls(value: Any, schema: Schema) -> None:
    """Remove each null whose schema is not nullable and has no default (defaulting fills the others)."""
    if isinstance(value, dict):
        props = properties(schema)
        _, extra = additional_properties(schema)
        for key in list(value):
            sub = props.get(key, extra)
            if sub is None:
                continue  # no schema below: nothing can be removed there
            if value[key] is None and sub.get("nullable") is not True and not has_default(sub):
                del value[key]
            else:
                _drop_disallowed_nulls(value[key], sub)
    elif isinstance(value, list):
        item_schema = items(schema)
        if item_schema is not None:
            for item in value:
                _drop_disallowed_nulls(item, item_schema)


def _prune_declared(value: Any, schema: Schema | None, path: str, dropped: list[str]) -> None:
    """Below preserve-unknown-fields: unknown fields stay, declared ones are pruned by their own schema."""
    if schema is None:
        return
    if isinstance(value, dict):
        props = properties(schema)
        extra_set, extra = additional_properties(schema)
        embedded = flag(schema, EMBEDDED_RESOURCE)
        for key in list(value):
            if embedded and key in _META_FIELDS:
                continue
            if key in props:
                _prune(value[key], props[key], child(path, str(key)), dropped)
            elif extra_set:
                _prune(value[key], extra, child(path, str(key)), dropped)
    elif isinstance(value, list):
        item_schema = items(schema)
        for i, item in enumerate(value):
            _prune_declared(item, item_schema, index(path, i), dropped)


def _prune_all(value: Any, path: str, dropped: list[str]) -> None:
    """No schema: every object field goes, in arrays of any depth too (walked without recursion)."""
    stack = [(value, path)]
    while stack:
        current, where = stack.pop()
        if isinstance(current, dict):
            dropped.extend(child(where, str(key)) for key in current)
            current.clear()
        elif isinstance(current, list):
            stack.extend((item, index(where, i)) for i, item in enumerate(current))
