"""The taint eviction controller: deletes Pods from nodes with NoExecute taints they do not tolerate.

A Pod that does not tolerate every NoExecute taint of its node goes at once;
one tolerating them for a limited time (tolerationSeconds, 300 s by default
for the not-ready and unreachable taints) goes when the shortest toleration
runs out, unless the taints are lifted first. The wait is a simulated-time
timer. The 300 s the API server puts on every Pod is read as the cluster's
``pod_eviction_timeout`` setting, so a lesson need not wait five minutes.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from clusterviz.api import clock, errors
from clusterviz.api.informer import Handler, key_of

from .node_lifecycle import NOT_READY_TAINT, UNREACHABLE_TAINT
from .util import Obj, Worker, deleting, meta, spec

if TYPE_CHECKING:
    from .manager import ControllerManager

log = logging.getLogger(__name__)

COMPONENT = "taint-eviction-controller"
# What the DefaultTolerationSeconds admission plugin writes.
DEFAULT_TOLERATION_SECONDS = 300
DELETE_RETRIES = 5


def no_execute(taints: Any) -> list[dict[str, Any]]:
    """The NoExecute taints among ``taints``."""
    return [t for t in taints or [] if isinstance(t, dict) and t.get("effect") == "NoExecute"]


def tolerates(toleration: dict[str, Any], taint: dict[str, Any]) -> bool:
    """Toleration.ToleratesTaint."""
    if toleration.get("effect") and toleration.get("effect") != taint.get("effect"):
        return False
    if toleration.get("key") and toleration.get("key") != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    return operator == "Equal" and (toleration.get("value") or "") == (taint.get("value") or "")


def matching_tolerations(
    taints: list[dict[str, Any]], tolerations: list[dict[str, Any]]
) -> tuple[bool, list[dict[str, Any]]]:
    """GetMatchingTolerations: whether every taint is tolerated, and the tolerations that do it."""
    used: list[dict[str, Any]] = []
    for taint in taints:
        match = next((t for t in tolerations if tolerates(t, taint)), None)
        if match is None:
            return False, []
        used.append(match)
    return True, used


class TaintEvictionController:
    """Schedules and carries out NoExecute evictions."""

    def __init__(self, cm: ControllerManager) -> None:
        self.cm = cm
        self.engine = cm.engine
        self.settings = cm.ctx.settings
        self.client = cm.client
        self.recorder = cm.ctx.recorder(COMPONENT)
        self.nodes = cm.informers["nodes"]
        self.pods = cm.informers["pods"]
        self.tainted: dict[str, list[dict[str, Any]]] = {}
        # Pending evictions: Pod key -> token of its timer (a cancelled timer finds another token or none).
        self.scheduled: dict[str, int] = {}
        self._tokens = 0
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        self.nodes.add_handler(Handler(self._node_added, self._node_updated, self._node_added))
        self.pods.add_handler(Handler(self._pod_added, self._pod_updated, self._pod_deleted))

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    def _node_added(self, node: Obj) -> None:
        self.worker.add(f"node:{meta(node).get('name')}")

    def _node_updated(self, old: Obj, new: Obj) -> None:
        if no_execute(spec(old).get("taints")) != no_execute(spec(new).get("taints")):
            self._node_added(new)

    def _pod_added(self, pod: Obj) -> None:
        self.worker.add(f"pod:{key_of(pod)}")

    def _pod_updated(self, old: Obj, new: Obj) -> None:
        if spec(old).get("tolerations") != spec(new).get("tolerations") or spec(old).get("nodeName") != spec(new).get(
            "nodeName"
        ):
            self._pod_added(new)

    def _pod_deleted(self, pod: Obj) -> None:
        self._pod_added(pod)

    async def sync(self, item: str) -> None:
        """Handle a ``node:<name>`` or ``pod:<namespace/name>`` item."""
        kind, _, key = item.partition(":")
        if kind == "node":
            await self._handle_node(key)
        else:
            await self._handle_pod(key)

    async def _handle_node(self, name: str) -> None:
        node = self.nodes.get(name)
        if node is None:
            self.tainted.pop(name, None)
            return
        taints = no_execute(spec(node).get("taints"))
        if taints:
            self.tainted[name] = taints
        else:
            self.tainted.pop(name, None)
        for pod in self.cm.pods_by_node.get(name):
            if taints:
                await self._process_pod(pod, taints)
            else:
                await self._cancel(key_of(pod))

    async def _handle_pod(self, key: str) -> None:
        pod = self.pods.get(key)
        if pod is None:
            await self._cancel(key)
            return
        taints = self.tainted.get(spec(pod).get("nodeName") or "")
        if taints:
            await self._process_pod(pod, taints)

    def _toleration_seconds(self, toleration: dict[str, Any]) -> float | None:
        seconds = toleration.get("tolerationSeconds")
        if not isinstance(seconds, int | float) or isinstance(seconds, bool):
            return None
        if seconds == DEFAULT_TOLERATION_SECONDS and toleration.get("key") in (NOT_READY_TAINT, UNREACHABLE_TAINT):
            return self.settings.pod_eviction_timeout
        return float(seconds)

    async def _process_pod(self, pod: Obj, taints: list[dict[str, Any]]) -> None:
        """processPodOnNode: evict now, later, or never."""
        key = key_of(pod)
        if deleting(pod):
            return  # already on its way out
        tolerations = [t for t in spec(pod).get("tolerations") or [] if isinstance(t, dict)]
        all_tolerated, used = matching_tolerations(taints, tolerations)
        if not all_tolerated:
            await self._cancel(key)
            self._schedule(key, 0.0)
            return
        limits = [s for s in (self._toleration_seconds(t) for t in used) if s is not None]
        if not limits and used:
            await self._cancel(key)  # tolerated for ever
            return
        if key in self.scheduled:
            return  # counted from when the taint was first seen, as upstream
        self._schedule(key, max(min(limits), 0.0) if limits else 0.0)

    def _schedule(self, key: str, wait: float) -> None:
        self._tokens += 1
        token = self._tokens
        self.scheduled[key] = token

        async def fire() -> None:
            if wait > 0:
                await self.engine.sleep(wait, what=f"the taint eviction controller deletes Pod {key}")
            if self.scheduled.get(key) != token:
                return  # cancelled while waiting
            del self.scheduled[key]
            await self._evict(key)

        self.engine.spawn(f"controller-manager/{COMPONENT}/{key}", fire)

    async def _cancel(self, key: str) -> None:
        if self.scheduled.pop(key, None) is not None:
            await self.recorder.event(
                self._pod_ref(key), "Normal", "TaintManagerEviction", f"Cancelling deletion of Pod {key}"
            )

    @staticmethod
    def _pod_ref(key: str) -> Obj:
        namespace, _, name = key.partition("/")
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace}}

    async def _evict(self, key: str) -> None:
        """deletePodHandler: event, DisruptionTarget condition, delete; a few retries."""
        await self.recorder.event(
            self._pod_ref(key), "Normal", "TaintManagerEviction", f"Marking for deletion Pod {key}"
        )
        namespace, _, name = key.partition("/")
        for attempt in range(DELETE_RETRIES):
            try:
                await self._add_condition_and_delete(namespace, name)
                return
            except errors.StatusError as exc:
                if exc.code == 404:
                    return
                if attempt == DELETE_RETRIES - 1:
                    log.info("could not evict pod %s: %s", key, exc.message)
                    return
                await self.engine.sleep(0.01, what=f"the taint eviction controller retries deleting Pod {key}")

    async def _add_condition_and_delete(self, namespace: str, name: str) -> None:
        pod = await self.client.get("pods", name, namespace)
        conditions = (pod.get("status") or {}).get("conditions") or []
        if not any(c.get("type") == "DisruptionTarget" and c.get("status") == "True" for c in conditions):
            condition = {
                "type": "DisruptionTarget",
                "status": "True",
                "lastTransitionTime": clock.rfc3339(),
                "reason": "DeletionByTaintManager",
                "message": "Taint manager: deleting due to NoExecute taint",
            }
            await self.client.patch(
                "pods", name, {"status": {"conditions": [condition]}}, namespace, patch_type="strategic", sub="status"
            )
        await self.client.delete("pods", name, namespace)
