"""Test support: a fake kubelet standing in for scheduler and kubelets, and the cluster a test drives.

The fake binds Pods round-robin to the running nodes, makes them Running
and Ready after a short (simulated) delay, finishes graceful deletions and
renews the node Leases, unless told a node is stopped. Keeping the real
scheduler and kubelets out makes these tests about the controllers alone.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from clusterviz.api import errors
from clusterviz.api.client import Client
from clusterviz.api.informer import Handler, Informer, WorkQueue, key_of
from clusterviz.controllers.manager import ControllerManager
from clusterviz.controllers.util import deleting, is_pod_ready, meta, spec
from clusterviz.sim.context import Context

Obj = dict[str, Any]
EPOCH = datetime(2025, 1, 1, tzinfo=UTC)


class FakeKubelet:
    """Scheduler and kubelets reduced to what the controllers need to see."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.engine = ctx.engine
        self.client = ctx.client("kubelet/fake")
        self.pods = Informer(self.client, "pods")
        self.nodes = Informer(self.client, "nodes")
        self.queue = WorkQueue(ctx.engine)
        self.stopped: set[str] = set()
        self.restarted: set[str] = set()
        # Pods the fake leaves as they are (a test sets their status itself).
        self.held: set[str] = set()
        self.ready_delay = 2.0
        self.observers: list[Callable[[list[Obj]], None]] = []
        self._starting: set[str] = set()
        self._next_node = 0
        self._next_ip = 0
        self.pods.add_handler(Handler(self._changed, lambda old, new: self._changed(new), self._deleted))

    async def run(self) -> None:
        await self.nodes.list_once()
        await self.pods.list_once()
        await self._heartbeat_once()
        self.engine.spawn("fake/pods", self.pods.run)
        self.engine.spawn("fake/nodes", self.nodes.run)
        self.engine.spawn("fake/heartbeat", self._heartbeat)
        self.engine.spawn("fake/worker", self._work)

    def _changed(self, pod: Obj) -> None:
        self.queue.add(key_of(pod))
        self._notify()

    def _deleted(self, pod: Obj) -> None:
        self._notify()

    def _notify(self) -> None:
        pods = list(self.pods.cache.values())
        for observer in self.observers:
            observer(pods)

    def stop_node(self, name: str) -> None:
        self.stopped.add(name)

    def start_node(self, name: str) -> None:
        self.stopped.discard(name)
        self.restarted.add(name)
        for pod in self.pods.items():
            if spec(pod).get("nodeName") == name:
                self.queue.add(key_of(pod))

    def stamp(self, micro: bool = False) -> str:
        moment = EPOCH + timedelta(seconds=self.engine.now)
        return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ" if micro else "%Y-%m-%dT%H:%M:%SZ")

    async def _heartbeat(self) -> None:
        while True:
            await self.engine.sleep(self.ctx.settings.heartbeat_interval, background=True)
            await self._heartbeat_once()

    async def _heartbeat_once(self) -> None:
        for node in sorted(self.nodes.cache):
            if node in self.stopped:
                continue
            body = {
                "apiVersion": "coordination.k8s.io/v1",
                "kind": "Lease",
                "metadata": {"name": node, "namespace": "kube-node-lease"},
                "spec": {"holderIdentity": node, "leaseDurationSeconds": 40, "renewTime": self.stamp(True)},
            }
            current = await self.client.get_or_none("leases", node, "kube-node-lease")
            if current is None:
                await self.client.create(body)
            else:
                await self.client.patch("leases", node, {"spec": body["spec"]}, "kube-node-lease")
            if node in self.restarted:
                self.restarted.discard(node)
                await self._post_ready(node)

    async def _post_ready(self, name: str) -> None:
        node = await self.client.get("nodes", name)
        for condition in node["status"]["conditions"]:
            want = "True" if condition["type"] == "Ready" else "False"
            if condition["status"] != want:
                condition["lastTransitionTime"] = self.stamp()
            condition.update(status=want, lastHeartbeatTime=self.stamp())
            if condition["type"] == "Ready":
                condition.update(reason="KubeletReady", message="kubelet is posting ready status")
        await self.client.update(node, sub="status")

    async def _work(self) -> None:
        while True:
            key = await self.queue.get()
            pod = self.pods.get(key)
            if pod is None:
                continue
            try:
                await self._handle(pod)
            except errors.StatusError as exc:
                if exc.code not in (404, 409):
                    raise

    async def _handle(self, pod: Obj) -> None:
        name, namespace = meta(pod)["name"], meta(pod)["namespace"]
        node = spec(pod).get("nodeName")
        if node in self.stopped or name in self.held:
            return
        if deleting(pod):
            await self.client.delete("pods", name, namespace, {"gracePeriodSeconds": 0})
            return
        if not node:
            running = [n for n in sorted(self.nodes.cache) if n not in self.stopped]
            if not running:
                return  # nowhere to run: the Pod stays Pending
            await self.client.bind(namespace, name, running[self._next_node % len(running)])
            self._next_node += 1
            return
        if is_pod_ready(pod) or key_of(pod) in self._starting:
            return
        self._starting.add(key_of(pod))
        self.engine.spawn(f"fake/start {key_of(pod)}", lambda: self._start(key_of(pod)))

    async def _start(self, key: str) -> None:
        await self.engine.sleep(self.ready_delay)
        self._starting.discard(key)
        pod = self.pods.get(key)
        if pod is None or deleting(pod) or spec(pod).get("nodeName") in self.stopped:
            return
        self._next_ip += 1
        ip = f"10.244.{self._next_ip // 250}.{self._next_ip % 250 + 2}"
        now = self.stamp()
        conditions = [
            {"type": t, "status": "True", "lastProbeTime": None, "lastTransitionTime": now}
            for t in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")
        ]
        patch = {"status": {"phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}], "conditions": conditions}}
        try:
            await self.client.patch("pods", meta(pod)["name"], patch, meta(pod)["namespace"], sub="status")
        except errors.StatusError as exc:
            if exc.code != 404:
                raise


class Cluster:
    """What a test drives: kubectl's client, the engine, the controller manager and the fake kubelet."""

    def __init__(self, running: Any) -> None:
        self.running = running
        self.engine = running.engine
        self.ctx = running.ctx
        self.cm: ControllerManager = running.components["controller-manager"]
        self.fake: FakeKubelet = running.components["fake-kubelet"]
        self.kubectl = Client("demo", "kubectl")

    async def settle(self, at_least: float = 0.0) -> None:
        """Run until quiet; with ``at_least``, let that much simulated time pass first."""
        if at_least > 0:
            self.engine.spawn("test/clock", lambda: self.engine.sleep(at_least))
            await asyncio.sleep(0)
        await self.engine.until_settled()

    async def pods(self, selector: str = "", active_only: bool = True) -> list[Obj]:
        items = (await self.kubectl.list("pods", "default", label_selector=selector))["items"]
        return [p for p in items if not (active_only and deleting(p))]

    async def events(self, reason: str = "") -> list[Obj]:
        """Events in the order they were recorded (their names sort by object, not by time)."""
        items = (await self.kubectl.list("events", "default"))["items"]
        items.sort(key=lambda e: int(e["metadata"]["resourceVersion"]))
        return [e for e in items if not reason or e["reason"] == reason]

    def pod_creations(self) -> list[str]:
        """Names of the Pods created so far, from the trace (a duplicate creation shows here)."""
        return [
            m.name
            for m in self.engine.trace
            if m.kind == "Pod" and m.verb == "create" and m.sender == "controller-manager"
        ]


def deployment(name: str = "myapp", replicas: int = 3, image: str = "soscscs/myapp:v1", **spec_extra: Any) -> Obj:
    """The seeds' Deployment (without nodeName)."""
    return copy.deepcopy(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": {"app": name}},
                "template": {
                    "metadata": {"labels": {"app": name}},
                    "spec": {
                        "containers": [{"name": name, "image": image, "ports": [{"name": "http", "containerPort": 80}]}]
                    },
                },
                **spec_extra,
            },
        }
    )
