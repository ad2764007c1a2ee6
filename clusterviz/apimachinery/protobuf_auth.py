"""authentication.k8s.io/v1 TokenRequest for the protobuf decoder, with the field numbers of its generated.proto.

``kubectl create token`` posts it as protobuf. Importing this module adds it
to the decoder's kinds; the API codec imports it. Its status is the server's
to fill, so it is skipped as unknown fields are.
"""

from __future__ import annotations

from .protobuf import _KINDS, _OBJECT_META, KEEP, _f, _Message

_BOUND_OBJECT_REFERENCE = _Message(
    _f(1, "kind", "string"),
    _f(2, "apiVersion", "string"),
    _f(3, "name", "string"),
    _f(4, "uid", "string"),
)

_TOKEN_REQUEST_SPEC = _Message(
    _f(1, "audiences", "string", repeated=True),
    _f(4, "expirationSeconds", "int64", presence=KEEP),
    _f(3, "boundObjectRef", _BOUND_OBJECT_REFERENCE, presence=KEEP),
)

_KINDS[("authentication.k8s.io/v1", "TokenRequest")] = _Message(
    _f(1, "metadata", _OBJECT_META), _f(2, "spec", _TOKEN_REQUEST_SPEC)
)
