"""API server throughput and watch latency on a cluster with 1,000 Pods stored.

Run: .venv/bin/python bench/api_throughput.py [--pods 1000]
Prints creates/gets/lists per second over HTTP (a Daphne process) and through
the in-process client, and watch delivery latency (median, p99).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def pod(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": "bench"}},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]},
    }


def http_bench(port: int, pods: int) -> dict[str, float]:
    conn = http.client.HTTPConnection("127.0.0.1", port)
    base = "/c/demo/api/v1/namespaces/default/pods"

    def call(method: str, path: str, body: dict | None = None) -> dict:
        conn.request(
            method, path, body=json.dumps(body) if body else None, headers={"Content-Type": "application/json"}
        )
        resp = conn.getresponse()
        data = json.loads(resp.read())
        if resp.status >= 300:
            raise RuntimeError(data)
        return data

    out = {}
    start = time.perf_counter()
    for i in range(pods):
        call("POST", base, pod(f"http-{i}"))
    out["http create/s"] = pods / (time.perf_counter() - start)
    start = time.perf_counter()
    for i in range(pods):
        call("GET", f"{base}/http-{i}")
    out["http get/s"] = pods / (time.perf_counter() - start)
    start = time.perf_counter()
    lists = 20
    for _ in range(lists):
        items = call("GET", base)["items"]
    out[f"http list of {len(items)} pods/s"] = lists / (time.perf_counter() - start)
    # A resource the watch cache does not keep, read as kubectl reads a collection: in pages of 500.
    configmaps = "/c/demo/api/v1/namespaces/default/configmaps"
    for i in range(pods):
        call("POST", configmaps, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i}"}, "data": {"k": "v"}})
    start = time.perf_counter()
    token, pages = "", 0
    while True:
        listed = call("GET", f"{configmaps}?limit=500&continue={token}")
        pages += 1
        token = listed["metadata"].get("continue", "")
        if not token:
            break
    out[f"http paged list of {pods} configmaps, pages/s"] = pages / (time.perf_counter() - start)
    return out


def watch_latency(port: int, samples: int) -> dict[str, float]:
    sent: dict[str, float] = {}
    latencies: list[float] = []
    done = threading.Event()

    def read(resp: http.client.HTTPResponse) -> None:
        while len(latencies) < samples:
            line = resp.readline()
            if not line:
                break
            event = json.loads(line)
            name = event["object"]["metadata"]["name"]
            if event["type"] == "ADDED" and name in sent:
                latencies.append(time.perf_counter() - sent[name])
        done.set()

    probe = http.client.HTTPConnection("127.0.0.1", port)
    probe.request("GET", "/c/demo/api/v1/namespaces/kube-public/pods")
    rv = json.loads(probe.getresponse().read())["metadata"]["resourceVersion"]
    conn = http.client.HTTPConnection("127.0.0.1", port)
    conn.request("GET", f"/c/demo/api/v1/namespaces/kube-public/pods?watch=true&resourceVersion={rv}")
    writer = http.client.HTTPConnection("127.0.0.1", port)
    resp_holder: list[http.client.HTTPResponse] = []
    for i in range(samples):
        name = f"lat-{i}"
        body = pod(name)
        sent[name] = time.perf_counter()
        writer.request(
            "POST",
            "/c/demo/api/v1/namespaces/kube-public/pods",
            body=json.dumps(body),
            headers={"Content-Type": "application/json"},
        )
        writer.getresponse().read()
        if i == 0:
            # The stream's headers arrive with its first event.
            resp_holder.append(conn.getresponse())
            threading.Thread(target=read, args=(resp_holder[0],), daemon=True).start()
    done.wait(60)
    ms = sorted(x * 1000 for x in latencies)
    return {"watch latency median ms": statistics.median(ms), "watch latency p99 ms": ms[int(len(ms) * 0.99) - 1]}


async def in_process_bench(pods: int) -> dict[str, float]:
    from clusterviz.api.client import Client

    client = Client("demo", "client")
    out = {}
    start = time.perf_counter()
    for i in range(pods):
        await client.create(pod(f"inproc-{i}"), "kube-system")
    out["in-process create/s"] = pods / (time.perf_counter() - start)
    start = time.perf_counter()
    for i in range(pods):
        await client.get("pods", f"inproc-{i}", "kube-system")
    out["in-process get/s"] = pods / (time.perf_counter() - start)
    start = time.perf_counter()
    for _ in range(20):
        await client.list("pods", "default")
    out["in-process list/s"] = 20 / (time.perf_counter() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pods", type=int, default=1000)
    args = parser.parse_args()
    os.environ["CLUSTERVIZ_ENGINES"] = "false"  # the API server alone, without the simulation's hops
    from tests.livesim import LiveServer

    with tempfile.TemporaryDirectory() as tmp:
        # Unlimited writes: the figures are the server's, not a classroom's fair share (CLUSTERVIZ_WRITE_RATE).
        server = LiveServer(Path(tmp), {"CLUSTERVIZ_ENGINES": "false", "CLUSTERVIZ_WRITE_RATE": "0"})
        server.start()
        try:
            results = http_bench(server.port, args.pods)
            results.update(watch_latency(server.port, 200))
            os.environ["DATABASE_URL"] = server.env["DATABASE_URL"]
            os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clusterviz.settings")
            import django

            django.setup()
            results.update(asyncio.run(in_process_bench(args.pods)))
        finally:
            server.stop()
    for name, value in results.items():
        print(f"{name:32s} {value:10.1f}")


if __name__ == "__main__":
    main()
