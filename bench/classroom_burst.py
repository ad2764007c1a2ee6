"""A class of 100 on one server: idle cost, then everybody applies myapp.yaml at once.

Run: .venv/bin/python bench/classroom_burst.py [--clusters 100] [--parallel 25] [--idle 30]
A fresh Daphne server (SQLite, or PostgreSQL + Redis with CLUSTERVIZ_TEST_BACKEND=postgres, as the
tests' --backend=postgres; ``--workers N``, which needs them, adds N ``simworker`` processes, committing
as ``scripts/scaleout.py`` does) gets ``--clusters`` clusters of 3 nodes in live mode at 1x, each opened
once (with workers: and each engine started by one). Figures, as one JSON object:

- ``idle_cpu_pct``: the server's CPU (user + system, all its processes) over ``--idle`` seconds
  while nobody asks anything, as a percentage of one core;
- ``apply_p50_s`` / ``apply_p95_s`` / ``apply_max_s``: one ``kubectl apply`` of a 3-replica
  Deployment to each cluster but the first, ``--parallel`` at a time;
- ``all_running_s``: from the first apply until every Pod of every such cluster is Running and ready (told
  by a watch of each cluster's Deployment, opened before the burst);
- ``burst_cpu_s``: the server's CPU seconds over that same stretch (the machine is shared, so wall
  times are noisy; CPU seconds say how much work the burst was);
- ``postgres_burst_cpu_s`` / ``redis_burst_cpu_s``: the CPU seconds of the PostgreSQL backends serving
  the server's database and of the Redis server over that stretch (scale-out's stores; Redis's counts
  whatever else uses it), ``kubectl_burst_cpu_s`` the applies' own;
- ``machine_burst_cpu_s``: the whole machine's busy CPU seconds over that stretch, which counts
  PostgreSQL, Redis and kubectl too (meaningful on an otherwise quiet machine);
- ``apply_failures``: the error of each apply that failed (the last line of kubectl's message);
- ``peak_rss_mib``: the peak resident memory of each server process.

``--pause`` prints the server's pids (web, then workers) and waits for Enter before the burst (to attach a
profiler or take a snapshot of every process's CPU), and again after the figures, before it stops them.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.control_plane import peak_rss_mib  # noqa: E402
from bench.dashboard import percentile  # noqa: E402
from scripts.scaleout import SYNCHRONOUS_COMMIT  # noqa: E402
from tests import backend  # noqa: E402
from tests.conftest import Kubectl  # noqa: E402
from tests.livesim import LiveServer  # noqa: E402

MYAPP = ROOT / "examples" / "myapp.yaml"
CREATE = """
from clusterviz.api.bootstrap import create_cluster_sync
for i in range({start}, {stop}):
    create_cluster_sync(f"s{{i:03d}}", 3, "4", "8Gi", 110)
"""
# Clusters made per ``manage.py shell``, each of which must finish within ``LiveServer.manage``'s timeout
# on a loaded machine too.
CREATE_AT_ONCE = 25


def cpu_seconds(pids: list[int]) -> float:
    """User plus system CPU seconds the processes have used so far."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def store_pids(database: str) -> tuple[list[int], list[int]]:
    """The PostgreSQL backends serving ``database`` and the Redis servers running now."""
    postgres, redis = [], []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").split()
        except OSError:
            continue  # gone meanwhile
        if words[:1] == ["postgres:"] and database in words:
            postgres.append(int(entry.name))
        elif words and words[0].endswith("redis-server"):
            redis.append(int(entry.name))
    return postgres, redis


def cpu_seconds_by_pid(pids: list[int]) -> dict[int, float]:
    """``cpu_seconds`` of each process still there."""
    seconds = {}
    for pid in pids:
        try:
            seconds[pid] = cpu_seconds([pid])
        except OSError:
            continue  # gone meanwhile: its CPU is not counted
    return seconds


def children_cpu_seconds() -> float:
    """User plus system CPU seconds of this process's finished children (the kubectl runs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def machine_busy_seconds() -> float:
    """CPU seconds every core of the machine has spent busy (not idle, not waiting on I/O) so far."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=60) as reply:
        return json.loads(reply.read())


class ReadyWatch(threading.Thread):
    """Watches one cluster's myapp Deployment, as a student's page or ``kubectl get -w`` does, and notes the
    moment its status first says 3 replicas are ready (``ready_at``, a ``time.perf_counter`` reading).

    A watch is told of each change as the server makes it, so the moment is exact, and costs the server a
    stream fed from its watch cache, where polling 99 clusters would put hundreds of reads a second on
    it that no student makes.
    """

    def __init__(self, server: LiveServer, cluster: str, budget: float) -> None:
        super().__init__(daemon=True)
        self.url = (
            f"{server.cluster_url(cluster)}/apis/apps/v1/namespaces/default/deployments"
            f"?watch=true&fieldSelector=metadata.name%3Dmyapp&timeoutSeconds={int(budget)}"
        )
        self.budget = budget
        self.opened = threading.Event()
        self.ready_at: float | None = None

    def run(self) -> None:
        with urllib.request.urlopen(self.url, timeout=self.budget) as stream:
            self.opened.set()
            for line in stream:
                event = json.loads(line)
                ready = (event.get("object") or {}).get("status", {}).get("readyReplicas") or 0
                if event.get("type") in ("ADDED", "MODIFIED") and int(ready) >= 3:
                    self.ready_at = time.perf_counter()
                    return


def main() -> None:
    """Start the server, make the class, measure, print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=100)
    parser.add_argument("--parallel", type=int, default=25, help="applies running at the same moment")
    parser.add_argument("--idle", type=float, default=30.0, help="seconds over which idle CPU is measured")
    parser.add_argument("--settle", type=float, default=15.0, help="seconds to let the engines start first")
    parser.add_argument("--workers", type=int, default=0, help="simworker processes beside the web process")
    parser.add_argument("--budget", type=float, default=300.0, help="wall seconds allowed for all Running")
    parser.add_argument("--pause", action="store_true", help="wait for Enter before the burst and before stopping (to attach a profiler)")
    args = parser.parse_args()
    if args.workers and not backend.postgres():
        # Workers on SQLite and the in-memory layer cannot be sent the writes: the web process would
        # store them itself, without their hops, and the figures would not be scale-out's.
        raise SystemExit(f"--workers needs PostgreSQL and Redis: set {backend.BACKEND_ENV}=postgres")
    binary = shutil.which("kubectl")
    if binary is None:
        raise SystemExit("kubectl is not installed on this machine")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        env = {"CLUSTERVIZ_DEFAULT_MODE": "live"}
        if args.workers:
            # The web process forwards writes to the workers that run the engines; commits as
            # scripts/scaleout.py makes them unless the environment says otherwise.
            env["CLUSTERVIZ_ENGINES"] = "false"
            env.update({name: os.environ.get(name, value) for name, value in SYNCHRONOUS_COMMIT.items()})
        server = LiveServer(workdir, env)
        server.start()
        workers: list[subprocess.Popen[bytes]] = []
        try:
            for start in range(0, args.clusters, CREATE_AT_ONCE):
                stop = min(start + CREATE_AT_ONCE, args.clusters)
                made = server.manage("shell", "-c", CREATE.format(start=start, stop=stop))
                if made.returncode != 0:
                    raise RuntimeError(made.stderr)
            for _ in range(args.workers):
                workers.append(subprocess.Popen(
                    [sys.executable, str(ROOT / "manage.py"), "simworker"], env=server.env, cwd=ROOT,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                ))
            names = [f"s{i:03d}" for i in range(args.clusters)]
            for name in names:
                get_json(f"{server.cluster_url(name)}/api/v1/nodes")
            assert server.process is not None
            pids = [server.process.pid, *(w.pid for w in workers)]
            if workers:
                # The workers claim and start their clusters' engines over several rounds: idle begins
                # once every engine runs, as it does in the single process once each cluster answered.
                held = "SELECT count(*) FROM sim_enginelease WHERE holder <> ''"
                while backend.fetch(server.database, held)[0][0] < args.clusters:
                    time.sleep(0.5)  # wall-clock: the workers start engines in real time
            time.sleep(args.settle)  # wall-clock: the engines start and settle in real time
            before = cpu_seconds(pids)
            time.sleep(args.idle)  # wall-clock: idle cost is CPU over real time
            idle_pct = 100 * (cpu_seconds(pids) - before) / args.idle

            failures: list[str] = []

            def apply(name: str) -> float:
                home = workdir / name
                home.mkdir()
                started = time.perf_counter()
                done = Kubectl(binary, server.cluster_url(name), home)("apply", "-f", str(MYAPP), timeout=120)
                if done.returncode != 0:
                    last = done.stderr.strip().splitlines()[-1:] or ["(no message)"]
                    failures.append(f"{name}: {last[0]}")
                return time.perf_counter() - started

            targets = names[1:]
            watches = [ReadyWatch(server, name, args.budget) for name in targets]
            for watch in watches:
                watch.start()
            for watch in watches:
                if not watch.opened.wait(60):
                    raise RuntimeError(f"the watch of {watch.url} did not open")
            if args.pause:
                input(f"server pids {' '.join(map(str, pids))}: press Enter to apply ")
            first = time.perf_counter()
            burst_start_each = [cpu_seconds([pid]) for pid in pids]
            stores_start = cpu_seconds_by_pid([pid for group in store_pids(server.database) for pid in group])
            kubectl_start = children_cpu_seconds()
            machine_start = machine_busy_seconds()
            with concurrent.futures.ThreadPoolExecutor(args.parallel) as pool:
                times = list(pool.map(apply, targets))
            for watch in watches:
                watch.join(max(0.0, args.budget - (time.perf_counter() - first)))
            waiting = [watch for watch in watches if watch.ready_at is None]
            finished = time.perf_counter() if waiting else max(watch.ready_at or first for watch in watches)
            all_running = finished - first
            burst_each = [cpu_seconds([pid]) - start for pid, start in zip(pids, burst_start_each, strict=True)]
            burst_cpu = sum(burst_each)
            machine_cpu = machine_busy_seconds() - machine_start
            kubectl_cpu = children_cpu_seconds() - kubectl_start
            postgres_pids, redis_pids = store_pids(server.database)
            postgres_cpu = sum(s - stores_start.get(p, 0.0) for p, s in cpu_seconds_by_pid(postgres_pids).items())
            redis_cpu = sum(s - stores_start.get(p, 0.0) for p, s in cpu_seconds_by_pid(redis_pids).items())
            print(json.dumps({
                "clusters": args.clusters,
                "workers": args.workers,
                "idle_cpu_pct": round(idle_pct, 1),
                "apply_p50_s": round(statistics.median(times), 2),
                "apply_p95_s": round(percentile(times, 95), 2),
                "apply_max_s": round(max(times), 2),
                "all_running_s": round(all_running, 1),
                "burst_cpu_s": round(burst_cpu, 1),
                "burst_cpu_s_each": [round(each, 1) for each in burst_each],
                "postgres_burst_cpu_s": round(postgres_cpu, 1) if backend.postgres() else 0.0,
                "redis_burst_cpu_s": round(redis_cpu, 1) if backend.postgres() else 0.0,
                "kubectl_burst_cpu_s": round(kubectl_cpu, 1),
                "machine_burst_cpu_s": round(machine_cpu, 1),
                "clusters_not_running": len(waiting),
                "apply_failures": failures,
                "peak_rss_mib": [round(peak_rss_mib(pid), 1) for pid in pids],
            }), flush=True)
            if args.pause:
                input("press Enter to stop the server ")
        finally:
            for worker in workers:
                worker.terminate()
                worker.wait(timeout=30)
            server.stop()
            if backend.postgres():
                # The fresh database the server had (tests drop theirs when their session ends).
                backend.drop_created_databases()


if __name__ == "__main__":
    main()
