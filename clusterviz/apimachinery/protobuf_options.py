"""The option, subresource and review types clients send as protobuf: DeleteOptions, Eviction, Scale, Binding, the self-reviews.

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

# The self-reviews kubectl auth sends: who am I (no fields of its own), may I (what, on which resource or path).
_RESOURCE_ATTRIBUTES = _Message(
    _f(1, "namespace", "string"), _f(2, "verb", "string"), _f(3, "group", "string"), _f(4, "version", "string"),
    _f(5, "resource", "string"), _f(6, "subresource", "string"), _f(7, "name", "string"),
)
_NON_RESOURCE_ATTRIBUTES = _Message(_f(1, "path", "string"), _f(2, "verb", "string"))
_KINDS[("authentication.k8s.io/v1", "SelfSubjectReview")] = _Message(_f(1, "metadata", _OBJECT_META))
_KINDS[("authorization.k8s.io/v1", "SelfSubjectAccessReview")] = _Message(
    _f(1, "metadata", _OBJECT_META),
    _f(2, "spec", _Message(
        _f(1, "resourceAttributes", _RESOURCE_ATTRIBUTES, presence=KEEP),
        _f(2, "nonResourceAttributes", _NON_RESOURCE_ATTRIBUTES, presence=KEEP),
    )),
)
