"""core/v1 ResourceQuota and LimitRange for the protobuf decoder, with the field numbers of their generated.proto.

``kubectl create quota`` posts a ResourceQuota as protobuf. Importing this
module adds both kinds to the decoder's kinds; the API codec imports it.
"""

from __future__ import annotations

from .protobuf import _KINDS, _OBJECT_META, ALWAYS, _f, _Message

_SCOPE_SELECTOR = _Message(_f(1, "matchExpressions", _Message(
    _f(1, "scopeName", "string", presence=ALWAYS),
    _f(2, "operator", "string", presence=ALWAYS),
    _f(3, "values", "string", repeated=True),
), repeated=True))

_KINDS[("v1", "ResourceQuota")] = _Message(
    _f(1, "metadata", _OBJECT_META),
    _f(2, "spec", _Message(
        _f(1, "hard", "map_quantity"),
        _f(2, "scopes", "string", repeated=True),
        _f(3, "scopeSelector", _SCOPE_SELECTOR),
    )),
)

_LIMIT_RANGE_ITEM = _Message(
    _f(1, "type", "string"),
    _f(2, "max", "map_quantity"),
    _f(3, "min", "map_quantity"),
    _f(4, "default", "map_quantity"),
    _f(5, "defaultRequest", "map_quantity"),
    _f(6, "maxLimitRequestRatio", "map_quantity"),
)

_KINDS[("v1", "LimitRange")] = _Message(
    _f(1, "metadata", _OBJECT_META),
    _f(2, "spec", _Message(_f(1, "limits", _LIMIT_RANGE_ITEM, repeated=True))),
)
