"""Secrets and ServiceAccounts through the API: decoding, stringData, upstream's validation, tables."""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import Any

import pytest

from clusterviz.api import errors
from clusterviz.api.client import Client
from clusterviz.api.tables import build_table
from clusterviz.api.validation import validate

pytestmark = pytest.mark.django_db(transaction=True)


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def secret(name: str = "creds", **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name, "namespace": "default"}, **fields}


def problems(obj: dict[str, Any], old: dict[str, Any] | None = None) -> list[str]:
    return [str(e) for e in validate("Secret", obj, old)]


def client() -> Client:
    return Client("demo", "kubectl", simulated=False)


async def test_string_data_is_merged_into_data_and_never_stored():
    created = await client().create(secret(data={"user": b64("old")}, stringData={"user": "admin", "pass": "s3cret"}))
    assert created["type"] == "Opaque"
    assert "stringData" not in created
    assert created["data"] == {"user": b64("admin"), "pass": b64("s3cret")}
    stored = await client().get("secrets", "creds", "default")
    assert "stringData" not in stored and stored["data"] == created["data"]


async def test_data_that_is_not_base64_is_a_bad_request_and_writes_nothing():
    with pytest.raises(errors.StatusError) as caught:
        await client().create(secret(data={"user": "adm!n"}))
    assert caught.value.code == 400
    assert caught.value.message == (
        'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3'
    )
    assert await client().get_or_none("secrets", "creds", "default") is None


async def test_string_data_that_is_not_a_string_is_a_bad_request():
    with pytest.raises(errors.StatusError) as caught:
        await client().create(secret(stringData={"port": 8080}))
    assert caught.value.code == 400
    assert caught.value.message.endswith(
        "json: cannot unmarshal number into Go struct field Secret.stringData of type string"
    )


async def test_a_bad_key_is_a_422_with_the_field_path():
    with pytest.raises(errors.StatusError) as caught:
        await client().create(secret(stringData={"bad key": "x"}))
    assert caught.value.code == 422
    assert caught.value.message.startswith('Secret "creds" is invalid: data[bad key]: Invalid value: "bad key": ')


def test_tls_needs_its_certificate_and_key():
    assert problems(secret(type="kubernetes.io/tls", data={"tls.crt": b64("c")})) == ["data[tls.key]: Required value"]
    assert problems(secret(type="kubernetes.io/tls", data={"tls.crt": b64("c"), "tls.key": b64("k")})) == []


def test_docker_config_json_must_be_there_and_be_a_json_object():
    kind = "kubernetes.io/dockerconfigjson"
    assert problems(secret(type=kind)) == ["data[.dockerconfigjson]: Required value"]
    assert problems(secret(type=kind, data={".dockerconfigjson": b64("{not json")})) == [
        'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": '
        "invalid character 'n' looking for beginning of object key string"
    ]
    assert problems(secret(type=kind, data={".dockerconfigjson": b64("[]")})) == [
        'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": '
        "json: cannot unmarshal array into Go value of type map[string]interface {}"
    ]
    assert problems(secret(type=kind, data={".dockerconfigjson": b64('{"auths": {}}')})) == []


def test_other_well_known_types_require_their_keys():
    assert problems(secret(type="kubernetes.io/basic-auth")) == [
        "data[username]: Required value",
        "data[password]: Required value",
    ]
    assert problems(secret(type="kubernetes.io/ssh-auth")) == ["data[ssh-privatekey]: Required value"]
    assert problems(secret(type="kubernetes.io/service-account-token")) == [
        "metadata.annotations[kubernetes.io/service-account.name]: Required value"
    ]
    assert problems(secret(type="example.com/anything")) == []


def test_data_is_limited_to_one_mebibyte():
    big = base64.b64encode(b"x" * (1024 * 1024 + 1)).decode()
    assert problems(secret(data={"big": big})) == ["data: Too long: must have at most 1048576 bytes"]


async def test_type_is_immutable_and_so_is_an_immutable_secrets_data():
    kubectl = client()
    await kubectl.create(secret(stringData={"a": "1"}))
    with pytest.raises(errors.StatusError) as caught:
        await kubectl.patch("secrets", "creds", {"type": "kubernetes.io/tls"}, "default")
    assert 'type: Invalid value: "kubernetes.io/tls": field is immutable' in caught.value.message
    await kubectl.patch("secrets", "creds", {"immutable": True}, "default")
    with pytest.raises(errors.StatusError) as caught:
        await kubectl.patch("secrets", "creds", {"stringData": {"a": "2"}}, "default")
    assert caught.value.code == 422
    assert "data: Forbidden: field is immutable when `immutable` is set" in caught.value.message
    with pytest.raises(errors.StatusError) as caught:
        await kubectl.patch("secrets", "creds", {"immutable": False}, "default")
    assert "immutable: Forbidden: field is immutable when `immutable` is set" in caught.value.message
    assert (await kubectl.get("secrets", "creds", "default"))["data"] == {"a": b64("1")}


async def test_secrets_are_selected_by_type():
    kubectl = client()
    await kubectl.create(secret("plain", stringData={"a": "1"}))
    await kubectl.create(secret("site", type="kubernetes.io/tls", stringData={"tls.crt": "c", "tls.key": "k"}))
    listed = await kubectl.list("secrets", "default", field_selector="type=kubernetes.io/tls")
    assert [s["metadata"]["name"] for s in listed["items"]] == ["site"]


async def test_service_accounts_are_created_and_validated():
    kubectl = client()
    created = await kubectl.create(
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "builder", "namespace": "default"}}
    )
    assert created["metadata"]["uid"]
    with pytest.raises(errors.StatusError) as caught:
        await kubectl.create({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "Builder"}})
    assert caught.value.code == 422
    assert caught.value.message.startswith('ServiceAccount "Builder" is invalid: metadata.name: Invalid value')


def test_tables_print_counts_and_never_values():
    tls = secret(type="kubernetes.io/tls", data={"tls.crt": b64("c"), "tls.key": b64("k")})
    row = build_table("secrets", [tls], datetime.now(UTC))["rows"][0]
    assert row["cells"][:3] == ["creds", "kubernetes.io/tls", 2]
    assert b64("k") not in str(row["cells"])
    account = {"metadata": {"name": "default"}, "secrets": [{"name": "a"}]}
    assert build_table("sa", [account], datetime.now(UTC))["rows"][0]["cells"][:2] == ["default", 1]
