"""The database and channel layer the tests run on (a pytest plugin, loaded by ``-p tests.backend``).

By default the embedded pair: SQLite and Channels' in-memory layer. With ``--backend=postgres``
(or ``CLUSTERVIZ_TEST_BACKEND=postgres``) the scale-out pair: PostgreSQL and channels_redis, at
``CLUSTERVIZ_TEST_DATABASE_URL`` and ``CLUSTERVIZ_TEST_REDIS_URL`` (the local defaults below), for
the tests of ``POSTGRES_DIRS`` (the others never touch the store). In-process tests then use
Django's test database on that server, and every ``LiveServer`` (a real Daphne) gets a fresh
database of its own there, dropped when the session ends. Unreachable servers stop the run.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

BACKEND_ENV = "CLUSTERVIZ_TEST_BACKEND"
BACKENDS = ("sqlite", "postgres")
DATABASE_URL = os.environ.get("CLUSTERVIZ_TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("CLUSTERVIZ_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
# What the PostgreSQL pass covers: the store, the API server and the control plane.
POSTGRES_DIRS = ("tests/store", "tests/api", "tests/sim", "tests/e2e", "tests/scaleout")

_created: list[str] = []


def postgres() -> bool:
    """True when this test process runs on PostgreSQL + Redis."""
    return os.environ.get(BACKEND_ENV) == "postgres"


def _admin() -> Any:
    """An autocommit connection to the server's own database (CREATE and DROP DATABASE need one)."""
    import psycopg

    return psycopg.connect(DATABASE_URL, autocommit=True, connect_timeout=3)


def unreachable() -> str:
    """Why PostgreSQL or Redis cannot be used right now; empty when both answer."""
    import psycopg
    import redis

    try:
        with _admin() as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        return f"PostgreSQL at {DATABASE_URL} is unreachable: {exc}".strip()
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).ping()
    except redis.RedisError as exc:
        return f"Redis at {REDIS_URL} is unreachable: {exc}"
    return ""


def database_url(name: str) -> str:
    """``DATABASE_URL`` with its database replaced by ``name``."""
    parts = urlsplit(DATABASE_URL)
    return urlunsplit(parts._replace(path=f"/{name}"))


def database_for(workdir: Path) -> str:
    """The database of the LiveServers sharing ``workdir`` (as they would share a SQLite file there)."""
    return f"clusterviz_live_{os.getpid()}_{hashlib.sha1(str(workdir).encode()).hexdigest()[:10]}"


def create_database(name: str) -> None:
    """An empty database ``name`` (an old one of that name is dropped first); dropped at session end."""
    with _admin() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    if name not in _created:
        _created.append(name)


def drop_created_databases() -> None:
    """Drop every database ``create_database`` made in this process."""
    with _admin() as conn:
        for name in _created:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _created.clear()


def fetch(database: str, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    """Rows of one query on ``database`` (for tests that look at rows no API serves, such as leases)."""
    import psycopg

    with psycopg.connect(database_url(database), autocommit=True, connect_timeout=3) as conn:
        return conn.execute(sql, params or []).fetchall()


def terminate_connections(database: str, *, block: bool = False) -> int:
    """Kill every session on ``database`` (``pg_terminate_backend``); with ``block`` refuse new ones too.

    Returns how many sessions were killed. ``allow_connections(database)`` lets clients in again.
    """
    with _admin() as conn:
        if block:
            conn.execute(f'ALTER DATABASE "{database}" WITH ALLOW_CONNECTIONS false')
        row = conn.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [database],
        ).fetchone()
    return int(row[0]) if row else 0


def allow_connections(database: str) -> None:
    """Undo ``terminate_connections(..., block=True)``."""
    with _admin() as conn:
        conn.execute(f'ALTER DATABASE "{database}" WITH ALLOW_CONNECTIONS true')


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--backend",
        choices=BACKENDS,
        default=os.environ.get(BACKEND_ENV) or "sqlite",
        help=f"sqlite: SQLite + in-memory channel layer (default); postgres: PostgreSQL + Redis for "
        f"{', '.join(POSTGRES_DIRS)} (env {BACKEND_ENV})",
    )


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> Iterator[None]:
    """Choose the stores through the environment before pytest-django loads the settings."""
    if early_config.known_args_namespace.backend == "postgres":
        reason = unreachable()
        if reason:
            raise pytest.UsageError(f"--backend=postgres: {reason}")
        os.environ.update({BACKEND_ENV: "postgres", "DATABASE_URL": DATABASE_URL, "REDIS_URL": REDIS_URL})
    else:
        # The embedded default, even in a shell set up for the scale-out (README).
        os.environ[BACKEND_ENV] = "sqlite"
        os.environ.pop("DATABASE_URL", None)
        os.environ.pop("REDIS_URL", None)
    return (yield)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    covered = [config.rootpath / d for d in POSTGRES_DIRS]
    needs_postgres = config.rootpath / "tests" / "scaleout"
    if postgres():
        outside = [i for i in items if not any(i.path.is_relative_to(d) for d in covered)]
        config.hook.pytest_deselected(items=outside)
        items[:] = [i for i in items if any(i.path.is_relative_to(d) for d in covered)]
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL + Redis: --backend=postgres (tests/test_postgres.py runs it)")
    for item in items:
        if item.path.is_relative_to(needs_postgres):
            item.add_marker(skip)


def pytest_sessionfinish() -> None:
    if postgres() and _created:
        drop_created_databases()
