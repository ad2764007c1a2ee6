"""ServiceAccount admission: a new Pod runs as an account and gets the projected kube-api-access volume."""

from __future__ import annotations

import re
from typing import Any

import pytest

from clusterviz.api.client import Client

pytestmark = pytest.mark.django_db(transaction=True)

TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"


def client() -> Client:
    return Client("demo", "kubectl", simulated=False)


def pod(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}], **spec},
    }


def token_volumes(created: dict[str, Any]) -> list[dict[str, Any]]:
    return [v for v in created["spec"].get("volumes", []) if v["name"].startswith("kube-api-access-")]


async def test_a_pod_gets_the_default_account_and_the_projected_token_volume():
    created = await client().create(pod("plain", initContainers=[{"name": "init", "image": "busybox:1.36"}]))
    spec = created["spec"]
    assert spec["serviceAccountName"] == "default" and spec["serviceAccount"] == "default"
    (volume,) = token_volumes(created)
    assert re.fullmatch(r"kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}", volume["name"])
    assert volume["projected"] == {
        "defaultMode": 420,
        "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {"downwardAPI": {"items": [{"path": "namespace",
                                        "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
        ],
    }
    mount = {"name": volume["name"], "readOnly": True, "mountPath": TOKEN_PATH}
    assert spec["containers"][0]["volumeMounts"] == [mount]
    assert spec["initContainers"][0]["volumeMounts"] == [mount]


async def test_automount_is_decided_by_the_pod_first_then_its_account():
    kubectl = client()
    await kubectl.create({"apiVersion": "v1", "kind": "ServiceAccount",
                          "metadata": {"name": "quiet", "namespace": "default"},
                          "automountServiceAccountToken": False,
                          "imagePullSecrets": [{"name": "regcred"}]})
    by_account = await kubectl.create(pod("quiet", serviceAccountName="quiet"))
    assert token_volumes(by_account) == [] and "volumeMounts" not in by_account["spec"]["containers"][0]
    assert by_account["spec"]["imagePullSecrets"] == [{"name": "regcred"}]
    overridden = await kubectl.create(pod("loud", serviceAccountName="quiet", automountServiceAccountToken=True))
    assert len(token_volumes(overridden)) == 1
    by_pod = await kubectl.create(pod("off", automountServiceAccountToken=False))
    assert token_volumes(by_pod) == []


async def test_a_container_with_its_own_mount_at_the_token_path_keeps_it():
    own = {"name": "mine", "mountPath": TOKEN_PATH}
    created = await client().create(
        pod(
            "custom",
            volumes=[{"name": "mine", "emptyDir": {}}],
            containers=[
                {"name": "app", "image": "nginx:1.27", "volumeMounts": [own]},
                {"name": "sidecar", "image": "busybox:1.36"},
            ],
        )
    )
    (volume,) = token_volumes(created)
    app, sidecar = created["spec"]["containers"]
    assert app["volumeMounts"] == [own]
    assert sidecar["volumeMounts"] == [{"name": volume["name"], "readOnly": True, "mountPath": TOKEN_PATH}]


async def test_a_copy_of_an_admitted_pod_keeps_its_token_volume():
    kubectl = client()
    first = await kubectl.create(pod("original"))
    copy = pod("copy", volumes=first["spec"]["volumes"])
    created = await kubectl.create(copy)
    assert [v["name"] for v in token_volumes(created)] == [token_volumes(first)[0]["name"]]


async def test_a_projected_token_of_the_users_own_lasts_an_hour_by_default():
    volume = {"name": "token", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}}
    created = await client().create(pod("own-token", volumes=[volume]))
    own = next(v for v in created["spec"]["volumes"] if v["name"] == "token")
    assert own["projected"] == {"defaultMode": 420, "sources": [{"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}}]}
