"""Fast-forward of a Deployment's rollout inside this process: CPU seconds, memory and what stays alive per Pod.

Run: .venv/bin/python bench/fast_forward.py [--replicas 1000] [--nodes 100] [--census]
A fresh SQLite database in a temporary directory gets a cluster of ``--nodes`` nodes; its engine
runs in this process's event loop in fast-forward, and ``examples/myapp.yaml``'s Deployment with
``--replicas`` replicas is created through the in-process client. The figures, printed as one JSON
object, cover the create to the engine being quiet: this process's CPU seconds (user + system, less
noisy than the wall time on a shared machine), the wall time, the bus messages and store commits,
and the peak resident memory. ``--census`` then counts what is alive once the cluster is quiet:
asyncio tasks, objects by type (``gc.get_objects``) and, when ``--trace-malloc`` is given, the
lines of code whose allocations are still held (tracemalloc, which slows the run down).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import json
import os
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def peak_rss_mib() -> float:
    """This process's peak resident set size, in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_mib() -> float:
    """This process's resident set size now, in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def census(replicas: int, top: int) -> dict[str, Any]:
    """What is alive now: tasks by component, the commonest object types, per Pod where it says so."""
    gc.collect()
    tasks = collections.Counter("/".join(t.get_name().split(":", 1)[-1].split("/")[:1]) for t in asyncio.all_tasks())
    types = collections.Counter(type(o).__name__ for o in gc.get_objects())
    out: dict[str, Any] = {
        "rss_mib": round(rss_mib(), 1),
        "tasks": sum(tasks.values()),
        "tasks_per_pod": round(sum(tasks.values()) / replicas, 2),
        "tasks_by_component": dict(tasks.most_common(8)),
        "gc_objects_per_pod": {name: round(n / replicas, 1) for name, n in types.most_common(top)},
    }
    if tracemalloc.is_tracing():
        snapshot = tracemalloc.take_snapshot()
        stats = snapshot.statistics("lineno")
        out["traced_mib"] = round(sum(s.size for s in stats) / 2**20, 1)
        out["bytes_per_pod_by_line"] = [
            (f"{s.traceback[0].filename.removeprefix(str(ROOT) + '/')}:{s.traceback[0].lineno}", round(s.size / replicas))
            for s in stats[:top]
        ]
    return out


async def rollout(replicas: int, nodes: int, with_census: bool, top: int) -> dict[str, Any]:
    """Create the cluster, run the rollout in fast-forward and return its figures."""
    from asgiref.sync import sync_to_async
    from django.core.management import call_command

    from clusterviz.api.bootstrap import create_cluster
    from clusterviz.api.client import Client
    from clusterviz.api.codec import parse_yaml
    from clusterviz.sim import registry

    await sync_to_async(call_command)("migrate", verbosity=0)
    await create_cluster("bench", nodes=nodes, cpu="64", memory="256Gi", pods=500)
    running = await registry.start("bench", mode="fast-forward")
    assert running is not None
    engine = running.engine
    await engine.until_settled()
    deployment = parse_yaml((ROOT / "examples" / "myapp.yaml").read_text())
    deployment["metadata"]["namespace"] = "default"
    deployment["spec"]["replicas"] = replicas
    seq, commits = engine.last_seq, engine.commits
    cpu, wall = time.process_time(), time.perf_counter()
    await Client("bench", "kubectl").create(deployment)
    await engine.until_settled()
    figures: dict[str, Any] = {
        "replicas": replicas,
        "nodes": nodes,
        "cpu_s": round(time.process_time() - cpu, 2),
        "wall_s": round(time.perf_counter() - wall, 2),
        "messages": engine.last_seq - seq,
        "commits": engine.commits - commits,
        "peak_rss_mib": round(peak_rss_mib(), 1),
    }
    if with_census:
        figures.update(census(replicas, top))
    await registry.stop_all()
    return figures


def main() -> None:
    """Run one rollout and print its figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, default=1000)
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--census", action="store_true", help="count what is alive once the cluster is quiet")
    parser.add_argument("--trace-malloc", action="store_true", help="with --census: bytes held per line of code")
    parser.add_argument("--top", type=int, default=25, help="how many types and lines the census lists")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/db.sqlite3"
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clusterviz.settings")
        os.environ.setdefault("CLUSTERVIZ_DEMO_CLUSTER", "")
        import django

        django.setup()
        if args.trace_malloc:
            tracemalloc.start()
        figures = asyncio.run(rollout(args.replicas, args.nodes, args.census, args.top))
    print(json.dumps(figures), flush=True)


if __name__ == "__main__":
    main()
