"""managedFields as the real API server keeps them: every writer's Update entry, and apply's conflicts."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Kubectl
from tests.e2e.test_kubectl import ok

APPLIED = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: owned
spec:
  {replicas}selector: {{matchLabels: {{app: owned}}}}
  template:
    metadata: {{labels: {{app: owned}}}}
    spec:
      containers: [{{name: web, image: "nginx:1.27"}}]
"""


def _entries(kubectl: Kubectl, name: str) -> dict[tuple[str, str, str], dict]:
    obj = json.loads(ok(kubectl("get", "deploy", name, "-o", "json", "--show-managed-fields")))
    return {(e["manager"], e["operation"], e.get("subresource", "")): e for e in obj["metadata"]["managedFields"]}


def test_every_writer_has_its_entry(kubectl: Kubectl):
    ok(kubectl("create", "deployment", "managed", "--image=nginx:1.27"))
    ok(kubectl("rollout", "status", "deployment/managed", "--timeout=60s"))
    ok(kubectl("label", "deployment", "managed", "tier=web"))
    entries = _entries(kubectl, "managed")
    created = entries[("kubectl-create", "Update", "")]
    assert created["apiVersion"] == "apps/v1" and created["fieldsType"] == "FieldsV1"
    assert "f:replicas" in created["fieldsV1"]["f:spec"] and "f:status" not in created["fieldsV1"]
    assert "f:tier" in entries[("kubectl-label", "Update", "")]["fieldsV1"]["f:metadata"]["f:labels"]
    status = entries[("kube-controller-manager", "Update", "status")]
    assert set(status["fieldsV1"]) == {"f:status"} and "f:availableReplicas" in status["fieldsV1"]["f:status"]
    # The controller manager stamped the revision annotation on the Deployment itself.
    assert "f:deployment.kubernetes.io/revision" in (
        entries[("kube-controller-manager", "Update", "")]["fieldsV1"]["f:metadata"]["f:annotations"]
    )
    ok(kubectl("delete", "deployment", "managed"))


def test_a_field_another_manager_took_stays_and_changing_it_back_is_a_conflict(kubectl: Kubectl, tmp_path: Path):
    manifest = tmp_path / "owned.yaml"
    manifest.write_text(APPLIED.format(replicas="replicas: 2\n  "))
    ok(kubectl("apply", "--server-side", "-f", str(manifest)))
    ok(kubectl("patch", "deploy", "owned", "-p", '{"spec":{"replicas":3}}'))
    assert ("kubectl-patch", "Update", "") in _entries(kubectl, "owned")

    # Applying without replicas gives up a field the applier no longer owns: it stays as the patch set it.
    manifest.write_text(APPLIED.format(replicas=""))
    ok(kubectl("apply", "--server-side", "-f", str(manifest)))
    assert ok(kubectl("get", "deploy", "owned", "-o", "jsonpath={.spec.replicas}")) == "3"

    manifest.write_text(APPLIED.format(replicas="replicas: 5\n  "))
    refused = kubectl("apply", "--server-side", "-f", str(manifest))
    assert refused.returncode == 1
    assert 'Apply failed with 1 conflict: conflict with "kubectl-patch" using apps/v1: .spec.replicas' in refused.stderr
    assert ok(kubectl("get", "deploy", "owned", "-o", "jsonpath={.spec.replicas}")) == "3"

    ok(kubectl("apply", "--server-side", "--force-conflicts", "-f", str(manifest)))
    assert ok(kubectl("get", "deploy", "owned", "-o", "jsonpath={.spec.replicas}")) == "5"
    entries = _entries(kubectl, "owned")
    assert "f:replicas" in entries[("kubectl", "Apply", "")]["fieldsV1"]["f:spec"]
    patched = entries.get(("kubectl-patch", "Update", ""))
    assert patched is None or "f:replicas" not in patched["fieldsV1"].get("f:spec", {})
    ok(kubectl("delete", "deployment", "owned"))
