"""The autoscaling group: HorizontalPodAutoscalers, stored as v2 and also served as v1."""

from __future__ import annotations

from .model import INT32, INT64, QTY, SELECTOR, STRING, TIME, array, define, kind, ref

_V2 = "io.k8s.api.autoscaling.v2."
_V1 = "io.k8s.api.autoscaling.v1."

for _prefix in (_V1, _V2):
    define(_prefix + "CrossVersionObjectReference", "Names the object scaled (or an object a metric describes).", {
        "apiVersion": (STRING, "The API version of the referent."),
        "kind": (STRING, "The kind of the referent, such as Deployment."),
        "name": (STRING, "The name of the referent."),
    }, required=("kind", "name"))

kind("autoscaling", "v2", "HorizontalPodAutoscaler", _V2 + "HorizontalPodAutoscaler",
     "Scales a workload's replicas automatically from the metrics it names.",
     _V2 + "HorizontalPodAutoscalerSpec", _V2 + "HorizontalPodAutoscalerStatus")
define(_V2 + "HorizontalPodAutoscalerSpec", "What is scaled, between which bounds, on which metrics, how fast.", {
    "behavior": (ref(_V2 + "HorizontalPodAutoscalerBehavior"), "How fast to scale up and down; upstream's defaults when unset."),
    "maxReplicas": (INT32, "The upper limit of replicas the autoscaler may set."),
    "metrics": (array(ref(_V2 + "MetricSpec")), "The metrics the desired replica count is computed from (the highest wins)."),
    "minReplicas": (INT32, "The lower limit of replicas the autoscaler may set; 1 by default."),
    "scaleTargetRef": (ref(_V2 + "CrossVersionObjectReference"), "The workload scaled, through its scale subresource."),
}, required=("scaleTargetRef", "maxReplicas"))
define(_V2 + "HorizontalPodAutoscalerBehavior", "Scaling rules for each direction.", {
    "scaleDown": (ref(_V2 + "HPAScalingRules"), "Rules for scaling down: a 300 s stabilisation window by default."),
    "scaleUp": (ref(_V2 + "HPAScalingRules"), "Rules for scaling up: 4 Pods or 100% per 15 s by default."),
})
define(_V2 + "HPAScalingRules", "A stabilisation window and the policies that bound one direction's changes.", {
    "policies": (array(ref(_V2 + "HPAScalingPolicy")), "The changes allowed per period."),
    "selectPolicy": (STRING, "Which policy applies when several do: Max, Min or Disabled."),
    "stabilizationWindowSeconds": (INT32, "How far back recommendations are considered before scaling."),
    "tolerance": (QTY, "How far the metric may be from its target before scaling."),
})
define(_V2 + "HPAScalingPolicy", "A change allowed within a period.", {
    "periodSeconds": (INT32, "The window the policy holds over (1-1800 s)."),
    "type": (STRING, "Pods or Percent."),
    "value": (INT32, "How many Pods, or what percentage of the current replicas."),
}, required=("type", "value", "periodSeconds"))
define(_V2 + "MetricSpec", "One metric to scale on; type names which source is set.", {
    "containerResource": (ref(_V2 + "ContainerResourceMetricSource"), "A resource of one container in each Pod."),
    "external": (ref(_V2 + "ExternalMetricSource"), "A metric not tied to any object in the cluster."),
    "object": (ref(_V2 + "ObjectMetricSource"), "A metric describing one object."),
    "pods": (ref(_V2 + "PodsMetricSource"), "A metric averaged over the scaled Pods."),
    "resource": (ref(_V2 + "ResourceMetricSource"), "A resource (cpu, memory) of the scaled Pods, as requests count it."),
    "type": (STRING, "ContainerResource, External, Object, Pods or Resource."),
}, required=("type",))
define(_V2 + "MetricTarget", "The value a metric should have.", {
    "averageUtilization": (INT32, "The target average use, as a percentage of the Pods' requests."),
    "averageValue": (QTY, "The target value averaged over the Pods."),
    "type": (STRING, "Utilization, Value or AverageValue."),
    "value": (QTY, "The target value."),
}, required=("type",))
define(_V2 + "MetricValueStatus", "The value a metric has now.", {
    "averageUtilization": (INT32, "The current average use, as a percentage of the Pods' requests."),
    "averageValue": (QTY, "The current value averaged over the Pods."),
    "value": (QTY, "The current value."),
})
define(_V2 + "MetricIdentifier", "Names a metric.", {
    "name": (STRING, "The metric's name."),
    "selector": (SELECTOR, "Labels that narrow the metric."),
}, required=("name",))
define(_V2 + "ResourceMetricSource", "A resource of the scaled Pods.", {
    "name": (STRING, "The resource: cpu or memory."),
    "target": (ref(_V2 + "MetricTarget"), "Its target."),
}, required=("name", "target"))
define(_V2 + "ContainerResourceMetricSource", "A resource of one container of the scaled Pods.", {
    "container": (STRING, "The container's name."),
    "name": (STRING, "The resource: cpu or memory."),
    "target": (ref(_V2 + "MetricTarget"), "Its target."),
}, required=("name", "target", "container"))
define(_V2 + "PodsMetricSource", "A metric of each scaled Pod, averaged.", {
    "metric": (ref(_V2 + "MetricIdentifier"), "The metric."),
    "target": (ref(_V2 + "MetricTarget"), "Its target."),
}, required=("metric", "target"))
define(_V2 + "ObjectMetricSource", "A metric describing one object.", {
    "describedObject": (ref(_V2 + "CrossVersionObjectReference"), "The object."),
    "metric": (ref(_V2 + "MetricIdentifier"), "The metric."),
    "target": (ref(_V2 + "MetricTarget"), "Its target."),
}, required=("describedObject", "target", "metric"))
define(_V2 + "ExternalMetricSource", "A metric from outside the cluster.", {
    "metric": (ref(_V2 + "MetricIdentifier"), "The metric."),
    "target": (ref(_V2 + "MetricTarget"), "Its target."),
}, required=("metric", "target"))
define(_V2 + "HorizontalPodAutoscalerStatus", "What the autoscaler last saw and did.", {
    "conditions": (array(ref(_V2 + "HorizontalPodAutoscalerCondition"), "type"),
                   "AbleToScale, ScalingActive and ScalingLimited."),
    "currentMetrics": (array(ref(_V2 + "MetricStatus")), "The metrics' values when last read."),
    "currentReplicas": (INT32, "The replicas the target had when last read."),
    "desiredReplicas": (INT32, "The replicas the autoscaler last wanted."),
    "lastScaleTime": (TIME, "When the autoscaler last changed the replica count."),
    "observedGeneration": (INT64, "The generation last acted on."),
}, required=("desiredReplicas",))
define(_V2 + "HorizontalPodAutoscalerCondition", "One state of the autoscaler.", {
    "lastTransitionTime": (TIME, "When the condition last changed status."),
    "message": (STRING, "Details for people."),
    "reason": (STRING, "Why, in one CamelCase word."),
    "status": (STRING, "True, False or Unknown."),
    "type": (STRING, "AbleToScale, ScalingActive or ScalingLimited."),
}, required=("type", "status"))
define(_V2 + "MetricStatus", "One metric's current value; type names which source is set.", {
    "containerResource": (ref(_V2 + "ContainerResourceMetricStatus"), "A container resource's value."),
    "external": (ref(_V2 + "ExternalMetricStatus"), "An external metric's value."),
    "object": (ref(_V2 + "ObjectMetricStatus"), "An object metric's value."),
    "pods": (ref(_V2 + "PodsMetricStatus"), "A Pods metric's value."),
    "resource": (ref(_V2 + "ResourceMetricStatus"), "A resource's value."),
    "type": (STRING, "ContainerResource, External, Object, Pods or Resource."),
}, required=("type",))
define(_V2 + "ResourceMetricStatus", "A resource's current value.", {
    "current": (ref(_V2 + "MetricValueStatus"), "The value."),
    "name": (STRING, "The resource."),
}, required=("name", "current"))
define(_V2 + "ContainerResourceMetricStatus", "A container resource's current value.", {
    "container": (STRING, "The container's name."),
    "current": (ref(_V2 + "MetricValueStatus"), "The value."),
    "name": (STRING, "The resource."),
}, required=("name", "current", "container"))
define(_V2 + "PodsMetricStatus", "A Pods metric's current value.", {
    "current": (ref(_V2 + "MetricValueStatus"), "The value."),
    "metric": (ref(_V2 + "MetricIdentifier"), "The metric."),
}, required=("metric", "current"))
define(_V2 + "ObjectMetricStatus", "An object metric's current value.", {
    "current": (ref(_V2 + "MetricValueStatus"), "The value."),
    "describedObject": (ref(_V2 + "CrossVersionObjectReference"), "The object."),
    "metric": (ref(_V2 + "MetricIdentifier"), "The metric."),
}, required=("metric", "current", "describedObject"))
define(_V2 + "ExternalMetricStatus", "An external metric's current value.", {
    "current": (ref(_V2 + "MetricValueStatus"), "The value."),
    "metric": (ref(_V2 + "MetricIdentifier"), "The metric."),
}, required=("metric", "current"))

kind("autoscaling", "v1", "HorizontalPodAutoscaler", _V1 + "HorizontalPodAutoscaler",
     "Scales a workload's replicas automatically to keep its Pods' CPU use near a target.",
     _V1 + "HorizontalPodAutoscalerSpec", _V1 + "HorizontalPodAutoscalerStatus")
define(_V1 + "HorizontalPodAutoscalerSpec", "What is scaled, between which bounds, to which CPU target.", {
    "maxReplicas": (INT32, "The upper limit of replicas the autoscaler may set."),
    "minReplicas": (INT32, "The lower limit of replicas the autoscaler may set; 1 by default."),
    "scaleTargetRef": (ref(_V1 + "CrossVersionObjectReference"), "The workload scaled, through its scale subresource."),
    "targetCPUUtilizationPercentage": (INT32, "The target average CPU use, as a percentage of requests; 80 by default."),
}, required=("scaleTargetRef", "maxReplicas"))
define(_V1 + "HorizontalPodAutoscalerStatus", "What the autoscaler last saw and did.", {
    "currentCPUUtilizationPercentage": (INT32, "The Pods' average CPU use now, as a percentage of requests."),
    "currentReplicas": (INT32, "The replicas the target had when last read."),
    "desiredReplicas": (INT32, "The replicas the autoscaler last wanted."),
    "lastScaleTime": (TIME, "When the autoscaler last changed the replica count."),
    "observedGeneration": (INT64, "The generation last acted on."),
}, required=("currentReplicas", "desiredReplicas"))
