"""The Deployment's status, after syncDeploymentStatus and syncRolloutStatus upstream.

Pure functions: the counts summed over the ReplicaSets, the Available
condition, the Progressing condition with upstream's reasons and messages,
and a ReplicaSet's ReplicaFailure copied up. Progress deadlines are not
enforced (no ProgressDeadlineExceeded).
"""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import deep_copy

from .deployment_util import max_unavailable, spec_replicas, status_count
from .util import Obj, int_field, meta, replicas_of, spec, status

# Condition reasons (deploymentutil).
NEW_RS_REASON = "NewReplicaSetCreated"
FOUND_NEW_RS_REASON = "FoundNewReplicaSet"
RS_UPDATED_REASON = "ReplicaSetUpdated"
NEW_RS_AVAILABLE_REASON = "NewReplicaSetAvailable"
FAILED_RS_CREATE_REASON = "ReplicaSetCreateError"
MIN_AVAILABLE_REASON = "MinimumReplicasAvailable"
MIN_UNAVAILABLE_REASON = "MinimumReplicasUnavailable"
PAUSED_REASON = "DeploymentPaused"
RESUMED_REASON = "DeploymentResumed"


def deployment_complete(d: Obj, new_status: dict[str, Any]) -> bool:
    """DeploymentComplete: every replica updated and available, and the latest generation observed."""
    want = replicas_of(d)
    return (
        int_field(new_status, "updatedReplicas") == want
        and int_field(new_status, "replicas") == want
        and int_field(new_status, "availableReplicas") == want
        and int_field(new_status, "observedGeneration") >= int_field(meta(d), "generation")
    )


def deployment_progressing(d: Obj, new_status: dict[str, Any]) -> bool:
    """DeploymentProgressing: more updated, ready or available replicas, or fewer old ones, than before."""
    old = status(d)
    old_old = int_field(old, "replicas") - int_field(old, "updatedReplicas")
    new_old = int_field(new_status, "replicas") - int_field(new_status, "updatedReplicas")
    return (
        int_field(new_status, "updatedReplicas") > int_field(old, "updatedReplicas")
        or new_old < old_old
        or int_field(new_status, "readyReplicas") > int_field(old, "readyReplicas")
        or int_field(new_status, "availableReplicas") > int_field(old, "availableReplicas")
    )


def new_condition(now: str, type_: str, status_: str, reason: str, message: str) -> dict[str, Any]:
    """NewDeploymentCondition, stamped ``now``."""
    return {
        "type": type_,
        "status": status_,
        "lastUpdateTime": now,
        "lastTransitionTime": now,
        "reason": reason,
        "message": message,
    }


def get_condition(status_: dict[str, Any], type_: str) -> dict[str, Any] | None:
    """GetDeploymentCondition."""
    for condition in status_.get("conditions") or []:
        if isinstance(condition, dict) and condition.get("type") == type_:
            return condition
    return None


def set_condition(status_: dict[str, Any], condition: dict[str, Any]) -> None:
    """SetDeploymentCondition: no change for the same status and reason; keep the transition time if status holds."""
    current = get_condition(status_, condition["type"])
    if (
        current is not None
        and current.get("status") == condition["status"]
        and current.get("reason") == condition["reason"]
    ):
        return
    if current is not None and current.get("status") == condition["status"]:
        condition["lastTransitionTime"] = current.get("lastTransitionTime")
    remove_condition(status_, condition["type"])
    status_.setdefault("conditions", []).append(condition)


def remove_condition(status_: dict[str, Any], type_: str) -> None:
    """RemoveDeploymentCondition (an empty list is dropped, as omitempty does)."""
    kept = [c for c in status_.get("conditions") or [] if not (isinstance(c, dict) and c.get("type") == type_)]
    if kept:
        status_["conditions"] = kept
    else:
        status_.pop("conditions", None)


def paused_condition(d: Obj, now: str) -> dict[str, Any] | None:
    """checkPausedConditions: Progressing Unknown while paused, and once on resuming; None when nothing changes."""
    if spec(d).get("progressDeadlineSeconds") is None:
        return None
    current = get_condition(status(d), "Progressing")
    if current is not None and current.get("reason") == "ProgressDeadlineExceeded":
        return None
    paused_known = current is not None and current.get("reason") == PAUSED_REASON
    if spec(d).get("paused") and not paused_known:
        return new_condition(now, "Progressing", "Unknown", PAUSED_REASON, "Deployment is paused")
    if not spec(d).get("paused") and paused_known:
        return new_condition(now, "Progressing", "Unknown", RESUMED_REASON, "Deployment is resumed")
    return None


def calculate_status(all_rss: list[Obj], new_rs: Obj | None, d: Obj, now: str) -> dict[str, Any]:
    """calculateStatus: counts over the ReplicaSets and the Available condition."""
    available = status_count(all_rss, "availableReplicas")
    counts = {
        "observedGeneration": int_field(meta(d), "generation"),
        "replicas": status_count(all_rss, "replicas"),
        "updatedReplicas": status_count([new_rs] if new_rs else [], "replicas"),
        "readyReplicas": status_count(all_rss, "readyReplicas"),
        "availableReplicas": available,
        "unavailableReplicas": max(spec_replicas(all_rss) - available, 0),
    }
    # Every field is omitempty in apps/v1.DeploymentStatus.
    new_status: dict[str, Any] = {k: v for k, v in counts.items() if v}
    if isinstance(status(d).get("collisionCount"), int):
        new_status["collisionCount"] = status(d)["collisionCount"]
    conditions = deep_copy(status(d).get("conditions") or [])
    if conditions:
        new_status["conditions"] = conditions
    if available >= replicas_of(d) - max_unavailable(d):
        condition = new_condition(
            now, "Available", "True", MIN_AVAILABLE_REASON, "Deployment has minimum availability."
        )
    else:
        condition = new_condition(
            now, "Available", "False", MIN_UNAVAILABLE_REASON, "Deployment does not have minimum availability."
        )
    set_condition(new_status, condition)
    return new_status


def rollout_status(all_rss: list[Obj], new_rs: Obj | None, d: Obj, now: str) -> dict[str, Any]:
    """syncRolloutStatus's new status: calculateStatus plus Progressing and ReplicaFailure."""
    new_status = calculate_status(all_rss, new_rs, d, now)
    has_deadline = spec(d).get("progressDeadlineSeconds") is not None
    if not has_deadline:
        remove_condition(new_status, "Progressing")
    current = get_condition(status(d), "Progressing")
    complete = (
        int_field(new_status, "replicas") == int_field(new_status, "updatedReplicas")
        and current is not None
        and current.get("reason") == NEW_RS_AVAILABLE_REASON
    )
    if has_deadline and not complete:
        what = f'ReplicaSet "{meta(new_rs).get("name")}"' if new_rs else f'Deployment "{meta(d).get("name")}"'
        if deployment_complete(d, new_status):
            message = f"{what} has successfully progressed."
            set_condition(new_status, new_condition(now, "Progressing", "True", NEW_RS_AVAILABLE_REASON, message))
        elif deployment_progressing(d, new_status):
            condition = new_condition(now, "Progressing", "True", RS_UPDATED_REASON, f"{what} is progressing.")
            if current is not None:
                # Progress refreshes lastUpdateTime even with an unchanged reason.
                if current.get("status") == "True":
                    condition["lastTransitionTime"] = current.get("lastTransitionTime")
                remove_condition(new_status, "Progressing")
            set_condition(new_status, condition)
    _copy_replica_failure(all_rss, new_rs, new_status)
    return new_status


def _copy_replica_failure(all_rss: list[Obj], new_rs: Obj | None, new_status: dict[str, Any]) -> None:
    """A ReplicaSet's ReplicaFailure condition (the new one's first) shows on the Deployment too."""
    ordered = ([new_rs] if new_rs else []) + [rs for rs in all_rss if rs is not new_rs]
    for rs in ordered:
        failure = get_condition(status(rs), "ReplicaFailure")
        if failure is not None:
            since = failure.get("lastTransitionTime")
            condition = {
                "type": "ReplicaFailure",
                "status": failure.get("status"),
                "lastUpdateTime": since,
                "lastTransitionTime": since,
                "reason": failure.get("reason"),
                "message": failure.get("message"),
            }
            set_condition(new_status, condition)
            return
    remove_condition(new_status, "ReplicaFailure")
