"""Scale-out on PostgreSQL + Redis: two Daphne processes serve the API, two simworkers run the engines.

The watch log lives in PostgreSQL and wake-ups cross processes through Redis, so a watcher on one
web process sees every write made through the other, in revision order. Each cluster's engine runs
in one worker, held by a lease; when that worker is killed the other takes over once the lease
expires, and whatever it was doing (here a rollout) completes with no Pod lost or duplicated.
"""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests import backend
from tests.livesim import LiveServer, wait_until

LEASE_SECONDS = 3
STEADY_LEASE_SECONDS = 15
SIM = "/apis/clusterviz.io/v1/simulations/default"
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "myapp", "namespace": "default"},
    "spec": {
        "replicas": 3,
        "selector": {"matchLabels": {"app": "myapp"}},
        "template": {
            "metadata": {"labels": {"app": "myapp"}},
            "spec": {"containers": [{"name": "myapp", "image": "soscscs/myapp:v1"}]},
        },
    },
}


def call(server: LiveServer, method: str, path: str, body: Any = None, content_type: str = "application/json") -> Any:
    """One request to ``server``'s demo cluster; the JSON answer, after checking it succeeded."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        payload = json.dumps(body) if body is not None else None
        conn.request(method, "/c/demo" + path, body=payload, headers={"Content-Type": content_type})
        response = conn.getresponse()
        answer = json.loads(response.read() or b"null")
    finally:
        conn.close()
    assert response.status < 300, f"{method} {path}: {response.status} {answer}"
    return answer


@dataclass
class Watch:
    """A watch stream on one web process, read by a thread into ``events``."""

    server: LiveServer
    path: str
    events: list[dict[str, Any]] = field(default_factory=list)
    # When each event arrived (time.monotonic()).
    arrivals: list[float] = field(default_factory=list)

    def start(self, resource_version: str) -> None:
        """Watch from ``resource_version`` on (the log replays what is written before the stream opens)."""
        query = f"watch=1&resourceVersion={resource_version}&timeoutSeconds=120"
        path = f"/c/demo{self.path}{'&' if '?' in self.path else '?'}{query}"

        def read() -> None:
            # Daphne sends the headers with the first event, so even the response is awaited here.
            conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=120)
            conn.request("GET", path)
            response = conn.getresponse()
            assert response.status == 200
            for line in response:
                self.arrivals.append(time.monotonic())
                self.events.append(json.loads(line))

        threading.Thread(target=read, daemon=True).start()


@dataclass
class Stack:
    """Web processes A and B, and the workers keyed by the host name each puts in its lease."""

    a: LiveServer
    b: LiveServer
    workers: dict[str, subprocess.Popen[bytes]]

    def holder(self) -> str:
        """The worker holding the demo cluster's engine lease ('' while none does)."""
        rows = backend.fetch(self.a.database, "SELECT holder FROM sim_enginelease WHERE cluster = 'demo'")
        return rows[0][0].partition(":")[0] if rows else ""


def _stack(tmp_path: Path, lease_seconds: float) -> Iterator[Stack]:
    env = {
        "CLUSTERVIZ_ENGINES": "false",
        "CLUSTERVIZ_DEFAULT_MODE": "fast-forward",
        "CLUSTERVIZ_ENGINE_LEASE_SECONDS": str(lease_seconds),
    }
    a, b = LiveServer(tmp_path, env), LiveServer(tmp_path, env)
    a.start()
    b.start(migrate=False)
    # Distinct host names, as on two machines: a dead worker's lease must expire, not be spotted by pid.
    workers = {name: a.start_worker({"CLUSTERVIZ_HOST_NAME": name}) for name in ("worker-a", "worker-b")}
    yield Stack(a, b, workers)
    for worker in workers.values():
        if worker.poll() is None:
            worker.terminate()
            worker.wait(timeout=30)
    a.stop()
    b.stop()


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    """The set with the default lease, so that a busy machine does not move an engine mid-test."""
    yield from _stack(tmp_path, STEADY_LEASE_SECONDS)


@pytest.fixture
def short_lease_stack(tmp_path: Path) -> Iterator[Stack]:
    """The set with a short lease, for the takeover after a worker is killed."""
    yield from _stack(tmp_path, LEASE_SECONDS)


def test_a_watcher_on_one_process_sees_every_write_through_the_other_in_order(stack: Stack) -> None:
    call(stack.b, "POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}})
    start = call(stack.a, "GET", "/api/v1/namespaces/x/configmaps")["metadata"]["resourceVersion"]
    watch = Watch(stack.a, "/api/v1/namespaces/x/configmaps")
    watch.start(start)

    def writer(w: int) -> list[tuple[str, str, str]]:
        """Create, update and delete configmaps through B; what each write answered."""
        done = []
        for i in range(8):
            name = f"w{w}-{i}"
            obj = call(
                stack.b,
                "POST",
                "/api/v1/namespaces/x/configmaps",
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"i": "0"}},
            )
            done.append(("ADDED", name, obj["metadata"]["resourceVersion"]))
            obj = call(
                stack.b,
                "PATCH",
                f"/api/v1/namespaces/x/configmaps/{name}",
                {"data": {"i": "1"}},
                "application/merge-patch+json",
            )
            done.append(("MODIFIED", name, obj["metadata"]["resourceVersion"]))
            if i % 2:
                gone = call(stack.b, "DELETE", f"/api/v1/namespaces/x/configmaps/{name}")
                done.append(("DELETED", name, gone["metadata"]["resourceVersion"]))
        return done

    began = time.monotonic()
    with ThreadPoolExecutor(4) as pool:
        writes = sorted((w for ws in pool.map(writer, range(4)) for w in ws), key=lambda w: int(w[2]))
    # The namespace's kube-root-ca.crt, written by its publisher, is not one of the writers' writes.
    def ours() -> list[dict[str, Any]]:
        return [e for e in watch.events if e["object"]["metadata"]["name"] != "kube-root-ca.crt"]

    assert wait_until(lambda: len(ours()) >= len(writes), 60), f"saw {len(ours())} of {len(writes)}"
    print(f"{len(writes)} writes through B seen on A within {time.monotonic() - began:.2f}s of the first")
    seen = [(e["type"], e["object"]["metadata"]["name"], e["object"]["metadata"]["resourceVersion"]) for e in ours()]
    # Every write, exactly once, in revision order: nothing missing, nothing reordered or repeated.
    assert seen == writes


PODS = "/api/v1/namespaces/default/pods?labelSelector=app%3Dmyapp"


def test_a_write_through_one_process_wakes_watchers_on_the_other_at_once(stack: Stack) -> None:
    start = call(stack.a, "GET", "/api/v1/namespaces/default/configmaps")["metadata"]["resourceVersion"]
    watch = Watch(stack.a, "/api/v1/namespaces/default/configmaps")
    watch.start(start)
    delays = []
    for i in range(9):
        call(
            stack.b,
            "POST",
            "/api/v1/namespaces/default/configmaps",
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}"}},
        )
        answered = time.monotonic()
        assert wait_until(lambda i=i: len(watch.events) > i, 10)
        # The event may even arrive before the write's own answer does.
        delays.append(max(0.0, watch.arrivals[i] - answered))
    delays.sort()
    print(f"write on B -> event on A: median {delays[4] * 1000:.0f} ms, max {delays[-1] * 1000:.0f} ms")
    # Through Redis, not the watchers' once-a-second re-read of the log (which would give about 500 ms).
    assert delays[4] < 0.25


def pods(server: LiveServer) -> list[dict[str, Any]]:
    return call(server, "GET", PODS)["items"]


def all_running(server: LiveServer) -> bool:
    current = pods(server)
    return len(current) == 3 and all(p["status"].get("phase") == "Running" for p in current)


def rollout_done(server: LiveServer) -> bool:
    deployment = call(server, "GET", "/apis/apps/v1/namespaces/default/deployments/myapp")
    status = deployment.get("status") or {}
    current = pods(server)
    return (
        status.get("observedGeneration") == deployment["metadata"]["generation"]
        and status.get("updatedReplicas") == status.get("replicas") == status.get("availableReplicas") == 3
        and len(current) == 3
        and all(p["spec"]["containers"][0]["image"] == "soscscs/myapp:v2" for p in current)
        and all(p["status"].get("phase") == "Running" for p in current)
    )


def test_killing_the_engine_worker_mid_rollout_hands_it_over_and_the_rollout_completes(
    short_lease_stack: Stack,
) -> None:
    stack = short_lease_stack
    assert wait_until(lambda: stack.holder() in stack.workers, 60), "no worker claimed the demo cluster"
    call(stack.b, "POST", "/apis/apps/v1/namespaces/default/deployments", DEPLOYMENT)
    assert wait_until(lambda: all_running(stack.a), 60), "the first version never ran"

    listed = call(stack.a, "GET", PODS)
    watch = Watch(stack.a, PODS)
    watch.start(listed["metadata"]["resourceVersion"])
    # Real-time speed, so the rollout is still going when its worker dies.
    call(stack.b, "PATCH", SIM, {"spec": {"mode": "live", "speed": 1}}, "application/merge-patch+json")
    call(
        stack.b,
        "PATCH",
        "/apis/apps/v1/namespaces/default/deployments/myapp",
        {"spec": {"template": {"spec": {"containers": [{"name": "myapp", "image": "soscscs/myapp:v2"}]}}}},
        "application/strategic-merge-patch+json",
    )
    assert wait_until(lambda: any(p["spec"]["containers"][0]["image"].endswith("v2") for p in pods(stack.a)), 60)
    assert not rollout_done(stack.a)

    dead = stack.holder()
    survivor = next(name for name in stack.workers if name != dead)
    stack.workers[dead].send_signal(signal.SIGKILL)
    stack.workers[dead].wait()
    killed = time.monotonic()
    assert wait_until(lambda: stack.holder() == survivor, 4 * LEASE_SECONDS), "the lease was not taken over"
    print(
        f"{survivor} took the engine over {time.monotonic() - killed:.2f}s after {dead} was killed "
        f"(lease {LEASE_SECONDS}s)"
    )
    call(stack.b, "PATCH", SIM, {"spec": {"mode": "fast-forward"}}, "application/merge-patch+json")
    assert wait_until(lambda: rollout_done(stack.a), 90), f"the rollout did not complete: {pods(stack.a)}"

    final = pods(stack.a)
    hashes = {p["metadata"]["labels"]["pod-template-hash"] for p in final}
    assert len(hashes) == 1
    # No Pod duplicated: each name added once, and never more Pods than replicas + maxSurge (25% of 3 -> 1).
    # None lost: once the watch has caught up, the Pods it leaves alive are exactly the three new ones.
    names = {p["metadata"]["name"] for p in final}
    initial = {p["metadata"]["name"] for p in listed["items"]}
    assert wait_until(lambda: replay(initial, watch.events)[0] == names, 30), replay(initial, watch.events)
    revisions = [int(e["object"]["metadata"]["resourceVersion"]) for e in watch.events]
    assert revisions == sorted(set(revisions)), "the watch on A went back or repeated itself across the takeover"
    added = [e["object"]["metadata"]["name"] for e in watch.events if e["type"] == "ADDED"]
    assert len(added) == len(set(added))
    assert replay(initial, watch.events)[1] <= 4


def replay(initial: set[str], events: list[dict[str, Any]]) -> tuple[set[str], int]:
    """The Pods alive (not being deleted) after ``events``, and the most there were at once."""
    alive = set(initial)
    peak = len(alive)
    for event in list(events):
        meta = event["object"]["metadata"]
        if event["type"] == "DELETED" or "deletionTimestamp" in meta:
            alive.discard(meta["name"])
        else:
            alive.add(meta["name"])
        peak = max(peak, len(alive))
    return alive, peak


def test_a_write_through_a_web_process_is_hops_on_the_workers_bus_and_waits_in_step_mode(stack: Stack) -> None:
    assert wait_until(lambda: stack.holder() in stack.workers, 60), "no worker claimed the demo cluster"
    # Through B, which runs no engine: the mode change is made by the worker at once.
    call(stack.b, "PATCH", SIM, {"spec": {"mode": "step"}}, "application/merge-patch+json")
    assert call(stack.a, "GET", SIM)["spec"]["mode"] == "step"
    configmap = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "held"}, "data": {"a": "1"}}
    with ThreadPoolExecutor(1) as pool:
        created = pool.submit(call, stack.a, "POST", "/api/v1/namespaces/default/configmaps", configmap)
        # Held at the API server: "created" means stored, and nothing is stored before its hops are stepped.
        assert not wait_until(created.done, 2)  # wall-clock: showing that it waits
        steps = []
        while not created.done() and len(steps) < 20:
            delivered = call(stack.b, "POST", f"{SIM}/step", {})
            steps.append(delivered.get("step"))
            wait_until(created.done, 0.3)  # wall-clock: the answer travels back through Redis
        assert created.result(timeout=30)["metadata"]["name"] == "held"
    assert steps[:3] == [1, 2, 3]

    def held_steps() -> list[int]:
        trace = call(stack.a, "GET", "/apis/clusterviz.io/v1/flowmessages?sinceSeq=0")["items"]
        return [m["step"] for m in trace if m["object"]["name"] == "held" and m["step"] is not None]

    # The worker saves its trace about once a second; A reads it from the database.
    assert wait_until(lambda: held_steps()[:3] == [1, 2, 3], 10), held_steps()
