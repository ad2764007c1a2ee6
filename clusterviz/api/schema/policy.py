"""The policy group (v1): PodDisruptionBudgets, which limit voluntary evictions."""

from __future__ import annotations

from .model import INT32, INT64, INT_STR, META, SELECTOR, STRING, TIME, array, define, kind, map_of, ref

_POLICY = "io.k8s.api.policy.v1."

kind("policy", "v1", "PodDisruptionBudget", _POLICY + "PodDisruptionBudget",
     "Limits how many Pods of a set may be down at once through voluntary disruptions (evictions, drains).",
     _POLICY + "PodDisruptionBudgetSpec", _POLICY + "PodDisruptionBudgetStatus")
define(_POLICY + "PodDisruptionBudgetSpec", "Which Pods the budget covers and how many must stay up.", {
    "maxUnavailable": (INT_STR, "The most Pods that may be unavailable after an eviction (a number or a percentage)."),
    "minAvailable": (INT_STR, "The fewest Pods that must stay available after an eviction (a number or a percentage)."),
    "selector": (SELECTOR, "The Pods the budget covers."),
    "unhealthyPodEvictionPolicy": (STRING, "When Pods that are running but not ready may be evicted: IfHealthyBudget or AlwaysAllow."),
})
define(_POLICY + "PodDisruptionBudgetStatus", "What the disruption controller last counted.", {
    "conditions": (array(ref(META + "Condition"), "type"), "DisruptionAllowed and others."),
    "currentHealthy": (INT32, "Covered Pods that are healthy now."),
    "desiredHealthy": (INT32, "The fewest healthy Pods the budget wants."),
    "disruptedPods": (map_of(TIME), "Pods whose eviction was allowed but which are not gone yet, with when."),
    "disruptionsAllowed": (INT32, "How many evictions are allowed now."),
    "expectedPods": (INT32, "Pods the budget counts."),
    "observedGeneration": (INT64, "The generation last acted on."),
}, required=("currentHealthy", "desiredHealthy", "disruptionsAllowed", "expectedPods"))
