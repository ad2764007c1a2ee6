"""Custom resources: defaulted, pruned and validated against their CRD version's schema, as the CRD handler does."""

from __future__ import annotations

from typing import Any

from clusterviz.api import structural

from .common import Errors
from .meta import name_is_dns_subdomain, validate_object_meta, validate_object_meta_update


def prepare_custom_resource(schema: dict[str, Any], obj: dict[str, Any]) -> dict[str, Any]:
    """The object as it will be stored: the schema's defaults filled in, the fields it does not declare dropped."""
    prepared = structural.apply_defaults(schema, obj)
    if not isinstance(prepared, dict):
        return obj
    structural.prune(schema, prepared)
    return prepared


def validate_custom_resource(schema: dict[str, Any], obj: dict[str, Any], old: dict[str, Any] | None,
                             *, namespaced: bool) -> Errors:
    """Its metadata (a DNS subdomain name), then everything its schema says."""
    _, errs = validate_object_meta(obj, namespaced=namespaced, name_fn=name_is_dns_subdomain)
    errs.extend(structural.validate(schema, obj))
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
    return errs
