"""The CronJob controller: makes a Job at each scheduled time, on the cluster's simulated clock (cronjob_controllerv2).

A sync first reconciles ``status.active`` with the CronJob's Jobs (finished
ones leave it, with ``SawCompletedJob``; ``lastSuccessfulTime`` follows the
latest completion; vanished ones leave with ``MissingJob``). Then, unless the
CronJob is suspended, it finds the most recent scheduled time that has not
had its Job (in the schedule's time zone, within startingDeadlineSeconds),
applies the concurrency policy (Forbid skips while a Job runs, Replace deletes
the running ones) and creates the Job, named ``<cronjob>-<minutes since the
epoch>`` so a time is never run twice. Finished Jobs beyond the history
limits are deleted, oldest first. The CronJob is looked at again just after
its next scheduled time; that timer keeps a fast-forwarded cluster going, so
a day of schedule passes in moments.
"""

from __future__ import annotations

import logging
import zoneinfo
from datetime import datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any, Final

from clusterviz.api import clock, errors
from clusterviz.api.informer import Handler, key_of
from clusterviz.apimachinery.cron import CronError, Schedule, parse_standard
from clusterviz.apimachinery.unstructured import deep_copy

from .job_util import condition_true, is_finished
from .util import (
    Index,
    Obj,
    RecentWrites,
    Worker,
    by_controller_uid,
    controller_ref,
    deleting,
    int_field,
    meta,
    new_controller_ref,
    spec,
    status,
)

if TYPE_CHECKING:
    from .manager import ControllerManager

log = logging.getLogger(__name__)

COMPONENT = "cronjob-controller"
SCHEDULED_TIMESTAMP: Final = "batch.kubernetes.io/cronjob-scheduled-timestamp"
# Upstream looks again this long after the next scheduled time (nextScheduleDelta).
NEXT_SCHEDULE_DELTA: Final = 0.1
# More missed start times than this earn a warning (and only the latest is run).
MAX_MISSED: Final = 100
# How many missed times are walked at most to find the latest (a clock far ahead must not stall the sync).
MAX_WALKED: Final = 100_000
TOO_MANY_MISSED: Final = (
    "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew"
)


def _time(value: Any) -> datetime | None:
    return clock.parse(value) if isinstance(value, str) else None


def _zone(cron_job: Obj) -> tuple[tzinfo | None, str]:
    """The time zone the schedule is read in (the controller's is UTC) and the schedule without a TZ= prefix."""
    schedule = str(spec(cron_job).get("schedule") or "")
    name = spec(cron_job).get("timeZone")
    if schedule.startswith(("TZ=", "CRON_TZ=")):
        prefix, _, schedule = schedule.partition(" ")
        name = prefix.partition("=")[2]
    if not isinstance(name, str) or not name:
        return zoneinfo.ZoneInfo("UTC"), schedule.strip()
    return zoneinfo.ZoneInfo(name), schedule.strip()


def job_name(cron_job: Obj, scheduled: datetime) -> str:
    """getJobName: the CronJob's name and the scheduled time in minutes since the epoch."""
    return f"{meta(cron_job).get('name')}-{int(scheduled.timestamp()) // 60}"


def job_from_template(cron_job: Obj, scheduled: datetime, zone: tzinfo | None) -> Obj:
    """getJobFromTemplate2: the Job for one scheduled time, owned by the CronJob."""
    template = spec(cron_job).get("jobTemplate") or {}
    template_meta = template.get("metadata") or {}
    annotations = deep_copy(template_meta.get("annotations") or {})
    local = scheduled.astimezone(zone) if zone is not None else scheduled
    annotations[SCHEDULED_TIMESTAMP] = local.isoformat().replace("+00:00", "Z")
    job_meta: dict[str, Any] = {
        "name": job_name(cron_job, scheduled),
        "namespace": meta(cron_job).get("namespace", ""),
        "annotations": annotations,
        "ownerReferences": [new_controller_ref(cron_job)],
    }
    if template_meta.get("labels"):
        job_meta["labels"] = deep_copy(template_meta["labels"])
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": job_meta,
        "spec": deep_copy(template.get("spec") or {}),
    }


def _reference(job: Obj) -> dict[str, Any]:
    """The ObjectReference status.active keeps of a Job."""
    return {
        "kind": "Job",
        "namespace": meta(job).get("namespace", ""),
        "name": meta(job).get("name", ""),
        "uid": meta(job).get("uid", ""),
        "apiVersion": "batch/v1",
        "resourceVersion": meta(job).get("resourceVersion", ""),
    }


class CronJobController:
    """Runs each CronJob's Jobs on its schedule."""

    def __init__(self, cm: ControllerManager) -> None:
        self.cm = cm
        self.engine = cm.engine
        self.client = cm.client
        self.recorder = cm.ctx.recorder(COMPONENT)
        self.cron_jobs = cm.informers["cronjobs"]
        self.jobs = cm.informers["jobs"]
        self.jobs_by_owner = Index(self.jobs, by_controller_uid)
        self.written = RecentWrites()
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        self.cron_jobs.add_handler(
            Handler(self._changed, lambda _old, new: self._changed(new), lambda cj: self.written.forget(key_of(cj)))
        )
        self.jobs.add_handler(Handler(self._job_changed, lambda _old, new: self._job_changed(new), self._job_changed))

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    def _changed(self, cron_job: Obj) -> None:
        self.worker.add(key_of(cron_job))

    def _job_changed(self, job: Obj) -> None:
        ref = controller_ref(job)
        if ref is not None and ref.get("kind") == "CronJob":
            self.worker.add(f"{meta(job).get('namespace', '')}/{ref.get('name')}")

    # --- sync ---------------------------------------------------------------------------------

    async def sync(self, key: str) -> None:
        """Reconcile the active list, maybe start a Job, clean up history, write the status, requeue."""
        cron_job = self.written.fresh(self.cron_jobs.get(key))
        if cron_job is None:
            return
        cron_job = deep_copy(cron_job)
        before = deep_copy(status(cron_job))
        jobs = [j for j in self.jobs_by_owner.get(meta(cron_job).get("uid", "")) if not deleting(j)]
        await self._reconcile_active(cron_job, jobs)
        requeue: float | None = None
        if not deleting(cron_job):
            requeue = await self._schedule(cron_job)
        await self._clean_up_history(cron_job, jobs)
        if status(cron_job) != before:
            await self._write_status(cron_job)
        if requeue is not None:
            self.worker.add_after(key, requeue)

    async def _reconcile_active(self, cron_job: Obj, jobs: list[Obj]) -> None:
        st = cron_job.setdefault("status", {})
        active = [a for a in st.get("active") or [] if isinstance(a, dict)]
        uids = {a.get("uid") for a in active}
        for job in jobs:
            uid = meta(job).get("uid")
            if uid not in uids and not is_finished(job):
                await self.recorder.event(
                    cron_job,
                    "Warning",
                    "UnexpectedJob",
                    f"Saw a job that the controller did not create or forgot: {meta(job).get('name')}",
                )
            elif uid in uids and is_finished(job):
                active = [a for a in active if a.get("uid") != uid]
                finished = "Complete" if condition_true(job, "Complete") else "Failed"
                await self.recorder.event(
                    cron_job,
                    "Normal",
                    "SawCompletedJob",
                    f"Saw completed job: {meta(job).get('name')}, condition: {finished}",
                )
            if condition_true(job, "Complete"):
                completed = _time(status(job).get("completionTime"))
                last = _time(st.get("lastSuccessfulTime"))
                if completed is not None and (last is None or completed > last):
                    st["lastSuccessfulTime"] = status(job)["completionTime"]
        present = {meta(j).get("uid") for j in jobs}
        for ref in list(active):
            if ref.get("uid") in present:
                continue
            # Not in the cache: ask the API server before believing it gone (the watch may be behind).
            fresh = await self.client.get_or_none("jobs", str(ref.get("name", "")), str(ref.get("namespace", "")))
            if fresh is None or meta(fresh).get("uid") != ref.get("uid"):
                active.remove(ref)
                await self.recorder.event(
                    cron_job, "Normal", "MissingJob", f"Active job went missing: {ref.get('name')}"
                )
        if active:
            st["active"] = active
        else:
            st.pop("active", None)

    async def _schedule(self, cron_job: Obj) -> float | None:
        """Start the Job of the latest missed time if the policies allow; seconds until the next time, or None."""
        try:
            zone, text = _zone(cron_job)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
            await self.recorder.event(
                cron_job, "Warning", "UnknownTimeZone", f"invalid timeZone: {spec(cron_job).get('timeZone')!r}: {exc}"
            )
            return None
        if spec(cron_job).get("suspend") is True:
            return None
        try:
            schedule = parse_standard(text)
        except CronError as exc:
            await self.recorder.event(
                cron_job, "Warning", "UnparseableSchedule", f"unparseable schedule: {text!r} : {exc}"
            )
            return None
        now = clock.now()
        scheduled = await self._most_recent(cron_job, schedule, zone, now)
        if scheduled is None:
            return self._until_next(schedule, zone, now)
        deadline = spec(cron_job).get("startingDeadlineSeconds")
        st = status(cron_job)
        if isinstance(deadline, int) and scheduled + timedelta(seconds=deadline) < now:
            stamp = scheduled.astimezone(zoneinfo.ZoneInfo("UTC")).strftime("%a, %d %b %Y %H:%M:%S +0000")
            await self.recorder.event(
                cron_job, "Warning", "MissSchedule", f"Missed scheduled time to start a job: {stamp}"
            )
            return self._until_next(schedule, zone, now)
        name = job_name(cron_job, scheduled)
        active = st.get("active") or []
        if any(a.get("name") == name for a in active) or _time(st.get("lastScheduleTime")) == scheduled:
            return self._until_next(schedule, zone, now)
        policy = spec(cron_job).get("concurrencyPolicy") or "Allow"
        if policy == "Forbid" and active:
            await self.recorder.event(
                cron_job,
                "Normal",
                "JobAlreadyActive",
                "Not starting job because prior execution is running and concurrency policy is Forbid",
            )
            return self._until_next(schedule, zone, now)
        if policy == "Replace":
            for ref in list(active):
                job = self.jobs.get(f"{ref.get('namespace')}/{ref.get('name')}")
                if job is not None:
                    await self._delete_job(cron_job, job)
        try:
            created = await self.client.create(
                job_from_template(cron_job, scheduled, zone), meta(cron_job).get("namespace", "")
            )
        except errors.StatusError as exc:
            if exc.reason == "AlreadyExists":
                return None  # made by another actor, which has updated the status
            await self.recorder.event(cron_job, "Warning", "FailedCreate", f"Error creating job: {exc.message}")
            raise
        await self.recorder.event(cron_job, "Normal", "SuccessfulCreate", f"Created job {meta(created).get('name')}")
        st = cron_job.setdefault("status", {})
        st["active"] = [*(st.get("active") or []), _reference(created)]
        st["lastScheduleTime"] = clock.rfc3339(scheduled)
        return self._until_next(schedule, zone, now)

    async def _most_recent(
        self, cron_job: Obj, schedule: Schedule, zone: tzinfo | None, now: datetime
    ) -> datetime | None:
        """mostRecentScheduleTime: the latest scheduled time up to now after the last one run, or None."""
        earliest = (
            _time(status(cron_job).get("lastScheduleTime")) or _time(meta(cron_job).get("creationTimestamp")) or now
        )
        deadline = spec(cron_job).get("startingDeadlineSeconds")
        if isinstance(deadline, int) and now - timedelta(seconds=deadline) > earliest:
            earliest = now - timedelta(seconds=deadline)
        found: datetime | None = None
        missed = 0
        moment = schedule.next(earliest, zone)
        while moment is not None and moment <= now and missed < MAX_WALKED:
            found, missed = moment, missed + 1
            moment = schedule.next(moment, zone)
        if missed > MAX_MISSED:
            await self.recorder.event(cron_job, "Warning", "TooManyMissedTimes", TOO_MANY_MISSED)
        return found

    def _until_next(self, schedule: Schedule, zone: tzinfo | None, now: datetime) -> float | None:
        """nextScheduleTimeDuration: seconds from now until just after the next scheduled time."""
        following = schedule.next(now, zone)
        if following is None:
            return None
        return max((following - now).total_seconds(), 0.0) + NEXT_SCHEDULE_DELTA

    async def _clean_up_history(self, cron_job: Obj, jobs: list[Obj]) -> None:
        """cleanupFinishedJobs: delete the oldest finished Jobs beyond the history limits."""
        limits = spec(cron_job)
        for kind, limit_name in (("Complete", "successfulJobsHistoryLimit"), ("Failed", "failedJobsHistoryLimit")):
            if limits.get(limit_name) is None:
                continue
            limit = int_field(limits, limit_name)
            finished = [j for j in jobs if condition_true(j, kind)]
            if len(finished) <= limit:
                continue
            finished.sort(key=lambda j: (str(status(j).get("startTime") or ""), str(meta(j).get("name"))))
            for job in finished[: len(finished) - limit]:
                await self._delete_job(cron_job, job)

    async def _delete_job(self, cron_job: Obj, job: Obj) -> None:
        """deleteJob: delete in the background (the garbage collector takes its Pods), leave the active list."""
        options = {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"}
        try:
            await self.client.delete("jobs", meta(job).get("name", ""), meta(job).get("namespace", ""), options)
        except errors.StatusError as exc:
            if exc.code != 404:
                await self.recorder.event(cron_job, "Warning", "FailedDelete", f"Deleted job: {exc.message}")
                raise
            return
        st = cron_job.setdefault("status", {})
        remaining = [a for a in st.get("active") or [] if a.get("uid") != meta(job).get("uid")]
        if remaining:
            st["active"] = remaining
        else:
            st.pop("active", None)
        await self.recorder.event(cron_job, "Normal", "SuccessfulDelete", f"Deleted job {meta(job).get('name')}")

    async def _write_status(self, cron_job: Obj) -> None:
        """UpdateStatus, once more with a fresh read on a conflict."""
        current = cron_job
        for attempt in range(2):
            body = deep_copy(current)
            body["status"] = status(cron_job)
            try:
                self.written.remember(await self.client.update(body, sub="status"))
                return
            except errors.StatusError as exc:
                if attempt == 1 or exc.code != 409:
                    raise
                current = await self.client.get(
                    "cronjobs", meta(cron_job).get("name", ""), meta(cron_job).get("namespace", "")
                )
