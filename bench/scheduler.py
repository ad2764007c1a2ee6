"""Scheduler throughput: Pods/s through the pure cycle with the full default profile.

Run: .venv/bin/python bench/scheduler.py [--budget 60] [--large] [--profile N] [--case PODS,NODES,MODE]
Each size runs three ways: plain Pods; Pods with upstream's common affinity
rules; and default spreading on (every Pod owned by a ReplicaSet its app's
Service selects, so PodTopologySpread's system-default constraints score); and
preemption (every node full of priority-0 Pods of 8 CPUs, each new Pod of priority
1000 asks for 4: every other one preempts a filler, which the bench then removes
before the Pod's second attempt places it, as the running scheduler does once the
victim is gone). Each case schedules Pods one after the other over a Snapshot (no API, no event
loop), keeps every Pod's decision record in memory, and assumes the Pod onto the
chosen node before the next one, as the running scheduler does. Cases run in a
child process each so that the peak RSS printed is the case's own; a case stops
at its time budget and reports the rate reached. ``digest`` hashes every
placement and total, so a faster cycle can be checked to decide the same.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import pstats
import random
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from clusterviz.scheduler.cycle import schedule  # noqa: E402
from clusterviz.scheduler.profile import default_profile  # noqa: E402
from clusterviz.scheduler.snapshot import Snapshot  # noqa: E402

ZONES = ("zone-a", "zone-b", "zone-c")
APPS = 20
IMAGES = ("nginx:1.27", "redis:7.4", "postgres:17", "busybox:1.37", "python:3.13")
CASES = ((1_000, 100), (10_000, 1_000))
MODES = ("no", "affinity", "spread", "preempt")
# The preempt case: fillers per node, each of FILLER_CPU of the node's 64.
FILLERS_PER_NODE = 8
FILLER_CPU = 8
LARGE_CASES = ((10_000, 5_000),)


def node(i: int) -> dict[str, Any]:
    """A node with room for far more than its share of Pods, in one of three zones, with a few images."""
    name = f"node{i:05d}"
    images = [
        {"names": [image], "sizeBytes": (200 + 150 * k) * 1024 * 1024} for k, image in enumerate(IMAGES) if (i + k) % 3
    ]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": ZONES[i % len(ZONES)]},
        },
        "spec": {},
        "status": {
            "allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"},
            "capacity": {"cpu": "64", "memory": "256Gi", "pods": "110"},
            "images": images,
        },
    }


def workloads() -> list[dict[str, Any]]:
    """Per app a ReplicaSet and a Service selecting its Pods: what default spreading derives its selector from."""
    out: list[dict[str, Any]] = []
    for a in range(APPS):
        app = f"app{a:02d}"
        meta = {"name": app, "namespace": "default"}
        out.append({"kind": "ReplicaSet", "metadata": meta, "spec": {"selector": {"matchLabels": {"app": app}}}})
        out.append({"kind": "Service", "metadata": meta, "spec": {"selector": {"app": app}}})
    return out


def pod(i: int, mode: str) -> dict[str, Any]:
    """A Pod of one of 20 apps with varied requests; ``affinity`` adds upstream's common spreading rules,
    ``spread`` makes it owned by its app's ReplicaSet."""
    affinity = mode == "affinity"
    app = f"app{i % APPS:02d}"
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": "c",
                "image": IMAGES[i % len(IMAGES)],
                "resources": {"requests": {"cpu": f"{100 + 50 * (i % 7)}m", "memory": f"{128 * (1 + i % 5)}Mi"}},
            }
        ]
    }
    if affinity:
        spec["affinity"] = {
            # Spread an app over hosts, and keep it in a zone where its peer app runs.
            "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 100,
                        "podAffinityTerm": {
                            "labelSelector": {"matchLabels": {"app": app}},
                            "topologyKey": "kubernetes.io/hostname",
                        },
                    }
                ]
            },
            "podAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 50,
                        "podAffinityTerm": {
                            "labelSelector": {"matchLabels": {"app": f"app{(i + 1) % APPS:02d}"}},
                            "topologyKey": "topology.kubernetes.io/zone",
                        },
                    }
                ]
            },
        }
    metadata: dict[str, Any] = {
        "name": f"pod{i:06d}",
        "namespace": "default",
        "uid": f"uid-{i}",
        "labels": {"app": app},
    }
    if mode == "preempt":
        spec["priority"] = 1000
        spec["containers"][0]["resources"]["requests"]["cpu"] = "4"
    if mode == "spread":
        metadata["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": app, "controller": True}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec, "status": {"phase": "Pending"}}


def fillers(nodes: int) -> list[dict[str, Any]]:
    """Priority-0 Pods that fill every node's CPU: what the preempt case's Pods must evict."""
    out = []
    for i in range(nodes):
        for k in range(FILLERS_PER_NODE):
            out.append({
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": f"filler{i:05d}-{k}", "namespace": "default", "uid": f"filler-{i}-{k}",
                             "labels": {"app": "filler"}},
                "spec": {"nodeName": f"node{i:05d}", "priority": 0,
                         "containers": [{"name": "c", "image": IMAGES[0],
                                         "resources": {"requests": {"cpu": str(FILLER_CPU), "memory": "1Gi"}}}]},
                "status": {"phase": "Running", "startTime": f"2026-01-01T00:{k:02d}:00Z"},
            })  # fmt: skip
    return out


def run_case(pods: int, nodes: int, mode: str, budget: float, profile_top: int) -> dict[str, Any]:
    """Schedule up to ``pods`` Pods on ``nodes`` nodes within ``budget`` seconds; return the figures."""
    snapshot = Snapshot.from_objects(
        (node(i) for i in range(nodes)),
        fillers(nodes) if mode == "preempt" else (),
        workloads=workloads() if mode == "spread" else (),
    )
    profile = default_profile()
    rng = random.Random(1)
    to_schedule = [pod(i, mode) for i in range(pods)]
    records = []
    digest = hashlib.sha256()
    start_index = 0
    profiler = cProfile.Profile() if profile_top else None
    started = time.perf_counter()
    cpu_started = time.process_time()
    if profiler:
        profiler.enable()
    preemptions = 0
    for obj in to_schedule:
        record = schedule(obj, snapshot, profile, rng, start_index=start_index)
        start_index = record.next_start_index
        records.append(record)  # the bench's point: a record kept for every Pod
        if record.nominated_node is not None:
            # The victims leave; the Pod's next attempt finds the room.
            preemptions += 1
            for victim in record.victims:
                snapshot.remove_pod(victim)
            digest.update(f"{obj['metadata']['name']}!{record.nominated_node}:{','.join(record.victims)}\n".encode())
            record = schedule(obj, snapshot, profile, rng, start_index=start_index)
            start_index = record.next_start_index
            records[-1] = record
        totals = ",".join(f"{name}={total}" for name, total in record.totals().items())
        digest.update(f"{obj['metadata']['name']}>{record.selected}|{totals}\n".encode())
        if record.selected is not None:
            obj["spec"]["nodeName"] = record.selected
            snapshot.add_pod(obj)
        if time.perf_counter() - started > budget:
            break
    elapsed = time.perf_counter() - started
    # CPU time as well: on a shared machine the wall clock also counts other work's turns.
    cpu = time.process_time() - cpu_started
    if profiler:
        profiler.disable()
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(profile_top)
    scheduled = sum(1 for r in records if r.selected is not None)
    return {
        "pods": pods,
        "nodes": nodes,
        "mode": mode,
        "attempted": len(records),
        "scheduled": scheduled,
        "preemptions": preemptions,
        "seconds": round(elapsed, 2),
        "pods_per_second": round(len(records) / elapsed, 1),
        "cpu_seconds": round(cpu, 2),
        "complete": len(records) == pods,
        # ru_maxrss is KiB on Linux.
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "digest": digest.hexdigest()[:16],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per case (default 60)")
    parser.add_argument("--large", action="store_true", help="also 10,000 Pods on 5,000 nodes")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="print the N hottest functions per case")
    parser.add_argument(
        "--case", metavar="PODS,NODES,MODE", help="run one case in this process and print its figures as JSON"
    )
    parser.add_argument(
        "--modes", default=",".join(MODES), help="which of no,affinity,spread,preempt to run (default all)"
    )
    args = parser.parse_args()
    if args.case:
        pods, nodes, mode = args.case.split(",")
        print(json.dumps(run_case(int(pods), int(nodes), mode, args.budget, args.profile)))
        return
    header = f"{'pods':>6} {'nodes':>6} {'rules':>8} {'done':>11} {'s':>7} {'cpu s':>7} {'pods/s':>8} {'peak MiB':>9} {'preempts':>8}  digest"
    print(header)
    for pods, nodes in CASES + (LARGE_CASES if args.large else ()):
        for mode in args.modes.split(","):
            command = [sys.executable, __file__, "--case", f"{pods},{nodes},{mode}",
                       "--budget", str(args.budget), "--profile", str(args.profile)]  # fmt: skip
            result = json.loads(subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True).stdout)
            done = f"{result['attempted']}/{pods}"
            print(
                f"{pods:>6} {nodes:>6} {mode:>8} {done:>11} {result['seconds']:>7} {result['cpu_seconds']:>7} "
                f"{result['pods_per_second']:>8} {result['peak_rss_mib']:>9} {result['preemptions']:>8}  {result['digest']}",
                flush=True,
            )


if __name__ == "__main__":
    main()
