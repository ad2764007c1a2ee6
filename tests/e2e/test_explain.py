"""kubectl explain, and kubectl apply's field validation, through the real kubectl against Daphne."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from kubernetes import client

from clusterviz.api import resources
from tests.conftest import Kubectl
from tests.livesim import LiveServer


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, f"rc={result.returncode}\nstdout:{result.stdout}\nstderr:{result.stderr}"
    return result.stdout


def fields(output: str) -> dict[str, str]:
    """The FIELDS section as name -> the rest of its line (type and -required-)."""
    section = output.split("FIELDS:\n", 1)[1]
    out = {}
    for line in section.splitlines():
        if line.startswith("  ") and not line.startswith("    ") and "\t" in line:
            name, rest = line.strip().split("\t", 1)
            out[name] = rest
    return out


@pytest.mark.parametrize(
    ("resource", "group", "kind", "version", "expected"),
    [
        ("pod", "", "Pod", "v1", {"spec": "<PodSpec>", "status": "<PodStatus>", "metadata": "<ObjectMeta>"}),
        ("deployment", "apps", "Deployment", "v1", {"spec": "<DeploymentSpec>"}),
        ("service", "", "Service", "v1", {"spec": "<ServiceSpec>"}),
        ("configmap", "", "ConfigMap", "v1", {"data": "<map[string]string>", "immutable": "<boolean>"}),
        ("node", "", "Node", "v1", {"spec": "<NodeSpec>", "status": "<NodeStatus>"}),
        ("jobs", "batch", "Job", "v1", {"spec": "<JobSpec>"}),
        ("simulations", "clusterviz.io", "Simulation", "v1", {"spec": "<SimulationSpec>"}),
    ],
)
def test_explain_a_kind_prints_its_header_description_and_typed_fields(
    kubectl: Kubectl, resource: str, group: str, kind: str, version: str, expected: dict[str, str]
):
    out = ok(kubectl("explain", resource))
    head = out.split("\n\n", 1)[0].splitlines()
    assert head == ([f"GROUP:      {group}"] if group else []) + [f"KIND:       {kind}", f"VERSION:    {version}"]
    assert "\nDESCRIPTION:\n    " in out and "<empty>" not in out.split("FIELDS:")[0]
    listed = fields(out)
    assert listed["apiVersion"] == "<string>" and listed["kind"] == "<string>"
    for name, typ in expected.items():
        assert listed[name] == typ


def test_explain_a_nested_field_follows_lists_and_references(kubectl: Kubectl):
    out = ok(kubectl("explain", "deployment.spec.template.spec.containers.resources"))
    assert "FIELD: resources <ResourceRequirements>" in out
    listed = fields(out)
    assert listed["limits"] == "<map[string]Quantity>" and listed["requests"] == "<map[string]Quantity>"
    assert listed["claims"] == "<[]ResourceClaim>"
    containers = fields(ok(kubectl("explain", "pod.spec.containers")))
    assert containers["name"] == "<string> -required-" and containers["ports"] == "<[]ContainerPort>"
    assert containers["imagePullPolicy"].startswith("<string>")
    spec = fields(ok(kubectl("explain", "deployment.spec")))
    assert spec["selector"] == "<LabelSelector> -required-" and spec["template"] == "<PodTemplateSpec> -required-"
    assert spec["replicas"] == "<integer>"
    strategy = fields(ok(kubectl("explain", "deploy.spec.strategy.rollingUpdate")))
    assert strategy["maxSurge"] == "<IntOrString>"


def test_explain_an_unknown_field_says_it_does_not_exist(kubectl: Kubectl):
    out = kubectl("explain", "pod.spec.nosuchfield")
    assert out.returncode == 1
    assert 'error: field "nosuchfield" does not exist' in out.stderr


def test_explain_takes_about_as_long_as_a_get(kubectl: Kubectl):
    ok(kubectl("explain", "pod"))  # fills kubectl's discovery and OpenAPI caches
    start = time.monotonic()
    ok(kubectl("explain", "pod"))
    assert time.monotonic() - start < 3


def test_explain_with_openapi_v2_reads_the_protobuf_document(kubectl: Kubectl):
    out = ok(kubectl("explain", "deployment.spec", "--output=plaintext-openapiv2"))
    assert out.startswith("KIND:     Deployment\nVERSION:  apps/v1\n\nRESOURCE: spec <Object>\n")
    assert "   selector\t<Object> -required-\n" in out and "   replicas\t<integer>\n" in out


DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  replica: 2
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
      - name: web
        image: nginx
"""


def manifest(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    return str(path)


def test_apply_with_an_unknown_field_fails_strict_validation_as_upstream(kubectl: Kubectl, tmp_path: Path):
    path = manifest(tmp_path, "typo", DEPLOYMENT.format(name="typo"))
    out = kubectl("apply", "-f", path)
    assert out.returncode == 1
    assert out.stderr.strip() == (
        f'Error from server (BadRequest): error when creating "{path}": Deployment in version "v1" cannot be '
        'handled as a Deployment: strict decoding error: unknown field "spec.replica"'
    )
    assert kubectl("get", "deployment", "typo").returncode == 1


def test_apply_with_validate_warn_creates_and_prints_the_servers_warning(kubectl: Kubectl, tmp_path: Path):
    out = kubectl("apply", "--validate=warn", "-f", manifest(tmp_path, "warned", DEPLOYMENT.format(name="warned")))
    assert out.returncode == 0 and out.stdout.strip() == "deployment.apps/warned created"
    assert out.stderr.strip() == 'Warning: unknown field "spec.replica"'
    ok(kubectl("delete", "deployment", "warned"))


def test_apply_with_validation_off_creates_silently(kubectl: Kubectl, tmp_path: Path):
    out = kubectl("apply", "--validate=false", "-f", manifest(tmp_path, "quiet", DEPLOYMENT.format(name="quiet")))
    assert out.returncode == 0 and out.stdout.strip() == "deployment.apps/quiet created" and out.stderr == ""
    ok(kubectl("delete", "deployment", "quiet"))


def test_apply_of_an_unknown_kind_says_no_matches_for_kind(kubectl: Kubectl, tmp_path: Path):
    path = manifest(tmp_path, "foo", "apiVersion: example.com/v1\nkind: Foo\nmetadata:\n  name: bar\n")
    out = kubectl("apply", "-f", path)
    assert out.returncode == 1
    assert out.stderr.splitlines() == [
        f'error: resource mapping not found for name: "bar" namespace: "" from "{path}": '
        'no matches for kind "Foo" in version "example.com/v1"',
        "ensure CRDs are installed first",
    ]


def test_what_the_server_returns_passes_strict_validation_when_sent_back(kubectl: Kubectl):
    ok(kubectl("create", "deployment", "roundtrip", "--image=nginx", "--replicas=2"))
    ok(kubectl("rollout", "status", "deployment/roundtrip", "--timeout=60s"))
    for kind in ("deployments", "replicasets", "pods", "nodes", "services", "endpoints", "configmaps", "serviceaccounts"):
        listed = json.loads(ok(kubectl("get", kind, "-A", "-o", "json")))
        assert listed["items"] or kind == "endpoints", kind
        for item in listed["items"]:
            # Copies under new names, status and all: what kubectl create sends is checked strictly.
            item["metadata"] = {**item["metadata"], "name": item["metadata"]["name"] + "-copy"}
            for key in ("resourceVersion", "uid", "creationTimestamp", "ownerReferences"):
                item["metadata"].pop(key, None)
        out = kubectl("create", "--dry-run=server", "-f", "-", stdin=json.dumps(listed))
        assert "unknown field" not in out.stderr and "duplicate field" not in out.stderr, (kind, out.stderr)
        assert out.stdout.count("created (server dry run)") == len(listed["items"]), (kind, out.stdout, out.stderr)
    ok(kubectl("delete", "deployment", "roundtrip"))


def test_the_python_client_reads_both_openapi_documents(live: LiveServer):
    host = live.cluster_url("demo")
    with client.ApiClient(client.Configuration(host=host)) as api:

        def fetch(path: str) -> dict:
            resp = api.call_api("GET", host + path, header_params={"Accept": "application/json"})
            resp.read()
            assert resp.status == 200
            return json.loads(resp.data)

        v2, v3 = fetch("/openapi/v2"), fetch("/openapi/v3/api/v1")
    assert v2["swagger"] == "2.0"
    assert {"spec", "status", "metadata"} <= set(v2["definitions"]["io.k8s.api.core.v1.Pod"]["properties"])
    pod = v3["components"]["schemas"]["io.k8s.api.core.v1.Pod"]
    assert pod["x-kubernetes-group-version-kind"] == [{"group": "", "kind": "Pod", "version": "v1"}]
    assert "containers" in v3["components"]["schemas"]["io.k8s.api.core.v1.PodSpec"]["properties"]


def test_every_served_kind_explains_recursively(kubectl: Kubectl):
    for r in resources.RESOURCES:
        # --api-version names the group: "nodes.metrics.k8s.io" would read as the core nodes' fields.
        out = ok(kubectl("explain", r.plural, f"--api-version={r.group_version}", "--recursive"))
        assert f"KIND:       {r.kind}\n" in out and "FIELDS:\n" in out, r.kind
        meta = out.split("  metadata\t<ObjectMeta>", 1)[1]
        assert meta.split("\n", 2)[1] == "    annotations\t<map[string]string>", r.kind
