"""APIServices (apiregistration.k8s.io/v1), as the aggregator's ValidateAPIService and its update and status checks."""

from __future__ import annotations

import json
from typing import Any

from clusterviz.apimachinery.field import invalid, not_supported, required
from clusterviz.apimachinery.names import is_dns1035_label, is_dns1123_subdomain

from .autoscaling import path_segment_errors
from .common import BAD, Errors, child, dict_items, each_invalid, get_bool, get_dict, get_int, get_list, get_str
from .meta import validate_object_meta, validate_object_meta_update

CONDITION_STATUSES = ["True", "False", "Unknown"]


def _name_check(required_name: str) -> Any:
    def check(name: str, prefix: bool) -> list[str]:
        found = path_segment_errors(name)
        if found:
            return found
        # Go's %q of the name it has to be.
        return [] if name == required_name else [f"must be `spec.version+\".\"+spec.group`: {json.dumps(required_name)}"]

    return check


def validate_api_service(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """The name is version.group; the group, version and priorities are sound; TLS settings fit a Service or none."""
    errs: Errors = []
    spec = get_dict(obj, "spec", "", errs) or {}
    group = get_str(spec, "group", "spec", errs)
    version = get_str(spec, "version", "spec", errs)
    group_s = group if isinstance(group, str) else ""
    version_s = version if isinstance(version, str) else ""
    _, meta_errs = validate_object_meta(obj, namespaced=False, name_fn=_name_check(f"{version_s}.{group_s}"))
    errs = meta_errs + errs
    if not group_s and version_s != "v1":
        errs.append(required("spec.group", "only v1 may have an empty group and it better be legacy kube"))
    if group_s:
        errs.extend(each_invalid("spec.group", group_s, is_dns1123_subdomain(group_s)))
    if version is not BAD:
        errs.extend(each_invalid("spec.version", version_s, is_dns1035_label(version_s)))
    group_priority = get_int(spec, "groupPriorityMinimum", "spec", errs)
    if group_priority is not BAD and not 0 < (group_priority or 0) <= 20000:
        errs.append(invalid("spec.groupPriorityMinimum", group_priority or 0, "must be positive and less than 20000"))
    version_priority = get_int(spec, "versionPriority", "spec", errs)
    if version_priority is not BAD and not 0 < (version_priority or 0) <= 1000:
        errs.append(invalid("spec.versionPriority", version_priority or 0, "must be positive and less than 1000"))
    ca_bundle = get_str(spec, "caBundle", "spec", errs)
    ca_length = len(ca_bundle) * 3 // 4 if isinstance(ca_bundle, str) else 0
    skip_verify = get_bool(spec, "insecureSkipTLSVerify", "spec", errs) is True
    service = get_dict(spec, "service", "spec", errs)
    if service is None:
        if ca_length:
            errs.append(invalid("spec.caBundle", f"{ca_length} bytes", "local APIServices may not have a caBundle"))
        if skip_verify:
            errs.append(invalid("spec.insecureSkipTLSVerify", True, "local APIServices may not have insecureSkipTLSVerify"))
    else:
        for name in ("namespace", "name"):
            if get_str(service, name, "spec.service", errs) == "":
                errs.append(required(child("spec.service", name), ""))
        get_int(service, "port", "spec.service", errs)
        if skip_verify and ca_length:
            errs.append(invalid("spec.insecureSkipTLSVerify", True, "may not be true if caBundle is present"))
    errs.extend(_validate_status(obj))
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
    return errs


def _validate_status(obj: dict[str, Any]) -> Errors:
    errs: Errors = []
    status = get_dict(obj, "status", "", errs) or {}
    for _, path, condition in dict_items(get_list(status, "conditions", "status", errs), "status.conditions", errs):
        value = get_str(condition, "status", path, errs)
        if isinstance(value, str) and value not in CONDITION_STATUSES:
            errs.append(not_supported(child(path, "status"), value, CONDITION_STATUSES))
    return errs
