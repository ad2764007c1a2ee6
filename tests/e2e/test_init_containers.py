"""Init containers and sidecars through the real kubectl: in order, to success, before the app containers."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import Kubectl
from tests.e2e.test_control_plane import patch_simulation
from tests.e2e.test_kubectl import ok
from tests.livesim import wait_until


def _pod(name: str, inits: list[dict[str, Any]], containers: list[dict[str, Any]], policy: str = "Always") -> str:
    return json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"restartPolicy": policy, "initContainers": inits, "containers": containers},
    })


def _busybox(name: str, script: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "image": "busybox", "command": ["sh", "-c", script], **extra}


WEB = {"name": "web", "image": "nginx"}


def _get(kubectl: Kubectl, name: str) -> dict[str, Any]:
    return json.loads(ok(kubectl("get", "pod", name, "-o", "json")))


def _status_column(kubectl: Kubectl, name: str) -> list[str]:
    return ok(kubectl("get", "pod", name, "--no-headers")).split()


def _init_state(kubectl: Kubectl, name: str) -> dict[str, Any]:
    statuses = _get(kubectl, name)["status"].get("initContainerStatuses") or [{}]
    return statuses[0].get("state") or {}


def _condition(pod: dict[str, Any], type_: str) -> dict[str, Any]:
    return next(c for c in pod["status"]["conditions"] if c["type"] == type_)


def test_init_containers_run_in_order_to_success_before_the_app_container(kubectl: Kubectl):
    inits = [_busybox("init-db", "echo waiting for the database; sleep 5"), _busybox("init-cache", "sleep 3")]
    ok(kubectl("apply", "-f", "-", stdin=_pod("ordered", inits, [WEB])))
    assert wait_until(lambda: _get(kubectl, "ordered")["status"].get("phase") == "Running", 60)
    pod = _get(kubectl, "ordered")
    first, second = (s["state"]["terminated"] for s in pod["status"]["initContainerStatuses"])
    assert [s["name"] for s in pod["status"]["initContainerStatuses"]] == ["init-db", "init-cache"]
    assert first["reason"] == second["reason"] == "Completed" and first["exitCode"] == second["exitCode"] == 0
    assert all(s["ready"] for s in pod["status"]["initContainerStatuses"])
    # One after the other, then the app container.
    assert first["finishedAt"] <= second["startedAt"]
    web = pod["status"]["containerStatuses"][0]["state"]["running"]
    assert second["finishedAt"] <= web["startedAt"]
    assert _condition(pod, "Initialized")["status"] == "True"
    assert _status_column(kubectl, "ordered")[1:3] == ["1/1", "Running"]
    assert ok(kubectl("logs", "ordered", "-c", "init-db")) == "waiting for the database\n"
    assert "one of the init containers: [init-db init-cache]" not in kubectl("logs", "ordered").stderr  # one app container
    describe = ok(kubectl("describe", "pod", "ordered"))
    init_part = describe.split("Init Containers:", 1)[1].split("\nContainers:", 1)[0]
    assert "init-db:" in init_part and "Reason:       Completed" in init_part
    started = [line for line in describe.split("\nEvents:", 1)[1].splitlines() if "Started" in line]
    assert [line.split()[-1] for line in started] == ["init-db", "init-cache", "web"]
    assert "spec.initContainers{init-db}" in ok(kubectl(
        "get", "events", "--field-selector", "involvedObject.name=ordered,reason=Started",
        "-o", "jsonpath={.items[*].involvedObject.fieldPath}",
    ))
    ok(kubectl("delete", "pod", "ordered", "--wait=false"))


def test_a_pod_waits_as_init_while_its_init_container_runs(kubectl: Kubectl):
    patch_simulation(kubectl, {"mode": "live", "speed": 1})
    try:
        ok(kubectl("apply", "-f", "-", stdin=_pod("slowinit", [_busybox("migrate", "sleep 600")], [WEB])))
        # Its image pulled, the init container runs (before, it waits as PodInitializing too).
        assert wait_until(lambda: "running" in _init_state(kubectl, "slowinit"), 60)
        assert _status_column(kubectl, "slowinit")[2] == "Init:0/1"
        pod = _get(kubectl, "slowinit")
        assert pod["status"]["phase"] == "Pending"
        initialized = _condition(pod, "Initialized")
        assert (initialized["status"], initialized["reason"]) == ("False", "ContainersNotInitialized")
        assert initialized["message"] == "containers with incomplete status: [migrate]"
        assert pod["status"]["containerStatuses"][0]["state"] == {"waiting": {"reason": "PodInitializing"}}
    finally:
        patch_simulation(kubectl, {"mode": "fast-forward"})
    assert wait_until(lambda: _status_column(kubectl, "slowinit")[2] == "Running", 60)
    ok(kubectl("delete", "pod", "slowinit", "--wait=false"))


def test_a_failed_init_container_fails_a_pod_that_never_restarts(kubectl: Kubectl):
    inits = [_busybox("check", "echo the schema is missing; exit 3")]
    ok(kubectl("apply", "-f", "-", stdin=_pod("badinit", inits, [_busybox("app", "echo never")], policy="Never")))
    assert wait_until(lambda: _get(kubectl, "badinit")["status"].get("phase") == "Failed", 60)
    pod = _get(kubectl, "badinit")
    check = pod["status"]["initContainerStatuses"][0]["state"]["terminated"]
    assert (check["reason"], check["exitCode"]) == ("Error", 3)
    assert pod["status"]["containerStatuses"][0]["state"] == {"waiting": {"reason": "PodInitializing"}}
    assert _status_column(kubectl, "badinit")[2] == "Init:Error"
    assert ok(kubectl("logs", "badinit", "-c", "check")) == "the schema is missing\n"
    reasons = ok(kubectl("get", "events", "--field-selector", "involvedObject.name=badinit",
                         "-o", "jsonpath={range .items[*]}{.reason}/{.message}{'\\n'}{end}"))
    assert "Started/Started container check" in reasons and "Started container app" not in reasons
    ok(kubectl("delete", "pod", "badinit", "--wait=false"))


def test_a_failing_init_container_is_restarted_with_a_back_off(kubectl: Kubectl):
    ok(kubectl("apply", "-f", "-", stdin=_pod("loopinit", [_busybox("fail", "exit 1")], [WEB])))

    def looping() -> bool:
        # kubectl's row in one read: in fast-forward the back-off may end between two reads.
        row = _status_column(kubectl, "loopinit")
        return row[2] == "Init:CrashLoopBackOff" and int(row[3]) >= 2

    assert wait_until(looping, 60)
    pod = _get(kubectl, "loopinit")
    assert pod["status"]["phase"] == "Pending"
    assert _condition(pod, "Initialized")["message"] == "containers with incomplete status: [fail]"
    assert "web" not in ok(kubectl("get", "events", "--field-selector", "involvedObject.name=loopinit,reason=Started",
                                   "-o", "jsonpath={.items[*].message}"))
    ok(kubectl("delete", "pod", "loopinit", "--wait=false"))


def test_a_sidecar_runs_beside_the_app_and_does_not_keep_a_finished_pod_running(kubectl: Kubectl):
    shipper = _busybox("shipper", "while true; do echo shipping logs; sleep 5; done", restartPolicy="Always")
    ok(kubectl("apply", "-f", "-", stdin=_pod("withsidecar", [shipper], [WEB])))
    assert wait_until(lambda: _status_column(kubectl, "withsidecar")[1:3] == ["2/2", "Running"], 60)
    pod = _get(kubectl, "withsidecar")
    assert "running" in pod["status"]["initContainerStatuses"][0]["state"]
    assert ok(kubectl("logs", "withsidecar", "-c", "shipper")).startswith("shipping logs\n")

    # A Pod meant to end: its app container's success ends it, the sidecar with it.
    ok(kubectl("apply", "-f", "-", stdin=_pod("batch", [shipper], [_busybox("job", "echo done")], policy="Never")))
    assert wait_until(lambda: _get(kubectl, "batch")["status"].get("phase") == "Succeeded", 60)
    assert _status_column(kubectl, "batch")[2] == "Completed"
    ok(kubectl("delete", "pod", "withsidecar", "batch", "--wait=false"))
