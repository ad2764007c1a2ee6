"""A real Daphne process serving clusterviz on a free loopback port, for end-to-end tests."""

from __future__ import annotations

import os
import selectors
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests import backend

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """``migrate`` into a fresh database, then Daphne on 127.0.0.1.

    The database is a SQLite file in ``workdir``, or on the PostgreSQL backend (tests/backend.py) a
    PostgreSQL database named after ``workdir``, with Redis as the channel layer: servers started on
    one ``workdir`` share their database either way.
    """

    def __init__(self, workdir: Path, env: dict[str, str] | None = None, tls: bool = False) -> None:
        self.workdir = workdir
        self.port = free_port()
        # With ``tls``, a second endpoint serves HTTPS with a fresh self-signed certificate (kubectl sends
        # tokens only over TLS); downloaded kubeconfigs point there.
        self.tls_port = free_port() if tls else None
        if backend.postgres():
            self.database = backend.database_for(workdir)
            stores = {"DATABASE_URL": backend.database_url(self.database), "REDIS_URL": backend.REDIS_URL}
        else:
            self.database = str(workdir / "db.sqlite3")
            stores = {"DATABASE_URL": f"sqlite:///{self.database}", "REDIS_URL": ""}
        self.env = {
            **os.environ,
            **stores,
            "DJANGO_SETTINGS_MODULE": "clusterviz.settings",
            "CLUSTERVIZ_LOG_LEVEL": "INFO",
            **(env or {}),
        }
        if self.tls_port is not None:
            self.env["CLUSTERVIZ_KUBECTL_URL"] = f"https://127.0.0.1:{self.tls_port}"
            self.env["CLUSTERVIZ_TLS_CERT"] = str(workdir / "tls" / "server.crt")
        self.process: subprocess.Popen[bytes] | None = None
        self.log = workdir / "daphne.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def cluster_url(self, cluster: str = "demo") -> str:
        return f"{self.url}/c/{cluster}"

    def manage(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), *args],
            env=self.env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    def start(self, timeout: float = 60.0, migrate: bool = True) -> None:
        """Start Daphne; ``migrate=False`` reuses a database an earlier server left in ``workdir``."""
        if migrate:
            if backend.postgres():
                backend.create_database(self.database)
            result = self.manage("migrate", "--noinput")
            if result.returncode != 0:
                raise RuntimeError(f"migrate failed:\n{result.stdout}\n{result.stderr}")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-v",
                "1",
                "-b",
                "127.0.0.1",
                "-p",
                str(self.port),
                *self._tls_endpoint(),
                "clusterviz.asgi:application",
            ],
            env=self.env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        assert self.process.stderr is not None
        # Wait for Daphne's "Listening on" line rather than sleeping. Read the descriptor itself:
        # a buffered readline could hold that line in Python's buffer while select() waits.
        selector = selectors.DefaultSelector()
        selector.register(self.process.stderr, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        seen = b""
        while time.monotonic() < deadline:
            if not selector.select(timeout=deadline - time.monotonic()):
                break
            chunk = os.read(self.process.stderr.fileno(), 65536)
            if not chunk:
                break
            seen += chunk
            if b"Listening on TCP address" in seen:
                selector.close()
                self._drain()
                return
        self.stop()
        raise RuntimeError(f"daphne did not start:\n{seen.decode(errors='replace')}")

    def _tls_endpoint(self) -> list[str]:
        if self.tls_port is None:
            return []
        result = self.manage("makecert", "--dir", str(self.workdir / "tls"))
        if result.returncode != 0:
            raise RuntimeError(f"makecert failed:\n{result.stderr}")
        tls = self.workdir / "tls"
        return ["-e", f"ssl:{self.tls_port}:interface=127.0.0.1:privateKey={tls / 'server.key'}:certKey={tls / 'server.crt'}"]

    def _drain(self) -> None:
        """Keep reading Daphne's stderr into a file so the pipe never fills."""
        import threading

        def pump() -> None:
            assert self.process is not None and self.process.stderr is not None
            with self.log.open("ab") as out:
                for line in self.process.stderr:
                    out.write(line)

        threading.Thread(target=pump, daemon=True).start()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()

    def start_worker(self, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        """A ``simworker`` on this server's database, renewing its leases every half second."""
        return subprocess.Popen(
            [sys.executable, str(ROOT / "manage.py"), "simworker", "--interval", "0.5"],
            env={**self.env, **(env or {})}, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )


def wait_until(check: Callable[[], bool], seconds: float = 60) -> bool:
    """Re-check ``check`` until it holds (True) or ``seconds`` pass (False)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)  # wall-clock: waiting for other processes
    return False
