"""metrics.k8s.io/v1beta1: what kubectl top and the HorizontalPodAutoscaler read (served, never stored)."""

from __future__ import annotations

from .model import QTY_MAP, STRING, TIME, array, define, kind, ref

_METRICS = "io.k8s.metrics.pkg.apis.metrics.v1beta1."

kind("metrics.k8s.io", "v1beta1", "NodeMetrics", _METRICS + "NodeMetrics", "The resources a node uses now.",
     extra={"timestamp": (TIME, "When the usage was sampled."),
            "window": (STRING, "Over how long the usage was averaged."),
            "usage": (QTY_MAP, "CPU and memory in use on the node.")})
kind("metrics.k8s.io", "v1beta1", "PodMetrics", _METRICS + "PodMetrics", "The resources a Pod's containers use now.",
     extra={"timestamp": (TIME, "When the usage was sampled."),
            "window": (STRING, "Over how long the usage was averaged."),
            "containers": (array(ref(_METRICS + "ContainerMetrics"), "name"), "Each container's use.")})
define(_METRICS + "ContainerMetrics", "One container's use.", {
    "name": (STRING, "The container's name."),
    "usage": (QTY_MAP, "CPU and memory in use."),
}, required=("name", "usage"))
