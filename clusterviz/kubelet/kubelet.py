"""The kubelet of one node: watches the Pods bound to it, runs them, and keeps its heartbeat.

It list-watches Pods with ``fieldSelector=spec.nodeName=<node>`` and hands
each Pod to its own ``PodWorker``. A heartbeat loop renews the node's Lease in
``kube-node-lease`` every ``heartbeat_interval`` simulated seconds, posts a
Ready node status when the node is not Ready (back from a failure, or newly
created through the API), keeps ``status.images`` in step with the runtime,
and cleans up sandboxes of Pods that vanished while the kubelet was down.

A ``Kubelet`` object lives from start to stop; starting a stopped node makes
a new one on the same ``ContainerRuntime``, which re-lists its Pods and
carries on, as a restarted kubelet does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from clusterviz.api import clock, errors
from clusterviz.api.component import Context
from clusterviz.api.informer import Handler, Informer
from clusterviz.apimachinery.unstructured import resource_version

from . import csi_node
from .runtime import Container, ContainerRuntime, Sandbox
from .status import is_ready, needs_status, ready_node_status
from .worker import TERMINAL_PHASES, PodWorker

LEASE_NAMESPACE = "kube-node-lease"
LEASE_DURATION_SECONDS = 40
# Renewals come up to this fraction of an interval late, as upstream's jittered lease loop does;
# it also keeps the nodes' heartbeats from all falling on the same simulated instant.
HEARTBEAT_JITTER = 0.04

NodeLookup = Callable[[], dict[str, Any] | None]


def _uid(pod: dict[str, Any]) -> str:
    return str((pod.get("metadata") or {}).get("uid", ""))


class Kubelet:
    """The node agent of ``node_name``, from one start to the next stop."""

    def __init__(
        self, ctx: Context, node_name: str, runtime: ContainerRuntime, node: NodeLookup
    ) -> None:
        self.ctx = ctx
        self.engine = ctx.engine
        self.node_name = node_name
        self.component = f"kubelet/{node_name}"
        self.client = ctx.client(self.component)
        self.recorder = ctx.recorder("kubelet", node_name)
        self.runtime = runtime
        self.node = node
        self.pods = Informer(self.client, "pods", field_selector=f"spec.nodeName={node_name}")
        self.pods.add_handler(Handler(self._on_pod, self._on_pod_update, self._on_pod_delete))
        self.workers: dict[str, PodWorker] = {}
        self.alive = False
        self._watch: asyncio.Task[None] | None = None
        self._jitter = ctx.rng(f"{self.component}/heartbeat")
        self._posted_node_rv = 0
        # The Lease this kubelet last wrote, renewed without reading it again (None: read it first).
        self._latest_lease: dict[str, Any] | None = None

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Begin watching Pods and heartbeating."""
        self.alive = True
        self._watch = self.engine.spawn(f"{self.component}/pods", self.pods.run)
        self.engine.spawn(f"{self.component}/heartbeat", self._heartbeat)
        self.engine.spawn(f"{self.component}/csinode", self._register_csi_driver)

    def stop(self) -> None:
        """Stop at once: the Pod watch closes; workers and the heartbeat end at their next step."""
        self.alive = False
        if self._watch is not None:
            self._watch.cancel()  # the informer only reads, so it can stop anywhere
        for worker in list(self.workers.values()):
            worker.signal()

    def node_changed(self) -> None:
        """Its Node changed: Pods still waiting for a sandbox may now get one (the podCIDR arrived)."""
        for worker in list(self.workers.values()):
            if worker.uid not in self.runtime.sandboxes:
                worker.signal()

    def admitted_pods(self) -> list[dict[str, Any]]:
        """The Pods whose resources this node has handed out."""
        return [w.pod for w in self.workers.values() if w.admitted]

    # --- pods --------------------------------------------------------------------------------

    def _on_pod(self, pod: dict[str, Any]) -> None:
        uid = _uid(pod)
        worker = self.workers.get(uid)
        if worker is None:
            self._adopt(pod)
            if (pod.get("status") or {}).get("phase") in TERMINAL_PHASES and uid not in self.runtime.sandboxes:
                return  # finished (or rejected) before: nothing to run
            worker = PodWorker(self, pod)
            self.workers[uid] = worker
            meta = pod.get("metadata") or {}
            self.engine.spawn(f"{self.component}/pod/{meta.get('namespace')}/{meta.get('name')}", worker.run)
        worker.update(pod)

    def _on_pod_update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        if _uid(old) != _uid(new):
            self._on_pod_delete(old)  # deleted and created again under the same name
        self._on_pod(new)

    def _on_pod_delete(self, pod: dict[str, Any]) -> None:
        worker = self.workers.get(_uid(pod))
        if worker is not None:
            worker.gone(pod)

    def _adopt(self, pod: dict[str, Any]) -> None:
        """Know a Pod that ran here before this simulation process started (its containers survived)."""
        status = pod.get("status") or {}
        uid = _uid(pod)
        if uid in self.runtime.sandboxes or status.get("phase") != "Running" or not status.get("podIP"):
            return
        meta = pod.get("metadata") or {}
        sandbox = Sandbox(uid, str(meta.get("namespace", "")), str(meta.get("name", "")), str(status["podIP"]))
        inits = [(cs, True) for cs in status.get("initContainerStatuses") or []]
        for cs, init in [*inits, *((cs, False) for cs in status.get("containerStatuses") or [])]:
            state = cs.get("state") or {}
            running, done = state.get("running"), state.get("terminated")
            if not cs.get("containerID"):
                continue
            if running is not None:
                started = clock.parse(str(running.get("startedAt", "")))
                finished, code = None, None
            elif init and done is not None and done.get("exitCode") == 0:
                # An init container that completed: the Pod's initialisation is not run again.
                started, finished = clock.parse(str(done.get("startedAt", ""))), clock.parse(str(done.get("finishedAt", "")))
                code = 0
            else:
                continue
            sandbox.containers[cs["name"]] = Container(
                cs["name"],
                cs.get("image", ""),
                cs.get("imageID", ""),
                cs["containerID"],
                clock.now_precise() if started is None else started,
                finished_at=None if running is not None else (finished or clock.now_precise()),
                exit_code=code,
                exit_armed=running is None,
            )
        self.runtime.adopt(sandbox)

    def _clean_up_orphans(self) -> None:
        """Kill sandboxes whose Pods were deleted while this kubelet was not watching."""
        if not self.pods.synced:
            return
        for uid, sandbox in list(self.runtime.sandboxes.items()):
            if uid in self.workers:
                continue
            stub = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"uid": uid, "namespace": sandbox.namespace, "name": sandbox.name},
            }
            worker = PodWorker(self, stub)
            worker.gone(stub)
            self.workers[uid] = worker
            self.engine.spawn(f"{self.component}/pod/{sandbox.namespace}/{sandbox.name}", worker.run)

    async def _register_csi_driver(self) -> None:
        """The CSI driver registers with this kubelet, which records it in the node's CSINode."""
        node = self.node()
        if node is not None and self.alive:
            await csi_node.register(self.client, node)

    # --- heartbeat and node status -----------------------------------------------------------

    async def _heartbeat(self) -> None:
        while self.alive:
            await self._sync_node_status()
            if not self.alive:
                return
            await self._renew_lease()
            if not self.alive:
                return
            self._clean_up_orphans()
            interval = self.ctx.settings.heartbeat_interval * (1 + HEARTBEAT_JITTER * self._jitter.random())
            await self.engine.sleep(interval, background=True, what=f"kubelet on {self.node_name} sends its heartbeat")

    async def _patch_node_status(self, status: dict[str, Any]) -> dict[str, Any] | None:
        try:
            updated = await self.client.patch("nodes", self.node_name, {"status": status}, sub="status")
        except errors.StatusError:
            return None  # deleted, or a conflict: the next heartbeat tries again
        self._posted_node_rv = resource_version(updated)
        return updated

    async def _sync_node_status(self) -> None:
        """Post Ready (with anything a registering kubelet reports) when needed, and the image list."""
        node = self.node()
        if node is None or resource_version(node) < self._posted_node_rv:
            return  # gone, or our last write has not come back through the watch yet
        if needs_status(node):
            was_ready = is_ready(node)
            updated = await self._patch_node_status(
                ready_node_status(node, clock.rfc3339(), self.runtime.image_list())
            )
            if updated is not None and not was_ready:
                await self.recorder.event(
                    updated, "Normal", "NodeReady", f"Node {self.node_name} status is now: NodeReady"
                )
        elif (node.get("status") or {}).get("images") != self.runtime.image_list():
            await self.report_images()

    async def report_images(self) -> None:
        """Publish the runtime's images as the node's ``status.images`` (what ImageLocality scores)."""
        await self._patch_node_status({"images": self.runtime.image_list()})

    async def _renew_lease(self) -> None:
        """Renew (or create) the node's Lease: the heartbeat the node lifecycle controller watches.

        As the kubelet's lease controller does, the Lease it last wrote is updated again without
        reading it first; only a failed update makes the next renewal read (or create) it afresh.
        """
        spec = {
            "holderIdentity": self.node_name,
            "leaseDurationSeconds": LEASE_DURATION_SECONDS,
            "renewTime": clock.rfc3339_micro(),
        }
        lease, self._latest_lease = self._latest_lease, None
        try:
            if lease is None:
                lease = await self.client.get_or_none("leases", self.node_name, LEASE_NAMESPACE)
            if lease is not None:
                lease = {**lease, "spec": {**(lease.get("spec") or {}), **spec}}
                self._latest_lease = await self.client.update(lease)
                return
            meta: dict[str, Any] = {"name": self.node_name, "namespace": LEASE_NAMESPACE}
            node = self.node()
            if node is not None and node.get("metadata", {}).get("uid"):
                meta["ownerReferences"] = [
                    {"apiVersion": "v1", "kind": "Node", "name": self.node_name, "uid": node["metadata"]["uid"]}
                ]
            self._latest_lease = await self.client.create(
                {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": meta, "spec": spec}
            )
        except errors.StatusError:
            pass  # a conflict or a missing namespace: the next heartbeat tries again
