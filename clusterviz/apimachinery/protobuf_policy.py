"""policy/v1 PodDisruptionBudget and scheduling.k8s.io/v1 PriorityClass for the protobuf decoder, with the field
numbers of their generated.proto.

``kubectl create poddisruptionbudget`` and ``kubectl create priorityclass`` post
these as protobuf. Importing this module adds them to the decoder's kinds; the
API codec imports it.
"""

from __future__ import annotations

from .protobuf import _KINDS, _LABEL_SELECTOR, _OBJECT_META, ALWAYS, KEEP, _f, _Message

_PDB_SPEC = _Message(
    _f(1, "minAvailable", "intstr", presence=KEEP),
    _f(2, "selector", _LABEL_SELECTOR, presence=KEEP),
    _f(3, "maxUnavailable", "intstr", presence=KEEP),
    _f(4, "unhealthyPodEvictionPolicy", "string", presence=KEEP),
)

_KINDS[("policy/v1", "PodDisruptionBudget")] = _Message(_f(1, "metadata", _OBJECT_META), _f(2, "spec", _PDB_SPEC))
_KINDS[("scheduling.k8s.io/v1", "PriorityClass")] = _Message(
    _f(1, "metadata", _OBJECT_META),
    _f(2, "value", "int32", presence=ALWAYS),
    _f(3, "globalDefault", "bool"),
    _f(4, "description", "string"),
    _f(5, "preemptionPolicy", "string", presence=KEEP),
)
