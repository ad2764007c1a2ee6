"""The autoscaling/v1 HorizontalPodAutoscaler for the protobuf decoder, with autoscaling/v1's generated.proto numbers.

``kubectl autoscale`` posts it as protobuf. Importing this module adds it to
the decoder's kinds; the API codec imports it.
"""

from __future__ import annotations

from .protobuf import _KINDS, _OBJECT_META, ALWAYS, KEEP, _f, _Message

_CROSS_VERSION_REFERENCE = _Message(
    _f(1, "kind", "string", presence=ALWAYS),
    _f(2, "name", "string", presence=ALWAYS),
    _f(3, "apiVersion", "string"),
)

_SPEC = _Message(
    _f(1, "scaleTargetRef", _CROSS_VERSION_REFERENCE),
    _f(2, "minReplicas", "int32", presence=KEEP),
    _f(3, "maxReplicas", "int32", presence=ALWAYS),
    _f(4, "targetCPUUtilizationPercentage", "int32", presence=KEEP),
)

_KINDS[("autoscaling/v1", "HorizontalPodAutoscaler")] = _Message(_f(1, "metadata", _OBJECT_META), _f(2, "spec", _SPEC))
