"""Node and pod affinity: ``spec.affinity`` and node selector terms."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.field import (
    invalid,
    required,
)
from clusterviz.apimachinery.names import is_dns1123_subdomain

from .common import (
    BAD,
    Errors,
    child,
    dict_items,
    dns1123_label,
    get_dict,
    get_int,
    get_list,
    get_str,
    get_str_list,
    index,
    label_name,
)
from .meta import (
    validate_label_selector,
    validate_selector_requirement,
)

# --- scheduling constraints ----------------------------------------------------------


def validate_node_selector_term(term: dict[str, Any], path: str) -> Errors:
    errs: Errors = []
    exprs_path = child(path, "matchExpressions")
    for _, expr_path, expr in dict_items(get_list(term, "matchExpressions", path, errs), exprs_path, errs):
        errs.extend(validate_selector_requirement(expr, expr_path, node_selector=True))
    fields_path = child(path, "matchFields")
    for _, req_path, req in dict_items(get_list(term, "matchFields", path, errs), fields_path, errs):
        operator = get_str(req, "operator", req_path, errs)
        values = get_str_list(req, "values", req_path, errs) or []
        if operator in ("In", "NotIn"):
            if len(values) != 1:
                errs.append(
                    required(
                        child(req_path, "values"),
                        "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                    )
                )
        elif operator is not BAD:
            errs.append(invalid(child(req_path, "operator"), operator, "not a valid selector operator"))
        field_key = get_str(req, "key", req_path, errs)
        if field_key != "metadata.name" and field_key is not BAD:
            errs.append(invalid(child(req_path, "key"), field_key, "not a valid field selector key"))
        elif field_key == "metadata.name":
            for i, value in enumerate(values):
                errs.extend(
                    invalid(index(child(req_path, "values"), i), value, msg) for msg in is_dns1123_subdomain(value)
                )
    return errs


def _weight(term: dict[str, Any], path: str, errs: Errors) -> None:
    weight = get_int(term, "weight", path, errs)
    if weight is None:
        weight = 0
    if isinstance(weight, int) and not 1 <= weight <= 100:
        errs.append(invalid(child(path, "weight"), weight, "must be in the range 1-100"))


def _validate_pod_affinity_term(term: dict[str, Any], path: str, errs: Errors) -> None:
    errs.extend(validate_label_selector(term.get("labelSelector"), child(path, "labelSelector")))
    errs.extend(validate_label_selector(term.get("namespaceSelector"), child(path, "namespaceSelector")))
    for namespace in get_str_list(term, "namespaces", path, errs) or []:
        errs.extend(dns1123_label(namespace, child(path, "namespace")))
    topology_key = get_str(term, "topologyKey", path, errs)
    if topology_key == "":
        errs.append(required(child(path, "topologyKey"), "can not be empty"))
    elif isinstance(topology_key, str):
        errs.extend(label_name(topology_key, child(path, "topologyKey")))


def _validate_pod_affinity(affinity: dict[str, Any], path: str, errs: Errors) -> None:
    req_path = child(path, "requiredDuringSchedulingIgnoredDuringExecution")
    for _, term_path, term in dict_items(
        get_list(affinity, "requiredDuringSchedulingIgnoredDuringExecution", path, errs), req_path, errs
    ):
        _validate_pod_affinity_term(term, term_path, errs)
    pref_path = child(path, "preferredDuringSchedulingIgnoredDuringExecution")
    for _, term_path, term in dict_items(
        get_list(affinity, "preferredDuringSchedulingIgnoredDuringExecution", path, errs), pref_path, errs
    ):
        _weight(term, term_path, errs)
        inner = get_dict(term, "podAffinityTerm", term_path, errs)
        _validate_pod_affinity_term(inner or {}, child(term_path, "podAffinityTerm"), errs)


def validate_affinity(affinity: dict[str, Any], path: str) -> Errors:
    errs: Errors = []
    node = get_dict(affinity, "nodeAffinity", path, errs)
    if node is not None:
        node_path = child(path, "nodeAffinity")
        selector = get_dict(node, "requiredDuringSchedulingIgnoredDuringExecution", node_path, errs)
        if selector is not None:
            sel_path = child(node_path, "requiredDuringSchedulingIgnoredDuringExecution")
            terms_path = child(sel_path, "nodeSelectorTerms")
            terms = get_list(selector, "nodeSelectorTerms", sel_path, errs)
            if not terms and (terms is not None or selector.get("nodeSelectorTerms") is None):
                errs.append(required(terms_path, "must have at least one node selector term"))
            for _, term_path, term in dict_items(terms, terms_path, errs):
                errs.extend(validate_node_selector_term(term, term_path))
        pref_path = child(node_path, "preferredDuringSchedulingIgnoredDuringExecution")
        for _, term_path, term in dict_items(
            get_list(node, "preferredDuringSchedulingIgnoredDuringExecution", node_path, errs), pref_path, errs
        ):
            _weight(term, term_path, errs)
            preference = get_dict(term, "preference", term_path, errs)
            errs.extend(validate_node_selector_term(preference or {}, child(term_path, "preference")))
    for kind in ("podAffinity", "podAntiAffinity"):
        section = get_dict(affinity, kind, path, errs)
        if section is not None:
            _validate_pod_affinity(section, child(path, kind), errs)
    return errs
