"""ResourceQuotas and LimitRanges through the real kubectl: create quota's protobuf body, the controller's
counts in get and describe, and Pods refused with upstream's messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Kubectl
from tests.e2e.test_kubectl import ok
from tests.livesim import LiveServer, wait_until


@pytest.fixture(scope="module")
def quota_cluster(live: LiveServer) -> str:
    """A cluster of this module's own: its quotas refuse Pods other tests would start."""
    created = live.manage("createcluster", "quotalab", "--nodes", "1")
    assert created.returncode == 0, created.stderr
    return "quotalab"


@pytest.fixture
def kubectl(kubectl_binary: str, live: LiveServer, tmp_path: Path, quota_cluster: str) -> Kubectl:
    return Kubectl(kubectl_binary, live.cluster_url(quota_cluster), tmp_path)


def _quota_row(kubectl: Kubectl, namespace: str) -> list[str]:
    return ok(kubectl("get", "quota", "q1", "-n", namespace, "--no-headers")).split()


def _sized(name: str) -> str:
    """kubectl run's --overrides for a container requesting 100m of cpu."""
    container = {"name": name, "image": "nginx:1.27", "resources": {"requests": {"cpu": "100m"}}}
    return json.dumps({"spec": {"containers": [container]}})


def test_a_quota_counts_pods_and_refuses_the_one_too_many(kubectl: Kubectl):
    ok(kubectl("create", "namespace", "team"))
    assert ok(kubectl("create", "quota", "q1", "-n", "team", "--hard=pods=2,requests.cpu=1")).strip() == (
        "resourcequota/q1 created"
    )
    assert wait_until(lambda: _quota_row(kubectl, "team")[2:] == ["pods:", "0/2,", "requests.cpu:", "0/1"])
    missing = kubectl("run", "bare", "-n", "team", "--image=nginx:1.27")
    assert missing.returncode == 1
    assert 'pods "bare" is forbidden: failed quota: q1: must specify requests.cpu for: bare' in missing.stderr
    for name in ("one", "two"):
        ok(kubectl("run", name, "-n", "team", "--image=nginx:1.27", "--overrides", _sized(name)))
    assert wait_until(lambda: _quota_row(kubectl, "team")[2:] == ["pods:", "2/2,", "requests.cpu:", "200m/1"])
    refused = kubectl("run", "three", "-n", "team", "--image=nginx:1.27", "--overrides", _sized("three"))
    assert refused.returncode == 1
    assert ('pods "three" is forbidden: exceeded quota: q1, requested: pods=1, used: pods=2, limited: pods=2'
            in refused.stderr)
    described = ok(kubectl("describe", "quota", "q1", "-n", "team"))
    assert described.split("\n")[2:5] == ["Resource      Used  Hard", "--------      ----  ----",
                                          "pods          2     2"]
    ok(kubectl("delete", "namespace", "team", "--wait=false"))


LIMITS = """apiVersion: v1
kind: LimitRange
metadata:
  name: limits
  namespace: bounded
spec:
  limits:
  - type: Container
    max: {cpu: "1"}
    defaultRequest: {cpu: 250m}
"""


def test_a_limit_range_defaults_containers_and_refuses_a_limit_above_its_max(kubectl: Kubectl, tmp_path: Path):
    ok(kubectl("create", "namespace", "bounded"))
    manifest = tmp_path / "limits.yaml"
    manifest.write_text(LIMITS)
    ok(kubectl("apply", "-f", str(manifest)))
    table = ok(kubectl("get", "limits", "-n", "bounded")).splitlines()
    assert table[0].split() == ["NAME", "CREATED", "AT"] and table[1].startswith("limits ")
    described = ok(kubectl("describe", "limitrange", "limits", "-n", "bounded"))
    assert "Container   cpu       -    1    250m             1              -" in described
    ok(kubectl("run", "small", "-n", "bounded", "--image=nginx:1.27"))
    resources = ok(kubectl("get", "pod", "small", "-n", "bounded", "-o", "jsonpath={.spec.containers[0].resources}"))
    assert resources == '{"limits":{"cpu":"1"},"requests":{"cpu":"250m"}}'
    big = kubectl("run", "big", "-n", "bounded", "--image=nginx:1.27", "--overrides",
                  '{"spec": {"containers": [{"name": "big", "image": "nginx:1.27", '
                  '"resources": {"limits": {"cpu": "2"}}}]}}')
    assert big.returncode == 1
    assert 'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2' in big.stderr
    ok(kubectl("delete", "namespace", "bounded", "--wait=false"))
