"""Printers for Jobs and CronJobs (batch/v1), with the cells kubectl v1.32 shows."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.duration import human_duration_ns
from clusterviz.apimachinery.unstructured import dict_or_empty, list_or_empty, str_or_empty

from .common import NONE, Printed, _container_cells, _i, _meta, _since, parse_timestamp_ns
from .labels import format_label_selector

# The STATUS cell: the first of these conditions that is True, in upstream's order (Terminating sits third).
_FINISHED = (("Complete", "Complete"), ("Failed", "Failed"))
_PENDING = (
    ("Suspended", "Suspended"),
    ("FailureTarget", "FailureTarget"),
    ("SuccessCriteriaMet", "SuccessCriteriaMet"),
)


def _has_condition(status: dict[str, Any], type_: str) -> bool:
    return any(
        dict_or_empty(c).get("type") == type_ and dict_or_empty(c).get("status") == "True"
        for c in list_or_empty(status.get("conditions"))
    )


def job_status_word(job: dict[str, Any]) -> str:
    """The Job's STATUS cell: Complete, Failed, Terminating, Suspended, FailureTarget, SuccessCriteriaMet or Running."""
    status = dict_or_empty(job.get("status"))
    for type_, word in _FINISHED:
        if _has_condition(status, type_):
            return word
    if _meta(job).get("deletionTimestamp"):
        return "Terminating"
    for type_, word in _PENDING:
        if _has_condition(status, type_):
            return word
    return "Running"


def job_completions(job: dict[str, Any]) -> str:
    """The COMPLETIONS cell: succeeded/completions, or ``n/1 of p`` for a work queue run by several Pods."""
    spec, status = dict_or_empty(job.get("spec")), dict_or_empty(job.get("status"))
    succeeded = _i(status.get("succeeded"))
    if spec.get("completions") is not None:
        return f"{succeeded}/{_i(spec.get('completions'))}"
    parallelism = _i(spec.get("parallelism"))
    return f"{succeeded}/1 of {parallelism}" if parallelism > 1 else f"{succeeded}/1"


def _job_duration(status: dict[str, Any], now_ns: int) -> str:
    started = parse_timestamp_ns(status.get("startTime"))
    if started is None:
        return ""
    finished = parse_timestamp_ns(status.get("completionTime"))
    return human_duration_ns((now_ns if finished is None else finished) - started)


def _print_job(job: dict[str, Any], now_ns: int) -> Printed:
    meta, spec, status = _meta(job), dict_or_empty(job.get("spec")), dict_or_empty(job.get("status"))
    names, images = _container_cells(dict_or_empty(dict_or_empty(spec.get("template")).get("spec")).get("containers"))
    cells = [
        str_or_empty(meta.get("name")),
        job_status_word(job),
        job_completions(job),
        _job_duration(status, now_ns),
        _since(meta.get("creationTimestamp"), now_ns),
        names,
        images,
        format_label_selector(spec.get("selector")),
    ]
    return cells, []


def _bool_pointer(value: Any) -> str:
    """printBoolPtr: ``<unset>`` for nil, else True/False."""
    if value is None:
        return "<unset>"
    return "True" if value is True else "False"


def _print_cron_job(cron_job: dict[str, Any], now_ns: int) -> Printed:
    meta, spec, status = _meta(cron_job), dict_or_empty(cron_job.get("spec")), dict_or_empty(cron_job.get("status"))
    job_spec = dict_or_empty(dict_or_empty(spec.get("jobTemplate")).get("spec"))
    names, images = _container_cells(
        dict_or_empty(dict_or_empty(job_spec.get("template")).get("spec")).get("containers")
    )
    last = status.get("lastScheduleTime")
    time_zone = spec.get("timeZone")
    cells = [
        str_or_empty(meta.get("name")),
        str_or_empty(spec.get("schedule")),
        time_zone if isinstance(time_zone, str) else NONE,
        _bool_pointer(spec.get("suspend")),
        len(list_or_empty(status.get("active"))),
        NONE if last is None else _since(last, now_ns),
        _since(meta.get("creationTimestamp"), now_ns),
        names,
        images,
        format_label_selector(job_spec.get("selector")),
    ]
    return cells, []
