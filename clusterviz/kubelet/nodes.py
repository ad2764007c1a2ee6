"""Machines joining and leaving: one kubelet per Node object, started and stopped through the API.

The ``NodeManager`` list-watches Nodes. A Node that appears (the bootstrap
nodes, or one created with kubectl) gets a container runtime, which keeps the
images the Node was created with, and a kubelet. A deleted Node loses both.
The annotation ``clusterviz.io/kubelet=stopped`` stops the node's kubelet (no
heartbeats, no Pod work: the node "fails"); ``running`` starts it again.

A Node created without ``spec.podCIDR`` gets the next free /24 of the cluster CIDR
here, standing in for kube-controller-manager's node IPAM controller, so
its Pods can have addresses.
"""

from __future__ import annotations

from typing import Any

from clusterviz.api import errors
from clusterviz.api.addresses import POD_SUBNETS, pod_subnet
from clusterviz.api.component import Context
from clusterviz.api.informer import Handler, Informer, WorkQueue, key_of

from .kubelet import Kubelet
from .runtime import ContainerRuntime

ANNOTATION = "clusterviz.io/kubelet"
STOPPED = "stopped"
# The node agents as one watcher of Nodes; each kubelet reads its own Node from this cache.
COMPONENT = "kubelet"
IPAM_COMPONENT = "controller-manager"


def _stopped(node: dict[str, Any]) -> bool:
    return ((node.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION) == STOPPED


class NodeManager:
    """Runs one kubelet per Node of the cluster."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.engine = ctx.engine
        self.informer = Informer(ctx.client(COMPONENT), "nodes")
        self.queue = WorkQueue(ctx.engine)
        self.kubelets: dict[str, Kubelet] = {}
        self.runtimes: dict[str, ContainerRuntime] = {}
        self._ipam = ctx.client(IPAM_COMPONENT)
        enqueue = self._enqueue
        self.informer.add_handler(Handler(enqueue, lambda _old, new: enqueue(new), enqueue))

    def _enqueue(self, node: dict[str, Any]) -> None:
        self.queue.add(key_of(node))

    async def run(self) -> None:
        """Watch Nodes and keep one kubelet per running node."""
        self.engine.spawn(f"{COMPONENT}/nodes", self.informer.run)
        while True:
            await self.sync(await self.queue.get())

    async def sync(self, name: str) -> None:
        """Make the node's kubelet match its Node object: absent, stopped or running."""
        node = self.informer.get(name)
        kubelet = self.kubelets.get(name)
        if node is None or _stopped(node):
            if node is None:
                self.runtimes.pop(name, None)
            if kubelet is not None:
                del self.kubelets[name]
                kubelet.stop()
            return
        runtime = self.runtimes.get(name)
        if runtime is None:
            runtime = ContainerRuntime(self.ctx, name)
            runtime.load_images((node.get("status") or {}).get("images") or [])
            self.runtimes[name] = runtime
        cidr = (node.get("spec") or {}).get("podCIDR")
        runtime.ipam.configure(cidr)
        if kubelet is None:
            kubelet = Kubelet(self.ctx, name, runtime, lambda: self.informer.get(name))
            self.kubelets[name] = kubelet
            kubelet.start()
        else:
            kubelet.node_changed()
        if not cidr:
            await self._allocate_pod_cidr(node)

    async def _allocate_pod_cidr(self, node: dict[str, Any]) -> None:
        """Give the node the lowest free /24 of the cluster CIDR (what node IPAM would do)."""
        used = {str((n.get("spec") or {}).get("podCIDR")) for n in self.informer.items()}
        free = next((s for i in range(1, POD_SUBNETS) if (s := pod_subnet(i)) not in used), None)
        if free is None:
            return
        meta = node.get("metadata") or {}
        patch = {
            "metadata": {"resourceVersion": meta.get("resourceVersion")},
            "spec": {"podCIDR": free, "podCIDRs": [free]},
        }
        try:
            await self._ipam.patch("nodes", str(meta.get("name")), patch)
        except errors.StatusError:
            pass  # changed meanwhile: its update brings us back here
