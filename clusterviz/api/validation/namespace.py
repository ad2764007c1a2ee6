"""Namespaces: a DNS-1123 label name and qualified finalizer names."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.field import invalid
from clusterviz.apimachinery.names import is_qualified_name

from .common import Errors, as_dict, get_str, get_str_list
from .meta import STANDARD_FINALIZERS, name_is_dns_label, validate_object_meta, validate_object_meta_update


def validate_namespace(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    _, errs = validate_object_meta(obj, namespaced=False, name_fn=name_is_dns_label)
    spec = as_dict(obj.get("spec"), "spec", errs) or {}
    for finalizer in get_str_list(spec, "finalizers", "spec", errs) or []:
        errs.extend(invalid("spec.finalizers", finalizer, msg) for msg in is_qualified_name(finalizer))
        if "/" not in finalizer and finalizer not in STANDARD_FINALIZERS:
            errs.append(
                invalid(
                    "spec.finalizers", finalizer, "name is neither a standard finalizer name nor is it fully qualified"
                )
            )
    status = as_dict(obj.get("status"), "status", errs)
    if status is not None:
        get_str(status, "phase", "status", errs)
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
    return errs
