"""A Job's podFailurePolicy, successPolicy and per-index limits, as the API server's batch validation checks them."""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.field import FieldError, duplicate, invalid, not_supported, required, too_many
from clusterviz.apimachinery.unstructured import dict_or_empty

from .common import Errors, as_dict, as_list, check_int, child, index, label_name, nonnegative

ACTIONS: Final = ["Count", "FailIndex", "FailJob", "Ignore"]
OPERATORS: Final = ["In", "NotIn"]
CONDITION_STATUSES: Final = ["False", "True", "Unknown"]
MAX_RULES: Final = 20
MAX_EXIT_CODES: Final = 255
MAX_CONDITION_PATTERNS: Final = 20
MAX_SUCCESS_RULES: Final = 20
MAX_SUCCEEDED_INDEXES: Final = 64 * 1024
MAX_FAILED_INDEXES: Final = 100_000


def _quoted(values: list[str]) -> str:
    """Go's %q of a list of strings: ``["Count" "FailJob"]``."""
    return "[" + " ".join(f'"{v}"' for v in values) + "]"


def validate_pod_failure_policy(spec: dict[str, Any], path: str) -> Errors:
    """The rules' actions, exit-code requirements and condition patterns; restartPolicy Never is checked by the caller."""
    errs: Errors = []
    policy = as_dict(spec.get("podFailurePolicy"), path, errs)
    if policy is None:
        return errs
    rules_path = child(path, "rules")
    rules = as_list(policy.get("rules"), rules_path, errs) or []
    if len(rules) > MAX_RULES:
        errs.append(too_many(rules_path, len(rules), MAX_RULES))
    pod_spec = dict_or_empty(dict_or_empty(spec.get("template")).get("spec"))
    names = {
        c.get("name")
        for section in ("containers", "initContainers")
        for c in pod_spec.get(section) or []
        if isinstance(c, dict)
    }
    for i, rule in enumerate(rules):
        rule_path = index(rules_path, i)
        found = as_dict(rule, rule_path, errs)
        if found is not None:
            errs.extend(_validate_rule(spec, found, rule_path, names))
    return errs


def _validate_rule(spec: dict[str, Any], rule: dict[str, Any], path: str, names: set[Any]) -> Errors:
    errs: Errors = []
    action_path = child(path, "action")
    action = rule.get("action")
    if action in (None, ""):
        errs.append(required(action_path, f"valid values: {_quoted(ACTIONS)}"))
    elif action == "FailIndex":
        if spec.get("backoffLimitPerIndex") is None:
            errs.append(invalid(action_path, action, "requires the backoffLimitPerIndex to be set"))
    elif action not in ACTIONS:
        errs.append(not_supported(action_path, action, ACTIONS))
    exit_codes = rule.get("onExitCodes")
    conditions = rule.get("onPodConditions") or []
    if exit_codes is not None:
        errs.extend(_validate_exit_codes(exit_codes, child(path, "onExitCodes"), names))
    if conditions:
        errs.extend(_validate_conditions(conditions, child(path, "onPodConditions")))
    if exit_codes is not None and conditions:
        errs.append(FieldError("FieldValueInvalid", path, "specifying both OnExitCodes and OnPodConditions is not supported"))
    if exit_codes is None and not conditions:
        errs.append(FieldError("FieldValueInvalid", path, "specifying one of OnExitCodes and OnPodConditions is required"))
    return errs


def _validate_conditions(patterns: Any, path: str) -> Errors:
    errs: Errors = []
    found = as_list(patterns, path, errs) or []
    if len(found) > MAX_CONDITION_PATTERNS:
        errs.append(too_many(path, len(found), MAX_CONDITION_PATTERNS))
    for j, pattern in enumerate(found):
        pattern_path = index(path, j)
        item = as_dict(pattern, pattern_path, errs)
        if item is None:
            continue
        errs.extend(label_name(str(item.get("type") or ""), child(pattern_path, "type")))
        state = item.get("status")
        status_path = child(pattern_path, "status")
        if state in (None, ""):
            errs.append(required(status_path, f"valid values: {_quoted(CONDITION_STATUSES)}"))
        elif state not in CONDITION_STATUSES:
            errs.append(not_supported(status_path, state, CONDITION_STATUSES))
    return errs


def _validate_exit_codes(requirement: Any, path: str, names: set[Any]) -> Errors:
    errs: Errors = []
    found = as_dict(requirement, path, errs)
    if found is None:
        return errs
    operator = found.get("operator")
    operator_path = child(path, "operator")
    if operator in (None, ""):
        errs.append(required(operator_path, f"valid values: {_quoted(OPERATORS)}"))
    elif operator not in OPERATORS:
        errs.append(not_supported(operator_path, operator, OPERATORS))
    container = found.get("containerName")
    if container is not None and container not in names:
        errs.append(invalid(child(path, "containerName"), container,
                            "must be one of the container or initContainer names in the pod template"))
    values_path = child(path, "values")
    values = as_list(found.get("values"), values_path, errs) or []
    if not values:
        errs.append(invalid(values_path, values, "at least one value is required"))
    elif len(values) > MAX_EXIT_CODES:
        errs.append(too_many(values_path, len(values), MAX_EXIT_CODES))
    seen: set[int] = set()
    codes: list[int] = []
    for j, value in enumerate(values):
        value_path = index(values_path, j)
        code = check_int(value, value_path, errs)
        if not isinstance(code, int):
            continue
        if operator == "In" and code == 0:
            errs.append(invalid(value_path, code, "must not be 0 for the In operator"))
        if code in seen:
            errs.append(duplicate(value_path, code))
        seen.add(code)
        codes.append(code)
    if codes != sorted(codes):
        errs.append(invalid(values_path, values, "must be ordered"))
    return errs


def index_intervals(text: str, completions: int) -> tuple[int, str]:
    """validateIndexesFormat: how many indexes ``1,3-5`` names, or the reason it is malformed (count 0)."""
    if not text:
        return 0, ""
    last: int | None = None
    total = 0
    for interval in text.split(","):
        limits = interval.split("-")
        if len(limits) > 2:
            return 0, (f'the fragment "{interval}" violates the requirement that an index interval can have at most '
                       "two parts separated by '-'")
        bounds: list[int] = []
        for limit in limits:
            try:
                value = int(limit)
            except ValueError:
                return 0, f'cannot convert string to integer for index: "{limit}"'
            if value >= completions:
                return 0, f'too large index: "{limit}"'
            bounds.append(value)
        low, high = bounds[0], bounds[-1]
        if len(bounds) == 2 and low >= high:
            return 0, f"non-increasing order, previous: {low}, current: {high}"
        if last is not None and last >= low:
            return 0, f"non-increasing order, previous: {last}, current: {low}"
        total += high - low + 1
        last = high
    return total, ""


def validate_success_policy(spec: dict[str, Any], path: str) -> Errors:
    """validateSuccessPolicy: only for Indexed Jobs; each rule names indexes, a count, or both, within completions."""
    errs: Errors = []
    policy = as_dict(spec.get("successPolicy"), path, errs)
    if policy is None:
        return errs
    if spec.get("completionMode") != "Indexed":
        return [invalid(path, policy, "requires indexed completion mode")]
    completions = spec.get("completions")
    if not isinstance(completions, int):
        completions = 0  # already refused: an Indexed Job needs its completions
    rules_path = child(path, "rules")
    rules = as_list(policy.get("rules"), rules_path, errs) or []
    if not rules:
        errs.append(required(rules_path, "at least one rules must be specified when the successPolicy is specified"))
    if len(rules) > MAX_SUCCESS_RULES:
        errs.append(too_many(rules_path, len(rules), MAX_SUCCESS_RULES))
    for i, rule in enumerate(rules):
        rule_path = index(rules_path, i)
        found = as_dict(rule, rule_path, errs)
        if found is not None:
            errs.extend(_validate_success_rule(found, rule_path, completions))
    return errs


def _validate_success_rule(rule: dict[str, Any], path: str, completions: int) -> Errors:
    errs: Errors = []
    indexes, count = rule.get("succeededIndexes"), rule.get("succeededCount")
    if indexes is None and count is None:
        errs.append(required(path, "at least one of succeededCount or succeededIndexes must be specified"))
    total = 0
    if indexes is not None:
        indexes_path = child(path, "succeededIndexes")
        text = str(indexes)
        if len(text) > MAX_SUCCEEDED_INDEXES:
            errs.append(FieldError("FieldValueTooLong", indexes_path, f"must have at most {MAX_SUCCEEDED_INDEXES} bytes"))
        total, problem = index_intervals(text, completions)
        if problem:
            errs.append(invalid(indexes_path, text, f"error parsing succeededIndexes: {problem}"))
    if count is not None:
        count_path = child(path, "succeededCount")
        checked = check_int(count, count_path, errs)
        if isinstance(checked, int):
            errs.extend(nonnegative(checked, count_path))
            if checked > completions:
                errs.append(invalid(count_path, checked,
                                    f"must be less than or equal to {completions} (the number of specified completions)"))
            if indexes is not None and checked > total:
                errs.append(invalid(count_path, checked, f"must be less than or equal to {total} (the number of indexes "
                                                         "in the specified succeededIndexes field)"))
    return errs


def validate_index_limits(spec: dict[str, Any], path: str) -> Errors:
    """backoffLimitPerIndex and maxFailedIndexes: Indexed Jobs only, non-negative, the second needs the first."""
    errs: Errors = []
    per_index = check_int(spec.get("backoffLimitPerIndex"), child(path, "backoffLimitPerIndex"), errs)
    max_failed = check_int(spec.get("maxFailedIndexes"), child(path, "maxFailedIndexes"), errs)
    errs.extend(nonnegative(per_index, child(path, "backoffLimitPerIndex")))
    if max_failed is not None:
        errs.extend(nonnegative(max_failed, child(path, "maxFailedIndexes")))
        if per_index is None:
            errs.append(required(child(path, "backoffLimitPerIndex"), "when maxFailedIndexes is specified"))
    if spec.get("completionMode") != "Indexed":
        for name, value in (("backoffLimitPerIndex", per_index), ("maxFailedIndexes", max_failed)):
            if isinstance(value, int):
                errs.append(invalid(child(path, name), value, "requires indexed completion mode"))
        return errs
    completions = spec.get("completions")
    if isinstance(max_failed, int) and isinstance(completions, int) and max_failed > completions:
        errs.append(invalid(child(path, "maxFailedIndexes"), max_failed, "must be less than or equal to completions"))
    if isinstance(max_failed, int) and max_failed > MAX_FAILED_INDEXES:
        errs.append(invalid(child(path, "maxFailedIndexes"), max_failed,
                            f"must be less than or equal to {MAX_FAILED_INDEXES}"))
    return errs
