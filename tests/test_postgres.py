"""The scale-out stack inside the one test command: a child pytest on PostgreSQL + Redis.

The rest of the run uses the embedded SQLite + in-memory layer. This test runs, in a child pytest
with ``--backend=postgres``, the store, API server and simulation tests, the scale-out tests and the
end-to-end tests of workers and the Python client (the other end-to-end tests repeat those paths
at more cost). Without PostgreSQL or Redis it is skipped locally and fails in CI (``CI=true``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from tests import backend
from tests.livesim import ROOT

SUBSET = [
    "tests/store",
    "tests/api",
    "tests/sim",
    "tests/scaleout",
    "tests/e2e/test_simworker.py",
    "tests/e2e/test_python_client.py",
]


@pytest.mark.timeout(1200)
def test_the_store_api_and_control_plane_pass_on_postgres_and_redis() -> None:
    reason = backend.unreachable()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the PostgreSQL + Redis pass: {reason}")
        pytest.skip(reason)
    began = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--backend=postgres", "-q", *SUBSET],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1150,
        check=False,
    )
    summary = result.stdout.strip().splitlines()[-1:] or ["(no output)"]
    print(f"PostgreSQL + Redis pass: {summary[0]} ({time.monotonic() - began:.0f}s)")
    assert result.returncode == 0, result.stdout[-30000:] + result.stderr[-5000:]
