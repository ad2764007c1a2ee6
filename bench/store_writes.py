"""The store's cost per write, in this process and (on PostgreSQL) in the database server.

Run: .venv/bin/python bench/store_writes.py [--objects 200] [--rounds 15] [--batch 1]
A fresh database (SQLite in a temporary directory, or with CLUSTERVIZ_TEST_BACKEND=postgres a new
PostgreSQL database as the tests' --backend=postgres makes) gets ``--objects`` Pods of about 1.6 kB
in one cluster; each of ``--rounds`` rounds then changes every Pod's status, ``--batch`` writes to a
transaction (``kv.write_many``; 1 is a lone write, an engine turn's usual batch). The figures, as one
JSON object: the writes, the wall time, this process's CPU and the PostgreSQL backend's CPU, each
in microseconds per write.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import backend  # noqa: E402


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pod(name: str, phase: str) -> dict[str, Any]:
    """A Pod with a dozen containers, about the size of a scheduled Pod with its status."""
    containers = [{"name": f"c{i}", "image": "nginx:1.27", "args": ["--flag=value"] * 5} for i in range(12)]
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "bench"}},
        "spec": {"containers": containers}, "status": {"phase": phase},
    }  # fmt: skip


def measure(objects: int, rounds: int, batch: int) -> dict[str, Any]:
    from django.db import connection

    from clusterviz.store import kv

    cid = kv.create_cluster("bench")
    keys = [kv.Key("pods", "default", f"p{i}") for i in range(objects)]
    kv.write_many([kv.Write("create", cid, key, pod(key.name, "Pending")) for key in keys])
    server = None
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            server = cursor.fetchone()[0]
    started, mine = time.perf_counter(), cpu_seconds(os.getpid())
    theirs = cpu_seconds(server) if server else 0.0
    for r in range(rounds):
        for start in range(0, objects, batch):
            kv.write_many([kv.Write("update", cid, key, pod(key.name, f"Phase{r}")) for key in keys[start : start + batch]])
    writes = objects * rounds
    return {
        "database": connection.vendor,
        "writes": writes,
        "batch": batch,
        "object_bytes": len(kv.dumps(pod(keys[0].name, "Phase0"))),
        "wall_us_per_write": round(1e6 * (time.perf_counter() - started) / writes),
        "client_cpu_us_per_write": round(1e6 * (cpu_seconds(os.getpid()) - mine) / writes),
        "server_cpu_us_per_write": round(1e6 * (cpu_seconds(server) - theirs) / writes) if server else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--batch", type=int, default=1, help="writes per transaction")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clusterviz.settings")
    os.environ["CLUSTERVIZ_DEMO_CLUSTER"] = ""
    with tempfile.TemporaryDirectory() as tmp:
        if backend.postgres():
            problem = backend.unreachable()
            if problem:
                raise SystemExit(problem)
            name = f"clusterviz_bench_{os.getpid()}"
            backend.create_database(name)
            os.environ["DATABASE_URL"] = backend.database_url(name)
            # As scripts/scaleout.py commits.
            os.environ.setdefault("CLUSTERVIZ_PG_SYNCHRONOUS_COMMIT", "off")
        else:
            os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/db.sqlite3"
        import django
        from django.core.management import call_command

        django.setup()
        try:
            call_command("migrate", verbosity=0)
            figures = measure(args.objects, args.rounds, args.batch)
        finally:
            from django.db import connections

            connections.close_all()
            backend.drop_created_databases()
    print(json.dumps(figures), flush=True)


if __name__ == "__main__":
    main()
