"""Secrets, ServiceAccounts, and Pods that use ConfigMaps and Secrets, through the real kubectl.

Each test runs on a cluster of its own, created as users create one, so its
namespaces get their ``default`` ServiceAccount from the controller.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from kubernetes import client, watch
from kubernetes.client.rest import ApiException

from clusterviz.classroom.tls import make_certificate
from tests.conftest import Kubectl
from tests.e2e.test_control_plane import apply, new_cluster, ok, poll
from tests.livesim import LiveServer


@pytest.fixture
def fresh(request: pytest.FixtureRequest, kubectl_binary: str, live: LiveServer, tmp_path: Path) -> Kubectl:
    """kubectl pointed at a new three-node cluster named after the test."""
    name = "sec-" + request.node.name.removeprefix("test_").replace("_", "-")[:36].strip("-")
    new_cluster(live, name)
    return Kubectl(kubectl_binary, live.cluster_url(name), tmp_path)


def columns(line: str) -> list[str]:
    return re.split(r"\s{2,}", line.strip())


def table(output: str) -> list[list[str]]:
    return [columns(line) for line in output.splitlines()]


def describe_events(output: str) -> list[list[str]]:
    """The rows of the Events table of a ``kubectl describe``: type, reason, age, from, message."""
    rows = output.split("\nEvents:", 1)[1].splitlines()
    return [columns(line) for line in rows if line.strip().startswith(("Normal", "Warning"))]


def test_secrets_of_each_type_are_created_listed_described_and_deleted(fresh: Kubectl, tmp_path: Path) -> None:
    kubectl = fresh
    generic = ("create", "secret", "generic", "creds", "--from-literal=user=admin", "--from-literal=password=s3cret")
    assert ok(kubectl(*generic)).strip() == "secret/creds created"
    key, cert = make_certificate(["site.example.com"])
    (tmp_path / "tls.key").write_bytes(key)
    (tmp_path / "tls.crt").write_bytes(cert)
    tls = ("create", "secret", "tls", "site", f"--cert={tmp_path / 'tls.crt'}", f"--key={tmp_path / 'tls.key'}")
    assert ok(kubectl(*tls)).strip() == "secret/site created"
    registry = ("--docker-server=registry.example.com", "--docker-username=ci", "--docker-password=pw")
    assert ok(kubectl("create", "secret", "docker-registry", "regcred", *registry)).strip() == "secret/regcred created"

    for wide in ((), ("-o", "wide")):
        rows = table(ok(kubectl("get", "secrets", *wide)))
        assert rows[0] == ["NAME", "TYPE", "DATA", "AGE"]
        assert [r[:3] for r in rows[1:]] == [
            ["creds", "Opaque", "2"],
            ["regcred", "kubernetes.io/dockerconfigjson", "1"],
            ["site", "kubernetes.io/tls", "2"],
        ]
    encoded = ok(kubectl("get", "secret", "regcred", "-o", "jsonpath={.data.\\.dockerconfigjson}"))
    auths = json.loads(base64.b64decode(encoded))["auths"]
    assert auths["registry.example.com"]["username"] == "ci"

    described = ok(kubectl("describe", "secret", "creds"))
    assert re.search(r"^Type:\s+Opaque$", described, re.M)
    assert re.search(r"^password:\s+6 bytes$", described, re.M)
    assert re.search(r"^user:\s+5 bytes$", described, re.M)
    assert "s3cret" not in described and "admin" not in described

    assert ok(kubectl("delete", "secret", "creds")).strip() == 'secret "creds" deleted'
    gone = kubectl("get", "secret", "creds")
    assert gone.returncode == 1 and 'secrets "creds" not found' in gone.stderr


def test_a_tls_secret_without_its_key_is_refused_with_the_field_path(fresh: Kubectl, tmp_path: Path) -> None:
    manifest = "apiVersion: v1\nkind: Secret\nmetadata: {name: half}\ntype: kubernetes.io/tls\nstringData: {tls.crt: x}\n"
    (tmp_path / "half.yaml").write_text(manifest)
    refused = fresh("apply", "-f", str(tmp_path / "half.yaml"))
    assert refused.returncode == 1
    assert 'Secret "half" is invalid: data[tls.key]: Required value' in refused.stderr


def test_every_namespace_has_a_default_service_account(fresh: Kubectl) -> None:
    kubectl = fresh
    rows = table(ok(kubectl("get", "sa", "-A")))
    assert rows[0] == ["NAMESPACE", "NAME", "SECRETS", "AGE"]
    assert [r[:3] for r in rows[1:]] == [
        [ns, "default", "0"] for ns in ("default", "kube-node-lease", "kube-public", "kube-system")
    ]
    ok(kubectl("create", "namespace", "team-a"))
    listed = poll(lambda: kubectl("get", "sa", "-n", "team-a").stdout, lambda out: "default" in out)
    assert [r[:2] for r in table(listed)[1:]] == [["default", "0"]]

    assert ok(kubectl("create", "serviceaccount", "builder")).strip() == "serviceaccount/builder created"
    assert [r[0] for r in table(ok(kubectl("get", "serviceaccounts")))[1:]] == ["builder", "default"]
    described = ok(kubectl("describe", "sa", "builder"))
    assert re.search(r"^Name:\s+builder$", described, re.M)
    assert re.search(r"^Mountable secrets:\s+<none>$", described, re.M)
    assert re.search(r"^Tokens:\s+<none>$", described, re.M)
    assert ok(kubectl("delete", "sa", "builder")).strip() == 'serviceaccount "builder" deleted'


POD = """apiVersion: v1
kind: Pod
metadata: {name: envpod}
spec:
  nodeName: node01
  containers:
  - name: app
    image: soscscs/myapp:v1
    envFrom:
    - secretRef: {name: creds}
    - configMapRef: {name: settings}
      prefix: CFG_
    env:
    - name: LEVEL
      valueFrom: {configMapKeyRef: {name: settings, key: level}}
    - name: PASS
      valueFrom: {secretKeyRef: {name: creds, key: password}}
"""


def test_a_pod_using_secrets_and_config_maps_waits_for_them_then_runs(fresh: Kubectl, tmp_path: Path) -> None:
    kubectl = fresh
    ok(kubectl("create", "configmap", "settings", "--from-literal=level=3"))
    apply(kubectl, tmp_path, POD)

    def status() -> list[str]:
        return table(ok(kubectl("get", "pods", "envpod")))[1]

    waiting = poll(status, lambda row: row[2] == "CreateContainerConfigError")
    assert waiting[:2] == ["envpod", "0/1"]
    described = poll(
        lambda: ok(kubectl("describe", "pod", "envpod")),
        lambda out: any(row[1] == "Failed" for row in describe_events(out)),
    )
    failed = [row for row in describe_events(described) if row[1] == "Failed"]
    assert failed[0][0] == "Warning" and failed[0][-1] == 'Error: secret "creds" not found'
    assert failed[0][3] == "kubelet"
    # kubectl prints the references, never the values.
    assert re.search(r"^\s+Environment Variables from:\n\s+creds\s+Secret\s+Optional: false\n"
                     r"\s+settings\s+ConfigMap with prefix 'CFG_'\s+Optional: false$", described, re.M)
    assert re.search(r"^\s+LEVEL:\s+<set to the key 'level' of config map 'settings'>\s+Optional: false$", described, re.M)
    assert re.search(r"^\s+PASS:\s+<set to the key 'password' in secret 'creds'>\s+Optional: false$", described, re.M)

    ok(kubectl("create", "secret", "generic", "creds", "--from-literal=password=s3cret"))
    assert poll(status, lambda row: row[2] == "Running")[1] == "1/1"
    described = ok(kubectl("describe", "pod", "envpod"))
    assert [row[1] for row in describe_events(described)][-2:] == ["Created", "Started"]
    # ServiceAccount admission: the default account and its projected API credentials.
    assert re.search(r"^Service Account:\s+default$", described, re.M)
    volume = re.search(r"^\s+/var/run/secrets/kubernetes.io/serviceaccount from (kube-api-access-\w{5}) \(ro\)$",
                       described, re.M)
    assert volume is not None
    assert re.search(
        rf"^  {volume[1]}:\n\s+Type:\s+Projected \(a volume that contains injected data from multiple sources\)\n"
        r"\s+TokenExpirationSeconds:\s+3607\n\s+ConfigMapName:\s+kube-root-ca.crt\n"
        r"\s+(ConfigMapOptional:\s+<nil>\n\s+)?DownwardAPI:\s+true$",
        described,
        re.M,
    )


@pytest.fixture
def core(live: LiveServer) -> Iterator[client.CoreV1Api]:
    """The official Python client's CoreV1Api on the demo cluster."""
    with client.ApiClient(client.Configuration(host=live.cluster_url("demo"))) as api_client:
        yield client.CoreV1Api(api_client)


def watch_until_deleted(list_call: Callable[..., object], namespace: str, start_rv: str) -> tuple[list[str], threading.Event]:
    """Watch ``list_call`` from ``start_rv`` in a thread, noting event types until a DELETED."""
    seen: list[str] = []
    done = threading.Event()

    def run() -> None:
        stream = watch.Watch()
        for event in stream.stream(list_call, namespace=namespace, resource_version=start_rv, timeout_seconds=20):
            seen.append(f"{event['type']} {event['object'].metadata.name}")
            if event["type"] == "DELETED":
                stream.stop()
        done.set()

    threading.Thread(target=run, daemon=True).start()
    return seen, done


def test_the_python_client_creates_lists_watches_and_deletes_secrets(core: client.CoreV1Api) -> None:
    start_rv = core.list_namespaced_secret("default").metadata.resource_version
    seen, done = watch_until_deleted(core.list_namespaced_secret, "default", start_rv)
    body = client.V1Secret(metadata=client.V1ObjectMeta(name="py-secret"), string_data={"token": "abc"})
    created = core.create_namespaced_secret("default", body)
    assert created.type == "Opaque" and created.string_data is None
    assert created.data == {"token": base64.b64encode(b"abc").decode()}
    listed = core.list_namespaced_secret("default", field_selector="type=Opaque")
    assert "py-secret" in [s.metadata.name for s in listed.items]
    core.patch_namespaced_secret("py-secret", "default", {"stringData": {"extra": "1"}})
    core.delete_namespaced_secret("py-secret", "default")
    assert done.wait(30)
    assert seen == ["ADDED py-secret", "MODIFIED py-secret", "DELETED py-secret"]
    with pytest.raises(ApiException) as refused:
        core.create_namespaced_secret("default", client.V1Secret(metadata=client.V1ObjectMeta(name="bad"),
                                                                 type="kubernetes.io/ssh-auth"))
    assert refused.value.status == 422 and "data[ssh-privatekey]: Required value" in refused.value.body


def test_the_python_client_creates_lists_watches_and_deletes_service_accounts(core: client.CoreV1Api) -> None:
    listed = core.list_service_account_for_all_namespaces()
    assert {(a.metadata.namespace, a.metadata.name) for a in listed.items} >= {("default", "default"),
                                                                                 ("kube-system", "default")}
    seen, done = watch_until_deleted(core.list_namespaced_service_account, "default", listed.metadata.resource_version)
    account = client.V1ServiceAccount(metadata=client.V1ObjectMeta(name="py-builder"), automount_service_account_token=False)
    created = core.create_namespaced_service_account("default", account)
    assert created.automount_service_account_token is False
    core.delete_namespaced_service_account("py-builder", "default")
    assert done.wait(30)
    assert seen == ["ADDED py-builder", "DELETED py-builder"]


def test_kubectl_create_token_signs_a_token_naming_the_account(kubectl: Kubectl) -> None:
    token = ok(kubectl("create", "token", "default", "--audience=api", "--duration=2h")).strip()
    header, payload, _signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert claims["sub"] == "system:serviceaccount:default:default" and claims["aud"] == ["api"]
    assert claims["exp"] - claims["iat"] == 7200
    uid = ok(kubectl("get", "sa", "default", "-o", "jsonpath={.metadata.uid}"))
    assert claims["kubernetes.io"]["serviceaccount"] == {"name": "default", "uid": uid}
    short = kubectl("create", "token", "default", "--duration=1m")
    assert short.returncode == 1 and short.stderr.strip() == (
        'error: failed to create token: TokenRequest.authentication.k8s.io "default" is invalid: '
        "spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes"
    )
    missing = kubectl("create", "token", "nosuch")
    assert 'serviceaccounts "nosuch" not found' in missing.stderr
