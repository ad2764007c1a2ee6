"""Memory limits through the real kubectl: a container over its limit is OOMKilled, as in Kubernetes' own exercise."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import Kubectl
from tests.e2e.test_kubectl import ok
from tests.livesim import wait_until


def _stress(name: str, vm_bytes: str, limit: str, policy: str = "Always") -> str:
    """The memory exercise of the Kubernetes documentation (memory-demo-2)."""
    return json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {
            "restartPolicy": policy,
            "containers": [{
                "name": "memory-demo-ctr", "image": "polinux/stress",
                "resources": {"requests": {"memory": "50Mi"}, "limits": {"memory": limit}},
                "command": ["stress"], "args": ["--vm", "1", "--vm-bytes", vm_bytes, "--vm-hang", "1"],
            }],
        },
    })


def _status(kubectl: Kubectl, name: str) -> dict[str, Any]:
    return json.loads(ok(kubectl("get", "pod", name, "-o", "json")))["status"]


def test_a_container_over_its_memory_limit_is_oom_killed_and_restarted(kubectl: Kubectl):
    ok(kubectl("apply", "-f", "-", stdin=_stress("memory-demo-2", "250M", "100Mi")))

    def killed_twice() -> bool:
        statuses = _status(kubectl, "memory-demo-2").get("containerStatuses") or [{}]
        return statuses[0].get("restartCount", 0) >= 2

    assert wait_until(killed_twice, 60)
    container = _status(kubectl, "memory-demo-2")["containerStatuses"][0]
    last = container["lastState"]["terminated"]
    assert (last["reason"], last["exitCode"]) == ("OOMKilled", 137)
    describe = ok(kubectl("describe", "pod", "memory-demo-2"))
    last_state = describe.split("Last State:", 1)[1]
    assert "Reason:       OOMKilled" in last_state and "Exit Code:    137" in last_state
    ok(kubectl("delete", "pod", "memory-demo-2", "--wait=false"))


def test_a_pod_that_never_restarts_fails_as_oom_killed(kubectl: Kubectl):
    ok(kubectl("apply", "-f", "-", stdin=_stress("memory-once", "250M", "100Mi", policy="Never")))
    assert wait_until(lambda: _status(kubectl, "memory-once").get("phase") == "Failed", 60)
    terminated = _status(kubectl, "memory-once")["containerStatuses"][0]["state"]["terminated"]
    assert (terminated["reason"], terminated["exitCode"]) == ("OOMKilled", 137)
    assert ok(kubectl("get", "pod", "memory-once", "--no-headers")).split()[2] == "OOMKilled"
    ok(kubectl("delete", "pod", "memory-once", "--wait=false"))


def test_a_container_within_its_limit_runs_and_top_shows_what_it_holds(kubectl: Kubectl):
    ok(kubectl("apply", "-f", "-", stdin=_stress("memory-demo", "50M", "100Mi")))
    assert wait_until(lambda: _status(kubectl, "memory-demo").get("phase") == "Running", 60)
    assert _status(kubectl, "memory-demo")["containerStatuses"][0]["restartCount"] == 0
    row = ok(kubectl("top", "pod", "memory-demo", "--no-headers")).split()
    assert row[0] == "memory-demo" and row[2] == "50Mi"
    ok(kubectl("delete", "pod", "memory-demo", "--wait=false"))
