"""Protobuf bodies of the option types: what kubectl drain and client-go send."""

from __future__ import annotations

from clusterviz.apimachinery.protobuf import decode_object
from tests.apimachinery.test_protobuf import envelope, v_bytes, v_int, v_str


def test_delete_options_of_any_group_version_decode_with_their_pointer_fields():
    preconditions = v_str(1, "uid-1") + v_str(2, "42")
    raw = v_int(1, 0) + v_bytes(2, preconditions) + v_str(4, "Foreground") + v_str(5, "All")
    for api_version in ("v1", "apps/v1", "meta.k8s.io/v1"):
        assert decode_object(envelope(api_version, "DeleteOptions", raw)) == {
            "apiVersion": api_version,
            "kind": "DeleteOptions",
            "gracePeriodSeconds": 0,  # a pointer: zero is kept, it means "now"
            "preconditions": {"uid": "uid-1", "resourceVersion": "42"},
            "propagationPolicy": "Foreground",
            "dryRun": ["All"],
        }


def test_an_eviction_carries_its_pod_name_and_delete_options():
    raw = v_bytes(1, v_str(1, "web-1") + v_str(3, "default")) + v_bytes(2, v_int(1, 30))
    assert decode_object(envelope("policy/v1", "Eviction", raw)) == {
        "apiVersion": "policy/v1",
        "kind": "Eviction",
        "metadata": {"name": "web-1", "namespace": "default"},
        "deleteOptions": {"gracePeriodSeconds": 30},
    }


def test_scale_and_binding_decode():
    scale = decode_object(envelope("autoscaling/v1", "Scale", v_bytes(1, v_str(1, "web")) + v_bytes(2, v_int(1, 5))))
    assert scale["spec"] == {"replicas": 5}
    target = v_str(1, "Node") + v_str(3, "node02") + v_str(6, "v1")
    binding = decode_object(envelope("v1", "Binding", v_bytes(1, v_str(1, "web-1")) + v_bytes(2, target)))
    assert binding["target"]["name"] == "node02" and binding["target"]["kind"] == "Node"
