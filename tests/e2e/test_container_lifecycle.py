"""Containers that end, crash and restart, and what they print: through the real kubectl."""

from __future__ import annotations

import re

from tests.conftest import Kubectl
from tests.e2e.test_kubectl import ok
from tests.livesim import wait_until


def _jsonpath(kubectl: Kubectl, pod: str, path: str) -> str:
    return kubectl("get", "pod", pod, "-o", f"jsonpath={path}").stdout


GO_DURATIONS = {10: "10s", 20: "20s", 40: "40s", 80: "1m20s", 160: "2m40s", 300: "5m0s"}


def test_a_failing_container_goes_to_crash_loop_back_off_with_a_growing_back_off(kubectl: Kubectl):
    ok(kubectl("run", "crasher", "--image=busybox", "--restart=Always", "--", "false"))

    def looping() -> bool:
        return _jsonpath(kubectl, "crasher", "{.status.containerStatuses[0].state.waiting.reason}") == "CrashLoopBackOff" \
            and int(_jsonpath(kubectl, "crasher", "{.status.containerStatuses[0].restartCount}") or 0) >= 3

    assert wait_until(looping, 60)
    # One read of both, or a restart in between would pair a count with the next back-off.
    both = _jsonpath(kubectl, "crasher", "{.status.containerStatuses[0].restartCount}|{.status.containerStatuses[0].state.waiting.message}")
    restarts, message = int(both.split("|", 1)[0]), both.split("|", 1)[1]
    # The first restart is immediate, then 10 s doubling: after n restarts the back-off is 10 s x 2^(n-1), at most 5 min.
    expected = GO_DURATIONS[min(10 * 2 ** (restarts - 1), 300)]
    assert re.match(rf"back-off {expected} restarting failed container=crasher pod=crasher_default\(", message), message
    row = ok(kubectl("get", "pod", "crasher", "--no-headers")).split()
    assert row[2] == "CrashLoopBackOff"
    assert int(row[3]) >= 3 and row[4].startswith("(")  # RESTARTS: "4 (12s ago)"
    assert _jsonpath(kubectl, "crasher", "{.status.containerStatuses[0].lastState.terminated.reason}") == "Error"
    assert _jsonpath(kubectl, "crasher", "{.status.containerStatuses[0].lastState.terminated.exitCode}") == "1"
    events = ok(kubectl("get", "events", "--field-selector", "involvedObject.name=crasher,reason=BackOff", "--no-headers"))
    assert "Back-off restarting failed container crasher in pod crasher_default(" in events
    ok(kubectl("delete", "pod", "crasher", "--wait=false"))


def test_an_echo_completes_and_its_logs_print_it(kubectl: Kubectl):
    ok(kubectl("run", "echoer", "--image=busybox", "--restart=Never", "--", "echo", "hello"))
    assert wait_until(lambda: _jsonpath(kubectl, "echoer", "{.status.phase}") == "Succeeded")
    assert ok(kubectl("get", "pod", "echoer", "--no-headers")).split()[2] == "Completed"
    assert ok(kubectl("logs", "echoer")) == "hello\n"
    stamped = ok(kubectl("logs", "echoer", "--timestamps"))
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z hello\n", stamped)
    previous = kubectl("logs", "echoer", "--previous")
    assert previous.returncode == 1
    assert 'previous terminated container "echoer" in pod "echoer" not found' in previous.stderr
    ok(kubectl("delete", "pod", "echoer", "--wait=false"))


def test_a_shell_script_prints_its_environment_and_a_server_its_start_up(kubectl: Kubectl):
    ok(kubectl("run", "scripted", "--image=busybox", "--restart=Never", "--env=GREETING=hi",
               "--", "sh", "-c", "echo $GREETING from $HOSTNAME; sleep 2; echo done; exit 3"))
    assert wait_until(lambda: _jsonpath(kubectl, "scripted", "{.status.phase}") == "Failed")
    assert ok(kubectl("logs", "scripted")) == "hi from scripted\ndone\n"
    assert _jsonpath(kubectl, "scripted", "{.status.containerStatuses[0].state.terminated.exitCode}") == "3"
    assert ok(kubectl("get", "pod", "scripted", "--no-headers")).split()[2] == "Error"

    ok(kubectl("run", "web", "--image=nginx:1.27"))
    assert wait_until(lambda: _jsonpath(kubectl, "web", "{.status.phase}") == "Running")
    logs = ok(kubectl("logs", "web"))
    assert "Configuration complete; ready for start up" in logs and "start worker processes" in logs
    assert ok(kubectl("logs", "web", "--tail=1")).count("\n") == 1
    waiting = kubectl("logs", "nowhere")
    assert waiting.returncode == 1 and 'pods "nowhere" not found' in waiting.stderr
    for name in ("scripted", "web"):
        ok(kubectl("delete", "pod", name, "--wait=false"))


def test_busybox_without_a_command_completes_then_restarts(kubectl: Kubectl):
    ok(kubectl("run", "idle", "--image=busybox"))
    assert wait_until(lambda: int(_jsonpath(kubectl, "idle", "{.status.containerStatuses[0].restartCount}") or 0) >= 2)
    assert _jsonpath(kubectl, "idle", "{.status.containerStatuses[0].lastState.terminated.reason}") == "Completed"
    assert _jsonpath(kubectl, "idle", "{.status.phase}") == "Running"
    ok(kubectl("delete", "pod", "idle", "--wait=false"))
