"""What the Job controller computes from a Job and its Pods, after pkg/controller/job: conditions, indexes, Pods.

Pure functions over plain objects; the controller decides when to write.
"""

from __future__ import annotations

from typing import Any, Final

from clusterviz.api import clock
from clusterviz.apimachinery.unstructured import deep_copy

from .util import Obj, annotations_of, int_field, meta, spec, status

COMPLETION_INDEX: Final = "batch.kubernetes.io/job-completion-index"
COMPLETION_INDEX_ENV: Final = "JOB_COMPLETION_INDEX"
# Reasons and messages of the Job's conditions and events, as upstream words them.
BACKOFF_LIMIT_EXCEEDED: Final = ("BackoffLimitExceeded", "Job has reached the specified backoff limit")
DEADLINE_EXCEEDED: Final = ("DeadlineExceeded", "Job was active longer than specified deadline")
COMPLETIONS_REACHED: Final = ("CompletionsReached", "Reached expected number of succeeded pods")
# The reason of SuccessCriteriaMet and Complete when a successPolicy rule matched.
SUCCESS_POLICY: Final = "SuccessPolicy"
SUSPENDED: Final = ("JobSuspended", "Job suspended")
RESUMED: Final = ("JobResumed", "Job resumed")
# Pod failures delay the next Pod: 10 s, doubling, at most 10 minutes (DefaultJobPodFailureBackOff).
FAILURE_BACKOFF: Final = 10.0
MAX_FAILURE_BACKOFF: Final = 600.0


def condition_true(job: Obj, type_: str) -> bool:
    """Whether the Job has a condition of that type with status True."""
    return any(
        isinstance(c, dict) and c.get("type") == type_ and c.get("status") == "True"
        for c in status(job).get("conditions") or []
    )


def is_finished(job: Obj) -> bool:
    """IsJobFinished: Complete or Failed is True."""
    return condition_true(job, "Complete") or condition_true(job, "Failed")


def finish_time(job: Obj) -> str | None:
    """When the Job finished: the lastTransitionTime of its Complete or Failed condition."""
    for c in status(job).get("conditions") or []:
        if isinstance(c, dict) and c.get("type") in ("Complete", "Failed") and c.get("status") == "True":
            return str(c.get("lastTransitionTime") or "") or None
    return None


def set_condition(conditions: list[Obj], type_: str, state: str, reason: str, message: str) -> bool:
    """Add or update a JobCondition; True if anything changed (a transition moves lastTransitionTime)."""
    now = clock.rfc3339()
    for c in conditions:
        if c.get("type") != type_:
            continue
        if c.get("status") == state and c.get("reason") == reason and c.get("message") == message:
            return False
        if c.get("status") != state:
            c["lastTransitionTime"] = now
        c.update(status=state, reason=reason, message=message, lastProbeTime=now)
        return True
    conditions.append(
        {
            "type": type_,
            "status": state,
            "lastProbeTime": now,
            "lastTransitionTime": now,
            "reason": reason,
            "message": message,
        }
    )
    return True


def completions_of(job: Obj) -> int | None:
    """spec.completions (None: a work queue that is done when any Pod succeeds)."""
    value = spec(job).get("completions")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def is_indexed(job: Obj) -> bool:
    return spec(job).get("completionMode") == "Indexed"


def index_of(pod: Obj) -> int | None:
    """The completion index a Pod of an Indexed Job runs (from its annotation)."""
    value = annotations_of(pod).get(COMPLETION_INDEX)
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def parse_indexes(text: Any) -> set[int]:
    """``status.completedIndexes`` (``1,3-5,7``) as a set."""
    found: set[int] = set()
    if not isinstance(text, str):
        return found
    for part in filter(None, text.split(",")):
        low, _, high = part.partition("-")
        try:
            found.update(range(int(low), int(high or low) + 1))
        except ValueError:
            continue
    return found


def format_indexes(indexes: set[int]) -> str:
    """A set of indexes as ``status.completedIndexes`` writes it: sorted, runs of three or more joined with a dash
    (``0,1,3-5``: two neighbours are listed apart, as upstream's orderedIntervals prints them)."""
    parts: list[str] = []
    ordered = sorted(indexes)
    start = 0
    while start < len(ordered):
        end = start
        while end + 1 < len(ordered) and ordered[end + 1] == ordered[end] + 1:
            end += 1
        if start == end:
            parts.append(str(ordered[start]))
        else:
            parts.append(f"{ordered[start]}{',' if end == start + 1 else '-'}{ordered[end]}")
        start = end + 1
    return ",".join(parts)


def success_policy_match(job: Obj, done: set[int]) -> tuple[str, str] | None:
    """matchSuccessPolicy: (reason, message) of the first rule the succeeded indexes satisfy, else None.

    A rule with indexes holds when all of them succeeded, or ``succeededCount`` of them did; a rule with
    only a count holds when that many indexes succeeded.
    """
    policy = spec(job).get("successPolicy")
    if not isinstance(policy, dict) or not done:
        return None
    completions = completions_of(job) or 0
    for number, rule in enumerate(policy.get("rules") or []):
        if not isinstance(rule, dict):
            continue
        count = rule.get("succeededCount")
        if rule.get("succeededIndexes") is not None:
            wanted = {i for i in parse_indexes(rule["succeededIndexes"]) if i < completions}
            if not wanted:
                continue  # a malformed rule matches nothing
            met = len(wanted & done)
            if met == len(wanted) or (isinstance(count, int) and met >= count):
                return SUCCESS_POLICY, f"Matched rules at index {number}"
        elif isinstance(count, int) and len(done) >= count:
            return SUCCESS_POLICY, f"Matched rules at index {number}"
    return None


def failure_backoff(failures: int) -> float:
    """How long after its latest Pod failure a Job waits before making a new Pod."""
    if failures <= 0:
        return 0.0
    return min(FAILURE_BACKOFF * 2 ** (failures - 1), MAX_FAILURE_BACKOFF)


def indexed_owner(job: Obj, index: int) -> Obj:
    """A copy of an Indexed Job whose template makes the Pod of ``index``: its annotation, label, env and hostname."""
    owner = deep_copy(job)
    template = owner.setdefault("spec", {}).setdefault("template", {})
    template_meta = template.setdefault("metadata", {})
    template_meta.setdefault("annotations", {})[COMPLETION_INDEX] = str(index)
    template_meta.setdefault("labels", {})[COMPLETION_INDEX] = str(index)
    pod_spec = template.setdefault("spec", {})
    if not pod_spec.get("hostname"):
        pod_spec["hostname"] = f"{meta(job).get('name')}-{index}"
    field_ref = {"fieldPath": f"metadata.annotations['{COMPLETION_INDEX}']"}
    for section in ("initContainers", "containers"):
        for container in pod_spec.get(section) or []:
            if not isinstance(container, dict):
                continue
            env = container.setdefault("env", [])
            if isinstance(env, list) and not any(
                isinstance(e, dict) and e.get("name") == COMPLETION_INDEX_ENV for e in env
            ):
                env.append({"name": COMPLETION_INDEX_ENV, "valueFrom": {"fieldRef": deep_copy(field_ref)}})
    return owner


def wire_status(job: Obj, counts: dict[str, Any], conditions: list[Obj]) -> dict[str, Any]:
    """The JobStatus to write, with Go's omitempty: zero counts left out, ready and terminating always there."""
    old = status(job)
    wire: dict[str, Any] = {}
    for name in ("startTime", "completionTime"):
        value = counts.get(name, old.get(name))
        if value:
            wire[name] = value
    for name in ("active", "succeeded", "failed"):
        if counts[name]:
            wire[name] = counts[name]
    wire["terminating"] = counts["terminating"]
    wire["ready"] = counts["ready"]
    if counts.get("completedIndexes"):
        wire["completedIndexes"] = counts["completedIndexes"]
    if "failedIndexes" in counts:
        wire["failedIndexes"] = counts["failedIndexes"]  # with backoffLimitPerIndex: there even when empty
    if conditions:
        wire["conditions"] = conditions
    wire["uncountedTerminatedPods"] = {}
    return wire


def restarts_exceed_limit(job: Obj, active: list[Obj]) -> bool:
    """pastBackoffLimitOnFailure: with restartPolicy OnFailure, its running Pods' container restarts count as failures."""
    template_spec = (spec(job).get("template") or {}).get("spec") or {}
    if template_spec.get("restartPolicy") != "OnFailure":
        return False
    restarts = sum(
        int_field(cs, "restartCount")
        for pod in active
        if status(pod).get("phase") in ("Pending", "Running")
        for section in ("initContainerStatuses", "containerStatuses")
        for cs in status(pod).get(section) or []
        if isinstance(cs, dict)
    )
    limit = backoff_limit(job)
    return restarts > 0 if limit == 0 else restarts >= limit


def backoff_limit(job: Obj) -> int:
    """spec.backoffLimit (6 when unset, as defaulted)."""
    return int_field(spec(job), "backoffLimit", 6)
