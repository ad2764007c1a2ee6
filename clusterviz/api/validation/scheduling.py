"""Taints, tolerations and topology spread constraints."""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.field import (
    duplicate,
    invalid,
    not_supported,
    required,
)
from clusterviz.apimachinery.names import is_valid_label_value

from .common import (
    BAD,
    IS_NOT_POSITIVE_MSG,
    Errors,
    child,
    dict_items,
    get_int,
    get_opt_str,
    get_str,
    label_name,
)
from .meta import (
    validate_label_selector,
)

TAINT_EFFECTS: Final = ["NoSchedule", "PreferNoSchedule", "NoExecute"]
TOLERATION_OPERATORS: Final = ["Equal", "Exists"]
WHEN_UNSATISFIABLE: Final = ["DoNotSchedule", "ScheduleAnyway"]
NODE_INCLUSION_POLICIES: Final = ["Honor", "Ignore"]


def validate_taint_effect(effect: str, path: str, *, allow_empty: bool) -> Errors:
    if effect == "":
        return [] if allow_empty else [required(path, "")]
    if effect not in TAINT_EFFECTS:
        return [not_supported(path, effect, TAINT_EFFECTS)]
    return []


def validate_tolerations(tolerations: list[Any] | None, path: str) -> Errors:
    errs: Errors = []
    for _, tol_path, tol in dict_items(tolerations, path, errs):
        tol_key = get_str(tol, "key", tol_path, errs)
        operator = get_str(tol, "operator", tol_path, errs)
        value = get_str(tol, "value", tol_path, errs)
        effect = get_str(tol, "effect", tol_path, errs)
        seconds = get_int(tol, "tolerationSeconds", tol_path, errs, bits=64)
        if tol_key:
            errs.extend(label_name(tol_key, child(tol_path, "key")))
        if tol_key == "" and operator != "Exists" and operator is not BAD:
            errs.append(
                invalid(
                    child(tol_path, "operator"),
                    operator,
                    'operator must be Exists when `key` is empty, which means "match all values and all keys"',
                )
            )
        if seconds is not None and seconds is not BAD and effect != "NoExecute":
            errs.append(
                invalid(child(tol_path, "effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set")
            )
        if operator in ("Equal", ""):
            if isinstance(value, str):
                problems = is_valid_label_value(value)
                if problems:
                    errs.append(invalid(child(tol_path, "operator"), value, ";".join(problems)))
        elif operator == "Exists":
            if value:
                errs.append(
                    invalid(child(tol_path, "operator"), tol, "value must be empty when `operator` is 'Exists'")
                )
        elif operator is not BAD:
            errs.append(not_supported(child(tol_path, "operator"), operator, TOLERATION_OPERATORS))
        if isinstance(effect, str):
            errs.extend(validate_taint_effect(effect, child(tol_path, "effect"), allow_empty=True))
    return errs


def _validate_topology_spread(constraints: list[Any] | None, path: str) -> Errors:
    errs: Errors = []
    items = dict_items(constraints, path, errs)
    for i, item_path, item in items:
        max_skew = get_int(item, "maxSkew", item_path, errs)
        if max_skew is None or (isinstance(max_skew, int) and max_skew <= 0):
            errs.append(invalid(child(item_path, "maxSkew"), max_skew or 0, IS_NOT_POSITIVE_MSG))
        topology_key = get_str(item, "topologyKey", item_path, errs)
        if topology_key == "":
            errs.append(required(child(item_path, "topologyKey"), "can not be empty"))
        action = get_str(item, "whenUnsatisfiable", item_path, errs)
        if isinstance(action, str) and action not in WHEN_UNSATISFIABLE:
            errs.append(not_supported(child(item_path, "whenUnsatisfiable"), action, WHEN_UNSATISFIABLE))
        pair = (topology_key, action)
        later = [
            (other.get("topologyKey") or "", other.get("whenUnsatisfiable") or "") for _, _, other in items[i + 1 :]
        ]
        if pair in later:
            errs.append(
                duplicate(child(item_path, "{topologyKey, whenUnsatisfiable}"), f"{{{topology_key}, {action}}}")
            )
        min_domains = get_int(item, "minDomains", item_path, errs)
        if isinstance(min_domains, int):
            if min_domains <= 0:
                errs.append(invalid(child(item_path, "minDomains"), min_domains, IS_NOT_POSITIVE_MSG))
            if action != "DoNotSchedule":
                errs.append(
                    invalid(
                        child(item_path, "minDomains"),
                        min_domains,
                        f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}",
                    )
                )
        for policy_name in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = get_opt_str(item, policy_name, item_path, errs)
            if isinstance(policy, str) and policy not in NODE_INCLUSION_POLICIES:
                errs.append(not_supported(child(item_path, policy_name), policy, NODE_INCLUSION_POLICIES))
        errs.extend(validate_label_selector(item.get("labelSelector"), child(item_path, "labelSelector")))
    return errs
