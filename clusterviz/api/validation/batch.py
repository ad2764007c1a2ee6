"""Jobs and CronJobs (batch/v1), as the API server's batch validation checks them."""

from __future__ import annotations

import re
import zoneinfo
from typing import Any, Final

from clusterviz.apimachinery.cron import CronError, parse_standard
from clusterviz.apimachinery.field import invalid, not_supported, required
from clusterviz.apimachinery.labels import SelectorError, selector_from_label_selector
from clusterviz.apimachinery.unstructured import dict_or_empty

from ..defaulting import JOB_NAME_LABELS, JOB_UID_LABELS
from .batch_policy import validate_index_limits, validate_pod_failure_policy, validate_success_policy
from .common import (
    BAD,
    Errors,
    as_dict,
    child,
    get_bool,
    get_dict,
    get_int,
    get_opt_str,
    get_str_map,
    key,
    nonnegative,
)
from .meta import (
    immutable,
    name_is_dns_subdomain,
    validate_annotations,
    validate_label_selector,
    validate_labels,
    validate_object_meta,
    validate_object_meta_update,
)
from .pod import validate_pod_template

COMPLETION_MODES: Final = ["Indexed", "NonIndexed"]
CONCURRENCY_POLICIES: Final = ["Allow", "Forbid", "Replace"]
RESTART_POLICIES: Final = ["OnFailure", "Never"]
POD_REPLACEMENT_POLICIES: Final = ["Failed", "TerminatingOrFailed"]
# Indexed Jobs keep their completed indexes in status, so both counts are capped.
MAX_INDEXED_COMPLETIONS: Final = 100_000
# A CronJob's Jobs are named <cronjob>-<minutes>, and that must stay a 63-character label value.
MAX_CRONJOB_NAME: Final = 52
_TIME_ZONE_PART: Final = re.compile(r"[A-Za-z.\-_0-9+]{1,14}")
SELECTOR_MISMATCH_MSG: Final = "`selector` does not match template `labels`"


def _selector_matches_template(spec: dict[str, Any], path: str) -> Errors:
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        return []
    try:
        parsed = selector_from_label_selector(selector)
    except (SelectorError, TypeError, AttributeError):
        return []
    template_meta = dict_or_empty(dict_or_empty(spec.get("template")).get("metadata"))
    labels = template_meta.get("labels")
    label_map = {k: v for k, v in labels.items() if isinstance(v, str)} if isinstance(labels, dict) else {}
    if not parsed.matches(label_map):
        return [invalid(child(path, "template", "metadata", "labels"), labels, SELECTOR_MISMATCH_MSG)]
    return []


def _validate_job_spec_fields(spec: dict[str, Any], path: str) -> Errors:
    """validateJobSpec: counts, deadlines, completion mode and the Pod template (what a CronJob's template shares)."""
    errs: Errors = []
    parallelism = get_int(spec, "parallelism", path, errs)
    completions = get_int(spec, "completions", path, errs)
    for name, value in (("parallelism", parallelism), ("completions", completions)):
        errs.extend(nonnegative(value, child(path, name)))
    deadline = get_int(spec, "activeDeadlineSeconds", path, errs, bits=64)
    errs.extend(nonnegative(deadline, child(path, "activeDeadlineSeconds")))
    for name in ("backoffLimit", "ttlSecondsAfterFinished"):
        errs.extend(nonnegative(get_int(spec, name, path, errs), child(path, name)))
    get_bool(spec, "suspend", path, errs)
    get_bool(spec, "manualSelector", path, errs)
    mode = get_opt_str(spec, "completionMode", path, errs)
    if isinstance(mode, str) and mode not in COMPLETION_MODES:
        errs.append(not_supported(child(path, "completionMode"), mode, COMPLETION_MODES))
    if mode == "Indexed":
        if completions is None:
            errs.append(required(child(path, "completions"), "when completion mode is Indexed"))
        elif isinstance(completions, int) and completions > MAX_INDEXED_COMPLETIONS:
            errs.append(
                invalid(
                    child(path, "completions"),
                    completions,
                    f"must be less than or equal to {MAX_INDEXED_COMPLETIONS} when completion mode is Indexed",
                )
            )
        if isinstance(parallelism, int) and parallelism > MAX_INDEXED_COMPLETIONS:
            errs.append(
                invalid(
                    child(path, "parallelism"),
                    parallelism,
                    f"must be less than or equal to {MAX_INDEXED_COMPLETIONS} when completion mode is Indexed",
                )
            )
    errs.extend(validate_index_limits(spec, path))
    failure_policy = spec.get("podFailurePolicy") is not None
    if failure_policy:
        errs.extend(validate_pod_failure_policy(spec, child(path, "podFailurePolicy")))
    if spec.get("successPolicy") is not None:
        errs.extend(validate_success_policy(spec, child(path, "successPolicy")))
    replacement = get_opt_str(spec, "podReplacementPolicy", path, errs)
    # With a podFailurePolicy a replacement waits until the Pod has failed, so its conditions can be matched.
    allowed = ["Failed"] if failure_policy else POD_REPLACEMENT_POLICIES
    if isinstance(replacement, str) and replacement not in allowed:
        errs.append(not_supported(child(path, "podReplacementPolicy"), replacement, allowed))
    template_path = child(path, "template")
    template = as_dict(spec.get("template"), template_path, errs)
    if template is None and spec.get("template") is not None:
        return errs
    errs.extend(validate_pod_template(template or {}, template_path))
    restart = dict_or_empty((template or {}).get("spec")).get("restartPolicy")
    if restart not in RESTART_POLICIES:
        errs.append(not_supported(child(template_path, "spec", "restartPolicy"), restart or "", RESTART_POLICIES))
    elif failure_policy and restart != "Never":
        errs.append(invalid(child(template_path, "spec", "restartPolicy"), restart,
                            'only "Never" is supported when podFailurePolicy is specified'))
    return errs


def _validate_generated_selector(obj: dict[str, Any], spec: dict[str, Any]) -> Errors:
    """ValidateGeneratedSelector: without manualSelector, the template carries the Job's name and uid labels."""
    if spec.get("manualSelector") is True or not isinstance(spec.get("selector"), dict):
        return []
    meta = dict_or_empty(obj.get("metadata"))
    uid, name = meta.get("uid") or "", meta.get("name") or ""
    errs: Errors = []
    if not uid:
        errs.append(required("metadata.uid", ""))
    labels = dict_or_empty(dict_or_empty(dict_or_empty(spec.get("template")).get("metadata")).get("labels"))
    labels_path = "spec.template.metadata.labels"
    for label, expected in [(k, uid) for k in JOB_UID_LABELS] + [(k, name) for k in JOB_NAME_LABELS]:
        if label not in labels:
            errs.append(required(key(labels_path, label), str(expected)))
        elif labels[label] != expected:
            errs.append(invalid(key(labels_path, label), labels, f"must be '{expected}'"))
    try:
        selector = selector_from_label_selector(spec["selector"])
    except (SelectorError, TypeError, AttributeError):
        return errs
    if not selector.matches({JOB_UID_LABELS[1]: str(uid), JOB_NAME_LABELS[1]: str(name)}):
        errs.append(invalid("spec.selector", spec["selector"], "`selector` not auto-generated"))
    return errs


def validate_job(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """ValidateJob (and ValidateJobUpdate when ``old`` is given)."""
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"), "spec", errs)
    if spec is not None:
        if old is None:
            errs.extend(_validate_generated_selector(obj, spec))
        errs.extend(_validate_job_spec_fields(spec, "spec"))
        selector = spec.get("selector")
        if selector is None:
            errs.append(required("spec.selector", ""))
        else:
            selector_dict = as_dict(selector, "spec.selector", errs)
            if selector_dict is not None:
                errs.extend(validate_label_selector(selector_dict, "spec.selector"))
                errs.extend(_selector_matches_template(spec, "spec"))
    job_status = as_dict(obj.get("status"), "status", errs)
    if job_status is not None:
        # ValidateJobStatus: the counts are never negative.
        for name in ("active", "ready", "succeeded", "failed", "terminating"):
            errs.extend(nonnegative(get_int(job_status, name, "status", errs), f"status.{name}"))
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
        new_spec, old_spec = dict_or_empty(obj.get("spec")), dict_or_empty(old.get("spec"))
        for field in ("completions", "selector", "completionMode", "podFailurePolicy", "backoffLimitPerIndex",
                      "successPolicy"):
            errs.extend(immutable(new_spec.get(field), old_spec.get(field), f"spec.{field}"))
        if old_spec.get("suspend") is not True or new_spec.get("suspend") is not True:
            # A suspended Job's template may change (a queue sets its resources); a running one's may not.
            errs.extend(immutable(new_spec.get("template"), old_spec.get("template"), "spec.template"))
    return errs


def _validate_time_zone(value: Any) -> Errors:
    path = "spec.timeZone"
    if value is None:
        return []
    if not isinstance(value, str):
        return [invalid(path, value, "must be of type string")]
    if value == "":
        return [invalid(path, value, "timeZone must be nil or non-empty string")]
    for part in value.split("/"):
        if part in (".", "..") or part.startswith("-") or not _TIME_ZONE_PART.fullmatch(part):
            return [invalid(path, value, f"unknown time zone {value}")]
    if value.lower() == "local":
        return [
            invalid(path, value, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones")
        ]
    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return [invalid(path, value, f"unknown time zone {value}")]
    return []


def _validate_schedule(schedule: Any, tz_allowed: bool, time_zone: Any) -> Errors:
    path = "spec.schedule"
    if schedule in (None, ""):
        return [required(path, "")]
    if not isinstance(schedule, str):
        return [invalid(path, schedule, "must be of type string")]
    errs: Errors = []
    try:
        parse_standard(schedule)
    except CronError as exc:
        errs.append(invalid(path, schedule, str(exc)))
    if "TZ" in schedule:
        if not tz_allowed:
            errs.append(invalid(path, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
        elif time_zone is not None:
            errs.append(invalid(path, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
    return errs


def _validate_job_template(spec: dict[str, Any], errs: Errors) -> None:
    """ValidateJobTemplateSpec: a Job spec whose selector the Jobs will get generated."""
    path = "spec.jobTemplate"
    job_template = get_dict(spec, "jobTemplate", "spec", errs)
    if job_template is None:
        return
    template_meta = get_dict(job_template, "metadata", path, errs)
    if template_meta is not None:
        meta_path = child(path, "metadata")
        errs.extend(validate_labels(get_str_map(template_meta, "labels", meta_path, errs), child(meta_path, "labels")))
        annotations = get_str_map(template_meta, "annotations", meta_path, errs)
        errs.extend(validate_annotations(annotations, child(meta_path, "annotations")))
    job_spec = get_dict(job_template, "spec", path, errs)
    if job_spec is None:
        return
    spec_path = child(path, "spec")
    errs.extend(_validate_job_spec_fields(job_spec, spec_path))
    if job_spec.get("selector") is not None:
        errs.append(invalid(child(spec_path, "selector"), job_spec["selector"], "`selector` will be auto-generated"))
    if job_spec.get("manualSelector") is True:
        errs.append(not_supported(child(spec_path, "manualSelector"), True, ["nil", "false"]))


def validate_cron_job(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """ValidateCronJobCreate / ValidateCronJobUpdate."""
    meta, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    name = meta.get("name")
    if old is None and isinstance(name, str) and len(name) > MAX_CRONJOB_NAME:
        errs.append(invalid("metadata.name", name, f"must be no more than {MAX_CRONJOB_NAME} characters"))
    spec = as_dict(obj.get("spec"), "spec", errs)
    if spec is not None:
        old_schedule = dict_or_empty(dict_or_empty(old).get("spec") if old else None).get("schedule")
        tz_allowed = isinstance(old_schedule, str) and "TZ" in old_schedule
        errs.extend(_validate_schedule(spec.get("schedule"), tz_allowed, spec.get("timeZone")))
        errs.extend(_validate_time_zone(spec.get("timeZone")))
        deadline = get_int(spec, "startingDeadlineSeconds", "spec", errs, bits=64)
        errs.extend(nonnegative(deadline if deadline is not BAD else None, "spec.startingDeadlineSeconds"))
        policy = spec.get("concurrencyPolicy")
        if policy in (None, ""):
            errs.append(required("spec.concurrencyPolicy", ""))
        elif policy not in CONCURRENCY_POLICIES:
            errs.append(not_supported("spec.concurrencyPolicy", policy, CONCURRENCY_POLICIES))
        get_bool(spec, "suspend", "spec", errs)
        _validate_job_template(spec, errs)
        for limit in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
            errs.extend(nonnegative(get_int(spec, limit, "spec", errs), f"spec.{limit}"))
    as_dict(obj.get("status"), "status", errs)
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
    return errs
