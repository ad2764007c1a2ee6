"""APIServices through the real kubectl: the Local ones every cluster has, and an extension API server's
registration judged as the aggregator judges it, step by step as its Service and Endpoints appear."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Kubectl
from tests.e2e.test_kubectl import ok
from tests.livesim import LiveServer, wait_until

WARDLE = """\
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1alpha1.wardle.example.com
spec:
  group: wardle.example.com
  version: v1alpha1
  groupPriorityMinimum: 1000
  versionPriority: 15
  insecureSkipTLSVerify: true
  service:
    name: api
    namespace: wardle
"""


@pytest.fixture(scope="module")
def aggregator_cluster(live: LiveServer) -> str:
    created = live.manage("createcluster", "agglab", "--nodes", "1")
    assert created.returncode == 0, created.stderr
    return "agglab"


@pytest.fixture
def kubectl(kubectl_binary: str, live: LiveServer, tmp_path: Path, aggregator_cluster: str) -> Kubectl:
    return Kubectl(kubectl_binary, live.cluster_url(aggregator_cluster), tmp_path)


def available(kubectl: Kubectl, name: str) -> str:
    """The AVAILABLE column of one APIService."""
    return ok(kubectl("get", "apiservice", name, "--no-headers")).split(None, 2)[2].rsplit(None, 1)[0].strip()


def test_every_served_group_version_has_a_local_available_api_service(kubectl: Kubectl):
    rows = [line.split() for line in ok(kubectl("get", "apiservices")).splitlines()]
    assert rows[0] == ["NAME", "SERVICE", "AVAILABLE", "AGE"]
    names = {row[0]: row[1:3] for row in rows[1:]}
    for name in ("v1.", "v1.apps", "v1.batch", "v2.autoscaling", "v1.apiregistration.k8s.io",
                 "v1.rbac.authorization.k8s.io", "v1.networking.k8s.io"):
        assert names[name] == ["Local", "True"], name
    spec = ok(kubectl("get", "apiservice", "v1.apps", "-o",
                      "jsonpath={.spec.group} {.spec.version} {.spec.groupPriorityMinimum} {.spec.versionPriority} "
                      "{.metadata.labels.kube-aggregator\\.kubernetes\\.io/automanaged} "
                      "{.status.conditions[0].reason}: {.status.conditions[0].message}"))
    assert spec == "apps v1 17800 15 onstart Local: Local APIServices are always available"


def test_an_extension_server_is_unavailable_until_its_service_answers(kubectl: Kubectl, tmp_path: Path):
    (tmp_path / "wardle.yaml").write_text(WARDLE)
    assert ok(kubectl("apply", "-f", str(tmp_path / "wardle.yaml"))).strip() == (
        "apiservice.apiregistration.k8s.io/v1alpha1.wardle.example.com created"
    )
    name = "v1alpha1.wardle.example.com"
    assert wait_until(lambda: available(kubectl, name) == "False (ServiceNotFound)")
    assert ok(kubectl("get", "apiservice", name, "--no-headers")).split()[1] == "wardle/api"
    message = ok(kubectl("get", "apiservice", name, "-o", "jsonpath={.status.conditions[0].message}"))
    assert message == 'service/api in "wardle" is not present'
    assert ok(kubectl("get", "apiservice", name, "-o", "jsonpath={.spec.service.port}")) == "443"

    ok(kubectl("create", "namespace", "wardle"))
    ok(kubectl("create", "service", "clusterip", "api", "-n", "wardle", "--tcp=8443:443"))
    assert wait_until(lambda: available(kubectl, name) == "False (ServicePortError)")
    ok(kubectl("delete", "service", "api", "-n", "wardle"))
    ok(kubectl("create", "service", "clusterip", "api", "-n", "wardle", "--tcp=443:8443"))
    assert wait_until(lambda: available(kubectl, name) in ("False (MissingEndpoints)", "False (EndpointsNotFound)"))

    ok(kubectl("run", "wardle-server", "-n", "wardle", "--image=registry.k8s.io/sample-apiserver:1.0",
               "--labels=app=api"))
    ok(kubectl("set", "selector", "service", "api", "-n", "wardle", "app=api"))
    assert wait_until(lambda: available(kubectl, name) == "False (FailedDiscoveryCheck)")
    message = ok(kubectl("get", "apiservice", name, "-o", "jsonpath={.status.conditions[0].message}"))
    cluster_ip = ok(kubectl("get", "service", "api", "-n", "wardle", "-o", "jsonpath={.spec.clusterIP}"))
    url = f"https://{cluster_ip}:443/apis/wardle.example.com/v1alpha1"
    assert message == (f'failing or missing response from {url}: Get "{url}": '
                       f"dial tcp {cluster_ip}:443: connect: connection refused")

    assert ok(kubectl("delete", "apiservice", name)).strip() == (
        f'apiservice.apiregistration.k8s.io "{name}" deleted'
    )


def test_an_api_service_named_other_than_version_dot_group_is_refused(kubectl: Kubectl, tmp_path: Path):
    (tmp_path / "bad.yaml").write_text(WARDLE.replace("name: v1alpha1.wardle.example.com", "name: wardle")
                                       .replace("versionPriority: 15", "versionPriority: 0"))
    refused = kubectl("apply", "-f", str(tmp_path / "bad.yaml"))
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        'The APIService "wardle" is invalid: \n'
        '* metadata.name: Invalid value: "wardle": must be `spec.version+"."+spec.group`: "v1alpha1.wardle.example.com"\n'
        "* spec.versionPriority: Invalid value: 0: must be positive and less than 1000"
    )
