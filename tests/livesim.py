"""A real Daphne process serving clusterviz on a free loopback port, for end-to-end tests."""

from __future__ import annotations

import os
import selectors
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """``migrate`` into a fresh SQLite file, then Daphne on 127.0.0.1."""

    def __init__(self, workdir: Path, env: dict[str, str] | None = None) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{workdir / 'db.sqlite3'}",
            "DJANGO_SETTINGS_MODULE": "clusterviz.settings",
            "CLUSTERVIZ_LOG_LEVEL": "INFO",
            **(env or {}),
        }
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
