"""The DaemonSet controller: one daemon Pod on every eligible node, after pkg/controller/daemon.

A sync works out, node by node, whether the DaemonSet should run there
(nodeName, nodeSelector, required node affinity, NoSchedule/NoExecute taints
against its tolerations) and creates or deletes Pods to match. It does not
bind them: each Pod carries the required node affinity
``metadata.name In [<node>]`` and the scheduler places it, as upstream does.
Then the rolling update replaces Pods whose ``controller-revision-hash`` is
not the current ControllerRevision's, within maxUnavailable or maxSurge, and
the history beyond revisionHistoryLimit is pruned. Last comes the status.
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING, Any

from clusterviz.api import errors
from clusterviz.api.informer import Handler, key_of
from clusterviz.apimachinery import labels
from clusterviz.apimachinery.unstructured import deep_copy

from .controller_revision import History
from .daemonset_util import (
    HASH_LABEL,
    TEMPLATE_GENERATION_LABEL,
    add_daemon_tolerations,
    allows_surge,
    is_pod_updated,
    is_rolling_update,
    node_should_run,
    plan_rollout,
    replace_node_name_affinity,
    surge_and_unavailable,
    target_node_name,
    template_generation,
)
from .pod_control import Expectations, PodControl, slow_start_batch
from .util import (
    Obj,
    RecentWrites,
    Worker,
    controller_ref,
    deleting,
    int_field,
    is_pod_ready,
    labels_of,
    meta,
    new_controller_ref,
    patch_owner_refs,
    run_parallel,
    selecting,
    selector_of,
    spec,
    status,
    write_status,
)

if TYPE_CHECKING:
    from .manager import ControllerManager

log = logging.getLogger(__name__)

COMPONENT = "daemonset-controller"
PLURAL = "daemonsets"
# Upstream's BurstReplicas for daemon Pods.
BURST_REPLICAS = 250
STATUS_COUNTS = ("desiredNumberScheduled", "currentNumberScheduled", "numberMisscheduled", "numberReady")
OPTIONAL_COUNTS = ("updatedNumberScheduled", "numberAvailable", "numberUnavailable")


class DaemonSetController:
    """Keeps one Pod of each DaemonSet on every node that should run it."""

    def __init__(self, cm: ControllerManager) -> None:
        self.cm = cm
        self.engine = cm.engine
        self.client = cm.client
        self.recorder = cm.ctx.recorder(COMPONENT)
        self.rng = cm.ctx.rng(COMPONENT)
        self.daemon_sets = cm.informers[PLURAL]
        self.nodes = cm.informers["nodes"]
        self.pods = cm.informers["pods"]
        self.history = History(cm, self.client)
        self.expectations = Expectations(cm.engine)
        self.pod_control = PodControl(self)
        self.written = RecentWrites()
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        self.daemon_sets.add_handler(
            Handler(self._ds_changed, lambda old, new: self._ds_changed(new), self._ds_deleted)
        )
        self.nodes.add_handler(Handler(self._node_added, self._node_updated, self._node_added))
        self.pods.add_handler(Handler(self._pod_added, self._pod_updated, self._pod_deleted))
        self.history.informer.add_handler(
            Handler(self._history_changed, lambda old, new: self._history_changed(new), self._history_changed)
        )

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    # --- event handlers: only bookkeeping and enqueueing ---------------------------------------

    def _ds_changed(self, ds: Obj) -> None:
        self.worker.add(key_of(ds))

    def _ds_deleted(self, ds: Obj) -> None:
        key = key_of(ds)
        self.expectations.forget(key)
        self.written.forget(key)
        self.worker.add(key)

    def _node_added(self, node: Obj) -> None:
        # A node came or went: every DaemonSet looks again (upstream enqueues those that should run there).
        for ds in self.daemon_sets.items():
            self.worker.add(key_of(ds))

    def _node_updated(self, old: Obj, new: Obj) -> None:
        for ds in self.daemon_sets.items():
            if node_should_run(old, ds) != node_should_run(new, ds):
                self.worker.add(key_of(ds))

    def _owner(self, pod: Obj) -> Obj | None:
        """The DaemonSet a controller reference points at, if it is still the same object."""
        ref = controller_ref(pod)
        if ref is None or ref.get("kind") != "DaemonSet" or not str(ref.get("apiVersion", "")).startswith("apps/"):
            return None
        ds = self.daemon_sets.get(f"{meta(pod).get('namespace', '')}/{ref.get('name')}")
        return ds if ds is not None and meta(ds).get("uid") == ref.get("uid") else None

    def _pod_added(self, pod: Obj) -> None:
        if deleting(pod):
            self._pod_deleted(pod)
            return
        owner = self._owner(pod)
        if owner is not None:
            self.expectations.creation_observed(key_of(owner), key_of(pod))
            self.worker.add(key_of(owner))
        elif controller_ref(pod) is None:
            for ds in selecting(self.daemon_sets, pod):
                self.worker.add(key_of(ds))

    def _pod_updated(self, old: Obj, cur: Obj) -> None:
        if meta(old).get("resourceVersion") == meta(cur).get("resourceVersion"):
            return
        owner = self._owner(cur) or self._owner(old)
        if owner is not None:
            key = key_of(owner)
            if deleting(cur):
                self.expectations.deletion_observed(key, key_of(cur))
            self.worker.add(key)
            min_ready = int_field(spec(owner), "minReadySeconds")
            if min_ready > 0 and not is_pod_ready(old) and is_pod_ready(cur):
                self.worker.add_after(key, min_ready + 1)
        elif controller_ref(cur) is None and labels_of(old) != labels_of(cur):
            for ds in selecting(self.daemon_sets, cur):
                self.worker.add(key_of(ds))

    def _pod_deleted(self, pod: Obj) -> None:
        owner = self._owner(pod)
        if owner is None:
            return
        key = key_of(owner)
        self.expectations.creation_observed(key, key_of(pod))
        self.expectations.deletion_observed(key, key_of(pod))
        self.worker.add(key)

    def _history_changed(self, history: Obj) -> None:
        ref = controller_ref(history)
        if ref is not None and ref.get("kind") == "DaemonSet":
            self.worker.add(f"{meta(history).get('namespace', '')}/{ref.get('name')}")

    # --- sync ---------------------------------------------------------------------------------------

    async def sync(self, key: str) -> None:
        """syncDaemonSet: history, then manage and roll when the cache has caught up, then status."""
        ds = self.written.fresh(self.daemon_sets.get(key))
        if ds is None or deleting(ds):
            if ds is None:
                self.expectations.forget(key)
            return
        try:
            selector = selector_of(ds)
        except labels.SelectorError as exc:
            log.warning("DaemonSet %s has an invalid selector: %s", key, exc)
            return
        if selector.empty:
            # An empty selector would select every Pod of the namespace; upstream refuses to act.
            await self.recorder.event(
                ds,
                "Warning",
                "SelectingAll",
                "This daemon set is selecting all pods. A non-empty selector is required.",
            )
            return
        cur, old = await self.history.construct(ds)
        hash_ = str(labels_of(cur).get(HASH_LABEL) or "")
        nodes = sorted(self.nodes.items(), key=lambda n: str(meta(n).get("name")))
        if not self.expectations.satisfied(key):
            # Only the status: observedGeneration stays until this generation is acted on.
            await self._update_status(ds, nodes, self._owned_node_pods(ds, selector), hash_, False)
            return
        self.expectations.forget(key)
        node_pods = await self._node_pods(ds, selector)
        error: errors.StatusError | None = None
        try:
            await self._manage(ds, nodes, node_pods, hash_)
            if self.expectations.satisfied(key) and is_rolling_update(ds):
                node_pods = self._owned_node_pods(ds, selector)
                await self._rolling_update(ds, nodes, node_pods, hash_)
            live = {labels_of(p).get(HASH_LABEL, "") for pods in node_pods.values() for p in pods}
            await self.history.cleanup(ds, old, live - {""})
        except errors.StatusError as exc:
            error = exc
        await self._update_status(ds, nodes, self._owned_node_pods(ds, selector), hash_, True)
        if error is not None:
            raise error

    async def _node_pods(self, ds: Obj, selector: labels.Selector) -> dict[str, list[Obj]]:
        """getNodesToDaemonPods: the claimed Pods (orphans adopted) by the node they are on or meant for."""
        uid = str(meta(ds).get("uid") or "")
        namespace = str(meta(ds).get("namespace") or "")
        candidates = self.cm.pods_by_owner.get(uid) + self.cm.orphan_pods.get(namespace)
        return self._by_node(await self._claim(ds, selector, candidates))

    def _owned_node_pods(self, ds: Obj, selector: labels.Selector) -> dict[str, list[Obj]]:
        """The same from the cache as it is now, once this sync has done its claiming."""
        owned = self.cm.pods_by_owner.get(str(meta(ds).get("uid") or ""))
        return self._by_node([p for p in owned if selector.matches(labels_of(p))])

    def _by_node(self, claimed: list[Obj]) -> dict[str, list[Obj]]:
        by_node: dict[str, list[Obj]] = {}
        for pod in claimed:
            if deleting(pod) and status(pod).get("phase") in ("Succeeded", "Failed"):
                continue
            node = target_node_name(pod)
            if node is not None:
                by_node.setdefault(node, []).append(pod)
        for pods in by_node.values():
            pods.sort(key=self._age_and_phase)
        return by_node

    @staticmethod
    def _age_and_phase(pod: Obj) -> tuple[Any, ...]:
        """podByCreationTimestampAndPhase: scheduled Pods first, then the oldest, then by name."""
        scheduled = bool(spec(pod).get("nodeName"))
        return (not scheduled, str(meta(pod).get("creationTimestamp") or ""), str(meta(pod).get("name") or ""))

    async def _claim(self, ds: Obj, selector: labels.Selector, candidates: list[Obj]) -> list[Obj]:
        """ClaimPods: keep owned matching Pods, release owned ones that stopped matching, adopt matching orphans."""
        uid = meta(ds).get("uid")
        claimed: list[Obj] = []
        for pod in candidates:
            ref = controller_ref(pod)
            if ref is not None:
                if ref.get("uid") != uid:
                    continue
                if selector.matches(labels_of(pod)):
                    claimed.append(pod)
                else:
                    await patch_owner_refs(self.client, "pods", pod, [{"$patch": "delete", "uid": uid}])
            elif not deleting(pod) and selector.matches(labels_of(pod)):
                adopted = await patch_owner_refs(self.client, "pods", pod, [new_controller_ref(ds)])
                if adopted is not None:
                    claimed.append(adopted)
        return claimed

    # --- manage: one Pod per node that should run one -------------------------------------------------

    async def _manage(self, ds: Obj, nodes: list[Obj], node_pods: dict[str, list[Obj]], hash_: str) -> None:
        """manage: find the nodes missing a daemon Pod and the Pods that must go, then syncNodes."""
        to_create: list[str] = []
        to_delete: list[str] = []
        known = set()
        for node in nodes:
            name = str(meta(node).get("name") or "")
            known.add(name)
            create, delete = await self._pods_should_be_on_node(ds, node, node_pods.get(name, []), hash_)
            to_create.extend(create)
            to_delete.extend(delete)
        # Pods still waiting for a node that no longer exists (getUnscheduledPodsWithoutNode).
        for name, pods in sorted(node_pods.items()):
            if name not in known:
                to_delete.extend(
                    str(meta(p).get("name")) for p in pods if not spec(p).get("nodeName") and not deleting(p)
                )
        await self._sync_nodes(ds, to_delete, to_create, hash_)

    async def _pods_should_be_on_node(
        self, ds: Obj, node: Obj, pods: list[Obj], hash_: str
    ) -> tuple[list[str], list[str]]:
        """podsShouldBeOnNode: (this node if it needs a Pod, the names of Pods to delete from it)."""
        name = str(meta(node).get("name") or "")
        should_run, should_continue = node_should_run(node, ds)
        if should_run and not pods:
            return [name], []
        if not should_continue:
            return [], [str(meta(p).get("name")) for p in pods if not deleting(p)]
        delete: list[str] = []
        running: list[Obj] = []
        for pod in pods:
            if deleting(pod):
                continue
            phase = status(pod).get("phase")
            where = f"{meta(pod).get('namespace')}/{meta(pod).get('name')} on node {name}"
            if phase == "Failed":
                message = f"Found failed daemon pod {where}, will try to kill it"
                await self.recorder.event(ds, "Warning", "FailedDaemonPod", message)
                delete.append(str(meta(pod).get("name")))
            elif phase == "Succeeded":
                message = f"Found succeeded daemon pod {where}, will try to delete it"
                await self.recorder.event(ds, "Normal", "SucceededDaemonPod", message)
                delete.append(str(meta(pod).get("name")))
            else:
                running.append(pod)
        if not allows_surge(ds):
            # One Pod per node: all but the oldest go.
            return [], delete + [str(meta(p).get("name")) for p in running[1:]]
        if not running:
            return ([name] if should_run else []), delete
        oldest_new = oldest_old = None
        for pod in running:
            if labels_of(pod).get(HASH_LABEL) == hash_:
                if oldest_new is None:
                    oldest_new = pod
                    continue
            elif oldest_old is None:
                oldest_old = pod
                continue
            delete.append(str(meta(pod).get("name")))
        if oldest_new is not None and oldest_old is not None:
            if not is_pod_ready(oldest_old) or self._available(ds, oldest_new):
                delete.append(str(meta(oldest_old).get("name")))
        return [], delete

    async def _sync_nodes(self, ds: Obj, to_delete: list[str], to_create: list[str], hash_: str) -> None:
        """syncNodes: create (in slow-start batches) and delete, at most BURST_REPLICAS of each per pass."""
        key = key_of(ds)
        namespace = str(meta(ds).get("namespace") or "")
        to_create, to_delete = to_create[:BURST_REPLICAS], to_delete[:BURST_REPLICAS]
        self.expectations.expect_deletions(key, [f"{namespace}/{n}" for n in to_delete])
        template = self._pod_template(ds, hash_)
        creations = [
            functools.partial(self.pod_control.create, self._owner_for(ds, template, node), key) for node in to_create
        ]
        error = await slow_start_batch(self.engine, f"{self.worker.name}/create", creations)
        if error is not None:
            raise error
        jobs = [functools.partial(self.pod_control.delete, ds, key, namespace, name) for name in to_delete]
        for result in await run_parallel(self.engine, f"{self.worker.name}/delete", jobs):
            if isinstance(result, errors.StatusError) and result.code != 404:
                raise result

    def _pod_template(self, ds: Obj, hash_: str) -> dict[str, Any]:
        """CreatePodTemplate: the DaemonSet's template with the template generation and revision hash labels."""
        template = deep_copy(spec(ds).get("template") or {})
        template_meta = template.setdefault("metadata", {})
        pod_labels = template_meta.setdefault("labels", {})
        generation = template_generation(ds)
        if generation:
            pod_labels[TEMPLATE_GENERATION_LABEL] = generation
        if hash_:
            pod_labels[HASH_LABEL] = hash_
        return template

    @staticmethod
    def _owner_for(ds: Obj, template: dict[str, Any], node: str) -> Obj:
        """The DaemonSet with the template of its Pod for ``node``: pinned there by node affinity, with the
        daemon tolerations."""
        owner = deep_copy(ds)
        owner["spec"]["template"] = deep_copy(template)
        pod_spec = owner["spec"]["template"].setdefault("spec", {})
        replace_node_name_affinity(pod_spec, node)
        add_daemon_tolerations(pod_spec)
        return owner

    # --- rolling update -----------------------------------------------------------------------------

    def _available(self, ds: Obj, pod: Obj) -> bool:
        """IsPodAvailable: Ready for minReadySeconds (simulated time)."""
        if not is_pod_ready(pod):
            return False
        min_ready = int_field(spec(ds), "minReadySeconds")
        since = self.cm.ready_since(pod)
        return min_ready == 0 or (since is not None and since + min_ready < self.engine.now)

    async def _rolling_update(self, ds: Obj, nodes: list[Obj], node_pods: dict[str, list[Obj]], hash_: str) -> None:
        """rollingUpdate: replace old Pods within maxUnavailable, or surge new ones beside them within maxSurge."""
        by_name = {str(meta(n).get("name")): n for n in nodes}
        desired = sum(1 for n in nodes if node_should_run(n, ds)[0])
        max_surge, max_unavailable = surge_and_unavailable(ds, desired)
        plan = plan_rollout(
            ds,
            node_pods,
            hash_,
            max_surge,
            max_unavailable,
            functools.partial(self._available, ds),
            lambda node: node in by_name and node_should_run(by_name[node], ds)[0],
        )
        await self._sync_nodes(ds, plan.delete, plan.create_on, hash_)

    # --- status -------------------------------------------------------------------------------------

    async def _update_status(
        self, ds: Obj, nodes: list[Obj], node_pods: dict[str, list[Obj]], hash_: str, observed: bool
    ) -> None:
        """updateDaemonSetStatus: count the nodes, and write the status if it changed."""
        counts = dict.fromkeys(STATUS_COUNTS + OPTIONAL_COUNTS, 0)
        generation = template_generation(ds)
        for node in nodes:
            should_run, _ = node_should_run(node, ds)
            pods = node_pods.get(str(meta(node).get("name")), [])
            if not should_run:
                counts["numberMisscheduled"] += 1 if pods else 0
                continue
            counts["desiredNumberScheduled"] += 1
            if not pods:
                continue
            counts["currentNumberScheduled"] += 1
            pod = pods[0]
            if is_pod_ready(pod):
                counts["numberReady"] += 1
                counts["numberAvailable"] += 1 if self._available(ds, pod) else 0
            counts["updatedNumberScheduled"] += 1 if is_pod_updated(pod, hash_, generation) else 0
        counts["numberUnavailable"] = counts["desiredNumberScheduled"] - counts["numberAvailable"]
        old = status(ds)
        generation_number = int_field(meta(ds), "generation")
        observed_generation = generation_number if observed else int_field(old, "observedGeneration")
        if (
            all(int_field(old, f) == v for f, v in counts.items())
            and int_field(old, "observedGeneration") >= observed_generation
        ):
            return
        # Go's encoding: the four plain counts always, the rest only when not zero.
        wire: dict[str, Any] = {f: counts[f] for f in STATUS_COUNTS}
        wire.update({f: counts[f] for f in OPTIONAL_COUNTS if counts[f]})
        if observed_generation:
            wire["observedGeneration"] = observed_generation
        for kept in ("collisionCount", "conditions"):
            if old.get(kept) is not None:
                wire[kept] = deep_copy(old[kept])
        await write_status(self.client, self.written, ds, wire, PLURAL)
