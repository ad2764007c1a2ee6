"""The scheduling.k8s.io group (v1): PriorityClasses, which name the priorities Pods are scheduled and preempted by."""

from __future__ import annotations

from .model import BOOL, INT32, STRING, kind

_SCHEDULING = "io.k8s.api.scheduling.v1."

kind("scheduling.k8s.io", "v1", "PriorityClass", _SCHEDULING + "PriorityClass",
     "Maps a priority class name to the integer priority Pods of that class get.", extra={
         "description": (STRING, "When this priority class should be used."),
         "globalDefault": (BOOL, "Whether Pods that name no priority class get this one; only one class may be the default."),
         "preemptionPolicy": (STRING, "Never or PreemptLowerPriority (the default): whether Pods of this class may "
                                      "preempt lower-priority Pods."),
         "value": (INT32, "The priority Pods of this class receive; above 1000000000 is reserved for system classes."),
     }, required=("value",))
