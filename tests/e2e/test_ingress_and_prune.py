"""Ingresses through the real kubectl (create's protobuf body, get -o wide, describe, delete), and
``kubectl apply --prune`` on kubectl's default allow-list, which names networking.k8s.io Ingresses."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Kubectl
from tests.e2e.test_kubectl import ok
from tests.livesim import LiveServer


@pytest.fixture(scope="module")
def ingress_cluster(live: LiveServer) -> str:
    """A cluster of this module's own: pruning deletes what the applied files no longer hold."""
    created = live.manage("createcluster", "inglab", "--nodes", "1")
    assert created.returncode == 0, created.stderr
    return "inglab"


@pytest.fixture
def kubectl(kubectl_binary: str, live: LiveServer, tmp_path: Path, ingress_cluster: str) -> Kubectl:
    return Kubectl(kubectl_binary, live.cluster_url(ingress_cluster), tmp_path)


def test_create_get_describe_and_delete_an_ingress(kubectl: Kubectl):
    assert ok(kubectl("create", "ingress", "simple", "--rule=foo.com/bar=svc1:8080")).strip() == (
        "ingress.networking.k8s.io/simple created"
    )
    stored = ok(kubectl("get", "ingress", "simple", "-o",
                        "jsonpath={.spec.rules[0].host} {.spec.rules[0].http.paths[0].path} "
                        "{.spec.rules[0].http.paths[0].pathType} {.spec.rules[0].http.paths[0].backend.service.name} "
                        "{.spec.rules[0].http.paths[0].backend.service.port.number} {.metadata.generation}"))
    assert stored == "foo.com /bar Exact svc1 8080 1"

    table = ok(kubectl("get", "ing", "-o", "wide")).splitlines()
    assert table[0].split() == ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"]
    assert table[1].split()[:4] == ["simple", "<none>", "foo.com", "80"]

    described = ok(kubectl("describe", "ingress", "simple"))
    assert "Name:             simple" in described
    assert "Ingress Class:    <none>" in described
    assert "foo.com" in described and "/bar   svc1:8080" in described

    assert ok(kubectl("get", "ingressclasses")).strip() == ""
    assert ok(kubectl("delete", "ingress", "simple")).strip() == 'ingress.networking.k8s.io "simple" deleted'
    missing = kubectl("get", "ingress", "simple")
    assert missing.returncode == 1
    assert 'ingresses.networking.k8s.io "simple" not found' in missing.stderr


def test_create_ingress_with_a_class_a_default_backend_tls_and_a_named_port(kubectl: Kubectl):
    ok(kubectl("create", "ingress", "secure", "--class=nginx", "--default-backend=web:80",
               "--rule=secure.com/*=svc2:https,tls=cert", "--annotation=team=blue"))
    stored = ok(kubectl("get", "ingress", "secure", "-o",
                        "jsonpath={.spec.ingressClassName} {.spec.defaultBackend.service.name}:"
                        "{.spec.defaultBackend.service.port.number} {.spec.tls[0].hosts[0]}={.spec.tls[0].secretName} "
                        "{.spec.rules[0].http.paths[0].pathType} {.spec.rules[0].http.paths[0].path} "
                        "{.spec.rules[0].http.paths[0].backend.service.port.name} {.metadata.annotations.team}"))
    assert stored == "nginx web:80 secure.com=cert Prefix / https blue"
    row = ok(kubectl("get", "ingress", "secure", "--no-headers")).split()
    assert row[:3] == ["secure", "nginx", "secure.com"] and row[3:5] == ["80,", "443"]
    ok(kubectl("delete", "ingress", "secure"))


def test_a_refused_ingress_names_upstreams_reason(kubectl: Kubectl):
    refused = kubectl("create", "ingress", "bad", "--rule=*/bar=svc1:8080")
    assert refused.returncode == 1
    assert 'spec.rules[0].host: Invalid value: "*": a wildcard DNS-1123 subdomain must start with' in refused.stderr
    assert kubectl("get", "ingress", "bad").returncode == 1


INGRESS_CLASS = """apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: external
  annotations: {ingressclass.kubernetes.io/is-default-class: "true"}
spec:
  controller: example.com/ingress-controller
  parameters: {apiGroup: k8s.example.com, kind: IngressParameters, name: external-lb}
"""


def test_an_ingress_class_through_kubectl_becomes_the_default(kubectl: Kubectl, tmp_path: Path):
    manifest = tmp_path / "class.yaml"
    manifest.write_text(INGRESS_CLASS)
    ok(kubectl("apply", "-f", str(manifest)))
    table = ok(kubectl("get", "ingressclass")).splitlines()
    assert table[0].split() == ["NAME", "CONTROLLER", "PARAMETERS", "AGE"]
    assert table[1].split()[:3] == ["external", "example.com/ingress-controller",
                                    "IngressParameters.k8s.example.com/external-lb"]
    described = ok(kubectl("describe", "ingressclass", "external"))
    assert "Controller:   example.com/ingress-controller" in described
    assert described.split("\n")[4:8] == [
        "Parameters:", "  APIGroup:  k8s.example.com", "  Kind:      IngressParameters", "  Name:      external-lb",
    ]
    ok(kubectl("create", "ingress", "classless", "--rule=foo.com/=svc1:80"))
    assert ok(kubectl("get", "ingress", "classless", "-o", "jsonpath={.spec.ingressClassName}")) == "external"
    ok(kubectl("delete", "ingress", "classless"))
    ok(kubectl("delete", "-f", str(manifest)))


PRUNED = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {name}
  namespace: prune
  labels: {{app: pruned}}
data: {{k: v}}
"""

INGRESS = """apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {name}
  namespace: prune
  labels: {{app: pruned}}
spec:
  defaultBackend:
    service: {{name: web, port: {{number: 80}}}}
"""


def test_apply_prune_on_the_default_allow_list_removes_what_the_files_dropped(kubectl: Kubectl, tmp_path: Path):
    ok(kubectl("create", "namespace", "prune"))
    files = tmp_path / "manifests"
    files.mkdir()
    (files / "kept.yaml").write_text(PRUNED.format(name="kept"))
    (files / "dropped.yaml").write_text(PRUNED.format(name="dropped"))
    (files / "ingress.yaml").write_text(INGRESS.format(name="front"))
    ok(kubectl("apply", "-f", str(files)))
    assert ok(kubectl("get", "cm,ing", "-n", "prune", "-l", "app=pruned", "-o", "name")).split() == [
        "configmap/dropped", "configmap/kept", "ingress.networking.k8s.io/front",
    ]

    (files / "dropped.yaml").unlink()
    (files / "ingress.yaml").unlink()
    result = kubectl("apply", "--prune", "-l", "app=pruned", "-f", str(files))
    assert result.returncode == 0, result.stderr
    assert "configmap/kept unchanged" in result.stdout
    assert "configmap/dropped pruned" in result.stdout
    assert "ingress.networking.k8s.io/front pruned" in result.stdout
    assert ok(kubectl("get", "cm,ing", "-n", "prune", "-l", "app=pruned", "-o", "name")).split() == ["configmap/kept"]
    ok(kubectl("delete", "namespace", "prune", "--wait=false"))
