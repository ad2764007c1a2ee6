"""kube-scheduler as a simulated component: informers feed the snapshot and queue; each
attempt runs the cycle, stores its decision record, then binds or reports FailedScheduling.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Mapping
from typing import Any

from clusterviz.api import clock, errors, resources
from clusterviz.api.component import Context
from clusterviz.api.informer import Handler, Informer, key_of

from . import framework, preemption
from .cycle import schedule
from .decision import DecisionRecord
from .nodeinfo import PodInfo
from .plugins import RESERVE
from .plugins.volume_binding import PodVolumes
from .profile import (
    CONFIG_MAP_KEY,
    CONFIG_MAP_NAME,
    CONFIG_MAP_NAMESPACE,
    ConfigurationError,
    SchedulerConfiguration,
    default_configuration,
    parse_configuration,
)
from .queue import ACTIVE, BACKOFF, SchedulingQueue
from .snapshot import Snapshot
from .volume_binder import Changes, VolumeBindingError, bind_pod_volumes

log = logging.getLogger(__name__)

COMPONENT = "scheduler"
# The name real schedulers put on their events (kubectl describe shows "default-scheduler").
EVENT_SOURCE = "default-scheduler"
DECISION_API_VERSION = "clusterviz.io/v1"
# A new profile may make any parked Pod fit (or not), so every Pod gets another attempt.
PROFILE_CHANGE = framework.ClusterEvent(framework.EventResource.WILDCARD, framework.ActionType.ALL, "ProfileChange")
# What PodTopologySpread's default selector reads (upstream's informers for helper.DefaultSelector),
# each watched only if the API serves it.
WORKLOAD_RESOURCES = (
    ("", "v1", "services", "Service"),
    ("", "v1", "replicationcontrollers", "ReplicationController"),
    ("apps", "v1", "replicasets", "ReplicaSet"),
    ("apps", "v1", "statefulsets", "StatefulSet"),
    # What DefaultPreemption's victim choice respects.
    ("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget"),
)
# What the volume plugins read (upstream's PVC, PV, StorageClass and CSINode informers),
# each watched only if the API serves it; their changes requeue Pods as the plugins register.
STORAGE_RESOURCES = (
    ("", "v1", "persistentvolumeclaims", framework.EventResource.PERSISTENT_VOLUME_CLAIM),
    ("", "v1", "persistentvolumes", framework.EventResource.PERSISTENT_VOLUME),
    ("storage.k8s.io", "v1", "storageclasses", framework.EventResource.STORAGE_CLASS),
    ("storage.k8s.io", "v1", "csinodes", framework.EventResource.CSI_NODE),
)
VOLUME_BINDING = "VolumeBinding"


def is_ours(pod: dict[str, Any], profile_name: str) -> bool:
    """Does ``spec.schedulerName`` name this scheduler's profile?"""
    spec = pod.get("spec") or {}
    return (spec.get("schedulerName") or "default-scheduler") == profile_name


def is_assigned(pod: dict[str, Any]) -> bool:
    """Is the Pod bound (``spec.nodeName`` set)?"""
    return bool((pod.get("spec") or {}).get("nodeName"))


def decision_object(record: DecisionRecord) -> dict[str, Any]:
    """The ``schedulingdecisions`` object for one attempt: ``<pod>.<attempt>``, labelled with the Pod."""
    body = record.to_dict()
    pod = body["pod"]
    return {
        "apiVersion": DECISION_API_VERSION,
        "kind": "SchedulingDecision",
        "metadata": {
            "name": f"{pod['name']}.{record.attempt}",
            "namespace": pod["namespace"],
            "labels": {"clusterviz.io/pod": pod["name"]},
        },
        **body,
    }


class Scheduler:
    """The default scheduler of one simulated cluster."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.engine = ctx.engine
        self.client = ctx.client(COMPONENT)
        self.recorder = ctx.recorder(EVENT_SOURCE)
        self.configuration = default_configuration()
        self.profile = self.configuration.profile
        self.queue = SchedulingQueue.for_profile(self.profile, self.configuration, start=self.engine.now)
        self.snapshot = Snapshot()
        self.rng = ctx.rng("scheduler")
        self.pods = Informer(self.client, "pods")
        self.nodes = Informer(self.client, "nodes")
        self.namespaces = Informer(self.client, "namespaces")
        self.config_maps = Informer(
            self.client, "configmaps", CONFIG_MAP_NAMESPACE, field_selector=f"metadata.name={CONFIG_MAP_NAME}"
        )
        self.workloads = {
            plural: self._workload_informer(plural, kind)
            for group, version, plural, kind in WORKLOAD_RESOURCES
            if resources.lookup(group, version, plural) is not None
        }
        self.volume_changes = Changes(self.engine)
        self.storage = {
            plural: self._storage_informer(plural, resource)
            for group, version, plural, resource in STORAGE_RESOURCES
            if resources.lookup(group, version, plural) is not None
        }
        self._wakeup: asyncio.Future[None] | None = None
        self._start_index = 0
        self.nodes.add_handler(Handler(self._node_added, self._node_updated, self._node_deleted))
        self.pods.add_handler(Handler(self._pod_added, self._pod_updated, self._pod_deleted))
        self.namespaces.add_handler(
            Handler(
                self.snapshot.add_namespace,
                lambda _o, n: self.snapshot.add_namespace(n),
                self.snapshot.remove_namespace,
            )
        )
        self.config_maps.add_handler(
            Handler(self._config_map_changed, lambda _o, n: self._config_map_changed(n), self._config_map_deleted)
        )

    def _workload_informer(self, plural: str, kind: str) -> Informer:
        """An informer feeding the snapshot's workloads of one kind.

        Upstream registers no event for these (PodTopologySpread's default
        constraints only score, DefaultPreemption only reads the budgets), so a
        change moves no queued Pod.
        """
        informer = Informer(self.client, plural)
        informer.add_handler(
            Handler(
                lambda obj: self.snapshot.add_workload(obj, kind),
                lambda _old, new: self.snapshot.add_workload(new, kind),
                lambda obj: self.snapshot.remove_workload(obj, kind),
            )
        )
        return informer

    def _storage_informer(self, plural: str, resource: framework.EventResource) -> Informer:
        """An informer feeding the snapshot's claims, volumes, classes or CSINodes, and the queue their events."""
        add, remove = {
            "persistentvolumeclaims": (self.snapshot.add_pvc, self.snapshot.remove_pvc),
            "persistentvolumes": (self.snapshot.add_pv, self.snapshot.remove_pv),
            "storageclasses": (self.snapshot.add_storage_class, self.snapshot.remove_storage_class),
            "csinodes": (self.snapshot.add_csinode, self.snapshot.remove_csinode),
        }[plural]

        def event(action: framework.ActionType) -> framework.ClusterEvent:
            # Upstream's label: the resource and the action, as "PersistentVolumeClaimAdd".
            return framework.ClusterEvent(resource, action, f"{resource.value}{(action.name or '').title()}")

        def added(obj: dict[str, Any]) -> None:
            add(obj)
            self.volume_changes.notify()
            self._moved(event(framework.ActionType.ADD), None, obj)

        def updated(old: dict[str, Any], new: dict[str, Any]) -> None:
            add(new)
            self.volume_changes.notify()
            self._moved(event(framework.ActionType.UPDATE), old, new)

        def deleted(obj: dict[str, Any]) -> None:
            remove(obj)
            self.volume_changes.notify()
            self._moved(event(framework.ActionType.DELETE), obj, None)

        informer = Informer(self.client, plural)
        informer.add_handler(Handler(added, updated, deleted))
        return informer

    # --- the profile: the kube-system/kube-scheduler ConfigMap ------------------------------

    def _config_map_changed(self, config_map: dict[str, Any]) -> None:
        """Load ``config.yaml``; an invalid one leaves the running profile and a Warning event."""
        text = (config_map.get("data") or {}).get(CONFIG_MAP_KEY)
        if text is None:
            self._use(default_configuration())
            return
        try:
            configuration = parse_configuration(text)
        except ConfigurationError as err:
            # The API refuses such writes; if one gets through anyway, the running profile stays.
            message = f"{CONFIG_MAP_KEY} is invalid, keeping the running profile: " + "; ".join(err.messages)
            self.engine.spawn(
                f"{COMPONENT}/invalid-configuration",
                lambda: self.recorder.event(config_map, "Warning", "InvalidConfiguration", message),
            )
            return
        self._use(configuration)

    def _config_map_deleted(self, _config_map: dict[str, Any]) -> None:
        """Without the ConfigMap the classroom default applies again."""
        self._use(default_configuration())

    def _use(self, configuration: SchedulerConfiguration) -> None:
        """Swap the profile in for the next attempt; queued Pods stay and are all given another try."""
        self.configuration = configuration
        self.profile = configuration.profile
        self.queue.reconfigure(self.profile, configuration)
        self._moved(PROFILE_CHANGE)

    # --- informer handlers: keep the snapshot and the queue current -------------------------

    def _wake(self) -> None:
        if self._wakeup is not None and not self._wakeup.done():
            self.engine.wake(self._wakeup)

    def _moved(self, event: framework.ClusterEvent, old: Any = None, new: Any = None) -> None:
        if self.queue.move_all_on_event(event, self.engine.now, old, new):
            self._wake()

    def _node_added(self, node: dict[str, Any]) -> None:
        self.snapshot.add_node(node)
        self._moved(framework.NODE_ADD, None, node)

    def _node_updated(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        self.snapshot.update_node(new)
        for event in framework.node_update_events(old, new):
            self._moved(event, old, new)

    def _node_deleted(self, node: dict[str, Any]) -> None:
        self.snapshot.remove_node(node)
        self._moved(framework.NODE_DELETE, node, None)

    def _pod_added(self, pod: dict[str, Any]) -> None:
        if is_assigned(pod):
            self.snapshot.add_pod(pod)
            self._moved(framework.ASSIGNED_POD_ADD, None, pod)
        elif is_ours(pod, self.profile.scheduler_name) and not (pod.get("metadata") or {}).get("deletionTimestamp"):
            self.queue.add(pod, self.engine.now)
            self._wake()

    def _pod_updated(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        if is_assigned(new):
            if not is_assigned(old):
                self.queue.delete(new)
            self.snapshot.update_pod(new)
            for event in framework.pod_update_events(old, new):
                self._moved(event, old, new)
        elif is_ours(new, self.profile.scheduler_name):
            self.queue.update(old, new, self.engine.now)
            self._wake()

    def _pod_deleted(self, pod: dict[str, Any]) -> None:
        if is_assigned(pod):
            self.snapshot.remove_pod(pod)
            self._moved(framework.ASSIGNED_POD_DELETE, pod, None)
        else:
            self.queue.delete(pod)

    # --- the scheduling loop --------------------------------------------------------------------

    async def run(self) -> None:
        """Sync the caches, then schedule for ever."""
        informers = (
            ("configmaps", self.config_maps),
            ("namespaces", self.namespaces),
            *self.workloads.items(),
            *self.storage.items(),
            ("nodes", self.nodes),
            ("pods", self.pods),
        )
        for _, informer in informers:
            await informer.list_once()
        for name, informer in informers:
            self.engine.spawn(f"{COMPONENT}/informer-{name}", informer.run)
        while True:
            queued = self.queue.pop(self.engine.now)
            if queued is None:
                wakeup = self.queue.next_wakeup(self.engine.now)
                self._wakeup = asyncio.get_running_loop().create_future()
                timeout = None if wakeup is None else max(wakeup - self.engine.now, 0.0)
                pending = self.queue.pending_pods()
                # Only a backoff that ends is news; the periodic flush of unschedulable Pods is housekeeping.
                housekeeping = not (pending[ACTIVE] or pending[BACKOFF])
                what = "the scheduler flushes unschedulable Pods" if housekeeping else "a scheduling backoff ends"
                await self.engine.wait_for(self._wakeup, timeout, background=housekeeping, what=what)
                continue
            try:
                await self.schedule_one(queued)
            except Exception:
                log.exception("scheduling %s failed", queued.key)
                self.queue.done(queued.key)

    async def schedule_one(self, queued: Any) -> None:
        """One attempt for one Pod: filter, score, record, then bind or report."""
        pod = self.pods.get(queued.key)
        if pod is None or is_assigned(pod) or (pod.get("metadata") or {}).get("deletionTimestamp"):
            self.queue.done(queued.key)
            return
        record = schedule(
            pod,
            self.snapshot,
            self.profile,
            self.rng,
            attempt=queued.attempts,
            now=self.engine.now,
            start_index=self._start_index,
            global_percentage=self.configuration.percentage_of_nodes_to_score,
            nominated_pods=self.queue.nominated_pods(),
        )
        self._start_index = record.next_start_index
        try:
            await self.client.create(decision_object(record), handed_over=True)
        except errors.StatusError as exc:
            log.debug("decision record not stored: %s", exc)
        meta = pod["metadata"]
        namespace, name = meta.get("namespace", "default"), meta["name"]
        if record.selected is None:
            if record.nominated_node is not None:
                await self._preempt(pod, record)
            await self._unschedulable(pod, queued, record)
            return
        assumed = copy.deepcopy(pod)
        assumed["spec"]["nodeName"] = record.selected
        volumes = self._reserve_volumes(pod, record.selected)
        self.snapshot.update_pod(assumed)
        if volumes is not None:
            # As upstream's binding cycle, waiting for the volumes does not hold up the next Pod.
            self.engine.spawn(
                f"{COMPONENT}/bind-{namespace}/{name}", lambda: self._bind_volumes(pod, queued, assumed, volumes)
            )
            return
        await self._bind(pod, queued, assumed)

    def _reserve_volumes(self, pod: dict[str, Any], node: str) -> PodVolumes | None:
        """VolumeBinding's Reserve on the chosen node: what its PreBind must write (None when nothing)."""
        if VOLUME_BINDING not in self.profile.plugins.get(RESERVE, ()):
            return None
        volumes = self.profile.plugin(VOLUME_BINDING).reserve(
            framework.CycleState(self.snapshot), PodInfo.from_pod(pod), node
        )
        if volumes is None or not (volumes.static_bindings or volumes.dynamic_provisions):
            return None
        return volumes

    async def _bind_volumes(
        self, pod: dict[str, Any], queued: Any, assumed: dict[str, Any], volumes: PodVolumes
    ) -> None:
        """VolumeBinding's PreBind, then the Binding; a failure undoes the assumptions and retries the Pod."""
        node = assumed["spec"]["nodeName"]
        node_info = self.snapshot.get(node)
        try:
            await bind_pod_volumes(
                self.client,
                self.engine,
                self.volume_changes,
                volumes,
                node,
                node_info.labels if node_info is not None else {},
                self.storage["persistentvolumeclaims"].cache,
                self.storage["persistentvolumes"].cache,
            )
        except VolumeBindingError as exc:
            # Unreserve: the informers' objects replace the assumed ones.
            for _pvc, pv in volumes.static_bindings:
                self._restore("persistentvolumes", pv, self.snapshot.add_pv, self.snapshot.remove_pv)
            for pvc in volumes.dynamic_provisions:
                self._restore("persistentvolumeclaims", pvc, self.snapshot.add_pvc, self.snapshot.remove_pvc)
            self.snapshot.remove_pod(assumed)
            await self._scheduler_error(pod, queued, f'running PreBind plugin "{VOLUME_BINDING}": {exc}')
            return
        await self._bind(pod, queued, assumed)

    def _restore(self, plural: str, obj: Mapping[str, Any], add: Any, remove: Any) -> None:
        """Put the informer's copy of an assumed object back in the snapshot (or drop it if gone)."""
        current = self.storage[plural].get(key_of(dict(obj)))
        if current is None:
            remove(obj)
        else:
            add(current)

    async def _bind(self, pod: dict[str, Any], queued: Any, assumed: dict[str, Any]) -> None:
        """DefaultBinder: the Binding, then the Scheduled event (a failed Binding retries the Pod)."""
        meta = pod["metadata"]
        namespace, name, node = meta.get("namespace", "default"), meta["name"], assumed["spec"]["nodeName"]
        try:
            await self.client.bind(namespace, name, node)
        except errors.StatusError as exc:
            self.snapshot.remove_pod(assumed)
            if exc.code != 404:
                self.queue.add_unschedulable(queued, (), self.engine.now)
            else:
                self.queue.done(queued.key)
            return
        self.queue.done(queued.key)
        await self.recorder.event(pod, "Normal", "Scheduled", f"Successfully assigned {namespace}/{name} to {node}")

    async def _preempt(self, pod: dict[str, Any], record: DecisionRecord) -> None:
        """Evict the victims the PostFilter chose and take the nomination away from lower Pods there."""
        node = record.nominated_node
        assert node is not None
        for key in record.victims:
            victim = self.pods.get(key)
            if victim is not None:
                await preemption.preempt_pod(self.client, self.recorder, pod, victim, node)
        priority = (pod.get("spec") or {}).get("priority") or 0
        pending = [p for p in self.pods.items() if not is_assigned(p)]
        await preemption.clear_lower_nominations(self.client, priority, node, pending)

    async def _unschedulable(self, pod: dict[str, Any], queued: Any, record: DecisionRecord) -> None:
        meta = pod["metadata"]
        self.queue.add_unschedulable(queued, record.unschedulable_plugins, self.engine.now)
        await self.recorder.event(pod, "Warning", "FailedScheduling", record.message)
        conditions = _not_scheduled(pod, "Unschedulable", record.message)
        try:
            status: dict[str, Any] = {"conditions": conditions}
            if record.nominated_node is not None:
                status["nominatedNodeName"] = record.nominated_node
            await self.client.patch(
                "pods",
                meta["name"],
                {"status": status},
                meta.get("namespace", "default"),
                patch_type="merge",
                sub="status",
            )
        except errors.StatusError:
            pass
        self._wake()

    async def _scheduler_error(self, pod: dict[str, Any], queued: Any, message: str) -> None:
        """A binding cycle failed: FailedScheduling, PodScheduled False for SchedulerError, the error backoff."""
        meta = pod["metadata"]
        self.queue.add_unschedulable(queued, (), self.engine.now)
        await self.recorder.event(pod, "Warning", "FailedScheduling", message)
        try:
            await self.client.patch(
                "pods",
                meta["name"],
                {"status": {"conditions": _not_scheduled(pod, "SchedulerError", message)}},
                meta.get("namespace", "default"),
                patch_type="merge",
                sub="status",
            )
        except errors.StatusError:
            pass
        self._wake()


def _not_scheduled(pod: dict[str, Any], reason: str, message: str) -> list[dict[str, Any]]:
    """The Pod's conditions with PodScheduled False for ``reason``."""
    conditions = [c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") != "PodScheduled"]
    conditions.append(
        {
            "type": "PodScheduled",
            "status": "False",
            "reason": reason,
            "message": message,
            "lastProbeTime": None,
            "lastTransitionTime": _transition_time(pod),
        }
    )
    return conditions


def _transition_time(pod: dict[str, Any]) -> str:
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "PodScheduled" and condition.get("status") == "False":
            return str(condition.get("lastTransitionTime") or clock.rfc3339())
    return clock.rfc3339()
