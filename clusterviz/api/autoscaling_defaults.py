"""autoscaling/v2 defaulting of HorizontalPodAutoscalers, and the scaling rules a missing behavior means.

As upstream: minReplicas 1, a CPU utilisation target of 80% when no metric is
named, and a behavior that is given has its unset rules filled in. The
scale-down stabilisation window stays unset, as the controller's own flag
(300 s) stands for it.
"""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.unstructured import deep_copy

DEFAULT_CPU_UTILIZATION: Final = 80
SCALE_UP_RULES: Final[dict[str, Any]] = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15}, {"type": "Percent", "value": 100, "periodSeconds": 15}],
}
SCALE_DOWN_RULES: Final[dict[str, Any]] = {
    "selectPolicy": "Max",
    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
}


def scaling_rules(given: Any, defaults: dict[str, Any]) -> dict[str, Any]:
    """``given`` rules with what they leave unset taken from ``defaults``."""
    rules = deep_copy(defaults)
    if isinstance(given, dict):
        for name in ("selectPolicy", "stabilizationWindowSeconds", "policies", "tolerance"):
            if given.get(name) is not None:
                rules[name] = deep_copy(given[name])
    return rules


def default_horizontal_pod_autoscaler(hpa: dict[str, Any]) -> None:
    """SetDefaults_HorizontalPodAutoscaler (autoscaling/v2), in place."""
    spec = hpa.get("spec")
    if not isinstance(spec, dict):
        return
    if spec.get("minReplicas") is None:
        spec["minReplicas"] = 1
    if not spec.get("metrics"):
        spec["metrics"] = [{"type": "Resource", "resource": {"name": "cpu", "target": {
            "type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION}}}]
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        behavior["scaleUp"] = scaling_rules(behavior.get("scaleUp"), SCALE_UP_RULES)
        behavior["scaleDown"] = scaling_rules(behavior.get("scaleDown"), SCALE_DOWN_RULES)
