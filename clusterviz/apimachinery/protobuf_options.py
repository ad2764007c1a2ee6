"""The option and subresource types clients send as protobuf: DeleteOptions, Eviction, Scale, Binding.

client-go's typed clients encode these bodies the same way as objects (the
``k8s\\x00`` envelope, field numbers of the generated.proto files). kubectl
drain sends a DeleteOptions (or an Eviction) for every Pod it removes.
DeleteOptions is registered in every API group version, so a body may name
any of them; the decoder accepts it whatever its apiVersion.
"""

from __future__ import annotations

from .protobuf import _KINDS, _OBJECT_META, _OBJECT_REFERENCE, ALWAYS, ANY_VERSION_KINDS, KEEP, _f, _Message

_PRECONDITIONS = _Message(_f(1, "uid", "string", presence=KEEP), _f(2, "resourceVersion", "string", presence=KEEP))

DELETE_OPTIONS = _Message(
    _f(1, "gracePeriodSeconds", "int64", presence=KEEP),
    _f(2, "preconditions", _PRECONDITIONS, presence=KEEP),
    _f(3, "orphanDependents", "bool", presence=KEEP),
    _f(4, "propagationPolicy", "string", presence=KEEP),
    _f(5, "dryRun", "string", repeated=True),
    _f(6, "ignoreStoreReadErrorWithClusterBreakingPotential", "bool", presence=KEEP),
)

ANY_VERSION_KINDS["DeleteOptions"] = DELETE_OPTIONS
_KINDS[("policy/v1", "Eviction")] = _Message(_f(1, "metadata", _OBJECT_META), _f(2, "deleteOptions", DELETE_OPTIONS, presence=KEEP))
_KINDS[("autoscaling/v1", "Scale")] = _Message(
    _f(1, "metadata", _OBJECT_META), _f(2, "spec", _Message(_f(1, "replicas", "int32")))
)
_KINDS[("v1", "Binding")] = _Message(_f(1, "metadata", _OBJECT_META), _f(2, "target", _OBJECT_REFERENCE, presence=ALWAYS))
