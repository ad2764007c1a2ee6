"""Deleting a namespace as upstream: Terminating, creates refused, contents deleted by the controller, then gone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kubernetes import client, watch
from kubernetes.client.rest import ApiException

from tests.conftest import Kubectl
from tests.e2e.test_kubectl import MYAPP, ok
from tests.livesim import LiveServer, wait_until


def _namespace(kubectl: Kubectl, name: str) -> dict | None:
    result = kubectl("get", "namespace", name, "-o", "json")
    return json.loads(result.stdout) if result.returncode == 0 else None


def _conditions(ns: dict) -> dict[str, dict]:
    return {c["type"]: c for c in ns.get("status", {}).get("conditions", [])}


def test_delete_namespace_removes_everything_in_it(kubectl: Kubectl, tmp_path: Path):
    ok(kubectl("create", "namespace", "shop"))
    manifest = tmp_path / "myapp.yaml"
    manifest.write_text(MYAPP)
    ok(kubectl("apply", "-n", "shop", "-f", str(manifest)))
    ok(kubectl("create", "configmap", "settings", "-n", "shop", "--from-literal=colour=blue"))
    ok(kubectl("create", "service", "clusterip", "shop-svc", "-n", "shop", "--tcp=80:80"))
    assert wait_until(lambda: ok(kubectl("get", "pods", "-n", "shop", "--no-headers")).count("Running") == 3)
    assert ok(kubectl("get", "events", "-n", "shop", "--no-headers")).strip()

    # kubectl waits until the namespace is gone, which needs the controller to empty it.
    assert ok(kubectl("delete", "namespace", "shop", "--timeout=60s")).strip() == 'namespace "shop" deleted'
    assert _namespace(kubectl, "shop") is None
    for kind in ("deployments", "replicasets", "pods", "configmaps", "services", "endpoints", "events"):
        assert kubectl("get", kind, "-n", "shop", "--no-headers", "--ignore-not-found").stdout.strip() == "", kind
    # Its Pods terminated gracefully on their nodes; nothing of it is left on any node.
    assert "shop" not in ok(kubectl("get", "pods", "-A", "--no-headers"))


def test_terminating_namespace_refuses_new_objects_until_its_content_is_gone(kubectl: Kubectl, tmp_path: Path):
    ok(kubectl("create", "namespace", "held"))
    held = tmp_path / "held.yaml"
    held.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\n  namespace: held\n"
        "  finalizers: [example.com/hold]\ndata: {a: b}\n"
    )
    ok(kubectl("apply", "-f", str(held)))

    out = ok(kubectl("delete", "namespace", "held", "--wait=false"))
    assert out.strip() == 'namespace "held" deleted'
    rows = ok(kubectl("get", "namespace", "held", "--no-headers")).split()
    assert rows[:2] == ["held", "Terminating"]

    refused = kubectl("create", "configmap", "late", "-n", "held", "--from-literal=x=y")
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        'error: failed to create configmap: configmaps "late" is forbidden: '
        "unable to create new content in namespace held because it is being terminated"
    )
    again = kubectl("delete", "namespace", "held", "--wait=false")
    assert again.returncode == 1
    assert "The system is ensuring all content is removed from this namespace." in again.stderr

    # The controller reports what holds the namespace, as upstream's conditions say it.
    def reported() -> bool:
        ns = _namespace(kubectl, "held")
        return ns is not None and _conditions(ns).get("NamespaceFinalizersRemaining", {}).get("status") == "True"

    assert wait_until(reported)
    conditions = _conditions(_namespace(kubectl, "held") or {})
    assert conditions["NamespaceContentRemaining"]["message"] == (
        "Some resources are remaining: configmaps. has 1 resource instances"
    )
    assert conditions["NamespaceFinalizersRemaining"]["message"] == (
        "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances"
    )
    assert conditions["NamespaceDeletionContentFailure"]["status"] == "False"
    described = ok(kubectl("describe", "namespace", "held"))
    assert "Status:       Terminating" in described

    # Releasing the finalizer lets the configmap go, and then the namespace.
    ok(kubectl("patch", "configmap", "keep", "-n", "held", "--type=merge", "-p", '{"metadata":{"finalizers":null}}'))
    assert wait_until(lambda: _namespace(kubectl, "held") is None)


def test_system_namespaces_may_not_be_deleted(kubectl: Kubectl):
    for name in ("default", "kube-system", "kube-public"):
        result = kubectl("delete", "namespace", name, "--wait=false")
        assert result.returncode == 1
        assert result.stderr.strip() == (
            f'Error from server (Forbidden): namespaces "{name}" is forbidden: this namespace may not be deleted'
        )


def test_python_client_watches_a_namespace_terminate_and_go(live: LiveServer):
    config = client.Configuration(host=live.cluster_url("demo"))
    with client.ApiClient(config) as api_client:
        core = client.CoreV1Api(api_client)
        core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="pyns")))
        held = client.V1ObjectMeta(name="c", finalizers=["example.com/hold"])
        core.create_namespaced_config_map("pyns", client.V1ConfigMap(metadata=held, data={"k": "v"}))
        start = core.read_namespace("pyns").metadata.resource_version
        core.delete_namespace("pyns")
        assert core.read_namespace("pyns").status.phase == "Terminating"
        with pytest.raises(ApiException) as refused:
            core.create_namespaced_config_map("pyns", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="d")))
        assert refused.value.status == 403
        cause = json.loads(refused.value.body)["details"]["causes"][0]
        assert cause == {"reason": "NamespaceTerminating", "message": "namespace pyns is being terminated",
                         "field": "metadata.namespace"}
        core.patch_namespaced_config_map("c", "pyns", {"metadata": {"finalizers": None}})
        seen = []
        for event in watch.Watch().stream(
            core.list_namespace, field_selector="metadata.name=pyns", resource_version=start, timeout_seconds=30
        ):
            seen.append((event["type"], event["object"].status.phase))
            if event["type"] == "DELETED":
                break
        assert seen[0] == ("MODIFIED", "Terminating")
        assert seen[-1][0] == "DELETED"
