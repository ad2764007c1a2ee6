"""ServiceAccounts: only their metadata is checked, as upstream's ``ValidateServiceAccount`` does."""

from __future__ import annotations

from typing import Any

from .common import Errors, dict_items, get_bool, get_list, get_str
from .meta import name_is_dns_subdomain, validate_object_meta, validate_object_meta_update


def validate_service_account(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """Name, namespace and labels; the references are checked for type only (Go's decoder would)."""
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    for section in ("secrets", "imagePullSecrets"):
        for _, path, ref in dict_items(get_list(obj, section, "", errs), section, errs):
            get_str(ref, "name", path, errs)
    get_bool(obj, "automountServiceAccountToken", "", errs)
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
    return errs
