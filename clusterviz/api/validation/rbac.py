"""Roles, ClusterRoles and their bindings (rbac.authorization.k8s.io/v1), as upstream's rbac validation."""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.field import invalid, not_supported, required

from .autoscaling import path_segment_errors
from .common import Errors, child, dict_items, get_dict, get_list, get_str, get_str_list, index
from .meta import name_is_dns_subdomain, validate_label_selector, validate_object_meta, validate_object_meta_update

GROUP: Final = "rbac.authorization.k8s.io"
SUBJECT_KINDS: Final = ["ServiceAccount", "User", "Group"]


def rbac_name_errors(name: str, prefix: bool) -> list[str]:
    """ValidateRBACName: a role's or binding's name only has to fit in a URL path (``system:`` names do)."""
    return path_segment_errors(name)


def _validate_rule(rule: dict[str, Any], namespaced: bool, path: str, errs: Errors) -> None:
    """ValidatePolicyRule: verbs, then either non-resource URLs alone or API groups with resources."""
    verbs = get_str_list(rule, "verbs", path, errs) or []
    urls = get_str_list(rule, "nonResourceURLs", path, errs) or []
    groups = get_str_list(rule, "apiGroups", path, errs) or []
    resources = get_str_list(rule, "resources", path, errs) or []
    names = get_str_list(rule, "resourceNames", path, errs) or []
    if not verbs:
        errs.append(required(child(path, "verbs"), "verbs must contain at least one value"))
    if urls:
        if namespaced:
            errs.append(invalid(child(path, "nonResourceURLs"), urls, "namespaced rules cannot apply to non-resource URLs"))
        if groups or resources or names:
            errs.append(invalid(child(path, "nonResourceURLs"), urls,
                                "rules cannot apply to both regular resources and non-resource URLs"))
        return
    if not groups:
        errs.append(required(child(path, "apiGroups"), "resource rules must supply at least one api group"))
    if not resources:
        errs.append(required(child(path, "resources"), "resource rules must supply at least one resource"))


def _validate_rules(obj: dict[str, Any], namespaced: bool, errs: Errors) -> None:
    for _, rule_path, rule in dict_items(get_list(obj, "rules", "", errs), "rules", errs):
        _validate_rule(rule, namespaced, rule_path, errs)


def validate_role(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """ValidateRole: metadata and rules that stay inside the namespace."""
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=rbac_name_errors)
    _validate_rules(obj, True, errs)
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
    return errs


def validate_cluster_role(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """ValidateClusterRole: metadata, rules, and an aggregation rule with at least one selector."""
    _, errs = validate_object_meta(obj, namespaced=False, name_fn=rbac_name_errors)
    _validate_rules(obj, False, errs)
    aggregation = get_dict(obj, "aggregationRule", "", errs)
    if aggregation is not None:
        selectors_path = child("aggregationRule", "clusterRoleSelectors")
        selectors = get_list(aggregation, "clusterRoleSelectors", "aggregationRule", errs)
        if not selectors:
            errs.append(required(selectors_path, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
        for i, selector in enumerate(selectors or []):
            errs.extend(validate_label_selector(selector, index(selectors_path, i)))
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
    return errs


def _validate_subject(subject: dict[str, Any], namespaced: bool, path: str, errs: Errors) -> None:
    """ValidateRoleBindingSubject: a name, a known kind, and the API group that kind lives in."""
    name = get_str(subject, "name", path, errs)
    kind = get_str(subject, "kind", path, errs)
    group = get_str(subject, "apiGroup", path, errs)
    if name == "":
        errs.append(required(child(path, "name"), ""))
    if kind == "ServiceAccount":
        if isinstance(name, str) and name:
            errs.extend(invalid(child(path, "name"), name, msg) for msg in name_is_dns_subdomain(name, False))
        if group:
            errs.append(not_supported(child(path, "apiGroup"), group, [""]))
        if not namespaced and not get_str(subject, "namespace", path, errs):
            errs.append(required(child(path, "namespace"), ""))
    elif kind in ("User", "Group"):
        if group != GROUP:
            errs.append(not_supported(child(path, "apiGroup"), group, [GROUP]))
    else:
        errs.append(not_supported(child(path, "kind"), kind, SUBJECT_KINDS))


def _validate_binding(obj: dict[str, Any], old: dict[str, Any] | None, namespaced: bool, role_kinds: list[str]) -> Errors:
    _, errs = validate_object_meta(obj, namespaced=namespaced, name_fn=rbac_name_errors)
    ref = get_dict(obj, "roleRef", "", errs) or {}
    group = get_str(ref, "apiGroup", "roleRef", errs)
    kind = get_str(ref, "kind", "roleRef", errs)
    name = get_str(ref, "name", "roleRef", errs)
    if group != GROUP:
        errs.append(not_supported("roleRef.apiGroup", group, [GROUP]))
    if kind not in role_kinds:
        errs.append(not_supported("roleRef.kind", kind, role_kinds))
    if name == "":
        errs.append(required("roleRef.name", ""))
    elif isinstance(name, str):
        errs.extend(invalid("roleRef.name", name, msg) for msg in path_segment_errors(name))
    for _, subject_path, subject in dict_items(get_list(obj, "subjects", "", errs), "subjects", errs):
        _validate_subject(subject, namespaced, subject_path, errs)
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
        if (old.get("roleRef") or {}) != ref:
            errs.append(invalid("roleRef", ref, "cannot change roleRef"))
    return errs


def validate_role_binding(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """ValidateRoleBinding: a Role or ClusterRole of this group, valid subjects; roleRef never changes."""
    return _validate_binding(obj, old, True, ["Role", "ClusterRole"])


def validate_cluster_role_binding(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """ValidateClusterRoleBinding: a ClusterRole of this group; ServiceAccount subjects name their namespace."""
    return _validate_binding(obj, old, False, ["ClusterRole"])
