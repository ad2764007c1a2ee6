"""Pods and pod templates: ``ValidatePodSpec`` and ``ValidatePodUpdate`` of core validation."""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.field import (
    FieldError,
    forbidden,
    format_value,
    invalid,
    not_supported,
    required,
)
from clusterviz.apimachinery.unstructured import dict_or_empty, list_or_empty

from .affinity import validate_affinity
from .common import (
    INT32_MAX,
    Errors,
    as_dict,
    as_list,
    child,
    dict_items,
    dns1123_label,
    dns1123_subdomain,
    get_bool,
    get_dict,
    get_int,
    get_list,
    get_opt_str,
    get_str,
    get_str_map,
    inclusive_range_error,
    index,
    semantic,
)
from .containers import _container_names, _validate_containers, _validate_init_containers
from .containers import port_num_or_name as port_num_or_name
from .env import config_map_key_errors as config_map_key_errors
from .meta import (
    name_is_dns_subdomain,
    validate_annotations,
    validate_labels,
    validate_object_meta,
    validate_object_meta_update,
)
from .resources import resource_quantity_value as resource_quantity_value
from .scheduling import _validate_topology_spread, validate_tolerations
from .scheduling import validate_taint_effect as validate_taint_effect
from .volumes import validate_volumes

RESTART_POLICIES: Final = ["Always", "OnFailure", "Never"]
DNS_POLICIES: Final = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]
PREEMPTION_POLICIES: Final = ["PreemptLowerPriority", "Never"]

# The fields a Pod update may change, in upstream's wording.
UPDATABLE_POD_SPEC_FIELDS: Final = ",".join(
    [
        "`spec.containers[*].image`",
        "`spec.initContainers[*].image`",
        "`spec.activeDeadlineSeconds`",
        "`spec.tolerations` (only additions to existing tolerations)",
        "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
    ]
)


# --- the pod spec -----------------------------------------------------------------


def _enum(spec: dict[str, Any], name: str, path: str, allowed: list[str], errs: Errors) -> None:
    value = get_str(spec, name, path, errs)
    if value == "":
        errs.append(required(child(path, name), ""))
    elif isinstance(value, str) and value not in allowed:
        errs.append(not_supported(child(path, name), value, allowed))


def validate_pod_spec(spec: dict[str, Any], path: str) -> Errors:
    """Validate a (defaulted) PodSpec found at ``path``."""
    errs: Errors = []
    volumes = validate_volumes(get_list(spec, "volumes", path, errs), child(path, "volumes"), errs)
    containers = get_list(spec, "containers", path, errs)
    if containers is not None or spec.get("containers") is None:
        errs.extend(_validate_containers(containers, volumes, child(path, "containers")))
    errs.extend(
        _validate_init_containers(
            get_list(spec, "initContainers", path, errs),
            _container_names(containers),
            volumes,
            child(path, "initContainers"),
        )
    )
    _enum(spec, "restartPolicy", path, RESTART_POLICIES, errs)
    _enum(spec, "dnsPolicy", path, DNS_POLICIES, errs)
    errs.extend(validate_labels(get_str_map(spec, "nodeSelector", path, errs), child(path, "nodeSelector")))
    get_dict(spec, "securityContext", path, errs)
    secrets_path = child(path, "imagePullSecrets")
    for _, secret_path, secret in dict_items(get_list(spec, "imagePullSecrets", path, errs), secrets_path, errs):
        get_str(secret, "name", secret_path, errs)
    affinity = get_dict(spec, "affinity", path, errs)
    if affinity is not None:
        errs.extend(validate_affinity(affinity, child(path, "affinity")))
    errs.extend(
        _validate_topology_spread(
            get_list(spec, "topologySpreadConstraints", path, errs), child(path, "topologySpreadConstraints")
        )
    )
    get_str(spec, "serviceAccount", path, errs)
    for name in ("serviceAccountName", "nodeName", "priorityClassName"):
        value = get_str(spec, name, path, errs)
        if value:
            errs.extend(dns1123_subdomain(value, child(path, name)))
    deadline = get_int(spec, "activeDeadlineSeconds", path, errs, bits=64)
    if isinstance(deadline, int) and not 1 <= deadline <= INT32_MAX:
        errs.append(invalid(child(path, "activeDeadlineSeconds"), deadline, inclusive_range_error(1, INT32_MAX)))
    for name in ("hostname", "subdomain"):
        value = get_str(spec, name, path, errs)
        if value:
            errs.extend(dns1123_label(value, child(path, name)))
    errs.extend(validate_tolerations(get_list(spec, "tolerations", path, errs), child(path, "tolerations")))
    preemption = get_opt_str(spec, "preemptionPolicy", path, errs)
    if isinstance(preemption, str) and preemption not in PREEMPTION_POLICIES:
        errs.append(not_supported(child(path, "preemptionPolicy"), preemption, PREEMPTION_POLICIES))
    get_int(spec, "terminationGracePeriodSeconds", path, errs, bits=64)
    get_int(spec, "priority", path, errs)
    get_str(spec, "schedulerName", path, errs)
    for flag in ("hostNetwork", "hostPID", "hostIPC", "enableServiceLinks", "automountServiceAccountToken"):
        get_bool(spec, flag, path, errs)
    return errs


def validate_pod_template(template: dict[str, Any], path: str) -> Errors:
    """A PodTemplateSpec: labels and annotations of its metadata, then the pod spec.

    Upstream reports template label problems at ``<path>.labels`` (not
    ``<path>.metadata.labels``); that is kept.
    """
    errs: Errors = []
    meta = get_dict(template, "metadata", path, errs) or {}
    meta_path = child(path, "metadata")
    errs.extend(validate_labels(get_str_map(meta, "labels", meta_path, errs), child(path, "labels")))
    errs.extend(validate_annotations(get_str_map(meta, "annotations", meta_path, errs), child(path, "annotations")))
    spec = get_dict(template, "spec", path, errs)
    errs.extend(validate_pod_spec(spec or {}, child(path, "spec")))
    if spec and spec.get("ephemeralContainers"):
        errs.append(
            forbidden(child(path, "spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template")
        )
    return errs


# --- updates ----------------------------------------------------------------------


def _toleration_key(tol: Any) -> Any:
    if not isinstance(tol, dict):
        return tol
    return (tol.get("key") or "", tol.get("operator") or "", tol.get("value") or "", tol.get("effect") or "")


def _diff(old: Any, new: Any, path: str, out: list[str]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for k in list(old) + [k for k in new if k not in old]:
            _diff(old.get(k), new.get(k), child(path, k), out)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            _diff(a, b, index(path, i), out)
    elif old != new:
        out.append(f"  {path}: {_show(old)} -> {_show(new)}")


def _show(value: Any) -> str:
    return "<unset>" if value is None else format_value(value)


def validate_pod_update(new: dict[str, Any], old: dict[str, Any]) -> Errors:
    """What a Pod update may change: images, a shorter activeDeadlineSeconds, added tolerations.

    ``spec.nodeName`` may go from unset to set (that is a binding); once set it
    is fixed like the rest of the spec.
    """
    errs: Errors = []
    new_spec = dict_or_empty(new.get("spec"))
    old_spec = dict_or_empty(old.get("spec"))
    spec_path = "spec"

    new_containers = list_or_empty(new_spec.get("containers"))
    old_containers = list_or_empty(old_spec.get("containers"))
    if len(new_containers) != len(old_containers):
        return [forbidden(child(spec_path, "containers"), "pod updates may not add or remove containers")]
    new_init = list_or_empty(new_spec.get("initContainers"))
    old_init = list_or_empty(old_spec.get("initContainers"))
    if len(new_init) != len(old_init):
        return [forbidden(child(spec_path, "initContainers"), "pod updates may not add or remove containers")]

    new_deadline = new_spec.get("activeDeadlineSeconds")
    old_deadline = old_spec.get("activeDeadlineSeconds")
    deadline_path = child(spec_path, "activeDeadlineSeconds")
    if isinstance(new_deadline, int) and not isinstance(new_deadline, bool):
        if isinstance(old_deadline, int) and old_deadline < new_deadline:
            errs.append(invalid(deadline_path, new_deadline, "must be less than or equal to previous value"))
    elif new_deadline is None and old_deadline is not None:
        errs.append(invalid(deadline_path, None, "must not update from a positive integer to nil value"))

    new_tolerations = list_or_empty(new_spec.get("tolerations"))
    old_tolerations = list_or_empty(old_spec.get("tolerations"))
    new_keys = [_toleration_key(t) for t in new_tolerations]
    if any(_toleration_key(t) not in new_keys for t in old_tolerations):
        errs.append(
            forbidden(
                child(spec_path, "tolerations"), "existing toleration can not be modified except its tolerationSeconds"
            )
        )

    munged = dict(new_spec)
    munged["containers"] = [
        {**c, "image": o.get("image")} if isinstance(c, dict) and isinstance(o, dict) else c
        for c, o in zip(new_containers, old_containers, strict=True)
    ]
    if new_init or old_init:
        munged["initContainers"] = [
            {**c, "image": o.get("image")} if isinstance(c, dict) and isinstance(o, dict) else c
            for c, o in zip(new_init, old_init, strict=True)
        ]
    # The fields that may change take the old values (an absent one stays absent, which ``semantic`` counts
    # as equal to null), so an unchanged spec comes out equal to the old one as it is.
    for name in ("activeDeadlineSeconds", "tolerations", "schedulingGates"):
        _take_old(munged, old_spec, name)
    old_grace = old_spec.get("terminationGracePeriodSeconds")
    if isinstance(old_grace, int) and old_grace < 0 and munged.get("terminationGracePeriodSeconds") == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    if not old_spec.get("nodeName"):
        _take_old(munged, old_spec, "nodeName")

    # Equal specs are semantically equal: the walk that normalises both is for the specs that differ.
    if munged != old_spec and (before := semantic(old_spec)) != (after := semantic(munged)):
        changes: list[str] = []
        _diff(before, after, spec_path, changes)
        detail = f"pod updates may not change fields other than {UPDATABLE_POD_SPEC_FIELDS}"
        if changes:
            detail += "\n" + "\n".join(changes)
        errs.append(FieldError("FieldValueForbidden", spec_path, detail))
    return errs


def _take_old(spec: dict[str, Any], old_spec: dict[str, Any], name: str) -> None:
    """Give ``spec`` the old spec's ``name``, or leave it out where the old spec has none."""
    if name in old_spec:
        spec[name] = old_spec[name]
    else:
        spec.pop(name, None)


def validate_pod(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"), "spec", errs)
    if spec is not None or obj.get("spec") is None:
        errs.extend(validate_pod_spec(spec or {}, "spec"))
    status = as_dict(obj.get("status"), "status", errs)
    if status is not None:
        get_str(status, "phase", "status", errs)
        as_list(status.get("conditions"), "status.conditions", errs)
        as_list(status.get("containerStatuses"), "status.containerStatuses", errs)
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
        errs.extend(validate_pod_update(obj, old))
    return errs
