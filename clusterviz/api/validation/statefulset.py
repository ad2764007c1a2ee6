"""StatefulSets (apps/v1), as pkg/apis/apps/validation checks them.

volumeClaimTemplates are checked as claims (a name, then the claim spec's
rules: access modes, a positive storage request, class and volume mode), and
the template's containers may mount them as the volumes the controller gives
each Pod.
"""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.field import forbidden, invalid, not_supported, required
from clusterviz.apimachinery.labels import Selector, SelectorError, selector_from_label_selector
from clusterviz.apimachinery.unstructured import deep_copy, dict_or_empty

from .common import Errors, as_dict, as_list, child, dict_items, get_dict, get_int, nonnegative, semantic
from .meta import (
    name_is_dns_subdomain,
    validate_label_selector,
    validate_object_meta,
    validate_object_meta_update,
)
from .storage import validate_claim_spec
from .workloads import SELECTOR_MISMATCH_MSG, _validate_template_for_controller

POLICIES: Final = ("OrderedReady", "Parallel")
RETENTION: Final = ["Retain", "Delete"]
STATUS_COUNTS: Final = (
    "replicas",
    "readyReplicas",
    "currentReplicas",
    "updatedReplicas",
    "availableReplicas",
    "observedGeneration",
    "collisionCount",
)
# ValidateStatefulSetUpdate: the spec fields an update may change.
MUTABLE: Final = (
    "replicas",
    "ordinals",
    "template",
    "updateStrategy",
    "persistentVolumeClaimRetentionPolicy",
    "minReadySeconds",
    "revisionHistoryLimit",
)
FORBIDDEN_UPDATE: Final = (
    "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', "
    "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"
)


def _policy(spec: dict[str, Any]) -> Errors:
    policy = spec.get("podManagementPolicy")
    if policy in (None, ""):
        return [required("spec.podManagementPolicy", "")]
    if policy not in POLICIES:
        return [invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'")]
    return []


def _update_strategy(spec: dict[str, Any], errs: Errors) -> None:
    strategy = get_dict(spec, "updateStrategy", "spec", errs)
    if strategy is None:
        if spec.get("updateStrategy") is None:
            errs.append(required("spec.updateStrategy", ""))
        return
    strategy_type = strategy.get("type")
    rolling_path = "spec.updateStrategy.rollingUpdate"
    if strategy_type in (None, ""):
        errs.append(required("spec.updateStrategy", ""))
    elif strategy_type == "OnDelete":
        if strategy.get("rollingUpdate") is not None:
            errs.append(
                invalid(rolling_path, strategy["rollingUpdate"], "only allowed for updateStrategy 'RollingUpdate'")
            )
    elif strategy_type == "RollingUpdate":
        rolling = get_dict(strategy, "rollingUpdate", "spec.updateStrategy", errs)
        if rolling is not None:
            partition = get_int(rolling, "partition", rolling_path, errs)
            errs.extend(nonnegative(partition, child(rolling_path, "partition")))
    else:
        errs.append(invalid("spec.updateStrategy", strategy, "must be 'RollingUpdate' or 'OnDelete'"))


def _retention(spec: dict[str, Any], errs: Errors) -> None:
    path = "spec.persistentVolumeClaimRetentionPolicy"
    policy = get_dict(spec, "persistentVolumeClaimRetentionPolicy", "spec", errs)
    if policy is None:
        return
    for name in ("whenDeleted", "whenScaled"):
        value = policy.get(name)
        if value not in RETENTION:
            errs.append(not_supported(child(path, name), value, RETENTION))


def _claim_templates(spec: dict[str, Any], errs: Errors) -> None:
    """Each claim template: a DNS-subdomain name, at least one known access mode, a storage request."""
    path = "spec.volumeClaimTemplates"
    claims = as_list(spec.get("volumeClaimTemplates"), path, errs)
    for _, claim_path, claim in dict_items(claims, path, errs):
        name = dict_or_empty(claim.get("metadata")).get("name")
        if not name:
            errs.append(required(child(claim_path, "metadata", "name"), "name or generateName is required"))
        claim_spec = as_dict(claim.get("spec"), child(claim_path, "spec"), errs) or {}
        errs.extend(validate_claim_spec(claim_spec, child(claim_path, "spec")))


def _selector_and_template(spec: dict[str, Any], errs: Errors) -> None:
    """spec.selector (required, not empty) and a template it selects, restartPolicy Always."""
    raw = spec.get("selector")
    selector_obj = as_dict(raw, "spec.selector", errs)
    if raw is None:
        errs.append(required("spec.selector", ""))
    elif selector_obj is not None:
        errs.extend(validate_label_selector(selector_obj, "spec.selector"))
        if not selector_obj.get("matchLabels") and not selector_obj.get("matchExpressions"):
            errs.append(invalid("spec.selector", selector_obj, "empty selector is invalid for statefulset"))
    try:
        selector = selector_from_label_selector(selector_obj) if selector_obj is not None else Selector()
    except (SelectorError, TypeError, AttributeError):
        errs.append(invalid("spec.selector", selector_obj, ""))
        return
    template = as_dict(spec.get("template"), "spec.template", errs)
    if template is None and spec.get("template") is not None:
        return
    if raw is None:
        # A missing selector is labels.Nothing(): no template's labels match it.
        labels = dict_or_empty(dict_or_empty(template).get("metadata")).get("labels")
        errs.append(invalid("spec.template.metadata.labels", labels, SELECTOR_MISMATCH_MSG))
    errs.extend(_validate_template_for_controller(_with_claim_volumes(template, spec), selector, "spec.template",
                                                  "StatefulSet"))


def _with_claim_volumes(template: dict[str, Any] | None, spec: dict[str, Any]) -> dict[str, Any] | None:
    """The template as its Pods get it: each claim template is a volume too, so containers may mount it."""
    pod_spec = dict_or_empty(dict_or_empty(template).get("spec"))
    volumes = pod_spec.get("volumes")
    if template is None or not isinstance(volumes, (list, type(None))):
        return template
    present = {v.get("name") for v in volumes or [] if isinstance(v, dict)}
    claims = [dict_or_empty(dict_or_empty(c).get("metadata")).get("name") for c in spec.get("volumeClaimTemplates") or []
              if isinstance(c, dict)] if isinstance(spec.get("volumeClaimTemplates"), list) else []
    extra = [{"name": n, "persistentVolumeClaim": {"claimName": n}} for n in claims
             if isinstance(n, str) and n and n not in present]
    if not extra:
        return template
    augmented = deep_copy(template)
    augmented["spec"] = {**pod_spec, "volumes": [*(volumes or []), *extra]}
    return augmented


def _validate_spec(spec: dict[str, Any], errs: Errors) -> None:
    errs.extend(_policy(spec))
    _update_strategy(spec, errs)
    _retention(spec, errs)
    errs.extend(nonnegative(get_int(spec, "replicas", "spec", errs), "spec.replicas"))
    ordinals = get_dict(spec, "ordinals", "spec", errs)
    if ordinals is not None:
        errs.extend(nonnegative(get_int(ordinals, "start", "spec.ordinals", errs), "spec.ordinals.start"))
    errs.extend(nonnegative(get_int(spec, "minReadySeconds", "spec", errs), "spec.minReadySeconds"))
    errs.extend(nonnegative(get_int(spec, "revisionHistoryLimit", "spec", errs), "spec.revisionHistoryLimit"))
    _claim_templates(spec, errs)
    _selector_and_template(spec, errs)


def _status(obj: dict[str, Any], errs: Errors) -> None:
    status = as_dict(obj.get("status"), "status", errs) or {}
    counts = {name: get_int(status, name, "status", errs, bits=64) for name in STATUS_COUNTS}
    for name, value in counts.items():
        errs.extend(nonnegative(value, f"status.{name}"))
    replicas = counts["replicas"] if isinstance(counts["replicas"], int) else 0
    for name in ("readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"):
        value = counts[name]
        if isinstance(value, int) and not isinstance(value, bool) and value > replicas:
            errs.append(invalid(f"status.{name}", value, "cannot be greater than status.replicas"))
    ready, available = counts["readyReplicas"], counts["availableReplicas"]
    if isinstance(ready, int) and isinstance(available, int) and available > ready:
        errs.append(invalid("status.availableReplicas", available, "cannot be greater than status.readyReplicas"))


def validate_stateful_set(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """ValidateStatefulSet (and, with ``old``, ValidateStatefulSetUpdate: only some spec fields may change)."""
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"), "spec", errs)
    if spec is None and obj.get("spec") is None:
        spec = {}
    if spec is not None:
        _validate_spec(spec, errs)
    _status(obj, errs)
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
        new_spec, old_spec = dict_or_empty(obj.get("spec")), dict_or_empty(old.get("spec"))
        rest_new, rest_old = deep_copy(new_spec), deep_copy(old_spec)
        # The selector, serviceName, podManagementPolicy and claim templates are fixed once created.
        for name in MUTABLE:
            rest_new.pop(name, None)
            rest_old.pop(name, None)
        if semantic(rest_new) != semantic(rest_old):
            errs.append(forbidden("spec", FORBIDDEN_UPDATE))
        old_count = dict_or_empty(old.get("status")).get("collisionCount")
        new_count = dict_or_empty(obj.get("status")).get("collisionCount")
        if isinstance(old_count, int) and (not isinstance(new_count, int) or new_count < old_count):
            errs.append(invalid("status.collisionCount", new_count or 0, "cannot be decremented"))
    return errs
