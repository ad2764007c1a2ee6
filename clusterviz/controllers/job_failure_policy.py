"""A Job's podFailurePolicy applied to one failed Pod, after pkg/controller/job's matchPodFailurePolicy.

The rules are tried in order; the first whose exit codes or Pod conditions match decides: ``FailJob`` fails
the Job with a message naming the Pod, ``Ignore`` leaves the failure out of the count towards backoffLimit
(a replacement is made), ``Count`` counts it as usual, and ``FailIndex`` counts it against its index.
A rule with an action this controller does not know is skipped, as clients are told to.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from .util import Obj, meta, spec, status

# The reason of the Job's FailureTarget and Failed conditions when a FailJob rule matched.
POD_FAILURE_POLICY: Final = "PodFailurePolicy"


@dataclass(frozen=True)
class Verdict:
    """What the policy makes of one failed Pod."""

    # The matching rule's action; None when no rule matched (the failure counts).
    action: str | None = None
    # Whether the failure counts towards backoffLimit.
    counts: bool = True
    # For FailJob: the message of the Job's Failed condition.
    message: str = ""


def judge(job: Obj, pod: Obj) -> Verdict:
    """The verdict of the Job's podFailurePolicy on a failed Pod (no policy: the failure counts)."""
    policy = spec(job).get("podFailurePolicy")
    if not isinstance(policy, dict):
        return Verdict()
    where = f"{meta(pod).get('namespace', '')}/{meta(pod).get('name', '')}"
    for index, rule in enumerate(policy.get("rules") or []):
        if not isinstance(rule, dict):
            continue
        action = rule.get("action")
        requirement = rule.get("onExitCodes")
        if isinstance(requirement, dict):
            container = _exit_code_match(pod, requirement)
            if container is None:
                continue
            code = container["state"]["terminated"].get("exitCode")
            message = (f"Container {container.get('name')} for pod {where} failed with exit code {code} "
                       f"matching {action} rule at index {index}")
        else:
            condition = _condition_match(pod, rule.get("onPodConditions"))
            if condition is None:
                continue
            message = f"Pod {where} has condition {condition.get('type')} matching {action} rule at index {index}"
        if action == "Ignore":
            return Verdict("Ignore", counts=False)
        if action in ("Count", "FailIndex"):
            return Verdict(action)
        if action == "FailJob":
            return Verdict("FailJob", message=message)
    return Verdict()


def _exit_code_match(pod: Obj, requirement: dict[str, Any]) -> dict[str, Any] | None:
    """The first terminated container (app containers before init containers) whose non-zero exit code matches."""
    wanted = requirement.get("containerName")
    values = requirement.get("values") or []
    for section in ("containerStatuses", "initContainerStatuses"):
        for container in status(pod).get(section) or []:
            if not isinstance(container, dict):
                continue
            terminated = (container.get("state") or {}).get("terminated")
            if not isinstance(terminated, dict) or (wanted is not None and container.get("name") != wanted):
                continue
            code = terminated.get("exitCode")
            if not code:
                continue  # a container that succeeded is no failure to match
            if (code in values) == (requirement.get("operator") == "In"):
                return container
    return None


def _condition_match(pod: Obj, patterns: Any) -> dict[str, Any] | None:
    """The first of the Pod's conditions that one of the patterns (type and status) names."""
    if not isinstance(patterns, list):
        return None
    for condition in status(pod).get("conditions") or []:
        if not isinstance(condition, dict):
            continue
        for pattern in patterns:
            if isinstance(pattern, dict) and (pattern.get("type"), pattern.get("status")) == (
                condition.get("type"), condition.get("status")
            ):
                return condition
    return None
