from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests import backend
from tests.livesim import LiveServer


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None) -> Iterator[None]:
    """pytest-django's test database; on PostgreSQL the store threads' sessions end before it is dropped."""
    yield
    if backend.postgres():
        from django.conf import settings

        backend.terminate_connections(settings.DATABASES["default"]["NAME"])


@pytest.fixture(scope="session")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One Daphne process with a demo cluster, shared by the end-to-end tests."""
    server = LiveServer(tmp_path_factory.mktemp("live"), {"CLUSTERVIZ_WATCH_LOG_RETAIN": "50", "CLUSTERVIZ_DEFAULT_MODE": "fast-forward"})
    server.start()
    yield server
    server.stop()


class Kubectl:
    """The machine's real kubectl, pointed at one of our clusters with a throwaway home."""

    def __init__(self, binary: str, server: str, home: Path) -> None:
        self.binary = binary
        self.server = server
        self.home = home

    def __call__(self, *args: str, stdin: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "HOME": str(self.home), "KUBECONFIG": str(self.home / "kubeconfig")}
        return subprocess.run(
            [self.binary, f"--server={self.server}", f"--cache-dir={self.home / 'cache'}", *args],
            input=stdin, capture_output=True, text=True, timeout=timeout, env=env, check=False,
        )


@pytest.fixture(scope="session")
def kubectl_binary() -> str:
    binary = shutil.which("kubectl")
    if binary is None:
        pytest.skip("kubectl is not installed on this machine")
    return binary


@pytest.fixture
def kubectl(kubectl_binary: str, live: LiveServer, tmp_path: Path) -> Kubectl:
    return Kubectl(kubectl_binary, live.cluster_url("demo"), tmp_path)


class Outage:
    """The database going away: ``outage(fragment)`` makes every SQL statement containing ``fragment``
    fail as a lost server would ("" for all of them); ``refused`` keeps the statements it failed."""

    def __init__(self) -> None:
        # Its own patch, so that ending the outage leaves a test's other patches alone.
        self.monkeypatch = pytest.MonkeyPatch()
        self.refused: list[str] = []

    def __call__(self, fragment: str) -> None:
        from django.db import OperationalError
        from django.db.backends.utils import CursorWrapper

        self.monkeypatch.undo()  # one outage at a time

        def failing(real: Callable[..., object]) -> Callable[..., object]:
            def execute(cursor: CursorWrapper, sql: str, *args: object) -> object:
                if fragment in sql:
                    self.refused.append(sql)
                    raise OperationalError("server closed the connection unexpectedly")
                return real(cursor, sql, *args)

            return execute

        # Single statements and batches (``executemany``) alike.
        self.monkeypatch.setattr(CursorWrapper, "_execute", failing(CursorWrapper._execute))
        self.monkeypatch.setattr(CursorWrapper, "_executemany", failing(CursorWrapper._executemany))

    def end(self) -> None:
        """The database is back."""
        self.monkeypatch.undo()


@pytest.fixture
def outage() -> Iterator[Outage]:
    """See ``Outage``; the database is back when the test ends."""
    database = Outage()
    yield database
    database.end()


@pytest.fixture
async def sim(transactional_db):
    """The demo cluster simulated in this test's event loop, in fast-forward."""
    from clusterviz.sim import registry

    running = await registry.start("demo", mode="fast-forward")
    yield running
    await registry.stop_all()
