"""An Indexed Job's backoffLimitPerIndex, after pkg/controller/job's indexed_job_utils: failures counted per index.

Each Pod of an index carries, in an annotation, how many failures of that index came before it, so the count
survives a controller restart and Pods removed since. An index whose failures pass ``backoffLimitPerIndex``, or
whose Pod a ``FailIndex`` rule matched, is failed for good: it is not run again, and it is listed in
``status.failedIndexes``. Each index waits out its own back-off (10 s, doubling) before its next Pod.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from clusterviz.api import clock

from .job_failure_policy import judge
from .job_util import failure_backoff, index_of
from .util import Obj, annotations_of, int_field, spec, status

FAILURE_COUNT: Final = "batch.kubernetes.io/job-index-failure-count"
IGNORED_FAILURE_COUNT: Final = "batch.kubernetes.io/job-index-ignored-failure-count"
# The reasons and messages of a Job that failed through its indexes.
MAX_FAILED_INDEXES_EXCEEDED: Final = (
    "MaxFailedIndexesExceeded", "Job has exceeded the specified maximal number of failed indexes",
)
FAILED_INDEXES: Final = ("FailedIndexes", "Job has failed indexes")


def per_index(job: Obj) -> bool:
    """Whether the Job counts its failures per index (an Indexed Job with backoffLimitPerIndex)."""
    return spec(job).get("completionMode") == "Indexed" and isinstance(spec(job).get("backoffLimitPerIndex"), int)


def _count(pod: Obj, name: str) -> int:
    try:
        return max(int(annotations_of(pod).get(name, "0")), 0)
    except ValueError:
        return 0


def failures(job: Obj, pods: list[Obj]) -> dict[int, tuple[int, int]]:
    """Per index: (failures counted towards the limit, failures the podFailurePolicy ignored), its Pods included."""
    found: dict[int, tuple[int, int]] = {}
    for pod in pods:
        index = index_of(pod)
        if index is None:
            continue
        counted, ignored = _count(pod, FAILURE_COUNT), _count(pod, IGNORED_FAILURE_COUNT)
        if status(pod).get("phase") == "Failed":
            if judge(job, pod).counts:
                counted += 1
            else:
                ignored += 1
        before = found.get(index, (0, 0))
        found[index] = (max(before[0], counted), max(before[1], ignored))
    return found


def failed_indexes(job: Obj, pods: list[Obj]) -> set[int]:
    """The indexes failed for good: past backoffLimitPerIndex, or ended by a FailIndex rule."""
    limit = int_field(spec(job), "backoffLimitPerIndex")
    failed = {index for index, (counted, _ignored) in failures(job, pods).items() if counted > limit}
    for pod in pods:
        index = index_of(pod)
        if index is not None and status(pod).get("phase") == "Failed" and judge(job, pod).action == "FailIndex":
            failed.add(index)
    return failed


def annotations_for(job: Obj, pods: list[Obj], index: int) -> dict[str, str]:
    """The failure counts the next Pod of ``index`` carries."""
    counted, ignored = failures(job, pods).get(index, (0, 0))
    found = {FAILURE_COUNT: str(counted)}
    if ignored:
        found[IGNORED_FAILURE_COUNT] = str(ignored)
    return found


def backoff_left(job: Obj, pods: list[Obj], index: int, now: datetime) -> float:
    """Seconds until ``index`` may have its next Pod: its own back-off after its latest failure."""
    counted, ignored = failures(job, pods).get(index, (0, 0))
    latest: datetime | None = None
    for pod in pods:
        if index_of(pod) != index or status(pod).get("phase") != "Failed":
            continue
        for container in status(pod).get("containerStatuses") or []:
            finished = ((container.get("state") or {}).get("terminated") or {}).get("finishedAt")
            moment = clock.parse(finished) if isinstance(finished, str) else None
            if moment is not None and (latest is None or moment > latest):
                latest = moment
    if latest is None:
        return 0.0
    return failure_backoff(counted + ignored) - (now - latest).total_seconds()
