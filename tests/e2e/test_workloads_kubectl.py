"""The workloads through the real kubectl where the kind's own tests stop short: a StatefulSet's ordered start,
a Secret's keys reaching a Pod's environment, and get -o wide, describe and updates of Secrets, ServiceAccounts
and Namespaces. Each test runs on a cluster of its own, in fast-forward."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import Kubectl
from tests.e2e.test_control_plane import apply, new_cluster, ok, poll
from tests.livesim import LiveServer


@pytest.fixture
def own(request: pytest.FixtureRequest, kubectl_binary: str, live: LiveServer, tmp_path: Path) -> Kubectl:
    """kubectl pointed at a new three-node cluster named after the test."""
    name = "wl-" + request.node.name.removeprefix("test_").replace("_", "-")[:36].strip("-")
    new_cluster(live, name)
    return Kubectl(kubectl_binary, live.cluster_url(name), tmp_path)


def columns(line: str) -> list[str]:
    return re.split(r"\s{2,}", line.strip())


def table(output: str) -> list[list[str]]:
    return [columns(line) for line in output.splitlines()]


WEB = """apiVersion: v1
kind: Service
metadata: {name: nginx}
spec:
  clusterIP: None
  selector: {app: nginx}
  ports: [{name: web, port: 80}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: nginx
  replicas: 3
  selector: {matchLabels: {app: nginx}}
  template:
    metadata: {labels: {app: nginx}}
    spec:
      containers: [{name: nginx, image: "nginx:1.27"}]
"""


def test_a_statefulset_makes_each_pod_once_the_one_before_is_running_and_ready(own: Kubectl, tmp_path: Path) -> None:
    assert apply(own, tmp_path, WEB).split("\n")[:2] == ["service/nginx created", "statefulset.apps/web created"]
    ok(own("rollout", "status", "sts/web", "--timeout=90s"))
    pods = {p["metadata"]["name"]: p for p in json.loads(ok(own("get", "pods", "-l", "app=nginx", "-o", "json")))["items"]}
    assert sorted(pods) == ["web-0", "web-1", "web-2"]

    def ready_since(pod: dict) -> str:
        return next(c["lastTransitionTime"] for c in pod["status"]["conditions"] if c["type"] == "Ready")

    for before, after in (("web-0", "web-1"), ("web-1", "web-2")):
        assert pods[before]["status"]["phase"] == "Running"
        assert pods[after]["metadata"]["creationTimestamp"] >= ready_since(pods[before]), (before, after)
    events = ok(own("get", "events", "--field-selector", "involvedObject.name=web", "--sort-by=.metadata.resourceVersion"))
    assert re.findall(r"create Pod (web-\d) in StatefulSet web successful", events) == ["web-0", "web-1", "web-2"]
    # The headless Service's Endpoints name each Pod: web-0.nginx.default.svc.cluster.local resolves to it.
    endpoints = json.loads(ok(own("get", "endpoints", "nginx", "-o", "json")))
    named = {a["hostname"]: a["targetRef"]["name"] for s in endpoints["subsets"] for a in s["addresses"]}
    assert named == {"web-0": "web-0", "web-1": "web-1", "web-2": "web-2"}


ENV_POD = """apiVersion: v1
kind: Pod
metadata: {name: printenv}
spec:
  restartPolicy: Never
  containers:
  - name: app
    image: busybox
    command: ["env"]
    envFrom:
    - secretRef: {name: creds}
"""


def test_a_secrets_keys_reach_the_environment_of_a_pod_that_uses_it_with_env_from(own: Kubectl, tmp_path: Path) -> None:
    ok(own("create", "secret", "generic", "creds", "--from-literal=user=admin", "--from-literal=password=s3cret"))
    described = ok(own("describe", "secret", "creds"))
    assert re.search(r"^password:\s+6 bytes$", described, re.M) and re.search(r"^user:\s+5 bytes$", described, re.M)
    apply(own, tmp_path, ENV_POD)
    assert poll(lambda: table(ok(own("get", "pod", "printenv")))[1], lambda row: row[2] == "Completed")[1] == "0/1"
    printed = ok(own("logs", "printenv")).splitlines()
    assert {"user=admin", "password=s3cret"} <= set(printed)
    described = ok(own("describe", "pod", "printenv"))
    assert re.search(r"^\s+Environment Variables from:\n\s+creds\s+Secret\s+Optional: false$", described, re.M)


def test_secrets_and_service_accounts_are_updated_with_kubectl(own: Kubectl) -> None:
    ok(own("create", "secret", "generic", "creds", "--from-literal=user=admin"))
    assert ok(own("label", "secret", "creds", "team=shop")).strip() == "secret/creds labeled"
    patched = ok(own("patch", "secret", "creds", "-p", '{"stringData":{"password":"s3cret"}}'))
    assert patched.strip() == "secret/creds patched"
    rows = table(ok(own("get", "secrets", "-l", "team=shop", "-o", "wide")))
    assert rows[0] == ["NAME", "TYPE", "DATA", "AGE"] and rows[1][:3] == ["creds", "Opaque", "2"]
    immutable = ok(own("patch", "secret", "creds", "-p", '{"immutable":true}'))
    assert immutable.strip() == "secret/creds patched"
    refused = own("patch", "secret", "creds", "-p", '{"stringData":{"user":"root"}}')
    assert refused.returncode == 1
    assert 'data: Forbidden: field is immutable when `immutable` is set' in refused.stderr

    ok(own("create", "serviceaccount", "builder"))
    rows = table(ok(own("get", "sa", "builder", "-o", "wide")))
    assert rows[0] == ["NAME", "SECRETS", "AGE"] and rows[1][:2] == ["builder", "0"]
    patch = '{"automountServiceAccountToken":false,"imagePullSecrets":[{"name":"regcred"}]}'
    assert ok(own("patch", "sa", "builder", "-p", patch)).strip() == "serviceaccount/builder patched"
    described = ok(own("describe", "sa", "builder"))
    assert re.search(r"^Image pull secrets:\s+regcred \(not found\)$", described, re.M), described
    assert json.loads(ok(own("get", "sa", "builder", "-o", "json")))["automountServiceAccountToken"] is False
    assert ok(own("delete", "sa", "builder")).strip() == 'serviceaccount "builder" deleted'


def test_a_namespace_is_created_listed_described_labelled_and_deleted(own: Kubectl) -> None:
    assert ok(own("create", "namespace", "team-b")).strip() == "namespace/team-b created"
    rows = table(ok(own("get", "namespace", "team-b", "-o", "wide")))
    assert rows[0] == ["NAME", "STATUS", "AGE"] and rows[1][:2] == ["team-b", "Active"]
    assert ok(own("label", "namespace", "team-b", "tier=gold")).strip() == "namespace/team-b labeled"
    described = ok(own("describe", "namespace", "team-b"))
    assert re.search(r"^Labels:\s+kubernetes.io/metadata.name=team-b\n\s+tier=gold$", described, re.M), described
    assert re.search(r"^Status:\s+Active$", described, re.M)
    assert [r[0] for r in table(ok(own("get", "ns", "-l", "tier=gold")))[1:]] == ["team-b"]
    # The metadata.name label is the namespace's own and follows its name.
    kept = ok(own("label", "namespace", "team-b", "kubernetes.io/metadata.name-"))
    assert kept.strip() == "namespace/team-b unlabeled"
    labels = json.loads(ok(own("get", "ns", "team-b", "-o", "json")))["metadata"]["labels"]
    assert labels["kubernetes.io/metadata.name"] == "team-b"
    assert ok(own("delete", "namespace", "team-b", "--timeout=60s")).strip() == 'namespace "team-b" deleted'
    gone = own("get", "namespace", "team-b")
    assert gone.returncode == 1 and 'namespaces "team-b" not found' in gone.stderr
