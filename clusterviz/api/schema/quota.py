"""The core group's policy kinds (v1): ResourceQuotas, which cap what a namespace uses, and LimitRanges, which
bound and default each container's requests and limits."""

from __future__ import annotations

from .model import CORE, QTY_MAP, STRING, STRINGS, array, define, kind, ref

kind("", "v1", "ResourceQuota", CORE + "ResourceQuota",
     "The most a namespace may use of each resource (Pods, cpu and memory requested or limited, object counts).",
     CORE + "ResourceQuotaSpec", CORE + "ResourceQuotaStatus")
define(CORE + "ResourceQuotaSpec", "The limits the quota sets.", {
    "hard": (QTY_MAP, "The most of each named resource the namespace may use."),
    "scopeSelector": (ref(CORE + "ScopeSelector"), "Which objects the quota counts, by scope expressions."),
    "scopes": (STRINGS, "Which objects the quota counts: Terminating, NotTerminating, BestEffort, NotBestEffort..."),
})
define(CORE + "ScopeSelector", "Scope expressions, all of which an object must match.", {
    "matchExpressions": (array(ref(CORE + "ScopedResourceSelectorRequirement")), "The expressions."),
})
define(CORE + "ScopedResourceSelectorRequirement", "A scope, an operator and values.", {
    "operator": (STRING, "In, NotIn, Exists or DoesNotExist."),
    "scopeName": (STRING, "The scope the expression is about."),
    "values": (STRINGS, "The values, for In and NotIn."),
}, required=("scopeName", "operator"))
define(CORE + "ResourceQuotaStatus", "What the quota controller last counted.", {
    "hard": (QTY_MAP, "The limits in force."),
    "used": (QTY_MAP, "What the namespace uses now."),
})

kind("", "v1", "LimitRange", CORE + "LimitRange",
     "Bounds on what each Pod, container or claim of a namespace may ask for, and the defaults containers get.",
     CORE + "LimitRangeSpec")
define(CORE + "LimitRangeSpec", "The limits, one item per kind of object.", {
    "limits": (array(ref(CORE + "LimitRangeItem")), "The limit items."),
}, required=("limits",))
define(CORE + "LimitRangeItem", "Bounds and defaults for one type of object.", {
    "default": (QTY_MAP, "The limits a container that sets none gets."),
    "defaultRequest": (QTY_MAP, "The requests a container that sets none gets."),
    "max": (QTY_MAP, "The most an object of this type may use."),
    "maxLimitRequestRatio": (QTY_MAP, "The largest limit / request ratio allowed."),
    "min": (QTY_MAP, "The least an object of this type may ask for."),
    "type": (STRING, "Pod, Container or PersistentVolumeClaim."),
}, required=("type",))
