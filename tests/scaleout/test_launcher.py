"""scripts/scaleout.py: the whole scale-out set from one command, and stopped by one signal."""

from __future__ import annotations

import os
import selectors
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests import backend
from tests.livesim import ROOT, wait_until


def two_free_ports() -> int:
    """A port p such that p and p + 1 are both free."""
    while True:
        with socket.socket() as first:
            first.bind(("127.0.0.1", 0))
            port = first.getsockname()[1]
            with socket.socket() as second:
                try:
                    second.bind(("127.0.0.1", port + 1))
                except OSError:
                    continue
                return port


def test_it_starts_web_processes_and_workers_that_serve_and_all_stop_on_sigterm(tmp_path: Path) -> None:
    database = backend.database_for(tmp_path)
    backend.create_database(database)
    port = two_free_ports()
    env = {**os.environ, "DATABASE_URL": backend.database_url(database), "REDIS_URL": backend.REDIS_URL}
    launcher = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "scaleout.py"), "--web", "2", "--workers", "1", "--port", str(port)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
    )
    assert launcher.stdout is not None
    output = b""
    try:
        # Both web processes report that they listen (read as it comes; no fixed wait).
        selector = selectors.DefaultSelector()
        selector.register(launcher.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + 60
        while output.count(b"Listening on TCP address") < 2 and time.monotonic() < deadline:
            if selector.select(timeout=deadline - time.monotonic()):
                output += os.read(launcher.stdout.fileno(), 65536)
        assert output.count(b"Listening on TCP address") == 2, output.decode()
        for web in (port, port + 1):
            with urllib.request.urlopen(f"http://127.0.0.1:{web}/c/demo/version") as response:
                assert response.status == 200
        # The worker runs the demo cluster's engine.
        assert wait_until(lambda: backend.fetch(database, "SELECT holder FROM sim_enginelease WHERE holder <> ''"), 30)
        pids = [int(line.split(b"pid ")[1].split(b":")[0]) for line in output.splitlines() if b"started, pid" in line]
        assert len(pids) == 3
        # The worker yields the CPU to the web processes, which answer people.
        here = os.getpriority(os.PRIO_PROCESS, 0)
        assert [os.getpriority(os.PRIO_PROCESS, pid) for pid in pids] == [here, here, min(here + 10, 19)]

        launcher.send_signal(signal.SIGTERM)
        assert launcher.wait(timeout=30) == 0
        for pid in pids:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                continue
            raise AssertionError(f"process {pid} outlived the launcher")
        # The worker gave its lease back on the way out.
        assert not backend.fetch(database, "SELECT holder FROM sim_enginelease WHERE holder <> ''")
    finally:
        if launcher.poll() is None:
            # A failed assertion leaves the set running: the launcher stops its children itself.
            launcher.send_signal(signal.SIGTERM)
            try:
                launcher.wait(timeout=30)
            except subprocess.TimeoutExpired:
                launcher.kill()
