"""The StatefulSet controller, after pkg/controller/statefulset.

Each sync claims the set's Pods (by owner, or orphans whose name and labels
say they belong), records the template as the update ControllerRevision,
then makes the Pods ``<set>-<start>`` ... ``<set>-<start+replicas-1>`` and
removes those beyond, highest ordinal first. With podManagementPolicy
OrderedReady (the default) it stops at the first Pod that is not yet created,
Running and Ready, so ``web-1`` exists only once ``web-0`` is Ready, and a
scale-down removes one Pod at a time; Parallel does all at once. A
RollingUpdate replaces, from the highest ordinal down to the partition, one
Pod at a time each Pod not made from the update revision. Each Pod's
claims of the volumeClaimTemplates are made before it (statefulset_claims),
and their ownerReferences follow the persistentVolumeClaimRetentionPolicy.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from clusterviz.api import errors
from clusterviz.api.informer import Handler, key_of
from clusterviz.apimachinery import labels
from clusterviz.apimachinery.unstructured import deep_copy

from .controller_revision import History
from .statefulset_claims import claims_for, owner_patch, with_claim_volumes
from .statefulset_util import (
    identity_matches,
    is_created,
    is_finished,
    is_healthy,
    is_member_of,
    is_running_and_ready,
    new_pod,
    ordinal_of,
    revision_of_pod,
    rollout_complete,
    set_identity,
    start_ordinal,
    uses_current_revision,
)
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
    selector_of,
    spec,
    status,
    write_status,
)

if TYPE_CHECKING:
    from .manager import ControllerManager

log = logging.getLogger(__name__)

COMPONENT = "statefulset-controller"
PLURAL = "statefulsets"
COUNTS = ("replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas")
# Go's encoding of StatefulSetStatus: these plain int32s are always written, the other counts when not zero.
ALWAYS_WRITTEN = ("replicas", "availableReplicas")


class StatefulSetController:
    """Keeps each StatefulSet's ordinal Pods, in order, at its revision."""

    def __init__(self, cm: ControllerManager) -> None:
        self.cm = cm
        self.engine = cm.engine
        self.client = cm.client
        self.recorder = cm.ctx.recorder(COMPONENT)
        self.sets = cm.informers[PLURAL]
        self.pods = cm.informers["pods"]
        self.claims = cm.informers["persistentvolumeclaims"]
        self.history = History(cm, self.client, owner_plural=PLURAL)
        self.written = RecentWrites()
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        self.sets.add_handler(Handler(self._set_changed, lambda old, new: self._set_changed(new), self._set_deleted))
        self.pods.add_handler(Handler(self._pod_changed, self._pod_updated, self._pod_changed))
        self.history.informer.add_handler(
            Handler(self._history_changed, lambda old, new: self._history_changed(new), self._history_changed)
        )

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    # --- event handlers: only enqueueing ---------------------------------------------------------

    def _set_changed(self, sts: Obj) -> None:
        self.worker.add(key_of(sts))

    def _set_deleted(self, sts: Obj) -> None:
        self.written.forget(key_of(sts))

    def _owner(self, pod: Obj) -> Obj | None:
        ref = controller_ref(pod)
        if ref is None or ref.get("kind") != "StatefulSet" or not str(ref.get("apiVersion", "")).startswith("apps/"):
            return None
        sts = self.sets.get(f"{meta(pod).get('namespace', '')}/{ref.get('name')}")
        return sts if sts is not None and meta(sts).get("uid") == ref.get("uid") else None

    def _pod_changed(self, pod: Obj) -> None:
        owner = self._owner(pod)
        if owner is not None:
            self.worker.add(key_of(owner))
        elif controller_ref(pod) is None:
            for sts in self.sets.items():
                if meta(sts).get("namespace") == meta(pod).get("namespace") and is_member_of(sts, pod):
                    self.worker.add(key_of(sts))

    def _pod_updated(self, old: Obj, cur: Obj) -> None:
        if meta(old).get("resourceVersion") == meta(cur).get("resourceVersion"):
            return
        self._pod_changed(cur)
        owner = self._owner(cur)
        if owner is not None:
            min_ready = int_field(spec(owner), "minReadySeconds")
            if min_ready > 0 and not is_pod_ready(old) and is_pod_ready(cur):
                self.worker.add_after(key_of(owner), min_ready + 1)

    def _history_changed(self, history: Obj) -> None:
        ref = controller_ref(history)
        if ref is not None and ref.get("kind") == "StatefulSet":
            self.worker.add(f"{meta(history).get('namespace', '')}/{ref.get('name')}")

    # --- sync ---------------------------------------------------------------------------------------

    async def sync(self, key: str) -> None:
        """syncStatefulSet: claim the Pods, construct the revisions, update the replicas, write the status."""
        sts = self.written.fresh(self.sets.get(key))
        if sts is None or deleting(sts):
            return
        try:
            selector = selector_of(sts)
        except labels.SelectorError as exc:
            log.warning("StatefulSet %s has an invalid selector: %s", key, exc)
            return
        if selector.empty:
            return
        pods = await self._claim(sts, selector)
        update_revision, others = await self.history.construct(sts)
        current_revision = next(
            (h for h in others if meta(h).get("name") == status(sts).get("currentRevision")), update_revision
        )
        error: errors.StatusError | None = None
        try:
            pods = await self._update_replicas(sts, pods, current_revision, update_revision)
        except errors.StatusError as exc:
            error = exc
        await self._update_status(sts, pods, current_revision, update_revision)
        live = {revision_of_pod(p) for p in pods} | {
            meta(current_revision).get("name"),
            meta(update_revision).get("name"),
        }
        # truncateHistory keeps every revision a Pod, the current or the update revision uses.
        prefix = f"{meta(sts).get('name')}-"
        await self.history.cleanup(sts, others, {name.removeprefix(prefix) for name in live if isinstance(name, str)})
        if error is not None:
            raise error

    async def _claim(self, sts: Obj, selector: labels.Selector) -> list[Obj]:
        """ClaimPods with isMemberOf: keep owned matching Pods, release the others, adopt matching orphans."""
        uid = str(meta(sts).get("uid") or "")
        namespace = str(meta(sts).get("namespace") or "")
        claimed: list[Obj] = []
        for pod in self.cm.pods_by_owner.get(uid):
            if selector.matches(labels_of(pod)) and is_member_of(sts, pod):
                claimed.append(pod)
            else:
                await patch_owner_refs(self.client, "pods", pod, [{"$patch": "delete", "uid": uid}])
        for pod in self.cm.orphan_pods.get(namespace):
            if not deleting(pod) and selector.matches(labels_of(pod)) and is_member_of(sts, pod):
                adopted = await patch_owner_refs(self.client, "pods", pod, [new_controller_ref(sts)])
                if adopted is not None:
                    claimed.append(adopted)
        return claimed

    # --- updateStatefulSet ----------------------------------------------------------------------------

    async def _update_replicas(self, sts: Obj, pods: list[Obj], current: Obj, update: Obj) -> list[Obj]:
        """updateStatefulSet: make, repair, remove and roll the Pods; returns the Pods as they now stand."""
        start = start_ordinal(sts)
        end = start + int_field(spec(sts), "replicas", 1)
        slots: dict[int, Obj] = {}
        condemned: list[Obj] = []
        for pod in pods:
            ordinal = ordinal_of(pod)
            if start <= ordinal < end:
                slots[ordinal] = pod
            else:
                condemned.append(pod)
        condemned.sort(key=ordinal_of)
        monotonic = spec(sts).get("podManagementPolicy") != "Parallel"
        unhealthy = [p for p in [*(slots[o] for o in sorted(slots)), *condemned] if not is_healthy(p)]
        for pod in [*slots.values(), *condemned]:
            await self._retain_claims(sts, pod, pod in condemned)
        first_unhealthy = unhealthy[0] if unhealthy else None
        for ordinal in range(start, end):
            replica: Obj | None = slots.get(ordinal)
            if replica is not None and is_finished(replica) and not deleting(replica):
                reason = (
                    "RecreatingFailedPod" if status(replica).get("phase") == "Failed" else "RecreatingTerminatedPod"
                )
                what = "failed" if reason == "RecreatingFailedPod" else "terminated"
                message = f"StatefulSet {meta(sts).get('namespace')}/{meta(sts).get('name')} is recreating {what} Pod "
                await self.recorder.event(sts, "Warning", reason, message + str(meta(replica).get("name")))
                await self._delete(sts, replica)
                replica = None
            if replica is None:
                revision = current if uses_current_revision(sts, ordinal) else update
                pod = with_claim_volumes(sts, new_pod(sts, revision, ordinal), ordinal)
                await self._create_claims(sts, pod, ordinal)
                slots[ordinal] = await self._create(sts, pod)
                if monotonic:
                    return self._standing(slots, condemned)
                continue
            if deleting(replica) or not self._available(sts, replica):
                # OrderedReady: the next ordinal waits until this one is Running and Ready (and available).
                if monotonic:
                    return self._standing(slots, condemned)
                continue
            if not identity_matches(sts, replica):
                slots[ordinal] = await self._update_identity(sts, replica)
        for pod in reversed(condemned):
            if deleting(pod):
                if monotonic:
                    return self._standing(slots, condemned)
                continue
            if monotonic and not is_running_and_ready(pod) and pod is not first_unhealthy:
                return self._standing(slots, condemned)
            await self._delete(sts, pod)
            if monotonic:
                return self._standing(slots, condemned)
        strategy = spec(sts).get("updateStrategy") or {}
        if strategy.get("type", "RollingUpdate") != "RollingUpdate":
            return self._standing(slots, condemned)
        partition = int_field(strategy.get("rollingUpdate") or {}, "partition")
        for ordinal in sorted(slots, reverse=True):
            if ordinal < start + partition:
                break
            pod = slots[ordinal]
            if revision_of_pod(pod) != meta(update).get("name") and not deleting(pod):
                await self._delete(sts, pod)
                break
            if not is_healthy(pod):
                break
        return self._standing(slots, condemned)

    @staticmethod
    def _standing(slots: dict[int, Obj], condemned: list[Obj]) -> list[Obj]:
        return [slots[o] for o in sorted(slots)] + condemned

    def _available(self, sts: Obj, pod: Obj) -> bool:
        """isRunningAndAvailable: Running and Ready for minReadySeconds (simulated time)."""
        if not is_running_and_ready(pod):
            return False
        min_ready = int_field(spec(sts), "minReadySeconds")
        since = self.cm.ready_since(pod)
        return min_ready == 0 or (since is not None and since + min_ready < self.engine.now)

    async def _create(self, sts: Obj, pod: Obj) -> Obj:
        """CreateStatefulPod, with upstream's SuccessfulCreate / FailedCreate events."""
        name, namespace = meta(pod)["name"], str(meta(sts).get("namespace") or "")
        try:
            created = await self.client.create(pod, namespace)
        except errors.StatusError as exc:
            if exc.reason == "AlreadyExists":
                return await self.client.get("pods", name, namespace)
            await self._event(sts, "Warning", "create", name, f"failed error: {exc.message}")
            raise
        await self._event(sts, "Normal", "create", name, "successful")
        return created

    async def _create_claims(self, sts: Obj, pod: Obj, ordinal: int) -> None:
        """createMissingPersistentVolumeClaims: each claim of the Pod that does not exist yet, with its events."""
        namespace = str(meta(sts).get("namespace") or "")
        for claim in claims_for(sts, ordinal):
            name = str(meta(claim)["name"])
            if self.claims.get(f"{namespace}/{name}") is not None:
                continue
            refs = [r for r in owner_patch(sts, pod, claim, False) if "$patch" not in r]
            if refs:
                claim["metadata"]["ownerReferences"] = refs
            what = f"Claim {name} Pod {meta(pod).get('name')} in StatefulSet {meta(sts).get('name')}"
            try:
                await self.client.create(claim, namespace)
            except errors.StatusError as exc:
                if exc.reason == "AlreadyExists":
                    continue
                failed = f"create Claim {name} for Pod {meta(pod).get('name')} in StatefulSet {meta(sts).get('name')}"
                await self.recorder.event(sts, "Warning", "FailedCreate", f"{failed} failed error: {exc.message}")
                raise
            await self.recorder.event(sts, "Normal", "SuccessfulCreate", f"create {what} success")

    async def _retain_claims(self, sts: Obj, pod: Obj, condemned: bool) -> None:
        """UpdatePodClaimForRetentionPolicy: the Pod's claims owned as the retention policy says."""
        namespace = str(meta(sts).get("namespace") or "")
        for claim in claims_for(sts, ordinal_of(pod)):
            current = self.claims.get(f"{namespace}/{meta(claim)['name']}")
            if current is None or deleting(current):
                continue
            refs = owner_patch(sts, pod, current, condemned)
            if refs:
                await patch_owner_refs(self.client, "persistentvolumeclaims", current, refs)

    async def _delete(self, sts: Obj, pod: Obj) -> None:
        """DeleteStatefulPod, with upstream's SuccessfulDelete / FailedDelete events."""
        name = str(meta(pod).get("name") or "")
        try:
            await self.client.delete("pods", name, str(meta(pod).get("namespace") or ""))
        except errors.StatusError as exc:
            if exc.code == 404:
                return
            await self._event(sts, "Warning", "delete", name, f"failed error: {exc.message}")
            raise
        await self._event(sts, "Normal", "delete", name, "successful")

    async def _update_identity(self, sts: Obj, pod: Obj) -> Obj:
        """UpdateStatefulPod: put the Pod's identity back (its labels, hostname and subdomain)."""
        body = deep_copy(pod)
        set_identity(sts, body)
        name = str(meta(pod).get("name") or "")
        try:
            updated = await self.client.update(body)
        except errors.StatusError as exc:
            await self._event(sts, "Warning", "update", name, f"failed error: {exc.message}")
            raise
        await self._event(sts, "Normal", "update", name, "successful")
        return updated

    async def _event(self, sts: Obj, type_: str, verb: str, pod_name: str, outcome: str) -> None:
        """recordPodEvent: ``<verb> Pod <pod> in StatefulSet <set> successful`` (or ``failed error: ...``)."""
        reason = ("Successful" if type_ == "Normal" else "Failed") + verb.capitalize()
        await self.recorder.event(
            sts, type_, reason, f"{verb} Pod {pod_name} in StatefulSet {meta(sts).get('name')} {outcome}"
        )

    # --- status -------------------------------------------------------------------------------------

    async def _update_status(self, sts: Obj, pods: list[Obj], current: Obj, update: Obj) -> None:
        """computeReplicaStatus and completeRollingUpdate; written only when it changed."""
        counts = dict.fromkeys(COUNTS, 0)
        current_name, update_name = meta(current).get("name"), meta(update).get("name")
        for pod in pods:
            if not is_created(pod):
                continue
            counts["replicas"] += 1
            if is_running_and_ready(pod):
                counts["readyReplicas"] += 1
                counts["availableReplicas"] += 1 if self._available(sts, pod) else 0
            if not deleting(pod):
                counts["currentReplicas"] += 1 if revision_of_pod(pod) == current_name else 0
                counts["updatedReplicas"] += 1 if revision_of_pod(pod) == update_name else 0
        rolling = (spec(sts).get("updateStrategy") or {}).get("type", "RollingUpdate") == "RollingUpdate"
        if rollout_complete(counts, rolling):
            counts["currentReplicas"] = counts["updatedReplicas"]
            current_name = update_name
        wire: dict[str, Any] = {"observedGeneration": int_field(meta(sts), "generation")}
        wire.update({name: value for name, value in counts.items() if value or name in ALWAYS_WRITTEN})
        wire["currentRevision"] = current_name
        wire["updateRevision"] = update_name
        old = status(sts)
        wire["collisionCount"] = int_field(old, "collisionCount")
        if old.get("conditions") is not None:
            wire["conditions"] = deep_copy(old["conditions"])
        if wire == old:
            return
        await write_status(self.client, self.written, sts, wire, PLURAL)
