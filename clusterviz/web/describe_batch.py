"""``kubectl describe job`` and ``kubectl describe cronjob``, as kubectl's JobDescriber and CronJobDescriber print them."""

from __future__ import annotations

from typing import Any

from clusterviz.api import clock
from clusterviz.api.tables import label_selector_string
from clusterviz.apimachinery.duration import human_duration

from .describe import LAST_APPLIED, Text, _controller, _pod_template, timestamp


def _labels_and_annotations(text: Text, meta: dict[str, Any]) -> None:
    text.mapping(0, "Labels", meta.get("labels"))
    # Annotations print as "key: value", unlike labels.
    annotations = [f"{k}: {v}" for k, v in sorted((meta.get("annotations") or {}).items()) if k != LAST_APPLIED]
    text.add(0, "Annotations", annotations[0] if annotations else "<none>")
    for line in annotations[1:]:
        text.more(0, line)


def _count(value: Any) -> int:
    """A count of the status (Go's zero for a missing one)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _optional(value: Any, suffix: str = "") -> str:
    return "<unset>" if value is None else f"{value}{suffix}"


def describe_job(job: dict[str, Any]) -> Text:
    """The Job's selector, counts, times and Pod statuses, then its Pod template."""
    text = Text()
    meta, spec, status = job.get("metadata") or {}, job.get("spec") or {}, job.get("status") or {}
    text.add(0, "Name", meta.get("name", ""))
    text.add(0, "Namespace", meta.get("namespace", ""))
    selector = label_selector_string(spec.get("selector"))
    text.add(0, "Selector", selector if selector is not None else "Failed to get selector")
    _labels_and_annotations(text, meta)
    if _controller(job):
        text.add(0, "Controlled By", _controller(job))
    if spec.get("parallelism") is not None:
        text.add(0, "Parallelism", spec["parallelism"])
    text.add(0, "Completions", _optional(spec.get("completions")))
    for key, field in (("Completion Mode", "completionMode"), ("Backoff Limit", "backoffLimit")):
        if spec.get(field) is not None:
            text.add(0, key, spec[field])
    if spec.get("suspend") is not None:
        # Go's %v of a bool.
        text.add(0, "Suspend", "true" if spec["suspend"] else "false")
    if spec.get("ttlSecondsAfterFinished") is not None:
        text.add(0, "TTL Seconds After Finished", spec["ttlSecondsAfterFinished"])
    started, completed = status.get("startTime"), status.get("completionTime")
    if started:
        text.add(0, "Start Time", timestamp(started))
    if completed:
        text.add(0, "Completed At", timestamp(completed))
    if started and completed:
        begin, end = clock.parse(started), clock.parse(completed)
        if begin is not None and end is not None:
            text.add(0, "Duration", human_duration((end - begin).total_seconds()))
    if spec.get("activeDeadlineSeconds") is not None:
        text.add(0, "Active Deadline Seconds", f"{spec['activeDeadlineSeconds']}s")
    counts = [_count(status.get(f)) for f in ("active", "ready", "succeeded", "failed")]
    if status.get("ready") is None:
        text.add(0, "Pods Statuses", f"{counts[0]} Active / {counts[2]} Succeeded / {counts[3]} Failed")
    else:
        text.add(
            0, "Pods Statuses", f"{counts[0]} Active ({counts[1]} Ready) / {counts[2]} Succeeded / {counts[3]} Failed"
        )
    if spec.get("completionMode") == "Indexed":
        text.add(0, "Completed Indexes", status.get("completedIndexes") or "<none>")
    _pod_template(text, spec.get("template") or {})
    return text


def describe_cron_job(cron_job: dict[str, Any]) -> Text:
    """The CronJob's schedule and policies, its Job template, last schedule time and active Jobs."""
    text = Text()
    meta, spec, status = cron_job.get("metadata") or {}, cron_job.get("spec") or {}, cron_job.get("status") or {}
    text.add(0, "Name", meta.get("name", ""))
    text.add(0, "Namespace", meta.get("namespace", ""))
    _labels_and_annotations(text, meta)
    text.add(0, "Schedule", spec.get("schedule", ""))
    text.add(0, "Concurrency Policy", spec.get("concurrencyPolicy", ""))
    suspend = spec.get("suspend")
    text.add(0, "Suspend", "<unset>" if suspend is None else ("True" if suspend else "False"))
    text.add(0, "Successful Job History Limit", _optional(spec.get("successfulJobsHistoryLimit")))
    text.add(0, "Failed Job History Limit", _optional(spec.get("failedJobsHistoryLimit")))
    text.add(0, "Starting Deadline Seconds", _optional(spec.get("startingDeadlineSeconds"), "s"))
    job_spec = (spec.get("jobTemplate") or {}).get("spec") or {}
    selector = label_selector_string(job_spec.get("selector")) if job_spec.get("selector") is not None else None
    text.add(0, "Selector", selector or "<unset>")
    text.add(0, "Parallelism", _optional(job_spec.get("parallelism")))
    text.add(0, "Completions", _optional(job_spec.get("completions")))
    if job_spec.get("activeDeadlineSeconds") is not None:
        text.add(0, "Active Deadline Seconds", f"{job_spec['activeDeadlineSeconds']}s")
    _pod_template(text, job_spec.get("template") or {})
    last = status.get("lastScheduleTime")
    text.add(0, "Last Schedule Time", timestamp(last) if last else "<unset>")
    active = [str(ref.get("name", "")) for ref in status.get("active") or [] if isinstance(ref, dict)]
    text.add(0, "Active Jobs", ", ".join(active) or "<none>")
    return text
