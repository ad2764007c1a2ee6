"""core/v1 Events: the legacy rules the API server still applies to every Event."""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.field import invalid, required
from clusterviz.apimachinery.unstructured import str_or_empty

from .common import Errors, as_dict, get_dict, get_int, get_str, label_name
from .meta import name_is_dns_subdomain, validate_object_meta, validate_object_meta_update

REPORTING_INSTANCE_LIMIT: Final = 128
ACTION_LIMIT: Final = 128
REASON_LIMIT: Final = 128
NOTE_LIMIT: Final = 1024


def validate_event(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    meta, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    namespace = str_or_empty(meta.get("namespace"))
    involved = get_dict(obj, "involvedObject", "", errs) or {}
    involved_ns = get_str(involved, "namespace", "involvedObject", errs)
    for name in ("kind", "name", "uid", "apiVersion", "fieldPath", "resourceVersion"):
        get_str(involved, name, "involvedObject", errs)
    for name in ("reason", "message", "type", "action", "reportingComponent", "reportingInstance"):
        get_str(obj, name, "", errs)
    get_int(obj, "count", "", errs)
    as_dict(obj.get("source"), "source", errs)
    if isinstance(involved_ns, str):
        if obj.get("eventTime") is None:
            # Old-style events: the namespace must match the involved object's
            # (cluster-scoped objects' events may live in "default").
            if involved_ns == "":
                if namespace not in ("", "default"):
                    errs.append(invalid("involvedObject.namespace", involved_ns, "does not match event.namespace"))
            elif namespace != involved_ns:
                errs.append(invalid("involvedObject.namespace", involved_ns, "does not match event.namespace"))
        else:
            if involved_ns == "" and namespace not in ("default", "kube-system"):
                errs.append(invalid("involvedObject.namespace", involved_ns, "does not match event.namespace"))
            errs.extend(_validate_new_style(obj))
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
    return errs


def _text(obj: dict[str, Any], name: str) -> str:
    value = obj.get(name)
    return value if isinstance(value, str) else ""


def _validate_new_style(obj: dict[str, Any]) -> Errors:
    """Events carrying an eventTime must say who reported them and why."""
    errs: Errors = []
    controller = _text(obj, "reportingComponent")
    if controller == "":
        errs.append(required("reportingComponent", ""))
    errs.extend(label_name(controller, "reportingComponent"))
    instance = _text(obj, "reportingInstance")
    if instance == "":
        errs.append(required("reportingInstance", ""))
    if len(instance) > REPORTING_INSTANCE_LIMIT:
        errs.append(invalid("reportingInstance", "", f"can have at most {REPORTING_INSTANCE_LIMIT} characters"))
    action = _text(obj, "action")
    if action == "":
        errs.append(required("action", ""))
    if len(action) > ACTION_LIMIT:
        errs.append(invalid("action", "", f"can have at most {ACTION_LIMIT} characters"))
    reason = _text(obj, "reason")
    if reason == "":
        errs.append(required("reason", ""))
    if len(reason) > REASON_LIMIT:
        errs.append(invalid("reason", "", f"can have at most {REASON_LIMIT} characters"))
    if len(_text(obj, "message")) > NOTE_LIMIT:
        errs.append(invalid("message", "", f"can have at most {NOTE_LIMIT} characters"))
    return errs
