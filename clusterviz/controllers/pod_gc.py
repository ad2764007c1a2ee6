"""The pod garbage collector (PodGC): deletes Pods bound to nodes that no longer exist.

``kubectl delete node`` leaves the node's Pods behind, and no kubelet is
left to stop them. Upstream PodGC notices such orphans, waits a quarantine
period (40 s, simulated here) in case the node comes back, confirms with a
GET that it is really gone and force-deletes the Pods (grace period 0); their
controllers then create replacements on the remaining nodes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clusterviz.api import errors
from clusterviz.api.informer import Handler

from .util import Obj, Worker, meta, spec

if TYPE_CHECKING:
    from .manager import ControllerManager

COMPONENT = "pod-garbage-collector"
# kube-controller-manager's quarantineTime for Pods of missing nodes.
QUARANTINE_SECONDS = 40.0


class PodGarbageCollector:
    """Force-deletes the Pods of deleted nodes after the quarantine."""

    def __init__(self, cm: ControllerManager) -> None:
        self.cm = cm
        self.client = cm.client
        self.nodes = cm.informers["nodes"]
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        self.nodes.add_handler(Handler(lambda node: None, lambda old, new: None, self._node_deleted))
        cm.informers["pods"].add_handler(
            Handler(self._pod_seen, lambda old, new: self._pod_seen(new), lambda pod: None)
        )

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    def _node_deleted(self, node: Obj) -> None:
        self.worker.add_after(str(meta(node).get("name")), QUARANTINE_SECONDS)

    def _pod_seen(self, pod: Obj) -> None:
        node = spec(pod).get("nodeName")
        if isinstance(node, str) and node and self.nodes.get(node) is None:
            self.worker.add_after(node, QUARANTINE_SECONDS)

    async def sync(self, node: str) -> None:
        """Delete the Pods bound to ``node`` if it is still gone, in the caches and in the API."""
        if self.nodes.get(node) is not None or await self.client.get_or_none("nodes", node) is not None:
            return
        for pod in self.cm.pods_by_node.get(node):
            try:
                await self.client.delete(
                    "pods",
                    meta(pod)["name"],
                    meta(pod).get("namespace", ""),
                    {"gracePeriodSeconds": 0, "preconditions": {"uid": meta(pod).get("uid")}},
                )
            except errors.StatusError as exc:
                if exc.code not in (404, 409):
                    raise
