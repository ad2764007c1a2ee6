"""Decoder for the Kubernetes protobuf envelope that ``kubectl create <kind>`` sends.

client-go's typed clients POST built-in objects as
``Content-Type: application/vnd.kubernetes.protobuf``: the body is the magic
``b"k8s\\x00"`` followed by a ``runtime.Unknown`` message whose ``typeMeta``
names the kind and whose ``raw`` bytes hold the object itself, encoded with
the field numbers of upstream's ``generated.proto`` files.

This module carries its own minimal wire-format reader and a schema of the
fields those objects use (Deployment, ReplicaSet, Pod, Service, ConfigMap,
Secret, Namespace, ServiceAccount). The result is the JSON dict the object
would serialise to:

* zero values of plain fields are dropped, as the JSON ``omitempty`` tags
  would (the Go encoder writes every non-pointer field, even when empty);
  empty nested structs such as ``resources: {}`` or a zero
  ``creationTimestamp`` are dropped too;
* pointer fields (``spec.replicas``, ``revisionHistoryLimit``,
  ``immutable``...) are kept whenever they are on the wire, even when zero;
* fields without ``omitempty`` upstream (``containerPort``, a container's
  ``name``, a service port's ``port``...) are always present;
* ``status`` and fields this schema does not describe are skipped, exactly as
  protobuf skips unknown fields; an API server resets status on create.

Malformed input of any kind raises ``ProtobufError`` and nothing else.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

__all__ = ["CONTENT_TYPE", "MAGIC", "SUPPORTED_KINDS", "ProtobufError", "decode_object", "decode_unknown"]

MAGIC = b"k8s\x00"
CONTENT_TYPE = "application/vnd.kubernetes.protobuf"


class ProtobufError(ValueError):
    """The body is not a well-formed Kubernetes protobuf object this decoder understands."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# --------------------------------------------------------------------------
# Wire format
# --------------------------------------------------------------------------

_VARINT, _FIXED64, _LEN, _FIXED32 = 0, 1, 2, 5
_MAX_FIELD_NUMBER = (1 << 29) - 1
_U64 = 1 << 64


def _read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    """Read an unsigned varint at ``pos``; returns (value, next position)."""
    result = 0
    shift = 0
    end = len(buf)
    while True:
        if pos >= end:
            raise ProtobufError("truncated varint")
        if shift >= 64:
            # Same limit as the Go generated code: at most ten bytes.
            raise ProtobufError("varint overflows 64 bits")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result % _U64, pos
        shift += 7


def _iter_fields(buf: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """Yield (field number, wire type, payload) for each field of a message.

    The payload is an int for varints and the raw bytes otherwise.
    """
    pos = 0
    end = len(buf)
    while pos < end:
        key, pos = _read_varint(buf, pos)
        number, wire = key >> 3, key & 7
        if number == 0 or number > _MAX_FIELD_NUMBER:
            raise ProtobufError(f"illegal field number {number}")
        if wire == _VARINT:
            value, pos = _read_varint(buf, pos)
            yield number, wire, value
        elif wire == _LEN:
            length, pos = _read_varint(buf, pos)
            if length > end - pos:
                raise ProtobufError(f"field {number}: length {length} runs past the end of the message")
            yield number, wire, buf[pos : pos + length]
            pos += length
        elif wire in (_FIXED64, _FIXED32):
            size = 8 if wire == _FIXED64 else 4
            if size > end - pos:
                raise ProtobufError(f"field {number}: truncated fixed-width value")
            yield number, wire, buf[pos : pos + size]
            pos += size
        else:
            # Groups (3, 4) are never used by Kubernetes; 6 and 7 do not exist.
            raise ProtobufError(f"field {number}: unsupported wire type {wire}")


def _int64(value: int) -> int:
    return value - _U64 if value >= 1 << 63 else value


def _int32(value: int) -> int:
    # Go assigns the varint to an int32, keeping only the low 32 bits.
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _text(payload: bytes) -> str:
    # Go does not validate UTF-8 here; its JSON encoder later substitutes U+FFFD.
    return payload.decode("utf-8", errors="replace")


# --------------------------------------------------------------------------
# Schema
# --------------------------------------------------------------------------

OMIT = 0  # plain field with omitempty: dropped when zero or absent
KEEP = 1  # pointer field: kept whenever it is on the wire, even if zero
ALWAYS = 2  # field without omitempty: always in the JSON, zero if absent

_VARINT_KINDS = frozenset({"int32", "int64", "bool"})
_MAP_KINDS = frozenset({"map", "map_bytes", "map_quantity"})
_ZERO = {"string": "", "int32": 0, "int64": 0, "bool": False}


@dataclass(frozen=True)
class _Field:
    """How one protobuf field maps onto a JSON key."""

    name: str
    kind: Any  # a scalar kind name, or a _Message for nested messages
    repeated: bool = False
    presence: int = OMIT
    embedded: bool = False  # Go inline struct: its keys land in the parent object


class _Message:
    """Field number -> _Field, listed in Go struct order so JSON keys come out in that order."""

    def __init__(self, *fields: tuple[int, _Field]) -> None:
        self.fields: dict[int, _Field] = dict(fields)


def _f(number: int, name: str, kind: Any, *, repeated: bool = False, presence: int = OMIT) -> tuple[int, _Field]:
    return number, _Field(name, kind, repeated, presence)


def _embed(number: int, kind: _Message) -> tuple[int, _Field]:
    return number, _Field("", kind, embedded=True)


# k8s.io/apimachinery meta/v1
_OWNER_REFERENCE = _Message(
    _f(5, "apiVersion", "string", presence=ALWAYS),
    _f(1, "kind", "string", presence=ALWAYS),
    _f(3, "name", "string", presence=ALWAYS),
    _f(4, "uid", "string", presence=ALWAYS),
    _f(6, "controller", "bool", presence=KEEP),
    _f(7, "blockOwnerDeletion", "bool", presence=KEEP),
)

_OBJECT_META = _Message(
    _f(1, "name", "string"),
    _f(2, "generateName", "string"),
    _f(3, "namespace", "string"),
    _f(4, "selfLink", "string"),
    _f(5, "uid", "string"),
    _f(6, "resourceVersion", "string"),
    _f(7, "generation", "int64"),
    _f(8, "creationTimestamp", "time"),
    _f(9, "deletionTimestamp", "time", presence=KEEP),
    _f(10, "deletionGracePeriodSeconds", "int64", presence=KEEP),
    _f(11, "labels", "map"),
    _f(12, "annotations", "map"),
    _f(13, "ownerReferences", _OWNER_REFERENCE, repeated=True),
    _f(14, "finalizers", "string", repeated=True),
)

_LABEL_SELECTOR_REQUIREMENT = _Message(
    _f(1, "key", "string", presence=ALWAYS),
    _f(2, "operator", "string", presence=ALWAYS),
    _f(3, "values", "string", repeated=True),
)

_LABEL_SELECTOR = _Message(
    _f(1, "matchLabels", "map"),
    _f(2, "matchExpressions", _LABEL_SELECTOR_REQUIREMENT, repeated=True),
)

# k8s.io/api core/v1
_LOCAL_OBJECT_REFERENCE = _Message(_f(1, "name", "string"))

_OBJECT_REFERENCE = _Message(
    _f(1, "kind", "string"),
    _f(2, "namespace", "string"),
    _f(3, "name", "string"),
    _f(4, "uid", "string"),
    _f(5, "apiVersion", "string"),
    _f(6, "resourceVersion", "string"),
    _f(7, "fieldPath", "string"),
)

_KEY_SELECTOR = _Message(  # ConfigMapKeySelector and SecretKeySelector share this layout
    _embed(1, _LOCAL_OBJECT_REFERENCE),
    _f(2, "key", "string", presence=ALWAYS),
    _f(3, "optional", "bool", presence=KEEP),
)

_ENV_SOURCE_REF = _Message(  # ConfigMapEnvSource and SecretEnvSource
    _embed(1, _LOCAL_OBJECT_REFERENCE),
    _f(2, "optional", "bool", presence=KEEP),
)

_ENV_VAR_SOURCE = _Message(
    _f(
        1,
        "fieldRef",
        _Message(_f(1, "apiVersion", "string"), _f(2, "fieldPath", "string", presence=ALWAYS)),
        presence=KEEP,
    ),
    _f(
        2,
        "resourceFieldRef",
        _Message(
            _f(1, "containerName", "string"),
            _f(2, "resource", "string", presence=ALWAYS),
            _f(3, "divisor", "quantity"),
        ),
        presence=KEEP,
    ),
    _f(3, "configMapKeyRef", _KEY_SELECTOR, presence=KEEP),
    _f(4, "secretKeyRef", _KEY_SELECTOR, presence=KEEP),
)

_ENV_VAR = _Message(
    _f(1, "name", "string", presence=ALWAYS),
    _f(2, "value", "string"),
    _f(3, "valueFrom", _ENV_VAR_SOURCE, presence=KEEP),
)

_ENV_FROM_SOURCE = _Message(
    _f(1, "prefix", "string"),
    _f(2, "configMapRef", _ENV_SOURCE_REF, presence=KEEP),
    _f(3, "secretRef", _ENV_SOURCE_REF, presence=KEEP),
)

_CONTAINER_PORT = _Message(
    _f(1, "name", "string"),
    _f(2, "hostPort", "int32"),
    _f(3, "containerPort", "int32", presence=ALWAYS),
    _f(4, "protocol", "string"),
    _f(5, "hostIP", "string"),
)

_RESOURCE_REQUIREMENTS = _Message(
    _f(1, "limits", "map_quantity"),
    _f(2, "requests", "map_quantity"),
    _f(3, "claims", _Message(_f(1, "name", "string", presence=ALWAYS), _f(2, "request", "string")), repeated=True),
)

_VOLUME_MOUNT = _Message(
    _f(1, "name", "string", presence=ALWAYS),
    _f(2, "readOnly", "bool"),
    _f(7, "recursiveReadOnly", "string", presence=KEEP),
    _f(3, "mountPath", "string", presence=ALWAYS),
    _f(4, "subPath", "string"),
    _f(5, "mountPropagation", "string", presence=KEEP),
    _f(6, "subPathExpr", "string"),
)

_CONTAINER = _Message(
    _f(1, "name", "string", presence=ALWAYS),
    _f(2, "image", "string"),
    _f(3, "command", "string", repeated=True),
    _f(4, "args", "string", repeated=True),
    _f(5, "workingDir", "string"),
    _f(6, "ports", _CONTAINER_PORT, repeated=True),
    _f(19, "envFrom", _ENV_FROM_SOURCE, repeated=True),
    _f(7, "env", _ENV_VAR, repeated=True),
    _f(8, "resources", _RESOURCE_REQUIREMENTS),
    _f(
        23,
        "resizePolicy",
        _Message(_f(1, "resourceName", "string", presence=ALWAYS), _f(2, "restartPolicy", "string", presence=ALWAYS)),
        repeated=True,
    ),
    _f(24, "restartPolicy", "string", presence=KEEP),
    _f(9, "volumeMounts", _VOLUME_MOUNT, repeated=True),
    _f(13, "terminationMessagePath", "string"),
    _f(20, "terminationMessagePolicy", "string"),
    _f(14, "imagePullPolicy", "string"),
    _f(16, "stdin", "bool"),
    _f(17, "stdinOnce", "bool"),
    _f(18, "tty", "bool"),
)

_TOLERATION = _Message(
    _f(1, "key", "string"),
    _f(2, "operator", "string"),
    _f(3, "value", "string"),
    _f(4, "effect", "string"),
    _f(5, "tolerationSeconds", "int64", presence=KEEP),
)

_POD_SPEC = _Message(
    _f(20, "initContainers", _CONTAINER, repeated=True),
    _f(2, "containers", _CONTAINER, repeated=True),
    _f(3, "restartPolicy", "string"),
    _f(4, "terminationGracePeriodSeconds", "int64", presence=KEEP),
    _f(5, "activeDeadlineSeconds", "int64", presence=KEEP),
    _f(6, "dnsPolicy", "string"),
    _f(7, "nodeSelector", "map"),
    _f(8, "serviceAccountName", "string"),
    _f(9, "serviceAccount", "string"),
    _f(21, "automountServiceAccountToken", "bool", presence=KEEP),
    _f(10, "nodeName", "string"),
    _f(11, "hostNetwork", "bool"),
    _f(12, "hostPID", "bool"),
    _f(13, "hostIPC", "bool"),
    _f(27, "shareProcessNamespace", "bool", presence=KEEP),
    _f(15, "imagePullSecrets", _LOCAL_OBJECT_REFERENCE, repeated=True),
    _f(16, "hostname", "string"),
    _f(17, "subdomain", "string"),
    _f(19, "schedulerName", "string"),
    _f(22, "tolerations", _TOLERATION, repeated=True),
    _f(24, "priorityClassName", "string"),
    _f(25, "priority", "int32", presence=KEEP),
    _f(28, "readinessGates", _Message(_f(1, "conditionType", "string", presence=ALWAYS)), repeated=True),
    _f(29, "runtimeClassName", "string", presence=KEEP),
    _f(30, "enableServiceLinks", "bool", presence=KEEP),
    _f(31, "preemptionPolicy", "string", presence=KEEP),
    _f(32, "overhead", "map_quantity"),
    _f(35, "setHostnameAsFQDN", "bool", presence=KEEP),
    _f(36, "os", _Message(_f(1, "name", "string", presence=ALWAYS)), presence=KEEP),
    _f(37, "hostUsers", "bool", presence=KEEP),
    _f(38, "schedulingGates", _Message(_f(1, "name", "string", presence=ALWAYS)), repeated=True),
    _f(40, "resources", _RESOURCE_REQUIREMENTS, presence=KEEP),
)

_POD_TEMPLATE_SPEC = _Message(
    _f(1, "metadata", _OBJECT_META),
    _f(2, "spec", _POD_SPEC),
)

_SERVICE_PORT = _Message(
    _f(1, "name", "string"),
    _f(2, "protocol", "string"),
    _f(6, "appProtocol", "string", presence=KEEP),
    _f(3, "port", "int32", presence=ALWAYS),
    _f(4, "targetPort", "intstr"),
    _f(5, "nodePort", "int32"),
)

_SERVICE_SPEC = _Message(
    _f(1, "ports", _SERVICE_PORT, repeated=True),
    _f(2, "selector", "map"),
    _f(3, "clusterIP", "string"),
    _f(18, "clusterIPs", "string", repeated=True),
    _f(4, "type", "string"),
    _f(5, "externalIPs", "string", repeated=True),
    _f(7, "sessionAffinity", "string"),
    _f(8, "loadBalancerIP", "string"),
    _f(9, "loadBalancerSourceRanges", "string", repeated=True),
    _f(10, "externalName", "string"),
    _f(11, "externalTrafficPolicy", "string"),
    _f(12, "healthCheckNodePort", "int32"),
    _f(13, "publishNotReadyAddresses", "bool"),
    _f(
        14,
        "sessionAffinityConfig",
        _Message(_f(1, "clientIP", _Message(_f(1, "timeoutSeconds", "int32", presence=KEEP)), presence=KEEP)),
        presence=KEEP,
    ),
    _f(19, "ipFamilies", "string", repeated=True),
    _f(17, "ipFamilyPolicy", "string", presence=KEEP),
    _f(20, "allocateLoadBalancerNodePorts", "bool", presence=KEEP),
    _f(21, "loadBalancerClass", "string", presence=KEEP),
    _f(22, "internalTrafficPolicy", "string", presence=KEEP),
    _f(23, "trafficDistribution", "string", presence=KEEP),
)

# k8s.io/api apps/v1
_DEPLOYMENT_STRATEGY = _Message(
    _f(1, "type", "string"),
    _f(
        2,
        "rollingUpdate",
        _Message(_f(1, "maxUnavailable", "intstr", presence=KEEP), _f(2, "maxSurge", "intstr", presence=KEEP)),
        presence=KEEP,
    ),
)

_DEPLOYMENT_SPEC = _Message(
    _f(1, "replicas", "int32", presence=KEEP),
    _f(2, "selector", _LABEL_SELECTOR, presence=KEEP),
    _f(3, "template", _POD_TEMPLATE_SPEC),
    _f(4, "strategy", _DEPLOYMENT_STRATEGY),
    _f(5, "minReadySeconds", "int32"),
    _f(6, "revisionHistoryLimit", "int32", presence=KEEP),
    _f(7, "paused", "bool"),
    _f(9, "progressDeadlineSeconds", "int32", presence=KEEP),
)

_REPLICA_SET_SPEC = _Message(
    _f(1, "replicas", "int32", presence=KEEP),
    _f(4, "minReadySeconds", "int32"),
    _f(2, "selector", _LABEL_SELECTOR, presence=KEEP),
    _f(3, "template", _POD_TEMPLATE_SPEC),
)

# Top-level kinds. Field 3 (status) is deliberately absent everywhere.
_KINDS: dict[tuple[str, str], _Message] = {
    ("apps/v1", "Deployment"): _Message(_f(1, "metadata", _OBJECT_META), _f(2, "spec", _DEPLOYMENT_SPEC)),
    ("apps/v1", "ReplicaSet"): _Message(_f(1, "metadata", _OBJECT_META), _f(2, "spec", _REPLICA_SET_SPEC)),
    ("v1", "Pod"): _Message(_f(1, "metadata", _OBJECT_META), _f(2, "spec", _POD_SPEC)),
    ("v1", "Service"): _Message(_f(1, "metadata", _OBJECT_META), _f(2, "spec", _SERVICE_SPEC)),
    ("v1", "Namespace"): _Message(
        _f(1, "metadata", _OBJECT_META),
        _f(2, "spec", _Message(_f(1, "finalizers", "string", repeated=True))),
    ),
    ("v1", "ConfigMap"): _Message(
        _f(1, "metadata", _OBJECT_META),
        _f(4, "immutable", "bool", presence=KEEP),
        _f(2, "data", "map"),
        _f(3, "binaryData", "map_bytes"),
    ),
    ("v1", "Secret"): _Message(
        _f(1, "metadata", _OBJECT_META),
        _f(5, "immutable", "bool", presence=KEEP),
        _f(2, "data", "map_bytes"),
        _f(4, "stringData", "map"),
        _f(3, "type", "string"),
    ),
    ("v1", "ServiceAccount"): _Message(
        _f(1, "metadata", _OBJECT_META),
        _f(2, "secrets", _OBJECT_REFERENCE, repeated=True),
        _f(3, "imagePullSecrets", _LOCAL_OBJECT_REFERENCE, repeated=True),
        _f(4, "automountServiceAccountToken", "bool", presence=KEEP),
    ),
}

SUPPORTED_KINDS: frozenset[tuple[str, str]] = frozenset(_KINDS)
# Types registered in every group version (DeleteOptions): kind -> schema, filled by the modules that describe them.
ANY_VERSION_KINDS: dict[str, _Message] = {}

# runtime.Unknown and its runtime.TypeMeta (note: apiVersion is field 1 here).
_TYPE_META = _Message(_f(1, "apiVersion", "string"), _f(2, "kind", "string"))


# --------------------------------------------------------------------------
# Value conversion
# --------------------------------------------------------------------------

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# resource.Quantity syntax: a signed decimal with an optional binary/decimal suffix or exponent.
_QUANTITY = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?\d+)?")


def _decode_time(payload: bytes) -> str | None:
    """metav1.Time: an empty message is the zero time (JSON null); nanos are ignored, as upstream does."""
    if not payload:
        return None
    seconds = 0
    for number, wire, value in _iter_fields(payload):
        if number == 1:
            _expect(wire, _VARINT, "seconds")
            seconds = _int64(value)  # type: ignore[arg-type]
        elif number == 2:
            _expect(wire, _VARINT, "nanos")
    try:
        t = _EPOCH + timedelta(seconds=seconds)
    except OverflowError:
        raise ProtobufError(f"timestamp {seconds} is out of range") from None
    return f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}Z"


def _decode_int_or_string(payload: bytes) -> int | str:
    """intstr.IntOrString: type 0 is the int, type 1 the string."""
    type_, int_val, str_val = 0, 0, ""
    for number, wire, value in _iter_fields(payload):
        if number == 1:
            _expect(wire, _VARINT, "type")
            type_ = _int64(value)  # type: ignore[arg-type]
        elif number == 2:
            _expect(wire, _VARINT, "intVal")
            int_val = _int32(value)  # type: ignore[arg-type]
        elif number == 3:
            _expect(wire, _LEN, "strVal")
            str_val = _text(value)  # type: ignore[arg-type]
    if type_ == 0:
        return int_val
    if type_ == 1:
        return str_val
    raise ProtobufError(f"invalid IntOrString type {type_}")


def _decode_quantity(payload: bytes) -> str:
    """resource.Quantity travels as its string form in field 1."""
    text = ""
    for number, wire, value in _iter_fields(payload):
        if number == 1:
            _expect(wire, _LEN, "quantity")
            text = _text(value)  # type: ignore[arg-type]
    # Go parses the string while unmarshalling and fails on garbage.
    if not _QUANTITY.fullmatch(text):
        raise ProtobufError(f"invalid quantity {text!r}")
    return text


def _decode_map_entry(payload: bytes, kind: str) -> tuple[str, Any]:
    key = ""
    val: Any = {"map": "", "map_bytes": "", "map_quantity": "0"}[kind]
    for number, wire, value in _iter_fields(payload):
        if number == 1:
            _expect(wire, _LEN, "map key")
            key = _text(value)  # type: ignore[arg-type]
        elif number == 2:
            _expect(wire, _LEN, "map value")
            if kind == "map":
                val = _text(value)  # type: ignore[arg-type]
            elif kind == "map_bytes":
                val = base64.b64encode(value).decode("ascii")  # type: ignore[arg-type]
            else:
                val = _decode_quantity(value)  # type: ignore[arg-type]
    return key, val


def _expect(wire: int, expected: int, name: str) -> None:
    if wire != expected:
        raise ProtobufError(f"wrong wire type {wire} for field {name}")


def _convert(field: _Field, wire: int, payload: int | bytes) -> Any:
    kind = field.kind
    if kind in _VARINT_KINDS:
        _expect(wire, _VARINT, field.name)
        assert isinstance(payload, int)
        if kind == "bool":
            return payload != 0
        return _int32(payload) if kind == "int32" else _int64(payload)
    _expect(wire, _LEN, field.name or "embedded")
    assert isinstance(payload, bytes)
    if kind == "string":
        return _text(payload)
    if kind == "time":
        return _decode_time(payload)
    if kind == "intstr":
        return _decode_int_or_string(payload)
    if kind == "quantity":
        return _decode_quantity(payload)
    if kind in _MAP_KINDS:
        return _decode_map_entry(payload, kind)
    return _decode_message(payload, kind)


def _is_zero(value: Any) -> bool:
    if isinstance(value, (str, bool, int, dict, list)):
        return not value
    return value is None


def _merge(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Protobuf merge semantics for a singular message field seen twice."""
    merged = dict(old)
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        elif isinstance(value, list) and isinstance(merged.get(key), list):
            merged[key] = merged[key] + value
        else:
            merged[key] = value
    return merged


def _decode_message(buf: bytes, schema: _Message) -> dict[str, Any]:
    values: dict[int, Any] = {}
    for number, wire, payload in _iter_fields(buf):
        field = schema.fields.get(number)
        if field is None:
            continue  # unknown fields are skipped, as protobuf does
        value = _convert(field, wire, payload)
        if field.kind in _MAP_KINDS:
            key, item = value
            values.setdefault(number, {})[key] = item
        elif field.repeated:
            values.setdefault(number, []).append(value)
        elif isinstance(field.kind, _Message) and isinstance(values.get(number), dict):
            values[number] = _merge(values[number], value)
        else:
            values[number] = value

    out: dict[str, Any] = {}
    for number, field in schema.fields.items():
        if number not in values:
            if field.presence == ALWAYS:
                out[field.name] = _ZERO.get(field.kind, "")
            continue
        value = values[number]
        if field.embedded:
            out.update(value)
        elif value is None:
            continue  # a zero metav1.Time, which JSON renders as null
        elif field.presence == OMIT and _is_zero(value):
            continue
        else:
            out[field.name] = value
    return out


# --------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------


def _as_bytes(body: Any) -> bytes:
    if isinstance(body, (bytes, bytearray, memoryview)):
        return bytes(body)
    raise ProtobufError(f"protobuf body must be bytes, not {type(body).__name__}")


def decode_unknown(body: bytes) -> tuple[str, str, bytes]:
    """Unwrap the ``k8s\\x00`` + ``runtime.Unknown`` envelope.

    Returns ``(apiVersion, kind, raw)`` where ``raw`` is the still-encoded
    object. Raises ``ProtobufError`` on a wrong magic prefix, malformed
    wire data, or a content encoding/type this decoder cannot read.
    """
    data = _as_bytes(body)
    if not data.startswith(MAGIC):
        raise ProtobufError("missing k8s protobuf magic prefix")
    api_version = kind = content_encoding = content_type = ""
    raw = b""
    try:
        for number, wire, payload in _iter_fields(data[len(MAGIC) :]):
            if number == 1:
                _expect(wire, _LEN, "typeMeta")
                type_meta = _decode_message(payload, _TYPE_META)  # type: ignore[arg-type]
                api_version = type_meta.get("apiVersion", api_version)
                kind = type_meta.get("kind", kind)
            elif number == 2:
                _expect(wire, _LEN, "raw")
                raw = payload  # type: ignore[assignment]
            elif number == 3:
                _expect(wire, _LEN, "contentEncoding")
                content_encoding = _text(payload)  # type: ignore[arg-type]
            elif number == 4:
                _expect(wire, _LEN, "contentType")
                content_type = _text(payload)  # type: ignore[arg-type]
    except ProtobufError:
        raise
    except Exception as exc:  # a safety net: nothing but ProtobufError may escape
        raise ProtobufError(f"cannot decode protobuf envelope: {exc}") from exc
    if content_encoding:
        raise ProtobufError(f"unsupported content encoding {content_encoding!r}")
    if content_type and content_type != CONTENT_TYPE:
        raise ProtobufError(f"unsupported content type {content_type!r}")
    return api_version, kind, raw


def decode_object(body: bytes, default_api_version: str = "", default_kind: str = "") -> dict[str, Any]:
    """Decode a ``kubectl create`` protobuf request body into the object's JSON dict.

    ``default_api_version``/``default_kind`` fill in an empty ``typeMeta``,
    as the API server does from the request URL. The result starts with
    ``apiVersion`` and ``kind`` followed by ``metadata`` and ``spec`` (or
    ``data`` etc.), with JSON ``omitempty`` rules applied. Any malformed or
    unsupported input raises ``ProtobufError``; no other exception escapes.
    """
    api_version, kind, raw = decode_unknown(body)
    api_version = api_version or default_api_version
    kind = kind or default_kind
    schema = _KINDS.get((api_version, kind)) or ANY_VERSION_KINDS.get(kind)
    if schema is None:
        raise ProtobufError(f"cannot decode protobuf for {kind or '<no kind>'} in {api_version or '<no apiVersion>'}")
    try:
        decoded = _decode_message(raw, schema)
    except ProtobufError:
        raise
    except Exception as exc:  # a safety net: nothing but ProtobufError may escape
        raise ProtobufError(f"cannot decode {kind}: {exc}") from exc
    return {"apiVersion": api_version, "kind": kind, **decoded}
