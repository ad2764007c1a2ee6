"""ObjectMeta, labels, annotations and label selectors, as apimachinery's ``ValidateObjectMeta`` family."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from clusterviz.apimachinery.field import FieldError, forbidden, invalid, required
from clusterviz.apimachinery.names import (
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
)
from clusterviz.apimachinery.unstructured import dict_or_empty

from .common import (
    BAD,
    IMMUTABLE_MSG,
    Errors,
    as_dict,
    child,
    dict_items,
    get_int,
    get_list,
    get_str,
    get_str_list,
    get_str_map,
    index,
    label_name,
    nonnegative,
    semantic,
)

NameFunc = Callable[[str, bool], list[str]]

TOTAL_ANNOTATION_SIZE_LIMIT: Final = 256 * 1024
STANDARD_FINALIZERS: Final = frozenset({"kubernetes", "orphan", "foregroundDeletion"})


def _mask_trailing_dash(name: str) -> str:
    # A generateName prefix may end in "-"; upstream swaps the tail for a
    # letter before checking, exactly like this.
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


def _name_func(check: Callable[[str], list[str]]) -> NameFunc:
    def validate(name: str, prefix: bool) -> list[str]:
        return check(_mask_trailing_dash(name) if prefix else name)

    return validate


name_is_dns_subdomain: Final = _name_func(is_dns1123_subdomain)
name_is_dns_label: Final = _name_func(is_dns1123_label)
name_is_dns1035_label: Final = _name_func(is_dns1035_label)


def validate_labels(labels: dict[str, str] | None, path: str) -> Errors:
    """Label keys must be qualified names and values valid label values; errors point at the map."""
    errs: Errors = []
    for k, v in (labels or {}).items():
        errs.extend(label_name(k, path))
        errs.extend(invalid(path, v, msg) for msg in is_valid_label_value(v))
    return errs


def validate_annotations(annotations: dict[str, str] | None, path: str) -> Errors:
    errs: Errors = []
    total = 0
    for k, v in (annotations or {}).items():
        errs.extend(invalid(path, k, msg) for msg in is_qualified_name(k.lower()))
        total += len(k.encode()) + len(v.encode())
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        errs.append(FieldError("FieldValueTooLong", path, f"must have at most {TOTAL_ANNOTATION_SIZE_LIMIT} bytes"))
    return errs


def validate_label_selector(selector: Any, path: str) -> Errors:
    """A ``LabelSelector`` object: matchLabels as labels, matchExpressions with In/NotIn/Exists/DoesNotExist."""
    errs: Errors = []
    sel = as_dict(selector, path, errs)
    if sel is None:
        return errs
    errs.extend(validate_labels(get_str_map(sel, "matchLabels", path, errs), child(path, "matchLabels")))
    exprs_path = child(path, "matchExpressions")
    for _, expr_path, expr in dict_items(get_list(sel, "matchExpressions", path, errs), exprs_path, errs):
        errs.extend(validate_selector_requirement(expr, expr_path, node_selector=False))
    return errs


def validate_selector_requirement(expr: dict[str, Any], path: str, *, node_selector: bool) -> Errors:
    """One ``{key, operator, values}`` requirement of a label selector or a node selector term."""
    errs: Errors = []
    operator = get_str(expr, "operator", path, errs)
    values = get_str_list(expr, "values", path, errs)
    values_path = child(path, "values")
    count = len(values) if values is not None else 0
    if operator in ("In", "NotIn"):
        if count == 0:
            errs.append(required(values_path, "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in ("Exists", "DoesNotExist"):
        if count > 0:
            errs.append(forbidden(values_path, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif node_selector and operator in ("Gt", "Lt"):
        if count != 1:
            errs.append(required(values_path, "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    elif operator is not BAD:
        errs.append(invalid(child(path, "operator"), operator, "not a valid selector operator"))
    k = get_str(expr, "key", path, errs)
    if isinstance(k, str):
        errs.extend(label_name(k, child(path, "key")))
    for i, value in enumerate(values or []):
        errs.extend(invalid(index(values_path, i), value, msg) for msg in is_valid_label_value(value))
    return errs


def _validate_owner_references(refs: list[Any] | None, path: str) -> Errors:
    errs: Errors = []
    controllers: list[str] = []
    for _, ref_path, ref in dict_items(refs, path, errs):
        api_version = get_str(ref, "apiVersion", ref_path, errs)
        kind = get_str(ref, "kind", ref_path, errs)
        name = get_str(ref, "name", ref_path, errs)
        uid = get_str(ref, "uid", ref_path, errs)
        if api_version == "" or (isinstance(api_version, str) and api_version.endswith("/")):
            errs.append(invalid(child(ref_path, "apiVersion"), api_version, "version must not be empty"))
        if kind == "":
            errs.append(invalid(child(ref_path, "kind"), kind, "must not be empty"))
        if name == "":
            errs.append(invalid(child(ref_path, "name"), name, "must not be empty"))
        if uid == "":
            errs.append(invalid(child(ref_path, "uid"), uid, "must not be empty"))
        if ref.get("controller") is True:
            controllers.append(f"{kind}/{name}")
    if len(controllers) > 1:
        errs.append(
            invalid(
                path,
                refs,
                'Only one reference can have Controller set to true. Found "true" in references for '
                + " and ".join(controllers),
            )
        )
    return errs


def _validate_finalizers(finalizers: list[str] | None, path: str) -> Errors:
    errs: Errors = []
    seen: set[str] = set()
    for i, name in enumerate(finalizers or []):
        errs.extend(invalid(path, name, msg) for msg in is_qualified_name(name))
        if "/" not in name and name not in STANDARD_FINALIZERS:
            errs.append(
                invalid(index(path, i), name, "name is neither a standard finalizer name nor is it fully qualified")
            )
        if name in seen:
            errs.append(FieldError("FieldValueDuplicate", index(path, i), "", name))
        seen.add(name)
    return errs


def validate_object_meta(
    obj: dict[str, Any], *, namespaced: bool, name_fn: NameFunc, path: str = "metadata"
) -> tuple[dict[str, Any], Errors]:
    """Validate ``obj["metadata"]``; return the metadata (``{}`` when unusable) and the errors.

    A missing name is accepted when ``generateName`` is set: the API server
    generates the name before storing the object.
    """
    errs: Errors = []
    meta = as_dict(obj.get("metadata"), path, errs)
    if meta is None:
        meta = {}
    generate_name = get_str(meta, "generateName", path, errs)
    if generate_name:
        errs.extend(invalid(child(path, "generateName"), generate_name, msg) for msg in name_fn(generate_name, True))
    name = get_str(meta, "name", path, errs)
    if name == "":
        if not generate_name:
            errs.append(required(child(path, "name"), "name or generateName is required"))
    elif isinstance(name, str):
        errs.extend(invalid(child(path, "name"), name, msg) for msg in name_fn(name, False))
    namespace = get_str(meta, "namespace", path, errs)
    if namespaced:
        if namespace == "":
            errs.append(required(child(path, "namespace"), ""))
        elif isinstance(namespace, str):
            errs.extend(invalid(child(path, "namespace"), namespace, msg) for msg in is_dns1123_label(namespace))
    elif namespace:
        errs.append(forbidden(child(path, "namespace"), "not allowed on this type"))
    errs.extend(nonnegative(get_int(meta, "generation", path, errs, bits=64), child(path, "generation")))
    get_str(meta, "uid", path, errs)
    get_str(meta, "resourceVersion", path, errs)
    errs.extend(validate_labels(get_str_map(meta, "labels", path, errs), child(path, "labels")))
    errs.extend(validate_annotations(get_str_map(meta, "annotations", path, errs), child(path, "annotations")))
    errs.extend(
        _validate_owner_references(get_list(meta, "ownerReferences", path, errs), child(path, "ownerReferences"))
    )
    errs.extend(_validate_finalizers(get_str_list(meta, "finalizers", path, errs), child(path, "finalizers")))
    return meta, errs


def validate_object_meta_update(new: dict[str, Any], old: dict[str, Any], path: str = "metadata") -> Errors:
    """Name, namespace and uid may not change (an update that leaves uid out keeps the stored one)."""
    errs: Errors = []
    new_meta = dict_or_empty(new.get("metadata"))
    old_meta = dict_or_empty(old.get("metadata"))
    for field in ("name", "namespace", "uid"):
        new_value = new_meta.get(field) or ""
        old_value = old_meta.get(field) or ""
        if field == "uid" and new_value == "":
            continue
        if new_value != old_value:
            errs.append(invalid(child(path, field), new_value, IMMUTABLE_MSG))
    return errs


def immutable(new_value: Any, old_value: Any, path: str) -> Errors:
    """``field is immutable`` when the value changed (absent and empty count as the same)."""
    if semantic(new_value) != semantic(old_value):
        return [invalid(path, new_value, IMMUTABLE_MSG)]
    return []
