"""Engines in worker processes: a web process with engines off, workers that claim clusters by lease."""

from __future__ import annotations

import json
import signal
import subprocess
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.livesim import ROOT, LiveServer, wait_until

MYAPP = (ROOT / "examples" / "myapp.yaml").read_text()


@pytest.fixture
def web(tmp_path: Path) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path, {"CLUSTERVIZ_ENGINES": "false", "CLUSTERVIZ_DEFAULT_MODE": "fast-forward",
                                   "CLUSTERVIZ_ENGINE_LEASE_SECONDS": "3"})
    server.start()
    yield server
    server.stop()


def running_pods(server: LiveServer) -> list[dict]:
    with urllib.request.urlopen(server.cluster_url() + "/api/v1/namespaces/default/pods?labelSelector=app%3Dmyapp") as r:
        items = json.loads(r.read())["items"]
    return [p for p in items if p["status"].get("phase") == "Running" and not p["metadata"].get("deletionTimestamp")]


def test_a_worker_runs_the_cluster_and_another_takes_over_when_it_dies(web: LiveServer, kubectl_binary: str,
                                                                       tmp_path: Path):
    manifest = tmp_path / "myapp.yaml"
    manifest.write_text(MYAPP)
    first = web.start_worker()
    second: subprocess.Popen[bytes] | None = None
    try:
        env = {"HOME": str(tmp_path), "KUBECONFIG": str(tmp_path / "kc"), "PATH": "/usr/bin:/bin"}
        kubectl = [kubectl_binary, f"--server={web.cluster_url()}", f"--cache-dir={tmp_path / 'cache'}"]
        applied = subprocess.run([*kubectl, "apply", "-f", str(manifest)], env=env, capture_output=True, text=True)
        assert applied.returncode == 0, applied.stderr
        assert wait_until(lambda: len(running_pods(web)) == 3), "the worker did not run the Deployment"

        first.send_signal(signal.SIGKILL)
        first.wait()
        second = web.start_worker()
        scaled = subprocess.run([*kubectl, "scale", "deployment", "myapp", "--replicas=5"], env=env,
                                capture_output=True, text=True)
        assert scaled.returncode == 0, scaled.stderr
        assert wait_until(lambda: len(running_pods(web)) == 5), "no worker took the cluster over"
        names = [p["metadata"]["name"] for p in running_pods(web)]
        assert len(set(names)) == 5
    finally:
        for worker in (first, second):
            if worker is not None and worker.poll() is None:
                worker.terminate()
                worker.wait(timeout=30)


def lease_holders(server: LiveServer) -> list[str]:
    """Who holds each cluster's engine lease (an empty string for a lease nobody holds)."""
    shown = server.manage("shell", "--no-imports", "-c", "from clusterviz.sim.models import EngineLease as L; "
                          "print(*[l.holder or '-' for l in L.objects.all()])")
    assert shown.returncode == 0, shown.stderr
    return [holder if holder != "-" else "" for holder in shown.stdout.split()]


def test_workers_started_together_share_the_clusters_out_and_one_left_takes_them_all(web: LiveServer):
    for i in range(5):
        made = web.manage("createcluster", f"class{i}", "--nodes", "1")
        assert made.returncode == 0, made.stderr
    workers = [web.start_worker(), web.start_worker()]
    try:
        def all_held() -> bool:
            holders = lease_holders(web)
            return len(holders) == 6 and all(holders)

        assert wait_until(all_held), f"not every cluster was claimed: {lease_holders(web)}"
        shares = sorted(Counter(lease_holders(web)).values())
        assert shares == [3, 3], f"the clusters were not shared out: {shares}"

        workers[0].send_signal(signal.SIGKILL)
        workers[0].wait()
        survivor = f"{lease_holders(web)[0].rpartition(':')[0]}:{workers[1].pid}"
        assert wait_until(lambda: lease_holders(web) == [survivor] * 6), (
            f"the worker left did not take every cluster: {lease_holders(web)}"
        )
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.terminate()
                worker.wait(timeout=30)


def test_a_worker_started_later_is_handed_its_share_of_the_clusters(web: LiveServer):
    for i in range(5):
        made = web.manage("createcluster", f"class{i}", "--nodes", "1")
        assert made.returncode == 0, made.stderr
    workers = [web.start_worker()]
    try:
        def one_holds_all() -> bool:
            holders = lease_holders(web)
            return len(holders) == 6 and len(set(holders)) == 1 and bool(holders[0])

        assert wait_until(one_holds_all), (
            f"the first worker did not take every cluster: {lease_holders(web)}"
        )
        first = lease_holders(web)[0]
        workers.append(web.start_worker())
        assert wait_until(lambda: sorted(Counter(lease_holders(web)).values()) == [3, 3]), (
            f"the first worker kept more than its share: {lease_holders(web)}"
        )
        assert first in lease_holders(web)
        # Each cluster still answers, from whichever worker runs it now.
        for cluster in ("demo", *(f"class{i}" for i in range(5))):
            with urllib.request.urlopen(f"{web.cluster_url(cluster)}/api/v1/nodes") as r:
                assert json.loads(r.read())["items"]
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.terminate()
                worker.wait(timeout=30)
