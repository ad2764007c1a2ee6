"""Fast-forward speed of the simulated control plane, through a Daphne process and kubectl.

Run: .venv/bin/python bench/control_plane.py [--budget 180] [--only 1000x100] [--pause]
For each scenario (3 replicas on 3 nodes, 100 on 20, 1,000 on 100; ``--only`` runs the ones
named REPLICASxNODES, any size) a fresh server is started in fast-forward; the figures are
the wall time from ``kubectl apply`` to all replicas Running, the CPU seconds the server
spent over that time (user + system, less noisy than the wall time on a shared machine), the
bus messages per second (``status.lastSeq`` of ``simulations/default``) and the server's
peak resident memory (VmHWM) up to all replicas Running, and again once this script has listed
every Running Pod (a listing of 10,000 Pods costs memory of its own). Apart from the rollout: the
resident memory of the idle cluster before the apply, and for each listing after it (the script's
own ``-o name`` one and a plain ``kubectl get pods -A``) its own peak (VmHWM reset first), its
wall time and the server CPU seconds it took. ``--pause`` prints the server's pid and waits for
Enter before the apply, so that a profiler can be attached. A scenario that does not finish within
the budget reports how many replicas it reached.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import Kubectl  # noqa: E402
from tests.livesim import LiveServer  # noqa: E402

SCENARIOS = ((3, 3), (100, 20), (1000, 100))
MYAPP = (ROOT / "examples" / "myapp.yaml").read_text()


def last_seq(kubectl: Kubectl) -> int:
    """The sequence number of the latest message on the cluster's bus."""
    out = kubectl("get", "simulations", "default", "-o", "jsonpath={.status.lastSeq}")
    return int(out.stdout or 0)


def running_pods(kubectl: Kubectl) -> int:
    """How many Pods of the cluster are Running."""
    out = kubectl("get", "pods", "--field-selector=status.phase=Running", "-o", "name", timeout=120)
    return len(out.stdout.split())


def peak_rss_mib(pid: int) -> float:
    """The peak resident set size of a process, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmHWM for process {pid}")


def rss_mib(pid: int) -> float:
    """The resident set size of a process now, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def settled_rss_mib(pid: int, timeout: float = 60.0) -> float:
    """The resident memory of a process once it has stopped growing for two seconds (its components have
    listed what they watch), in MiB."""
    deadline = time.monotonic() + timeout
    rss = rss_mib(pid)
    while time.monotonic() < deadline:
        time.sleep(2)  # wall-clock: waiting for another process
        now = rss_mib(pid)
        if now - rss < 1:
            return now
        rss = now
    return rss


def cpu_seconds(pid: int) -> float:
    """The user + system CPU time a process has used so far, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def listing[T](pid: int, list_pods: Callable[[], T]) -> tuple[T, dict[str, float]]:
    """What ``list_pods`` found, and what it cost the server: its own peak memory (the peak is reset to
    the current resident memory first), its wall time and the server's CPU seconds."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")
    cpu_before = cpu_seconds(pid)
    start = time.perf_counter()
    found = list_pods()
    return found, {
        "peak_rss_mib": round(peak_rss_mib(pid), 1),
        "wall_s": round(time.perf_counter() - start, 2),
        "server_cpu_s": round(cpu_seconds(pid) - cpu_before, 2),
    }


def scenario(binary: str, replicas: int, nodes: int, budget: float, pause: bool = False) -> dict[str, object]:
    """Run one scenario on a fresh server and return its figures."""
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        server = LiveServer(workdir, {"CLUSTERVIZ_DEFAULT_MODE": "fast-forward"})
        server.start()
        try:
            created = server.manage(
                "createcluster", "bench", "--nodes", str(nodes), "--cpu", "64", "--memory", "256Gi", "--pods", "500"
            )
            if created.returncode != 0:
                raise RuntimeError(created.stderr)
            kubectl = Kubectl(binary, server.cluster_url("bench"), workdir)
            manifest = workdir / "myapp.yaml"
            manifest.write_text(MYAPP.replace("replicas: 3", f"replicas: {replicas}"))
            seq_before = last_seq(kubectl)
            assert server.process is not None
            idle_rss = settled_rss_mib(server.process.pid)
            if pause:
                input(f"server pid {server.process.pid}: press Enter to apply ")
            cpu_before = cpu_seconds(server.process.pid)
            start = time.perf_counter()
            applied = kubectl("apply", "-f", str(manifest))
            if applied.returncode != 0:
                raise RuntimeError(applied.stderr)
            while time.perf_counter() - start < budget:
                ready = kubectl("get", "deploy", "myapp", "-o", "jsonpath={.status.readyReplicas}").stdout
                if int(ready or 0) == replicas:
                    break
                time.sleep(0.1)  # wall-clock: waiting for another process
            wall = time.perf_counter() - start
            cpu = cpu_seconds(server.process.pid) - cpu_before
            # Before the listing of every Pod below, which is this script's check and no part of the rollout.
            rollout_rss = peak_rss_mib(server.process.pid)
            messages = last_seq(kubectl) - seq_before
            rss_before_listing = rss_mib(server.process.pid)
            reached, own_listing = listing(server.process.pid, lambda: running_pods(kubectl))
            _, get_all = listing(server.process.pid, lambda: kubectl("get", "pods", "-A", timeout=300))
            return {
                "replicas": replicas,
                "nodes": nodes,
                "running": reached,
                "finished": reached == replicas,
                "wall_s": round(wall, 2),
                "server_cpu_s": round(cpu, 2),
                "messages": messages,
                "messages_per_s": round(messages / wall),
                "peak_rss_mib": round(rollout_rss, 1),
                "peak_rss_after_listing_mib": round(max(rollout_rss, own_listing["peak_rss_mib"]), 1),
                "idle_rss_mib": round(idle_rss, 1),
                "rss_before_listing_mib": round(rss_before_listing, 1),
                "listing": own_listing,
                "get_pods_all": get_all,
            }
        finally:
            server.stop()


def main() -> None:
    """Run every scenario and print its figures, one JSON object per line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=180.0, help="wall seconds allowed per scenario")
    parser.add_argument("--only", action="append", metavar="REPLICASxNODES", help="run this scenario only (repeatable)")
    parser.add_argument("--pause", action="store_true", help="wait for Enter before each apply (to attach a profiler)")
    args = parser.parse_args()
    binary = shutil.which("kubectl")
    if binary is None:
        raise SystemExit("kubectl is not installed on this machine")
    chosen = [tuple(int(n) for n in only.split("x")) for only in args.only] if args.only else SCENARIOS
    for replicas, nodes in chosen:
        print(json.dumps(scenario(binary, replicas, nodes, args.budget, args.pause)), flush=True)


if __name__ == "__main__":
    main()
