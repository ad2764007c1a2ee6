"""Unknown and duplicate fields in a write: refused, warned about or ignored as fieldValidation asks."""

from __future__ import annotations

import json
from typing import Any

import pytest

from clusterviz.api import schema
from clusterviz.api.client import Client
from clusterviz.api.request import ApiRequest, ApiResponse
from clusterviz.api.schema.unknown import unknown_fields
from clusterviz.api.server import dispatch

pytestmark = pytest.mark.django_db(transaction=True)
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"


def deployment(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}},
            **spec,
        },
    }


async def send(method: str, path: str, body: bytes | dict[str, Any], content_type: str = "application/json",
               **query: str) -> ApiResponse:
    raw = json.dumps(body).encode() if isinstance(body, dict) else body
    return await dispatch(ApiRequest("demo", method, path, query=query, body=raw, content_type=content_type, simulated=False))


async def test_strict_refuses_an_unknown_field_with_the_strict_decoding_message():
    resp = await send("POST", DEPLOYMENTS, deployment("typo", replica=2), fieldValidation="Strict")
    assert resp.status == 400 and resp.body["reason"] == "BadRequest"
    assert resp.body["message"] == (
        'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replica"'
    )
    assert await Client("demo", simulated=False).get_or_none("deployments", "typo", "default") is None


async def test_every_unknown_field_is_named_with_its_path_into_lists():
    body = deployment("typos", replica=2)
    body["spec"]["template"]["spec"]["containers"][0]["imag"] = "nginx"
    resp = await send("POST", DEPLOYMENTS, body, fieldValidation="Strict")
    # In the order the document gives them (the template comes before replica here).
    assert resp.body["message"].endswith(
        'strict decoding error: unknown field "spec.template.spec.containers[0].imag", unknown field "spec.replica"'
    )


async def test_warn_and_no_directive_store_the_object_and_warn_per_field():
    for name, query in (("warned", {"fieldValidation": "Warn"}), ("defaulted", {})):
        resp = await send("POST", DEPLOYMENTS, deployment(name, replica=2), **query)
        assert resp.status == 201
        assert resp.headers["Warning"] == '299 - "unknown field \\"spec.replica\\""'
        # Reported, not dropped: stored objects keep what was sent.
        assert resp.body["spec"]["replica"] == 2


async def test_ignore_and_a_clean_object_say_nothing():
    ignored = await send("POST", DEPLOYMENTS, deployment("ignored", replica=2), fieldValidation="Ignore")
    assert ignored.status == 201 and "Warning" not in ignored.headers
    clean = await send("POST", DEPLOYMENTS, deployment("clean", replicas=2), fieldValidation="Strict")
    assert clean.status == 201 and "Warning" not in clean.headers


async def test_duplicate_fields_in_json_and_yaml_bodies_are_reported():
    text = json.dumps(deployment("twice", replicas=2))
    raw = text.replace('"replicas": 2', '"replicas": 2, "replicas": 3').encode()
    resp = await send("POST", DEPLOYMENTS, raw, fieldValidation="Strict")
    assert resp.status == 400
    assert resp.body["message"].endswith('strict decoding error: duplicate field "spec.replicas"')
    yaml_body = (
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: twice\n  name: again\ndata:\n  a: '1'\n"
    )
    warned = await send("POST", "/api/v1/namespaces/default/configmaps", yaml_body, "application/yaml")
    assert warned.status == 201 and warned.headers["Warning"] == '299 - "duplicate field \\"metadata.name\\""'


async def test_patches_are_checked_and_fields_already_stored_are_not_reported_again():
    await send("POST", DEPLOYMENTS, deployment("patched", replica=2), fieldValidation="Ignore")
    path = f"{DEPLOYMENTS}/patched"
    merge = "application/merge-patch+json"
    again = await send("PATCH", path, {"spec": {"replicas": 3}}, merge, fieldValidation="Strict")
    assert again.status == 200 and "Warning" not in again.headers
    refused = await send("PATCH", path, {"spec": {"paused2": True}}, merge, fieldValidation="Strict")
    assert refused.status == 400 and refused.body["message"].endswith('unknown field "spec.paused2"')
    smp = "application/strategic-merge-patch+json"
    warned = await send("PATCH", path, {"metadata": {"labelz": {"a": "b"}}}, smp, fieldValidation="Warn")
    assert warned.status == 200 and warned.headers["Warning"] == '299 - "unknown field \\"metadata.labelz\\""'


async def test_sub_objects_the_description_leaves_open_are_not_checked():
    body = deployment("open")
    body["spec"]["template"]["spec"]["affinity"] = {
        "nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 1, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}}
        ]}
    }
    resp = await send("POST", DEPLOYMENTS, body, fieldValidation="Strict")
    assert resp.status == 201, resp.body


async def test_an_unsupported_directive_is_a_bad_request():
    resp = await send("POST", DEPLOYMENTS, deployment("odd"), fieldValidation="Loud")
    assert resp.status == 400
    assert resp.body["message"] == 'fieldValidation: Unsupported value: "Loud": supported values: "Ignore", "Strict", "Warn"'


async def test_objects_the_server_and_its_components_wrote_have_no_unknown_fields():
    client = Client("demo", simulated=False)
    for plural in ("nodes", "namespaces", "pods", "services", "endpoints", "configmaps", "serviceaccounts", "leases"):
        for obj in (await client.list(plural))["items"]:
            group, _, version = obj["apiVersion"].rpartition("/")
            described = schema.for_kind(group, version, obj["kind"])
            assert unknown_fields(described, obj) == [], (plural, obj["metadata"]["name"])


async def test_server_side_apply_refuses_a_field_the_schema_lacks_whatever_the_directive():
    apply = "application/apply-patch+yaml"
    body = deployment("applied", replica=2)
    body["spec"]["template"]["spec"]["containers"][0]["imag"] = "nginx"
    for directive in ("Strict", "Ignore"):
        resp = await send("PATCH", f"{DEPLOYMENTS}/applied", body, apply, fieldManager="kubectl", fieldValidation=directive)
        assert resp.status == 400
        assert resp.body["message"] == (
            "failed to create typed patch object (default/applied; apps/v1, Kind=Deployment): errors:\n"
            '  .spec.template.spec.containers[name="web"].imag: field not declared in schema\n'
            "  .spec.replica: field not declared in schema"
        )
    twice = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: twice\ndata:\n  a: '1'\n  a: '2'\n"
    path = "/api/v1/namespaces/default/configmaps/twice"
    refused = await send("PATCH", path, twice, apply, fieldManager="kubectl", fieldValidation="Strict")
    assert refused.status == 400 and refused.body["message"] == (
        'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "a" already set in map'
    )
    warned = await send("PATCH", path, twice, apply, fieldManager="kubectl")
    assert warned.status == 201 and "already set in map" in warned.headers["Warning"]


async def test_a_flood_of_unknown_fields_warns_within_a_bounded_header():
    body = deployment("flood", **{f"field{i:04}": i for i in range(500)})
    resp = await send("POST", DEPLOYMENTS, body)
    assert resp.status == 201
    assert resp.headers["Warning"].startswith('299 - "unknown field \\"spec.field0000\\""')
    assert 4000 < len(resp.headers["Warning"]) <= 4096
