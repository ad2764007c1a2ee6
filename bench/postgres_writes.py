"""Writes per second sustained on PostgreSQL through two Daphne processes.

Run: .venv/bin/python bench/postgres_writes.py [--seconds 20] [--writers 16]
(needs PostgreSQL and Redis as in the README; DATABASE_URL/REDIS_URL as for the tests'
--backend=postgres). Two web processes with their engines off share one fresh database; one
``simworker`` runs the engines. ``--writers`` threads create ConfigMaps over HTTP, alternating
between the two processes, for ``--seconds``; the figures are writes per second, the p50/p99
latency of a write, and how many answers were not 201 (there should be none).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["CLUSTERVIZ_TEST_BACKEND"] = "postgres"

from tests import backend  # noqa: E402
from tests.livesim import LiveServer  # noqa: E402


def writer(urls: list[str], index: int, until: float, latencies: list[float], failures: list[int]) -> None:
    """Create ConfigMaps until ``until``, alternating servers; record each write's latency."""
    n = 0
    while time.perf_counter() < until:
        url = urls[(index + n) % len(urls)]
        body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"w{index}-{n}"}}).encode()
        request = urllib.request.Request(
            f"{url}/api/v1/namespaces/default/configmaps", data=body, headers={"Content-Type": "application/json"}
        )
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                ok = response.status == 201
        except urllib.error.HTTPError as exc:
            ok = False
            failures.append(exc.code)
        if ok:
            latencies.append(time.perf_counter() - started)
        n += 1


def main() -> None:
    """Start the set, write, print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--writers", type=int, default=16)
    args = parser.parse_args()
    problem = backend.unreachable()
    if problem:
        raise SystemExit(problem)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        # Rate limits are per process and per address: this bench measures the store, not the limiter.
        env = {"CLUSTERVIZ_ENGINES": "false", "CLUSTERVIZ_WRITE_RATE": "0", "CLUSTERVIZ_DEFAULT_MODE": "fast-forward"}
        first, second = LiveServer(workdir, env), LiveServer(workdir, env)
        first.start()
        second.start(migrate=False)
        worker = first.start_worker()
        try:
            urls = [first.cluster_url("demo"), second.cluster_url("demo")]
            latencies: list[float] = []
            failures: list[int] = []
            until = time.perf_counter() + args.seconds
            threads = [
                threading.Thread(target=writer, args=(urls, i, until, latencies, failures)) for i in range(args.writers)
            ]
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.perf_counter() - started
        finally:
            worker.terminate()
            worker.wait(timeout=15)
            second.stop()
            first.stop()
            backend.drop_created_databases()
    ordered = sorted(latencies)
    print(json.dumps({
        "processes": 2,
        "writers": args.writers,
        "seconds": round(elapsed, 1),
        "writes": len(latencies),
        "writes_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(statistics.median(ordered) * 1000, 1) if ordered else None,
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 1) if ordered else None,
        "failures": len(failures),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
