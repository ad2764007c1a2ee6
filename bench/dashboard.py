"""How fast the dashboard shows a change, how smoothly it animates, and how it copes with a big cluster.

Run: .venv/bin/python bench/dashboard.py [--writes 40] [--big-nodes 200] [--big-pods 5000]
Each part starts a fresh Daphne server (live mode) and opens the cluster page in headless
Chromium (Debian's ``chromium``, driven by Playwright):

1. write -> visible: a node label is written through the API (as kubectl would) and the page
   notices the new text through a MutationObserver; the figure is the time from just before
   the HTTP request to the DOM change, both on the machine's wall clock (median and p99).
2. frames per second while a 100-replica Deployment rolls out on 20 nodes, counted with
   ``requestAnimationFrame`` until the page shows 100 Pods Running, plus the main thread's
   long tasks (> 50 ms) over that time.
3. a cluster of 200 nodes and 5,000 Pods (written straight into the store while the
   simulation is paused): page load time, DOM size, and write -> visible latency of labels
   written straight into the store (kubectl's writes wait while the simulation is paused),
   with the main thread's long tasks meanwhile.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.livesim import LiveServer  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
OBSERVER = """
() => {
  window.__seen = {};
  window.__watch = (marker) => { window.__want = marker; };
  new MutationObserver(() => {
    const want = window.__want;
    if (want && !window.__seen[want] && document.body.textContent.includes(want)) {
      window.__seen[want] = performance.timeOrigin + performance.now();
    }
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}
"""
FRAME_COUNTER = """
() => {
  window.__frames = 0;
  window.__longTasks = [];
  const tick = () => { window.__frames += 1; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__longTasks.push(entry.duration);
  }).observe({entryTypes: ["longtask"]});
}
"""


def api(server: LiveServer, cluster: str, method: str, path: str, body: Any = None, content_type: str = "") -> Any:
    """One JSON request to the cluster's API, as kubectl sends it."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{server.cluster_url(cluster)}{path}", data=data, method=method)
    request.add_header("Content-Type", content_type or "application/json")
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read() or b"{}")


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of a non-empty list."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def write_to_visible(
    page: Any, server: LiveServer, cluster: str, node: str, writes: int, store: Any = None
) -> dict[str, float]:
    """Label ``node`` ``writes`` times; return the latency figures in milliseconds.

    The writes go through the API over HTTP (and so through the simulation's hops), or, with
    ``store`` (a function taking the label patch), straight into the store.
    """
    page.evaluate(OBSERVER)
    latencies = []
    for i in range(writes):
        marker = f"bench{i:03d}"
        page.evaluate("(m) => window.__watch(m)", f"seen={marker}")
        patch = {"metadata": {"labels": {"seen": marker}}}
        started = time.time() * 1000
        if store is not None:
            store(patch)
        else:
            api(server, cluster, "PATCH", f"/api/v1/nodes/{node}", patch, "application/merge-patch+json")
        page.wait_for_function("(m) => window.__seen[m]", arg=f"seen={marker}", timeout=30_000)
        latencies.append(page.evaluate("(m) => window.__seen[m]", f"seen={marker}") - started)
    return {
        "median_ms": round(statistics.median(latencies), 1),
        "p99_ms": round(percentile(latencies, 99), 1),
        "max_ms": round(max(latencies), 1),
    }


def deployment(name: str, replicas: int) -> dict[str, Any]:
    """A small nginx Deployment."""
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "containers": [{"name": "web", "image": "nginx:1.27", "resources": {"requests": {"cpu": "100m"}}}]
                },
            },
        },
    }


def rollout_fps(page: Any, server: LiveServer, cluster: str, replicas: int, budget: float) -> dict[str, Any]:
    """Apply a Deployment and count frames until the page shows every replica Running."""
    page.evaluate(FRAME_COUNTER)
    started = time.perf_counter()
    api(server, cluster, "POST", "/apis/apps/v1/namespaces/default/deployments", deployment("rollout", replicas))
    running = 0
    while time.perf_counter() - started < budget:
        running = page.evaluate("() => document.querySelectorAll('.chip[title$=\": Running\"]').length")
        if running >= replicas:
            break
        page.wait_for_timeout(200)  # wall-clock: sampling the page while the rollout runs
    elapsed = time.perf_counter() - started
    frames = page.evaluate("() => window.__frames")
    long_tasks = page.evaluate("() => window.__longTasks")
    return {
        "replicas": replicas,
        "running_on_page": running,
        "seconds": round(elapsed, 1),
        "fps": round(frames / elapsed, 1),
        "long_tasks": len(long_tasks),
        "longest_task_ms": round(max(long_tasks, default=0), 1),
    }


async def fill(cluster: str, nodes: list[str], pods: int) -> None:
    """Write ``pods`` Pods bound round-robin to ``nodes``, straight into the store."""
    from clusterviz.api.client import Client

    client = Client(cluster, "bench", simulated=False)
    for i in range(pods):
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"filler-{i:05d}", "namespace": "default", "labels": {"app": f"app{i % 20}"}},
            "spec": {
                "nodeName": nodes[i % len(nodes)],
                "containers": [{"name": "c", "image": "nginx:1.27"}],
            },
        }
        await client.create(pod, "default")


def big_cluster(server: LiveServer, browser: Any, nodes: int, pods: int, writes: int) -> dict[str, Any]:
    """Page figures for a cluster of ``nodes`` nodes and ``pods`` Pods."""
    created = server.manage("createcluster", "big", "--nodes", str(nodes), "--cpu", "64", "--pods", "500")
    if created.returncode != 0:
        raise RuntimeError(created.stderr)
    api(server, "big", "PATCH", "/apis/clusterviz.io/v1/simulations/default", {"spec": {"mode": "paused"}},
        "application/merge-patch+json")  # fmt: skip
    os.environ.update({k: v for k, v in server.env.items() if k in ("DATABASE_URL", "REDIS_URL")})
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clusterviz.settings")
    import django

    django.setup()
    node_names = [n["metadata"]["name"] for n in api(server, "big", "GET", "/api/v1/nodes")["items"]]
    started = time.perf_counter()
    # Playwright's sync API owns this thread's event loop; the store writes get their own.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, fill("big", node_names, pods)).result()
    filled = time.perf_counter() - started
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    started = time.perf_counter()
    page.goto(f"{server.url}/c/big/", wait_until="load")
    page.wait_for_function(f"() => document.body.textContent.includes('{node_names[-1]}')", timeout=120_000)
    loaded = time.perf_counter() - started
    page.evaluate(FRAME_COUNTER)

    # The simulation stays paused (kubectl's writes would wait for it): label straight in the store,
    # which measures the page's own path: watch, websocket, re-render.
    def label(patch: dict[str, Any]) -> None:
        from clusterviz.api.client import Client

        client = Client("big", "bench", simulated=False)
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, client.patch("nodes", node_names[0], patch)).result()

    latency = write_to_visible(page, server, "big", node_names[0], writes, store=label)
    return {
        "nodes": len(node_names),
        "pods": pods,
        "store_fill_s": round(filled, 1),
        "page_load_s": round(loaded, 2),
        "dom_elements": page.evaluate("() => document.getElementsByTagName('*').length"),
        "write_to_visible": latency,
        "long_tasks": len(page.evaluate("() => window.__longTasks")),
    }


def main() -> None:
    """Run the three parts and print one JSON object per part."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=40, help="label writes per latency figure")
    parser.add_argument("--replicas", type=int, default=100)
    parser.add_argument("--rollout-nodes", type=int, default=20)
    parser.add_argument("--big-nodes", type=int, default=200)
    parser.add_argument("--big-pods", type=int, default=5000)
    parser.add_argument("--budget", type=float, default=300.0, help="wall seconds allowed for the rollout")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        server = LiveServer(Path(tmp))
        server.start()
        try:
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.goto(f"{server.cluster_url('demo')}/", wait_until="load")
            page.wait_for_function("() => document.body.textContent.includes('node03')")
            print(json.dumps({"part": "write_to_visible", **write_to_visible(page, server, "demo", "node01", args.writes)}), flush=True)  # fmt: skip
            created = server.manage("createcluster", "roll", "--nodes", str(args.rollout_nodes), "--cpu", "64")
            if created.returncode != 0:
                raise RuntimeError(created.stderr)
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.goto(f"{server.cluster_url('roll')}/", wait_until="load")
            page.wait_for_function("() => document.body.textContent.includes('node01')")
            print(json.dumps({"part": "rollout", **rollout_fps(page, server, "roll", args.replicas, args.budget)}), flush=True)  # fmt: skip
            big = big_cluster(server, browser, args.big_nodes, args.big_pods, max(5, args.writes // 4))
            print(json.dumps({"part": "big_cluster", **big}), flush=True)
        finally:
            server.stop()
            browser.close()


if __name__ == "__main__":
    main()
