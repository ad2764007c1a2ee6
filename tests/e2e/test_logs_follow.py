"""``kubectl logs -f``: the log streams as the simulated container prints, and ends when it stops."""

from __future__ import annotations

import os
import selectors
import subprocess
from collections.abc import Iterator

import pytest

from tests.conftest import Kubectl
from tests.e2e.test_control_plane import patch_simulation
from tests.e2e.test_kubectl import ok
from tests.livesim import wait_until

SCRIPT = "echo one; sleep 300; echo two; sleep 300; echo three"


@pytest.fixture
def live_clock(kubectl: Kubectl) -> Iterator[None]:
    """Simulated time at wall speed, so a container's 300 s sleep outlasts the start of a follow."""
    patch_simulation(kubectl, {"mode": "live", "speed": 1})
    try:
        yield
    finally:
        patch_simulation(kubectl, {"mode": "fast-forward"})


def _phase(kubectl: Kubectl, pod: str) -> str:
    return kubectl("get", "pod", pod, "-o", "jsonpath={.status.phase}").stdout


def _read_line(proc: subprocess.Popen[str], seconds: float) -> str:
    assert proc.stdout is not None
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        assert sel.select(seconds), "no line within the time"
    return proc.stdout.readline()


def _follow(kubectl: Kubectl, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "HOME": str(kubectl.home), "KUBECONFIG": str(kubectl.home / "kubeconfig")}
    return subprocess.Popen(
        [kubectl.binary, "--server", kubectl.server, "logs", "-f", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )


def test_a_followed_log_prints_each_line_as_the_container_prints_it_and_ends_with_it(kubectl: Kubectl, live_clock: None):
    ok(kubectl("run", "talker", "--image=busybox", "--restart=Never", "--", "sh", "-c", SCRIPT))
    assert wait_until(lambda: _phase(kubectl, "talker") == "Running", 60)
    proc = _follow(kubectl, "talker", "--timestamps")
    try:
        first = _read_line(proc, 30)
        assert first.split(" ", 1)[1] == "one\n" and first.endswith("Z one\n")
        assert proc.poll() is None, "the follow ended while the container still runs"
        assert _phase(kubectl, "talker") == "Running"
        # Fast-forward: the container's two sleeps pass, it prints the rest and exits; so does the follow.
        patch_simulation(kubectl, {"mode": "fast-forward"})
        rest, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert [line.split(" ", 1)[1] for line in rest.splitlines()] == ["two", "three"]
    assert _phase(kubectl, "talker") == "Succeeded"
    ok(kubectl("delete", "pod", "talker", "--wait=false"))


def test_a_followed_log_of_a_server_starts_from_its_tail_and_stays_open(kubectl: Kubectl):
    ok(kubectl("run", "webby", "--image=nginx"))
    assert wait_until(lambda: _phase(kubectl, "webby") == "Running", 60)
    proc = _follow(kubectl, "webby", "--tail=1")
    try:
        assert _read_line(proc, 30) == ok(kubectl("logs", "webby", "--tail=1"))
        with selectors.DefaultSelector() as sel:
            assert proc.stdout is not None
            sel.register(proc.stdout, selectors.EVENT_READ)
            assert not sel.select(1.5), "nothing more is printed by an idle server"
        assert proc.poll() is None, "a server runs on, and so does its followed log"
        ok(kubectl("delete", "pod", "webby", "--wait=false"))
        # Its Pod gone, the log ends.
        proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0


def test_a_followed_log_of_an_ended_container_is_its_whole_log(kubectl: Kubectl):
    ok(kubectl("run", "once", "--image=busybox", "--restart=Never", "--", "echo", "hello"))
    assert wait_until(lambda: _phase(kubectl, "once") == "Succeeded", 60)
    assert ok(kubectl("logs", "-f", "once", timeout=30)) == "hello\n"
    ok(kubectl("delete", "pod", "once", "--wait=false"))


def test_logs_by_label_print_each_pods_lines_with_its_prefix(kubectl: Kubectl):
    ok(kubectl("create", "deployment", "greeters", "--image=busybox", "--replicas=2", "--",
               "sh", "-c", "echo hello from $HOSTNAME; sleep infinity"))
    assert wait_until(lambda: kubectl("get", "pods", "-l", "app=greeters", "-o",
                                      "jsonpath={.items[*].status.phase}").stdout == "Running Running", 60)
    names = kubectl("get", "pods", "-l", "app=greeters", "-o", "jsonpath={.items[*].metadata.name}").stdout.split()
    lines = sorted(ok(kubectl("logs", "-l", "app=greeters", "--prefix")).splitlines())
    assert lines == sorted(f"[pod/{name}/busybox] hello from {name}" for name in names)
    ok(kubectl("delete", "deployment", "greeters", "--wait=false"))
