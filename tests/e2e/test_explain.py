"""kubectl explain, and kubectl apply's field validation, through the real kubectl against Daphne."""

from __future__ import annotations

import subprocess
import time

import pytest

from tests.conftest import Kubectl


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
