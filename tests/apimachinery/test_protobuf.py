"""Decoding the protobuf bodies that ``kubectl create <kind>`` POSTs.

The bodies are built with a tiny encoder below that writes what client-go's
generated marshallers write: every non-pointer field, even when empty (empty
strings, zero ints, ``false``, empty nested messages), plus the pointer fields
that are set.
"""

import base64

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clusterviz.apimachinery.protobuf import (
    CONTENT_TYPE,
    MAGIC,
    SUPPORTED_KINDS,
    ProtobufError,
    decode_object,
    decode_unknown,
)

# --------------------------------------------------------------------------
# A minimal protobuf encoder
# --------------------------------------------------------------------------


def varint(n: int) -> bytes:
    n &= (1 << 64) - 1  # negative ints are sign-extended to ten bytes, as Go does
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def tag(field: int, wire: int) -> bytes:
    return varint(field << 3 | wire)


def v_int(field: int, n: int) -> bytes:
    return tag(field, 0) + varint(n)


def v_bool(field: int, b: bool) -> bytes:
    return v_int(field, int(b))


def v_bytes(field: int, data: bytes) -> bytes:
    return tag(field, 2) + varint(len(data)) + data


def v_str(field: int, s: str) -> bytes:
    return v_bytes(field, s.encode())


def v_msg(field: int, *parts: bytes) -> bytes:
    return v_bytes(field, b"".join(parts))


def v_map(field: int, mapping: dict, value=v_str) -> bytes:
    # Go writes map entries sorted by key.
    return b"".join(v_msg(field, v_str(1, k), value(2, v)) for k, v in sorted(mapping.items()))


def envelope(api_version: str, kind: str, raw: bytes, encoding: str = "", content_type: str = "") -> bytes:
    unknown = v_msg(1, v_str(1, api_version), v_str(2, kind)) + v_bytes(2, raw)
    unknown += v_str(3, encoding) + v_str(4, content_type)
    return MAGIC + unknown


def object_meta(field: int, name: str = "", labels: dict | None = None, extra: bytes = b"") -> bytes:
    # name, generateName, namespace, selfLink, uid, resourceVersion, generation, creationTimestamp (zero)
    return v_msg(
        field,
        v_str(1, name),
        v_str(2, ""),
        v_str(3, ""),
        v_str(4, ""),
        v_str(5, ""),
        v_str(6, ""),
        v_int(7, 0),
        v_msg(8),
        v_map(11, labels or {}),
        extra,
    )


def container(name: str, image: str, ports=(), command=(), extra: bytes = b"") -> bytes:
    port_msgs = b"".join(v_msg(6, v_str(1, ""), v_int(2, 0), v_int(3, p), v_str(4, ""), v_str(5, "")) for p in ports)
    return v_msg(
        2,
        v_str(1, name),
        v_str(2, image),
        b"".join(v_str(3, c) for c in command),
        v_str(5, ""),
        port_msgs,
        v_msg(8),  # resources: {}
        v_str(13, ""),
        v_str(14, ""),
        v_bool(16, False),
        v_bool(17, False),
        v_bool(18, False),
        v_str(20, ""),
        extra,
    )


def pod_spec(field: int, *containers: bytes, extra: bytes = b"") -> bytes:
    return v_msg(
        field,
        *containers,
        v_str(3, ""),
        v_str(6, ""),
        v_str(8, ""),
        v_str(9, ""),
        v_str(10, ""),
        v_bool(11, False),
        v_bool(12, False),
        v_bool(13, False),
        v_str(16, ""),
        v_str(17, ""),
        v_str(19, ""),
        v_str(24, ""),
        extra,
    )


def deployment_raw(name="web", image="nginx", replicas=1, ports=(), command=()) -> bytes:
    labels = {"app": name}
    container_name = image.split(":")[0].split("/")[-1]
    spec = v_msg(
        2,
        v_int(1, replicas),
        v_msg(2, v_map(1, labels)),
        v_msg(3, object_meta(1, labels=labels), pod_spec(2, container(container_name, image, ports, command))),
        v_msg(4, v_str(1, "")),  # strategy: {type: ""}
        v_int(5, 0),
        v_bool(7, False),
    )
    status = v_msg(3, v_int(1, 0), v_int(2, 0), v_int(3, 0), v_int(4, 0), v_int(5, 0), v_int(7, 0))
    return object_meta(1, name, labels) + spec + status


def deployment_body(**kwargs) -> bytes:
    return envelope("apps/v1", "Deployment", deployment_raw(**kwargs))


def namespace_body(name="x") -> bytes:
    return envelope("v1", "Namespace", object_meta(1, name) + v_msg(2) + v_msg(3, v_str(1, "")))


def configmap_body(name="c", data=None, binary=None) -> bytes:
    raw = object_meta(1, name) + v_map(2, data or {}) + v_map(3, binary or {}, v_bytes)
    return envelope("v1", "ConfigMap", raw)


def service_port(name: str, protocol: str, port: int, target: bytes, node_port: int = 0) -> bytes:
    return v_msg(1, v_str(1, name), v_str(2, protocol), v_int(3, port), v_msg(4, target), v_int(5, node_port))


def int_target(n: int) -> bytes:
    return v_int(1, 0) + v_int(2, n) + v_str(3, "")


def service_body(name="s", svc_type="ClusterIP", ports=None) -> bytes:
    labels = {"app": name}
    ports = ports if ports is not None else [service_port("80-8080", "TCP", 80, int_target(8080))]
    spec = v_msg(
        2,
        *ports,
        v_map(2, labels),
        v_str(3, ""),
        v_str(4, svc_type),
        v_str(7, ""),
        v_str(8, ""),
        v_str(10, ""),
        v_str(11, ""),
        v_int(12, 0),
        v_bool(13, False),
    )
    status = v_msg(3, v_msg(1))
    return envelope("v1", "Service", object_meta(1, name, labels) + spec + status)


# --------------------------------------------------------------------------
# The kubectl create bodies
# --------------------------------------------------------------------------


def test_create_deployment_with_replicas_and_port():
    # kubectl create deployment web --image=nginx --replicas=2 --port=80
    assert decode_object(deployment_body(replicas=2, ports=[80])) == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx", "ports": [{"containerPort": 80}]}]},
            },
        },
    }


def test_create_deployment_keeps_zero_replicas_and_command():
    # kubectl create deployment web --image=busybox --replicas=0 -- sleep 3600
    obj = decode_object(deployment_body(image="busybox", replicas=0, command=["sleep", "3600"]))
    assert obj["spec"]["replicas"] == 0
    assert obj["spec"]["template"]["spec"]["containers"] == [
        {"name": "busybox", "image": "busybox", "command": ["sleep", "3600"]}
    ]
    # Empty structs the encoder always writes are not in the result.
    assert "strategy" not in obj["spec"]
    assert "status" not in obj
    assert "creationTimestamp" not in obj["metadata"]


def test_create_namespace():
    # kubectl create namespace x
    assert decode_object(namespace_body("x")) == {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}}


def test_create_configmap_from_literal():
    # kubectl create configmap c --from-literal=a=b
    assert decode_object(configmap_body("c", {"a": "b"})) == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c"},
        "data": {"a": "b"},
    }


def test_configmap_binary_data_is_base64():
    obj = decode_object(configmap_body("bin", binary={"blob": b"\x00\xffhi"}))
    assert obj["binaryData"] == {"blob": base64.b64encode(b"\x00\xffhi").decode()}
    assert "data" not in obj


def test_create_service_clusterip():
    # kubectl create service clusterip s --tcp=80:8080
    assert decode_object(service_body()) == {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "s", "labels": {"app": "s"}},
        "spec": {
            "ports": [{"name": "80-8080", "protocol": "TCP", "port": 80, "targetPort": 8080}],
            "selector": {"app": "s"},
            "type": "ClusterIP",
        },
    }


def test_create_service_nodeport_and_named_target_port():
    # kubectl create service nodeport s --tcp=80:http --node-port=30080
    named = v_int(1, 1) + v_int(2, 0) + v_str(3, "http")
    body = service_body(svc_type="NodePort", ports=[service_port("80-http", "TCP", 80, named, 30080)])
    spec = decode_object(body)["spec"]
    assert spec["type"] == "NodePort"
    assert spec["ports"] == [
        {"name": "80-http", "protocol": "TCP", "port": 80, "targetPort": "http", "nodePort": 30080}
    ]


def test_service_port_without_target_and_port_is_still_complete():
    # targetPort zero is omitted; port has no omitempty upstream, so it stays even when 0.
    body = service_body(ports=[v_msg(1, v_str(1, ""), v_str(2, "TCP"), v_msg(4, int_target(0)))])
    assert decode_object(body)["spec"]["ports"] == [{"protocol": "TCP", "port": 0}]


def test_pod_with_env_resources_and_pointers():
    env = v_msg(7, v_str(1, "MODE"), v_str(2, "prod")) + v_msg(
        7,
        v_str(1, "PASSWORD"),
        v_str(2, ""),
        v_msg(3, v_msg(4, v_msg(1, v_str(1, "db")), v_str(2, "password"), v_bool(3, False))),
    )
    resources = v_msg(
        8,
        v_map(1, {"cpu": "500m", "memory": "128Mi"}, lambda f, q: v_msg(f, v_str(1, q))),
        v_map(2, {"cpu": "250m"}, lambda f, q: v_msg(f, v_str(1, q))),
    )
    main = v_msg(2, v_str(1, "app"), v_str(2, "app:1"), env, resources, v_str(24, "Always"))
    spec = v_msg(2, main, v_int(4, 0), v_str(10, "node01"), v_bool(21, False), v_msg(15, v_str(1, "regcred")))
    meta = object_meta(1, "p", {"run": "p"}, extra=v_msg(9) + v_int(10, 30))
    obj = decode_object(envelope("v1", "Pod", meta + spec))
    assert obj["metadata"] == {"name": "p", "deletionGracePeriodSeconds": 30, "labels": {"run": "p"}}
    assert obj["spec"] == {
        "containers": [
            {
                "name": "app",
                "image": "app:1",
                "env": [
                    {"name": "MODE", "value": "prod"},
                    {
                        "name": "PASSWORD",
                        "valueFrom": {"secretKeyRef": {"name": "db", "key": "password", "optional": False}},
                    },
                ],
                "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}, "requests": {"cpu": "250m"}},
                "restartPolicy": "Always",
            }
        ],
        "terminationGracePeriodSeconds": 0,
        "automountServiceAccountToken": False,
        "nodeName": "node01",
        "imagePullSecrets": [{"name": "regcred"}],
    }


def test_timestamps_and_owner_references():
    owner = v_msg(13, v_str(1, "ReplicaSet"), v_str(3, "rs"), v_str(4, "uid-1"), v_str(5, "apps/v1"), v_bool(6, True))
    meta = v_msg(
        1,
        v_str(1, "p"),
        v_msg(8, v_int(1, 1735689600), v_int(2, 123)),
        v_msg(9, v_int(1, 1735689660)),
        owner,
        v_str(14, "example.com/cleanup"),
    )
    obj = decode_object(envelope("v1", "Pod", meta))
    assert obj["metadata"] == {
        "name": "p",
        "creationTimestamp": "2025-01-01T00:00:00Z",
        "deletionTimestamp": "2025-01-01T00:01:00Z",
        "ownerReferences": [
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "uid-1", "controller": True}
        ],
        "finalizers": ["example.com/cleanup"],
    }


def test_epoch_timestamp_is_not_the_zero_time():
    meta = v_msg(1, v_str(1, "p"), v_msg(8, v_int(1, 0)))
    assert decode_object(envelope("v1", "Pod", meta))["metadata"]["creationTimestamp"] == "1970-01-01T00:00:00Z"


def test_negative_int32_and_rolling_update():
    strategy = v_msg(
        4, v_str(1, "RollingUpdate"), v_msg(2, v_msg(1, v_int(1, 1), v_str(3, "25%")), v_msg(2, int_target(0)))
    )
    raw = object_meta(1, "d") + v_msg(2, v_int(1, -1), strategy, v_int(6, 0), v_bool(7, True))
    spec = decode_object(envelope("apps/v1", "Deployment", raw))["spec"]
    assert spec == {
        "replicas": -1,
        "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": 0}},
        "revisionHistoryLimit": 0,
        "paused": True,
    }


def test_other_supported_kinds():
    secret = object_meta(1, "s") + v_map(2, {"k": b"v"}, v_bytes) + v_str(3, "Opaque") + v_bool(5, True)
    assert decode_object(envelope("v1", "Secret", secret)) == {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "s"},
        "immutable": True,
        "data": {"k": "dg=="},
        "type": "Opaque",
    }
    sa = object_meta(1, "robot") + v_msg(3, v_str(1, "pull"))
    assert decode_object(envelope("v1", "ServiceAccount", sa))["imagePullSecrets"] == [{"name": "pull"}]
    rs = object_meta(1, "r") + v_msg(2, v_int(1, 3), v_msg(2, v_msg(2, v_str(1, "tier"), v_str(2, "Exists"))))
    assert decode_object(envelope("apps/v1", "ReplicaSet", rs))["spec"] == {
        "replicas": 3,
        "selector": {"matchExpressions": [{"key": "tier", "operator": "Exists"}]},
    }
    assert ("apps/v1", "Deployment") in SUPPORTED_KINDS


def test_always_present_fields_are_filled_with_zero_values():
    raw = v_msg(2, v_msg(2, v_str(2, "img"), v_msg(6, v_str(1, "http"))))
    spec = decode_object(envelope("v1", "Pod", raw))["spec"]
    assert spec == {"containers": [{"name": "", "image": "img", "ports": [{"name": "http", "containerPort": 0}]}]}


def test_unknown_fields_are_skipped():
    unknown = v_int(99, 5) + tag(98, 1) + b"\x00" * 8 + tag(97, 5) + b"\x00" * 4 + v_str(96, "x")
    raw = unknown + object_meta(1, "x", extra=unknown) + v_msg(2, unknown)
    assert decode_object(envelope("v1", "Namespace", raw)) == {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "x"},
    }


def test_repeated_singular_message_is_merged():
    raw = v_msg(1, v_str(1, "a"), v_map(11, {"x": "1"})) + v_msg(1, v_map(11, {"y": "2"}), v_str(14, "f"))
    assert decode_object(envelope("v1", "Namespace", raw))["metadata"] == {
        "name": "a",
        "labels": {"x": "1", "y": "2"},
        "finalizers": ["f"],
    }


def test_last_scalar_and_map_entry_win():
    raw = v_msg(1, v_str(1, "first"), v_str(1, "second")) + v_map(2, {"k": "1"}) + v_map(2, {"k": "2"})
    obj = decode_object(envelope("v1", "ConfigMap", raw))
    assert obj["metadata"]["name"] == "second"
    assert obj["data"] == {"k": "2"}


def test_default_type_meta_from_request():
    body = MAGIC + v_msg(1) + v_bytes(2, object_meta(1, "x"))
    assert decode_object(body, default_api_version="v1", default_kind="Namespace")["kind"] == "Namespace"
    with pytest.raises(ProtobufError):
        decode_object(body)


def test_decode_unknown_and_accepted_body_types():
    body = namespace_body("x")
    api_version, kind, raw = decode_unknown(body)
    assert (api_version, kind) == ("v1", "Namespace")
    assert raw.startswith(b"\x0a")
    assert decode_object(bytearray(body)) == decode_object(memoryview(body)) == decode_object(body)
    content_typed = envelope("v1", "Namespace", object_meta(1, "y"), content_type=CONTENT_TYPE)
    assert decode_object(content_typed)["metadata"] == {"name": "y"}


def test_invalid_utf8_is_replaced_not_fatal():
    raw = v_msg(1, v_bytes(1, b"bad\xffname"))
    assert decode_object(envelope("v1", "Namespace", raw))["metadata"]["name"] == "bad\ufffdname"


# --------------------------------------------------------------------------
# Malformed input: only ProtobufError may escape
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "magic"),
        (b"k8s", "magic"),
        (b'{"kind":"Namespace"}', "magic"),
        (MAGIC + b"\x0a", "truncated varint"),
        (MAGIC + b"\x0a\x05ab", "runs past the end"),
        (MAGIC + b"\x0b", "wire type 3"),
        (MAGIC + b"\x0e", "wire type 6"),
        (MAGIC + b"\x0f", "wire type 7"),
        (MAGIC + b"\x00\x00", "illegal field number 0"),
        (MAGIC + b"\x08\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", "overflows"),
        (MAGIC + b"\x09\x00\x00", "truncated fixed"),
        (MAGIC + b"\x0d\x00", "truncated fixed"),
        (MAGIC + b"\x08\x01", "wrong wire type"),
        (envelope("v1", "Namespace", b"", encoding="gzip"), "content encoding"),
        (envelope("v1", "Namespace", b"", content_type="application/json"), "content type"),
        (envelope("example.com/v1", "Gadget", b""), "cannot decode protobuf for Gadget"),
        (envelope("v1", "Namespace", v_int(1, 7)), "wrong wire type 0 for field metadata"),
        (envelope("v1", "Namespace", v_msg(1, v_int(1, 7))), "wrong wire type 0 for field name"),
        (envelope("v1", "Namespace", v_msg(1, v_msg(8, v_str(1, "x")))), "wrong wire type 2 for field seconds"),
        (envelope("v1", "Namespace", v_msg(1, v_msg(8, v_int(1, 10**12)))), "out of range"),
        (envelope("v1", "Service", v_msg(2, v_msg(1, v_msg(4, v_int(1, 2))))), "IntOrString"),
        (
            envelope("v1", "Pod", v_msg(2, v_msg(2, v_msg(8, v_msg(1, v_str(1, "cpu"), v_msg(2, v_str(1, "lots"))))))),
            "invalid quantity",
        ),
        (envelope("v1", "ConfigMap", v_msg(2, v_int(1, 1))), "wrong wire type 0 for field map key"),
    ],
)
def test_malformed_bodies_raise_protobuf_error(body, message):
    with pytest.raises(ProtobufError) as info:
        decode_object(body)
    assert message in str(info.value)
    assert info.value.message == str(info.value)


def test_non_bytes_body_is_rejected():
    for body in ("k8s\x00", None, 5, ["k8s"]):
        with pytest.raises(ProtobufError):
            decode_object(body)  # type: ignore[arg-type]


def test_protobuf_error_is_a_value_error():
    assert issubclass(ProtobufError, ValueError)


VALID_BODIES = [
    deployment_body(replicas=2, ports=[80]),
    deployment_body(image="busybox", replicas=0, command=["sleep", "1"]),
    namespace_body("x"),
    configmap_body("c", {"a": "b"}, {"bin": b"\x01"}),
    service_body(),
]


def decode_or_error(body):
    try:
        result = decode_object(body)
    except ProtobufError:
        return None
    assert isinstance(result, dict)
    return result


@pytest.mark.parametrize("body", VALID_BODIES)
def test_every_truncation_is_handled(body):
    for cut in range(len(body)):
        decode_or_error(body[:cut])
    assert decode_or_error(body) is not None


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=200))
def test_random_bytes(data):
    decode_or_error(data)
    decode_or_error(MAGIC + data)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(VALID_BODIES), st.data())
def test_mutated_valid_bodies(body, data):
    mutated = bytearray(body)
    for _ in range(data.draw(st.integers(1, 4))):
        index = data.draw(st.integers(len(MAGIC), len(mutated) - 1))
        mutated[index] = data.draw(st.integers(0, 255))
    decode_or_error(bytes(mutated))


# Random but well-framed messages reach deep into the schema with wrong types.
wire_field = st.deferred(
    lambda: st.one_of(
        st.builds(v_int, st.integers(1, 40), st.integers(-(2**63), 2**64 - 1)),
        st.builds(v_bytes, st.integers(1, 40), st.binary(max_size=12)),
        st.builds(lambda f, parts: v_msg(f, *parts), st.integers(1, 40), st.lists(wire_field, max_size=4)),
        st.builds(lambda f, b: tag(f, 1) + b, st.integers(1, 40), st.binary(min_size=8, max_size=8)),
        st.builds(lambda f, b: tag(f, 5) + b, st.integers(1, 40), st.binary(min_size=4, max_size=4)),
    )
)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SUPPORTED_KINDS)), st.lists(wire_field, max_size=6))
def test_random_well_framed_objects(kind, fields):
    api_version, name = kind
    result = decode_or_error(envelope(api_version, name, b"".join(fields)))
    if result is not None:
        assert result["kind"] == name and result["apiVersion"] == api_version
