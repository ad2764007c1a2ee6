"""networking.k8s.io/v1 Ingress and IngressClass for the protobuf decoder, with the field numbers of their
generated.proto.

``kubectl create ingress`` posts an Ingress as protobuf. Importing this module
adds both kinds to the decoder's kinds; the API codec imports it.
"""

from __future__ import annotations

from .protobuf import _KINDS, _OBJECT_META, ALWAYS, KEEP, _embed, _f, _Message

_TYPED_LOCAL_OBJECT_REFERENCE = _Message(
    _f(1, "apiGroup", "string", presence=KEEP),
    _f(2, "kind", "string", presence=ALWAYS),
    _f(3, "name", "string", presence=ALWAYS),
)

_SERVICE_BACKEND = _Message(
    _f(1, "name", "string", presence=ALWAYS),
    _f(2, "port", _Message(_f(1, "name", "string"), _f(2, "number", "int32")), presence=KEEP),
)

_BACKEND = _Message(
    _f(4, "service", _SERVICE_BACKEND, presence=KEEP),
    _f(3, "resource", _TYPED_LOCAL_OBJECT_REFERENCE, presence=KEEP),
)

_HTTP_PATH = _Message(
    _f(1, "path", "string"),
    _f(3, "pathType", "string", presence=KEEP),
    _f(2, "backend", _BACKEND, presence=KEEP),
)

_RULE = _Message(
    _f(1, "host", "string"),
    # IngressRuleValue is inlined: its http key lands in the rule itself.
    _embed(2, _Message(_f(1, "http", _Message(_f(1, "paths", _HTTP_PATH, repeated=True)), presence=KEEP))),
)

_INGRESS_SPEC = _Message(
    _f(4, "ingressClassName", "string", presence=KEEP),
    _f(1, "defaultBackend", _BACKEND, presence=KEEP),
    _f(2, "tls", _Message(_f(1, "hosts", "string", repeated=True), _f(2, "secretName", "string")), repeated=True),
    _f(3, "rules", _RULE, repeated=True),
)

_PARAMETERS = _Message(
    _f(1, "apiGroup", "string", presence=KEEP),
    _f(2, "kind", "string", presence=ALWAYS),
    _f(3, "name", "string", presence=ALWAYS),
    _f(4, "scope", "string", presence=KEEP),
    _f(5, "namespace", "string", presence=KEEP),
)

_KINDS[("networking.k8s.io/v1", "Ingress")] = _Message(_f(1, "metadata", _OBJECT_META), _f(2, "spec", _INGRESS_SPEC))
_KINDS[("networking.k8s.io/v1", "IngressClass")] = _Message(
    _f(1, "metadata", _OBJECT_META),
    _f(2, "spec", _Message(_f(1, "controller", "string"), _f(2, "parameters", _PARAMETERS, presence=KEEP))),
)
