"""The node lifecycle controller: notices nodes whose kubelet went silent and taints them.

Every node-monitor period it checks each node's heartbeats (its Lease in
kube-node-lease and its Ready condition). A node heard from neither within
the grace period gets Ready (and the pressure conditions) set to Unknown,
a NodeNotReady event, its Pods marked not ready, and after that the
``node.kubernetes.io/unreachable:NoExecute`` taint; a node Ready again loses
it. Separately every node's conditions are mirrored as NoSchedule taints
(TaintNodesByCondition). Evicting the Pods is the taint eviction
controller's job.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from clusterviz.api import clock, errors
from clusterviz.api.informer import Handler
from clusterviz.apimachinery.unstructured import deep_copy

from .util import Obj, Worker, is_conflict, labels_of, meta, pod_condition, spec, status

if TYPE_CHECKING:
    from .manager import ControllerManager

log = logging.getLogger(__name__)

COMPONENT = "node-controller"
NOT_READY_TAINT = "node.kubernetes.io/not-ready"
UNREACHABLE_TAINT = "node.kubernetes.io/unreachable"
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
CONDITION_TAINTS = {
    "Ready": {"False": NOT_READY_TAINT, "Unknown": UNREACHABLE_TAINT},
    "MemoryPressure": {"True": "node.kubernetes.io/memory-pressure"},
    "DiskPressure": {"True": "node.kubernetes.io/disk-pressure"},
    "NetworkUnavailable": {"True": "node.kubernetes.io/network-unavailable"},
    "PIDPressure": {"True": "node.kubernetes.io/pid-pressure"},
}
CONDITION_TAINT_KEYS = frozenset(key for mapping in CONDITION_TAINTS.values() for key in mapping.values())
MONITORED_CONDITIONS = ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")
# --node-startup-grace-period: how long a node that never posted a Ready condition is given.
NODE_STARTUP_GRACE_PERIOD = 60.0
# --large-cluster-size-threshold: partially disrupted zones this small stop evicting altogether.
LARGE_CLUSTER_THRESHOLD = 50
# --unhealthy-zone-threshold.
UNHEALTHY_ZONE_THRESHOLD = 0.55
UPDATE_RETRIES = 5
ZONE_LABELS = ("topology.kubernetes.io/region", "topology.kubernetes.io/zone")

Taint = tuple[str, str]  # (key, effect)


@dataclass
class NodeHealth:
    """What the controller last heard from a node, in simulated time."""

    probe: float
    has_ready: bool
    heartbeat: Any
    lease_version: str | None = None


def ready_condition(node: Obj) -> dict[str, Any] | None:
    """The node's Ready condition."""
    return pod_condition(node, "Ready")


def zone_of(node: Obj) -> str:
    """nodetopology.GetZoneKey: region and zone labels."""
    node_labels = labels_of(node)
    return ":\x00:".join(node_labels.get(label, "") for label in ZONE_LABELS)


def zone_state(ready_statuses: list[str]) -> str:
    """ComputeZoneState: Normal, PartialDisruption or FullDisruption."""
    ready = sum(1 for s in ready_statuses if s == "True")
    not_ready = len(ready_statuses) - ready
    if ready == 0 and not_ready > 0:
        return "FullDisruption"
    if not_ready > 2 and not_ready / (not_ready + ready) >= UNHEALTHY_ZONE_THRESHOLD:
        return "PartialDisruption"
    return "Normal"


class NodeLifecycleController:
    """Monitors node health and keeps the node-controller taints in line with it."""

    def __init__(self, cm: ControllerManager) -> None:
        self.cm = cm
        self.engine = cm.engine
        self.settings = cm.ctx.settings
        self.client = cm.client
        self.recorder = cm.ctx.recorder(COMPONENT)
        self.nodes = cm.informers["nodes"]
        self.leases = cm.informers["leases"]
        self.health: dict[str, NodeHealth] = {}
        self.known: dict[str, Obj] = {}
        self.retry_pods: dict[str, None] = {}
        self.zone_states: dict[str, str] = {}
        self.zone_sizes: dict[str, int] = {}
        self.all_disrupted = False
        self.no_schedule = Worker(cm.engine, f"controller-manager/{COMPONENT}", self._sync_no_schedule_taints)
        self.nodes.add_handler(Handler(self._node_changed, lambda old, new: self._node_changed(new)))

    def start(self) -> None:
        """Start the NoSchedule tainting worker and the health monitor."""
        self.no_schedule.start()
        self.engine.spawn(f"controller-manager/{COMPONENT}/monitor", self._monitor_loop)

    def _node_changed(self, node: Obj) -> None:
        self.no_schedule.add(meta(node).get("name", ""))

    async def _monitor_loop(self) -> None:
        while True:
            try:
                await self.monitor()
            except Exception:
                # One failed pass must not end monitoring; the next pass retries.
                log.exception("node health monitoring failed")
            # A background timer: housekeeping, so fast-forward can settle between failures.
            what = "the node controller checks the nodes' heartbeats"
            await self.engine.sleep(self.settings.node_monitor_period, background=True, what=what)

    # --- health ---------------------------------------------------------------------------------

    async def monitor(self) -> None:
        """monitorNodeHealth: one pass over every node."""
        # The informer's own copies: a pass only reads them (a status it writes is made on a copy).
        nodes = sorted(self.nodes.items(), key=lambda n: meta(n).get("name", ""))
        names = {meta(n).get("name", "") for n in nodes}
        for node in nodes:
            name = meta(node).get("name", "")
            if name not in self.known:
                await self.recorder.event(
                    node, "Normal", "RegisteredNode", f"Node {name} event: Registered Node {name} in Controller"
                )
                self.known[name] = node
                await self._mark_reachable(name, node)
        for name in [n for n in self.known if n not in names]:
            node = self.known.pop(name)
            self.health.pop(name, None)
            await self.recorder.event(
                node, "Normal", "RemovingNode", f"Node {name} event: Removing Node {name} from Controller"
            )
        zone_ready: dict[str, list[str]] = {}
        for node in nodes:
            name = meta(node).get("name", "")
            observed, current = await self._update_health_with_retries(node)
            zone_ready.setdefault(zone_of(node), []).append(current.get("status", "Unknown") if current else "Unknown")
            if current is None:
                continue
            await self._taint_for_eviction(node, observed)
            newly_not_ready = current.get("status") != "True" and observed.get("status") == "True"
            if newly_not_ready:
                await self.recorder.event(node, "Normal", "NodeNotReady", f"Node {name} status is now: NodeNotReady")
            if newly_not_ready or (name in self.retry_pods and observed.get("status") != "True"):
                if not await self._mark_pods_not_ready(name):
                    self.retry_pods[name] = None
                    continue
            self.retry_pods.pop(name, None)
        await self._handle_disruption(nodes, zone_ready)

    async def _update_health_with_retries(self, node: Obj) -> tuple[dict[str, Any], dict[str, Any] | None]:
        for attempt in range(UPDATE_RETRIES):
            try:
                return await self._update_health(node)
            except errors.StatusError as exc:
                if not is_conflict(exc) or attempt == UPDATE_RETRIES - 1:
                    raise
                node = await self.client.get("nodes", meta(node).get("name", ""))
        raise AssertionError("unreachable")

    async def _update_health(self, node: Obj) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """tryUpdateNodeHealth: (Ready condition as observed, Ready condition now), writing Unknown when silent."""
        name = meta(node).get("name", "")
        now = self.engine.now
        current = ready_condition(node)
        if current is None:
            created = meta(node).get("creationTimestamp")
            observed: dict[str, Any] = {
                "type": "Ready",
                "status": "Unknown",
                "lastHeartbeatTime": created,
                "lastTransitionTime": created,
            }
            grace = NODE_STARTUP_GRACE_PERIOD
        else:
            observed = deep_copy(current)
            grace = self.settings.node_monitor_grace_period
        health = self.health.get(name)
        heartbeat = current.get("lastHeartbeatTime") if current else None
        if (
            health is None
            or health.has_ready != (current is not None)
            or (current is not None and health.heartbeat != heartbeat)
        ):
            # First sight, or the kubelet posted status: probe time is now.
            health = NodeHealth(now, current is not None, heartbeat, health.lease_version if health else None)
        lease = self.leases.get(f"kube-node-lease/{name}")
        if lease is not None and meta(lease).get("resourceVersion") != health.lease_version:
            # A renewed Lease is a heartbeat too.
            health.lease_version = meta(lease).get("resourceVersion")
            health.probe = now
        self.health[name] = health
        if now <= health.probe + grace:
            return observed, current
        stamp = clock.rfc3339()
        node = deep_copy(node)
        if not isinstance(node.get("status"), dict):
            node["status"] = {}
        if not isinstance(node["status"].get("conditions"), list):
            node["status"]["conditions"] = []
        conditions = node["status"]["conditions"]
        for type_ in MONITORED_CONDITIONS:
            condition = next((c for c in conditions if isinstance(c, dict) and c.get("type") == type_), None)
            if condition is None:
                conditions.append(
                    {
                        "type": type_,
                        "status": "Unknown",
                        "lastHeartbeatTime": meta(node).get("creationTimestamp"),
                        "lastTransitionTime": stamp,
                        "reason": "NodeStatusNeverUpdated",
                        "message": "Kubelet never posted node status.",
                    }
                )
            elif condition.get("status") != "Unknown":
                condition.update(
                    status="Unknown",
                    reason="NodeStatusUnknown",
                    message="Kubelet stopped posting node status.",
                    lastTransitionTime=stamp,
                )
        current = ready_condition(node)
        if current != observed:
            await self.client.update(node, sub="status")
            self.health[name] = NodeHealth(
                health.probe,
                current is not None,
                current.get("lastHeartbeatTime") if current else None,
                health.lease_version,
            )
        return observed, current

    async def _mark_pods_not_ready(self, node_name: str) -> bool:
        """MarkPodsNotReady: every Pod on the node gets Ready=False; False if some write failed."""
        ok = True
        for pod in self.cm.pods_by_node.get(node_name):
            condition = pod_condition(pod, "Ready")
            if condition is None or condition.get("status") == "False":
                continue
            body = deep_copy(pod)
            for item in status(body).get("conditions") or []:
                if item.get("type") == "Ready":
                    item.update(status="False", lastTransitionTime=clock.rfc3339())
            try:
                updated = await self.client.update(body, sub="status")
            except errors.StatusError as exc:
                if exc.code != 404:
                    ok = False
                continue
            await self.recorder.event(updated, "Warning", "NodeNotReady", "Node is not ready")
        return ok

    async def _handle_disruption(self, nodes: list[Obj], zone_ready: dict[str, list[str]]) -> None:
        """handleDisruption: when every zone is fully disrupted the control plane, not the nodes, is suspect."""
        states = {zone: zone_state(statuses) for zone, statuses in zone_ready.items()}
        all_disrupted = bool(states) and all(s == "FullDisruption" for s in states.values())
        if all_disrupted and not self.all_disrupted:
            log.info("all nodes are not ready: entering master disruption mode, evictions stop")
            for node in nodes:
                await self._mark_reachable(meta(node).get("name", ""), node)
        elif not all_disrupted and self.all_disrupted:
            log.info("some nodes are ready: leaving master disruption mode")
            for health in self.health.values():
                health.probe = self.engine.now
        self.all_disrupted = all_disrupted
        self.zone_states = states
        self.zone_sizes = {zone: len(statuses) for zone, statuses in zone_ready.items()}

    # --- taints ---------------------------------------------------------------------------------

    def _tainting_allowed(self, node: Obj) -> bool:
        """The zone's NoExecute tainting rate is not zero."""
        if self.all_disrupted:
            return False
        zone = zone_of(node)
        return (
            self.zone_states.get(zone) != "PartialDisruption" or self.zone_sizes.get(zone, 0) > LARGE_CLUSTER_THRESHOLD
        )

    async def _taint_for_eviction(self, node: Obj, observed: dict[str, Any]) -> None:
        """processTaintBaseEviction: NoExecute not-ready or unreachable, mutually exclusive, after the Ready condition."""
        name = meta(node).get("name", "")
        not_ready, unreachable = (NOT_READY_TAINT, "NoExecute"), (UNREACHABLE_TAINT, "NoExecute")
        state = observed.get("status")
        if state in ("False", "Unknown"):
            wanted, opposite = (not_ready, unreachable) if state == "False" else (unreachable, not_ready)
            if self._has_taint(node, opposite) or self._tainting_allowed(node):
                await self.swap_taints(name, [wanted], [opposite])
        elif state == "True":
            await self._mark_reachable(name, node)

    async def _mark_reachable(self, name: str, node: Obj) -> None:
        removable = [
            t for t in ((UNREACHABLE_TAINT, "NoExecute"), (NOT_READY_TAINT, "NoExecute")) if self._has_taint(node, t)
        ]
        if removable:
            await self.swap_taints(name, [], removable)

    @staticmethod
    def _has_taint(node: Obj, taint: Taint) -> bool:
        return any(
            isinstance(t, dict) and (t.get("key"), t.get("effect")) == taint for t in spec(node).get("taints") or []
        )

    async def _sync_no_schedule_taints(self, name: str) -> None:
        """doNoScheduleTaintingPass: NoSchedule taints mirror the node's conditions and spec.unschedulable."""
        node = self.nodes.get(name)
        if node is None:
            return
        wanted: list[str] = []
        for condition in status(node).get("conditions") or []:
            key = CONDITION_TAINTS.get(condition.get("type"), {}).get(condition.get("status"))
            if key is not None:
                wanted.append(key)
        if spec(node).get("unschedulable"):
            wanted.append(UNSCHEDULABLE_TAINT)
        existing = [
            t.get("key")
            for t in spec(node).get("taints") or []
            if isinstance(t, dict)
            and t.get("effect") == "NoSchedule"
            and (t.get("key") in CONDITION_TAINT_KEYS or t.get("key") == UNSCHEDULABLE_TAINT)
        ]
        to_add = [(k, "NoSchedule") for k in wanted if k not in existing]
        to_remove = [(str(k), "NoSchedule") for k in existing if k not in wanted]
        if to_add or to_remove:
            await self.swap_taints(name, to_add, to_remove)

    async def swap_taints(self, name: str, add: list[Taint], remove: list[Taint]) -> bool:
        """SwapNodeControllerTaint: add (stamped with timeAdded) and remove taints in one update of a fresh read."""
        for _ in range(UPDATE_RETRIES):
            node = await self.client.get_or_none("nodes", name)
            if node is None:
                return False
            taints = [t for t in spec(node).get("taints") or [] if isinstance(t, dict)]
            kept = [t for t in taints if (t.get("key"), t.get("effect")) not in remove]
            for key, effect in add:
                if not any((t.get("key"), t.get("effect")) == (key, effect) for t in kept):
                    kept.append({"key": key, "effect": effect, "timeAdded": clock.rfc3339()})
            if kept == taints:
                return True
            node_spec = node.setdefault("spec", {})
            if kept:
                node_spec["taints"] = kept
            else:
                node_spec.pop("taints", None)
            try:
                await self.client.update(node)
                return True
            except errors.StatusError as exc:
                if not is_conflict(exc):
                    raise
        return False
