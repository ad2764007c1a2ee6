"""The Job controller: runs a Job's Pods to completion, after pkg/controller/job.

A sync counts the Job's Pods that finished since it last looked (succeeded,
failed, or deleted by someone else while running), then decides:

* a failure that a ``podFailurePolicy`` FailJob rule matches, failed Pods
  beyond ``backoffLimit`` (those the policy ignores do not count), or
  ``activeDeadlineSeconds`` passed: the Job gets ``FailureTarget``, its running
  Pods are deleted, and once none is left ``Failed`` (with the same reason) and
  a Warning event;
* an Indexed Job with ``backoffLimitPerIndex`` (job_index.py): more failed
  indexes than ``maxFailedIndexes``, or every index ended and some failed:
  ``Failed`` the same way;
* enough completions (for an Indexed Job: every index succeeded, or a rule of
  its ``successPolicy`` holds, which ends the Pods still running):
  ``SuccessCriteriaMet``, then ``Complete``, ``completionTime`` and the
  ``Completed`` event, once no Pod runs;
* ``suspend``: its Pods are deleted and ``Suspended`` is set (cleared on resume,
  which restarts ``startTime``);
* otherwise it creates or deletes Pods so that ``parallelism`` run (no more
  than the completions still wanted), waiting 10 s, 20 s, 40 s ... after Pod
  failures before making new ones.

The status (active, ready, terminating, succeeded, failed, completedIndexes,
conditions, start and completion times) is written when it changed; then the
Pods it counted lose their tracking finalizer (job_tracking.py), which held a
finished or deleted Pod until then. A running Pod that someone else deletes
counts as failed once it is terminating.
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING, Any

from clusterviz.api import clock, errors
from clusterviz.api.informer import Handler, key_of
from clusterviz.apimachinery.unstructured import deep_copy

from . import job_index, job_tracking
from .job_failure_policy import POD_FAILURE_POLICY, judge
from .job_util import (
    BACKOFF_LIMIT_EXCEEDED,
    COMPLETIONS_REACHED,
    DEADLINE_EXCEEDED,
    RESUMED,
    SUSPENDED,
    backoff_limit,
    completions_of,
    condition_true,
    failure_backoff,
    format_indexes,
    index_of,
    indexed_owner,
    is_finished,
    is_indexed,
    parse_indexes,
    restarts_exceed_limit,
    set_condition,
    success_policy_match,
    wire_status,
)
from .pod_control import Expectations, PodControl, pods_to_delete
from .util import (
    Obj,
    RecentWrites,
    Worker,
    controller_ref,
    deleting,
    int_field,
    is_pod_active,
    is_pod_ready,
    meta,
    run_parallel,
    spec,
    status,
)

if TYPE_CHECKING:
    from .manager import ControllerManager

log = logging.getLogger(__name__)

COMPONENT = "job-controller"
TERMINAL = ("Succeeded", "Failed")


def _phase(pod: Obj) -> str:
    return str(status(pod).get("phase") or "")


class JobController:
    """Keeps each Job's Pods running until the Job completes or fails."""

    def __init__(self, cm: ControllerManager) -> None:
        self.cm = cm
        self.engine = cm.engine
        self.client = cm.client
        self.recorder = cm.ctx.recorder(COMPONENT)
        self.rng = cm.ctx.rng(COMPONENT)
        self.jobs = cm.informers["jobs"]
        self.pods = cm.informers["pods"]
        self.expectations = Expectations(cm.engine)
        self.pod_control = PodControl(self)
        self.written = RecentWrites()
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        # Per Job uid: the Pods already counted in its status (uid -> phase counted).
        self.counted: dict[str, dict[str, str]] = {}
        # Per Job uid: running Pods that others deleted, to count as failed at the next sync.
        self.vanished: dict[str, list[Obj]] = {}
        # Per Job uid: failures its podFailurePolicy ignores (left out of status.failed, not of the back-off).
        self.ignored: dict[str, int] = {}
        # Per Job uid: simulated time of its latest Pod failure (the back-off counts from it).
        self.last_failure: dict[str, float] = {}
        # Pods this controller deleted itself: their going is not a failure.
        self.deleted_by_us: set[str] = set()
        self.releaser = job_tracking.Releaser(self.client)
        self.jobs.add_handler(Handler(self._job_changed, lambda _old, new: self._job_changed(new), self._job_gone))
        self.pods.add_handler(Handler(self._pod_changed, lambda _old, new: self._pod_changed(new), self._pod_gone))

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    # --- event handlers -----------------------------------------------------------------------

    def _job_changed(self, job: Obj) -> None:
        self.worker.add(key_of(job))

    def _job_gone(self, job: Obj) -> None:
        key, uid = key_of(job), meta(job).get("uid", "")
        for pod in self.cm.pods_by_owner.get(uid):
            if job_tracking.tracked(pod):
                self.worker.add(job_tracking.ORPHAN + key_of(pod))
        self.expectations.forget(key)
        self.written.forget(key)
        for table in (self.counted, self.vanished, self.ignored, self.last_failure):
            table.pop(uid, None)

    def _owner(self, pod: Obj) -> Obj | None:
        ref = controller_ref(pod)
        if ref is None or ref.get("kind") != "Job" or not str(ref.get("apiVersion", "")).startswith("batch/"):
            return None
        job = self.jobs.get(f"{meta(pod).get('namespace', '')}/{ref.get('name')}")
        return job if job is not None and meta(job).get("uid") == ref.get("uid") else None

    def _pod_changed(self, pod: Obj) -> None:
        if not job_tracking.tracked(pod):
            self.releaser.forget(pod)
        job = self._owner(pod)
        if job is None:
            if job_tracking.tracked(pod) and job_tracking.job_pod(pod):
                self.worker.add(job_tracking.ORPHAN + key_of(pod))
            return
        key = key_of(job)
        self.expectations.creation_observed(key, key_of(pod))
        if deleting(pod):
            self.expectations.deletion_observed(key, key_of(pod))
        self.worker.add(key)

    def _pod_gone(self, pod: Obj) -> None:
        self.releaser.forget(pod)
        job = self._owner(pod)
        if job is None:
            return
        key, job_uid, pod_uid = key_of(job), meta(job).get("uid", ""), meta(pod).get("uid", "")
        self.expectations.creation_observed(key, key_of(pod))
        self.expectations.deletion_observed(key, key_of(pod))
        ours = pod_uid in self.deleted_by_us
        self.deleted_by_us.discard(pod_uid)
        counted = self.counted.get(job_uid, {})
        if not ours and pod_uid not in counted and _phase(pod) != "Succeeded" and not is_finished(job):
            # A running Pod deleted by someone else counts as a failure (podReplacementPolicy's view).
            counted[pod_uid] = "Failed"
            self.vanished.setdefault(job_uid, []).append(pod)
        self.worker.add(key)

    # --- sync ---------------------------------------------------------------------------------

    async def sync(self, key: str) -> None:
        """syncJob: count finished Pods, decide the Job's fate or its Pods, write the status, then release the
        Pods it has counted (their tracking finalizer)."""
        if key.startswith(job_tracking.ORPHAN):
            await self._release_orphan(key.removeprefix(job_tracking.ORPHAN))
            return
        job = self.written.fresh(self.jobs.get(key))
        if job is None:
            self.expectations.forget(key)
            return
        uid = meta(job).get("uid", "")
        pods = self.cm.pods_by_owner.get(uid)
        if deleting(job) or is_finished(job):
            # Everything of a finished Job is counted; a deleted Job counts nothing more.
            await self.releaser.release(pods)
            return
        counted = self.counted.get(uid)
        if counted is None:
            counted = self.counted[uid] = self._already_counted(job, pods)
        new = [p for p in pods if _phase(p) in TERMINAL and meta(p).get("uid") not in counted]
        for pod in new:
            counted[meta(pod).get("uid", "")] = _phase(pod)
        # A running Pod that someone else deletes counts as failed as soon as it is terminating.
        stopped = [p for p in pods if deleting(p) and _phase(p) not in TERMINAL and meta(p).get("uid") not in counted
                   and meta(p).get("uid") not in self.deleted_by_us]
        for pod in stopped:
            counted[meta(pod).get("uid", "")] = "Failed"
        failed_now = [p for p in new if _phase(p) == "Failed"] + self.vanished.pop(uid, []) + stopped
        verdicts = [judge(job, p) for p in failed_now]
        for pod, verdict in zip(failed_now, verdicts, strict=True):
            if not verdict.counts:
                counted[meta(pod).get("uid", "")] = "Ignored"
        new_failures = sum(1 for v in verdicts if v.counts)
        if failed_now:
            self.last_failure[uid] = self.engine.now
            self.ignored[uid] = self.ignored.get(uid, 0) + len(failed_now) - new_failures
        fail_job = next((v.message for v in verdicts if v.message), "")
        old = status(job)
        succeeded = int_field(old, "succeeded") + sum(1 for p in new if _phase(p) == "Succeeded")
        failed = int_field(old, "failed") + new_failures
        done_indexes = parse_indexes(old.get("completedIndexes"))
        if is_indexed(job):
            wanted = completions_of(job) or 0
            done_indexes |= {
                i for p in new if _phase(p) == "Succeeded" and (i := index_of(p)) is not None and i < wanted
            }
        active = [p for p in pods if is_pod_active(p)]
        conditions = [c for c in deep_copy(old.get("conditions") or []) if isinstance(c, dict)]
        counts: dict[str, Any] = {"succeeded": succeeded, "failed": failed}
        if is_indexed(job):
            counts["completedIndexes"] = format_indexes(done_indexes)
        failed_indexes: set[int] = set()
        if job_index.per_index(job):
            failed_indexes = (parse_indexes(old.get("failedIndexes")) | job_index.failed_indexes(job, pods)) - done_indexes
            counts["failedIndexes"] = format_indexes(failed_indexes)
        counts["terminating"] = sum(1 for p in pods if deleting(p) and _phase(p) not in TERMINAL)
        active = await self._decide(job, key, active, counts, conditions, done_indexes, fail_job, failed_indexes)
        counts["active"] = len(active) + counts.get("created", 0)
        counts["ready"] = sum(1 for p in active if is_pod_ready(p))
        await self._write_status(job, wire_status(job, counts, conditions))
        await self.releaser.release([
            p for p in pods if deleting(p) or (_phase(p) in TERMINAL and meta(p).get("uid") in counted)
        ])

    async def _release_orphan(self, pod_key: str) -> None:
        """An orphaned Pod (its Job deleted, or another's) loses its tracking finalizer."""
        pod = self.pods.get(pod_key)
        if pod is not None and self._owner(pod) is None:
            await self.releaser.release([pod])

    def _already_counted(self, job: Obj, pods: list[Obj]) -> dict[str, str]:
        """After a restart, the finished Pods the Job's status already counts (all of them, if the counts cover them)."""
        finished = {meta(p).get("uid", ""): _phase(p) for p in pods if _phase(p) in TERMINAL}
        recorded = int_field(status(job), "succeeded") + int_field(status(job), "failed")
        # Failures the podFailurePolicy ignores were never in the counts.
        counting = sum(1 for p in pods if _phase(p) == "Succeeded" or (_phase(p) == "Failed" and judge(job, p).counts))
        if finished and recorded >= counting:
            return finished
        # Pods without the tracking finalizer were counted before they were released.
        released = {meta(p).get("uid", "") for p in pods if not job_tracking.tracked(p)}
        return {uid: phase for uid, phase in finished.items() if uid in released}

    async def _decide(
        self, job: Obj, key: str, active: list[Obj], counts: dict[str, Any], conditions: list[Obj], done: set[int],
        fail_job: str = "", failed_indexes: frozenset[int] | set[int] = frozenset(),
    ) -> list[Obj]:
        """Fail, complete, suspend or manage the Job; returns the Pods that stay active.

        ``fail_job`` is the message of a podFailurePolicy FailJob rule a new failure matched; ``failed_indexes``
        the indexes of a backoffLimitPerIndex Job that failed for good.
        """
        now = clock.now()
        start = clock.parse(str(status(job).get("startTime") or ""))
        suspended = spec(job).get("suspend") is True
        deadline = spec(job).get("activeDeadlineSeconds")
        failure: tuple[str, str] | None = next(
            (
                (str(c.get("reason")), str(c.get("message")))
                for c in conditions
                if c.get("type") == "FailureTarget" and c.get("status") == "True"
            ),
            None,
        )
        if failure is None and fail_job:
            failure = (POD_FAILURE_POLICY, fail_job)
        if failure is None and failed_indexes:
            failure = self._failed_by_indexes(job, done, failed_indexes)
        if failure is None and (counts["failed"] > backoff_limit(job) or restarts_exceed_limit(job, active)):
            failure = BACKOFF_LIMIT_EXCEEDED
        if failure is None and isinstance(deadline, int) and start is not None and not suspended:
            left = deadline - (now - start).total_seconds()
            if left <= 0:
                failure = DEADLINE_EXCEEDED
            else:
                self.worker.add_after(key, left)
        # The terminal condition waits until no Pod of the Job runs or terminates any more.
        if failure is not None:
            set_condition(conditions, "FailureTarget", "True", *failure)
            stopped = not active and not counts["terminating"]
            # The Pods stopped for the failure end as failed ones.
            counted = self.counted.setdefault(meta(job).get("uid", ""), {})
            for pod in active:
                counted[meta(pod).get("uid", "")] = "Failed"
            counts["failed"] += len(active)
            active = await self._delete_pods(job, key, active)
            if stopped and set_condition(conditions, "Failed", "True", *failure):
                await self.recorder.event(job, "Warning", failure[0], failure[1])
            return active
        reached = self._complete(job, counts, active, done)
        if reached is not None:
            set_condition(conditions, "SuccessCriteriaMet", "True", *reached)
            stopped = not active and not counts["terminating"]
            active = await self._delete_pods(job, key, active)
            if stopped and set_condition(conditions, "Complete", "True", *reached):
                counts["completionTime"] = clock.rfc3339(now)
                await self.recorder.event(job, "Normal", "Completed", "Job completed")
            return active
        if suspended:
            active = await self._delete_pods(job, key, active)
            if set_condition(conditions, "Suspended", "True", *SUSPENDED):
                await self.recorder.event(job, "Normal", "Suspended", SUSPENDED[1])
            return active
        if condition_true(job, "Suspended"):
            set_condition(conditions, "Suspended", "False", *RESUMED)
            await self.recorder.event(job, "Normal", "Resumed", RESUMED[1])
            start = None  # the deadline counts anew from the resume
        if start is None:
            counts["startTime"] = clock.rfc3339(now)
            if isinstance(deadline, int):
                self.worker.add_after(key, deadline)
        if not self.expectations.satisfied(key):
            return active
        self.expectations.forget(key)
        return await self._manage(job, key, active, counts, done | failed_indexes)

    @staticmethod
    def _failed_by_indexes(job: Obj, done: set[int], failed: frozenset[int] | set[int]) -> tuple[str, str] | None:
        """More failed indexes than maxFailedIndexes allows, or every index ended and some of them failed."""
        most = spec(job).get("maxFailedIndexes")
        if isinstance(most, int) and len(failed) > most:
            return job_index.MAX_FAILED_INDEXES_EXCEEDED
        if len(done | failed) >= (completions_of(job) or 0):
            return job_index.FAILED_INDEXES
        return None

    def _complete(self, job: Obj, counts: dict[str, Any], active: list[Obj], done: set[int]) -> tuple[str, str] | None:
        """The reason and message the Job succeeds with (a successPolicy rule, or its completions), else None."""
        completions = completions_of(job)
        if is_indexed(job):
            matched = success_policy_match(job, done)
            if matched is not None:
                return matched
            return COMPLETIONS_REACHED if len(done) >= (completions or 0) else None
        if completions is None:
            return COMPLETIONS_REACHED if counts["succeeded"] > 0 and not active else None
        return COMPLETIONS_REACHED if counts["succeeded"] >= completions else None

    async def _manage(self, job: Obj, key: str, active: list[Obj], counts: dict[str, Any], done: set[int]) -> list[Obj]:
        """manageJob: create or delete Pods so that as many run as the Job wants now."""
        parallelism = int_field(spec(job), "parallelism", 1)
        completions = completions_of(job)
        if is_indexed(job):
            running = {index_of(p) for p in active}
            pending = [i for i in range(completions or 0) if i not in done and i not in running]
            want = min(parallelism, len(active) + len(pending))
        elif completions is None:
            want = len(active) if counts["succeeded"] > 0 else parallelism
            pending = []
        else:
            want = min(parallelism, max(completions - counts["succeeded"], 0))
            pending = []
        if len(active) > want:
            surplus = pods_to_delete(active, active, len(active) - want, self.cm.ready_since, self.cm.creation_rank)
            kept = await self._delete_pods(job, key, surplus)
            return [p for p in active if p not in surplus] + kept
        missing = want - len(active)
        if missing <= 0:
            return active
        uid = meta(job).get("uid", "")
        if job_index.per_index(job):
            # Each index waits out its own back-off; the others go ahead.
            pods, now = self.cm.pods_by_owner.get(uid), clock.now()
            waits = {i: job_index.backoff_left(job, pods, i, now) for i in pending}
            if any(w > 0 for w in waits.values()):
                self.worker.add_after(key, min(w for w in waits.values() if w > 0))
            pending = [i for i in pending if waits[i] <= 0]
            missing = min(missing, len(pending))
            if missing <= 0:
                return active
        else:
            wait = failure_backoff(counts["failed"] + self.ignored.get(uid, 0)) - (
                self.engine.now - self.last_failure.get(uid, -1e18)
            )
            if wait > 0:
                self.worker.add_after(key, wait)
                return active
        indexes: list[int | None] = list(pending[:missing]) if is_indexed(job) else [None] * missing
        jobs = [functools.partial(self._create_pod, job, key, index) for index in indexes]
        results = await run_parallel(self.engine, f"{self.worker.name}/create", jobs)
        created = [r for r in results if r is None]
        failures = [r for r in results if isinstance(r, errors.StatusError)]
        # The new Pods count as active at once, as upstream adds its creations to status.active.
        counts["created"] = len(created)
        if failures:
            raise failures[0]
        return active

    async def _create_pod(self, job: Obj, key: str, index: int | None) -> None:
        if index is None:
            await self.pod_control.create(job_tracking.with_tracking(job), key)
            return
        owner = job_tracking.with_tracking(indexed_owner(job, index))
        if job_index.per_index(job):
            pods = self.cm.pods_by_owner.get(meta(job).get("uid", ""))
            owner["spec"]["template"]["metadata"]["annotations"].update(job_index.annotations_for(job, pods, index))
        await self.pod_control.create(owner, key, f"{meta(job).get('name')}-{index}-")

    async def _delete_pods(self, job: Obj, key: str, pods: list[Obj]) -> list[Obj]:
        """Delete these Pods side by side; returns those that could not be deleted."""
        pods = [p for p in pods if meta(p).get("uid")]
        if not pods:
            return []
        self.expectations.expect_deletions(key, [key_of(p) for p in pods])
        self.deleted_by_us.update(meta(p).get("uid", "") for p in pods)
        jobs = [functools.partial(self._delete_pod, job, key, pod) for pod in pods]
        results = await run_parallel(self.engine, f"{self.worker.name}/delete", jobs)
        return [p for p, r in zip(pods, results, strict=True) if isinstance(r, Exception)]

    async def _delete_pod(self, job: Obj, key: str, pod: Obj) -> None:
        try:
            await self.pod_control.delete(job, key, meta(pod).get("namespace", ""), meta(pod).get("name", ""))
        except errors.StatusError as exc:
            if exc.code != 404:
                raise

    async def _write_status(self, job: Obj, wire: dict[str, Any]) -> None:
        """Write the status when it changed, retrying once on a conflict with a fresh read."""
        if status(job) == wire:
            return
        current = job
        for attempt in range(2):
            body = deep_copy(current)
            body["status"] = wire
            try:
                self.written.remember(await self.client.update(body, sub="status"))
                return
            except errors.StatusError as exc:
                if attempt == 1 or exc.code != 409:
                    raise
                current = await self.client.get("jobs", meta(job).get("name", ""), meta(job).get("namespace", ""))
