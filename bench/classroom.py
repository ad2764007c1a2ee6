"""How long a class takes to get going: 30 students join and each gets a sandbox loaded with the preset.

Run: .venv/bin/python bench/classroom.py [--students 30] [--parallel 6] [--preset node-affinity]
A fresh Daphne server (SQLite, or PostgreSQL + Redis with DATABASE_URL/REDIS_URL set as for the
tests' --backend=postgres) gets a teacher, a class, then ``--students`` students opening the join
link ``--parallel`` at a time, each as a browser would (form page, CSRF token, POST, redirect to the
sandbox's page). A join returns once the sandbox exists and is reset to the preset's starting
state, so the wall time until the last join is the time for the class to be ready; the figures are
that total and the per-join median and p95.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.formclient import Browser  # noqa: E402
from tests.livesim import LiveServer  # noqa: E402


def join(server: LiveServer, name: str) -> float:
    """One student joins; returns the seconds it took."""
    started = time.perf_counter()
    url, page = Browser(server.url).submit("/join/bench/", {"name": name})
    if "/c/bench-" not in url or "node01" not in page:
        raise RuntimeError(f"join of {name} ended at {url}")
    return time.perf_counter() - started


def main() -> None:
    """Create the class, let the students join, print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--parallel", type=int, default=6, help="students joining at the same moment")
    parser.add_argument("--preset", default="node-affinity")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(Path(tmp))
        server.start()
        try:
            made = server.manage("createteacher", "bench", "--password", "bench-pass-1")
            if made.returncode != 0:
                raise RuntimeError(made.stderr)
            teacher = Browser(server.url)
            teacher.submit("/accounts/login/?next=/classes/", {"username": "bench", "password": "bench-pass-1"})
            teacher.submit("/classes/", {"title": "Bench", "slug": "bench", "preset": args.preset})
            started = time.perf_counter()
            with concurrent.futures.ThreadPoolExecutor(args.parallel) as pool:
                times = list(pool.map(lambda i: join(server, f"student {i:02d}"), range(args.students)))
            total = time.perf_counter() - started
            page = teacher.get("/classes/bench/")[1]
            shown = page.count('class="sandbox"')
        finally:
            server.stop()
    print(json.dumps({
        "students": args.students,
        "parallel": args.parallel,
        "preset": args.preset,
        "class_ready_s": round(total, 2),
        "join_median_s": round(statistics.median(times), 2),
        "join_p95_s": round(sorted(times)[max(0, int(len(times) * 0.95) - 1)], 2),
        "sandboxes_on_teacher_page": shown,
    }))  # fmt: skip


if __name__ == "__main__":
    main()
