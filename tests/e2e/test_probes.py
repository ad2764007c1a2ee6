"""Liveness, readiness and startup probes: through the real kubectl against the live server in fast-forward."""

from __future__ import annotations

import json
from datetime import datetime

from tests.conftest import Kubectl
from tests.e2e.test_kubectl import ok
from tests.livesim import wait_until


def _pod(
    name: str,
    container: dict[str, object],
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
) -> str:
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "labels": labels or {}, "annotations": annotations or {}},
            "spec": {"containers": [container]},
        }
    )


def _jsonpath(kubectl: Kubectl, kind: str, name: str, path: str) -> str:
    return kubectl("get", kind, name, "-o", f"jsonpath={path}").stdout


def _restarts(kubectl: Kubectl, pod: str) -> int:
    return int(_jsonpath(kubectl, "pod", pod, "{.status.containerStatuses[0].restartCount}") or 0)


def _events(kubectl: Kubectl, pod: str) -> str:
    return ok(
        kubectl(
            "get",
            "events",
            "--field-selector",
            f"involvedObject.name={pod}",
            "-o",
            "custom-columns=TYPE:.type,REASON:.reason,MESSAGE:.message",
            "--no-headers",
        )
    )


def test_the_docs_liveness_exec_example_restarts_its_container_with_the_real_events(kubectl: Kubectl):
    container = {
        "name": "liveness",
        "image": "registry.k8s.io/busybox",
        "args": ["/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"],
        "livenessProbe": {"exec": {"command": ["cat", "/tmp/healthy"]}, "initialDelaySeconds": 5, "periodSeconds": 5},
    }
    ok(kubectl("apply", "-f", "-", stdin=_pod("liveness-exec", container)))

    # The restart count grows: at once after the first kill, then after the kubelet's back-off.
    assert wait_until(lambda: _restarts(kubectl, "liveness-exec") >= 2, 90)
    events = _events(kubectl, "liveness-exec")
    assert (
        "Warning   Unhealthy   Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory"
        in events
    )
    assert "Normal    Killing     Container liveness failed liveness probe, will be restarted" in events
    assert events.index("Liveness probe failed") < events.index("failed liveness probe, will be restarted")
    last = "{.status.containerStatuses[0].lastState.terminated}"
    terminated = json.loads(_jsonpath(kubectl, "pod", "liveness-exec", last))
    assert terminated["exitCode"] == 137 and terminated["reason"] == "Error"
    described = ok(kubectl("describe", "pod", "liveness-exec"))
    assert "Liveness:       exec [cat /tmp/healthy] delay=5s timeout=1s period=5s #success=1 #failure=3" in described
    ok(kubectl("delete", "pod", "liveness-exec", "--wait=false"))


def test_a_failing_readiness_probe_takes_the_pod_out_of_its_service_and_a_passing_one_brings_it_back(kubectl: Kubectl):
    container = {
        "name": "web",
        "image": "nginx:1.27",
        "ports": [{"containerPort": 80}],
        "readinessProbe": {"httpGet": {"path": "/", "port": 80}, "periodSeconds": 5},
    }
    ok(kubectl("apply", "-f", "-", stdin=_pod("ready-web", container, {"app": "ready-web"})))
    ok(kubectl("create", "service", "clusterip", "ready-web", "--tcp=80:80"))

    def ready_column() -> str:
        row = kubectl("get", "pod", "ready-web", "--no-headers").stdout.split()
        return row[1] if row else ""

    def addresses(field: str) -> str:
        return _jsonpath(kubectl, "endpoints", "ready-web", f"{{.subsets[0].{field}[*].targetRef.name}}")

    assert wait_until(lambda: ready_column() == "1/1" and addresses("addresses") == "ready-web", 60)

    # The lesson makes the readiness probe fail: the Pod stays Running but leaves the Service's ready addresses.
    ok(kubectl("annotate", "pod", "ready-web", "clusterviz.io/probe-fail=readiness"))
    assert wait_until(lambda: addresses("notReadyAddresses") == "ready-web", 60)
    assert ready_column() == "0/1"
    assert _jsonpath(kubectl, "pod", "ready-web", "{.status.phase}") == "Running"
    condition = '{.status.conditions[?(@.type=="Ready")].status}'
    assert _jsonpath(kubectl, "pod", "ready-web", condition) == "False"
    assert _jsonpath(kubectl, "pod", "ready-web", "{.status.containerStatuses[0].ready}") == "false"
    assert "Readiness probe failed: HTTP probe failed with statuscode: 500" in _events(kubectl, "ready-web")
    assert "ready-web" not in addresses("addresses")
    assert _restarts(kubectl, "ready-web") == 0

    # A passing probe brings it back.
    ok(kubectl("annotate", "pod", "ready-web", "clusterviz.io/probe-fail-"))
    assert wait_until(lambda: ready_column() == "1/1" and addresses("addresses") == "ready-web", 60)
    assert _jsonpath(kubectl, "pod", "ready-web", condition) == "True"
    for kind in ("pod", "service"):
        ok(kubectl("delete", kind, "ready-web", "--wait=false"))


def test_a_readiness_probe_that_starts_failing_later_clears_ready(kubectl: Kubectl):
    container = {
        "name": "web",
        "image": "nginx:1.27",
        "readinessProbe": {"httpGet": {"path": "/healthz", "port": 80}, "periodSeconds": 5, "failureThreshold": 2},
    }
    ok(
        kubectl(
            "apply", "-f", "-", stdin=_pod("later-web", container, annotations={"clusterviz.io/unhealthy-after": "40s"})
        )
    )
    condition = '{.status.conditions[?(@.type=="Ready")]}'

    def ready() -> dict[str, str]:
        return json.loads(_jsonpath(kubectl, "pod", "later-web", condition) or "{}")

    # In fast-forward the ready spell passes in a blink: its length is read from the timestamps.
    assert wait_until(lambda: ready().get("status") == "False" and ready().get("reason") == "ContainersNotReady", 60)
    started = _jsonpath(kubectl, "pod", "later-web", "{.status.containerStatuses[0].state.running.startedAt}")
    unready_after = datetime.fromisoformat(ready()["lastTransitionTime"]) - datetime.fromisoformat(started)
    assert 44 <= unready_after.total_seconds() <= 46  # failures at 40 and 45 s reach the threshold of 2
    assert "Readiness probe failed: HTTP probe failed with statuscode: 500" in _events(kubectl, "later-web")
    assert kubectl("get", "pod", "later-web", "--no-headers").stdout.split()[1:3] == ["0/1", "Running"]
    ok(kubectl("delete", "pod", "later-web", "--wait=false"))


def test_a_startup_probe_holds_the_others_back_and_restarts_a_container_that_never_starts(kubectl: Kubectl):
    slow = {
        "name": "slow",
        "image": "busybox",
        "args": ["/bin/sh", "-c", "sleep 20; touch /tmp/started; sleep infinity"],
        "startupProbe": {"exec": {"command": ["cat", "/tmp/started"]}, "periodSeconds": 5, "failureThreshold": 10},
        "livenessProbe": {"exec": {"command": ["cat", "/tmp/started"]}, "periodSeconds": 5},
        "readinessProbe": {"exec": {"command": ["cat", "/tmp/started"]}, "periodSeconds": 5},
    }
    ok(kubectl("apply", "-f", "-", stdin=_pod("slow-start", slow)))
    assert wait_until(
        lambda: _jsonpath(kubectl, "pod", "slow-start", "{.status.containerStatuses[0].ready}") == "true", 60
    )
    assert _jsonpath(kubectl, "pod", "slow-start", "{.status.containerStatuses[0].started}") == "true"
    assert _restarts(kubectl, "slow-start") == 0
    events = _events(kubectl, "slow-start")
    assert "Startup probe failed: cat: can't open '/tmp/started'" in events
    assert "Liveness probe failed" not in events and "Readiness probe failed" not in events  # held back

    never = {
        "name": "never",
        "image": "busybox",
        "args": ["/bin/sh", "-c", "sleep infinity"],
        "startupProbe": {"exec": {"command": ["cat", "/tmp/started"]}, "periodSeconds": 10, "failureThreshold": 3},
    }
    ok(kubectl("apply", "-f", "-", stdin=_pod("never-start", never)))
    assert wait_until(lambda: _restarts(kubectl, "never-start") >= 1, 60)
    assert _jsonpath(kubectl, "pod", "never-start", "{.status.containerStatuses[0].started}") == "false"
    assert "Container never failed startup probe, will be restarted" in _events(kubectl, "never-start")
    for name in ("slow-start", "never-start"):
        ok(kubectl("delete", "pod", name, "--wait=false"))


def test_the_api_server_rejects_probes_as_upstream_does(kubectl: Kubectl):
    container = {
        "name": "web",
        "image": "nginx",
        "livenessProbe": {"httpGet": {"path": "/", "port": 80}, "tcpSocket": {"port": 80}, "successThreshold": 2},
        "readinessProbe": {"tcpSocket": {"port": 80}, "terminationGracePeriodSeconds": 30},
        "startupProbe": {"exec": {"command": ["true"]}, "periodSeconds": -1},
    }
    rejected = kubectl("apply", "-f", "-", stdin=_pod("bad-probes", container))
    assert rejected.returncode == 1
    for line in (
        "spec.containers[0].livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type",
        "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
        "spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 30: "
        "must not be set for readinessProbes",
        "spec.containers[0].startupProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0",
    ):
        assert line in rejected.stderr, rejected.stderr
    assert kubectl("get", "pod", "bad-probes").returncode == 1


def test_probe_fields_are_defaulted_as_upstream_does(kubectl: Kubectl):
    container = {"name": "web", "image": "nginx", "livenessProbe": {"httpGet": {"port": 80}}}
    ok(kubectl("apply", "-f", "-", stdin=_pod("defaulted-probe", container)))
    probe = json.loads(_jsonpath(kubectl, "pod", "defaulted-probe", "{.spec.containers[0].livenessProbe}"))
    assert probe == {
        "httpGet": {"path": "/", "port": 80, "scheme": "HTTP"},
        "timeoutSeconds": 1,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 3,
    }
    ok(kubectl("delete", "pod", "defaulted-probe", "--wait=false"))


def test_the_describe_panel_prints_probes_as_kubectl_describe_does(kubectl: Kubectl):
    from clusterviz.web.describe import describe_pod

    body = json.loads(
        _pod(
            "described-probes",
            {
                "name": "web",
                "image": "nginx",
                "livenessProbe": {"httpGet": {"path": "/healthz", "port": 80}, "initialDelaySeconds": 3},
                "readinessProbe": {"tcpSocket": {"port": 80}, "periodSeconds": 5},
                "startupProbe": {"grpc": {"port": 9090}, "failureThreshold": 30},
            },
        )
    )
    body["spec"]["containers"].append(
        {
            "name": "side",
            "image": "busybox",
            "args": ["sleep", "infinity"],
            "livenessProbe": {"exec": {"command": ["cat", "/tmp/healthy"]}},
        }
    )
    ok(kubectl("apply", "-f", "-", stdin=json.dumps(body)))
    stored = json.loads(ok(kubectl("get", "pod", "described-probes", "-o", "json")))
    panel = str(describe_pod(stored))

    def probe_lines(text: str) -> list[str]:
        return [
            " ".join(line.split())
            for line in text.splitlines()
            if line.strip().split(":")[0] in ("Liveness", "Readiness", "Startup")
        ]

    expected = probe_lines(ok(kubectl("describe", "pod", "described-probes")))
    assert expected == [
        "Liveness: http-get http://:80/healthz delay=3s timeout=1s period=10s #success=1 #failure=3",
        "Readiness: tcp-socket :80 delay=0s timeout=1s period=5s #success=1 #failure=3",
        "Startup: grpc <pod>:9090 delay=0s timeout=1s period=10s #success=1 #failure=30",
        "Liveness: exec [cat /tmp/healthy] delay=0s timeout=1s period=10s #success=1 #failure=3",
    ]
    assert probe_lines(panel) == expected
    ok(kubectl("delete", "pod", "described-probes", "--wait=false"))
