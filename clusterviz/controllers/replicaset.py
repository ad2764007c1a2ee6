"""The ReplicaSet and ReplicationController controllers: hold the replica count of a Pod template.

One class serves both kinds, as upstream's ReplicationManager wraps the
ReplicaSetController. A sync claims the Pods (adopting orphans that match
the selector, releasing owned Pods that stopped matching), creates or
deletes Pods to reach spec.replicas and writes the status.

Expectations keep the controller from acting on a stale cache: the names
of the Pods it created and deleted are remembered until the informer has
seen each of them, and the key is not managed again before that. Tracking
names rather than counts (upstream counts creations) makes a watch event
delivered twice harmless.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from clusterviz.api import clock, errors
from clusterviz.api.informer import Handler, key_of
from clusterviz.apimachinery import labels
from clusterviz.apimachinery.unstructured import deep_copy

from .claimed_pods import ClaimedPods, ReplicaCounts, counted
from .pod_control import GENERATED_PREFIX_MAX as GENERATED_PREFIX_MAX
from .pod_control import NAME_ATTEMPTS as NAME_ATTEMPTS
from .pod_control import SUFFIX_ALPHABET as SUFFIX_ALPHABET
from .pod_control import Expectations, PodControl, pods_to_delete, slow_start_batch
from .util import (
    Obj,
    PodFacts,
    PodFactsCache,
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
    replicas_of,
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

# At most this many Pods are created or deleted in one sync (--replicaset-burst... upstream's BurstReplicas).
BURST_REPLICAS = 500


@dataclass(frozen=True)
class WorkloadKind:
    """What differs between the ReplicaSet and the ReplicationController controller."""

    kind: str
    group: str
    plural: str
    component: str


REPLICA_SET = WorkloadKind("ReplicaSet", "apps", "replicasets", "replicaset-controller")
REPLICATION_CONTROLLER = WorkloadKind("ReplicationController", "", "replicationcontrollers", "replication-controller")


class ReplicaSetController:
    """Keeps the Pods of every ReplicaSet (or ReplicationController) at spec.replicas."""

    def __init__(self, cm: ControllerManager, kind: WorkloadKind) -> None:
        self.cm = cm
        self.kind = kind
        self.engine = cm.engine
        self.client = cm.client
        self.recorder = cm.ctx.recorder(kind.component)
        self.rng = cm.ctx.rng(kind.component)
        self.owners = cm.informers[kind.plural]
        self.pods = cm.informers["pods"]
        self.expectations = Expectations(cm.engine)
        self.pod_control = PodControl(self)
        self.written = RecentWrites()
        self.pod_facts = PodFactsCache()
        # By owner uid: what each owner's last sync claimed, and which of its Pods changed since.
        self.claimed: dict[str, ClaimedPods] = {}
        self.worker = Worker(cm.engine, f"controller-manager/{kind.component}", self.sync)
        self.owners.add_handler(Handler(self._owner_added, self._owner_updated, self._owner_deleted))
        self.pods.add_handler(Handler(self._pod_added, self._pod_updated, self._pod_deleted))
        self.pods.add_handler(Handler(self._note_pod, self._note_pod_update, self._note_pod))

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    # --- event handlers: only bookkeeping and enqueueing ---------------------------------------

    def _owner_added(self, owner: Obj) -> None:
        self.worker.add(key_of(owner))

    def _owner_updated(self, old: Obj, new: Obj) -> None:
        self.worker.add(key_of(new))

    def _owner_deleted(self, owner: Obj) -> None:
        key = key_of(owner)
        self.expectations.forget(key)
        self.written.forget(key)
        self.claimed.pop(str(meta(owner).get("uid", "")), None)
        self.worker.add(key)

    def _note_pod(self, pod: Obj) -> None:
        """Note a Pod that appeared, changed or went under the owner its controller reference names."""
        ref = controller_ref(pod)
        if ref is not None:
            claimed = self.claimed.get(str(ref.get("uid")))
            if claimed is not None:
                claimed.note(key_of(pod))

    def _note_pod_update(self, old: Obj, cur: Obj) -> None:
        self._note_pod(old)
        self._note_pod(cur)

    def _resolve(self, namespace: str, ref: dict[str, Any]) -> Obj | None:
        """The owner a controller reference points at, if it is one of ours and still the same object."""
        api_version = str(ref.get("apiVersion", ""))
        group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
        if ref.get("kind") != self.kind.kind or group != self.kind.group:
            return None
        owner = self.owners.get(f"{namespace}/{ref.get('name')}")
        if owner is None or meta(owner).get("uid") != ref.get("uid"):
            return None
        return owner

    def _pod_added(self, pod: Obj) -> None:
        if deleting(pod):
            # Seen for the first time already terminating (a restart): not a creation to count on.
            self._pod_deleted(pod)
            return
        ref = controller_ref(pod)
        if ref is not None:
            owner = self._resolve(meta(pod).get("namespace", ""), ref)
            if owner is not None:
                key = key_of(owner)
                self.expectations.creation_observed(key, key_of(pod))
                self.worker.add(key)
            return
        for owner in selecting(self.owners, pod):
            self.worker.add(key_of(owner))

    def _pod_updated(self, old: Obj, cur: Obj) -> None:
        if meta(old).get("resourceVersion") == meta(cur).get("resourceVersion"):
            return
        labels_changed = labels_of(old) != labels_of(cur)
        if deleting(cur):
            self._pod_deleted(cur)
            if labels_changed:
                self._pod_deleted(old)
            return
        namespace = meta(cur).get("namespace", "")
        cur_ref, old_ref = controller_ref(cur), controller_ref(old)
        ref_changed = cur_ref != old_ref
        if ref_changed and old_ref is not None:
            previous = self._resolve(namespace, old_ref)
            if previous is not None:
                self.worker.add(key_of(previous))
        if cur_ref is not None:
            owner = self._resolve(namespace, cur_ref)
            if owner is None:
                return
            key = key_of(owner)
            self.expectations.creation_observed(key, key_of(cur))
            self.worker.add(key)
            min_ready = int_field(spec(owner), "minReadySeconds")
            if min_ready > 0 and not is_pod_ready(old) and is_pod_ready(cur):
                # Count it available once minReadySeconds have passed (plus a second, as upstream).
                self.worker.add_after(key, min_ready + 1)
            return
        if labels_changed or ref_changed:
            for owner in selecting(self.owners, cur):
                self.worker.add(key_of(owner))

    def _pod_deleted(self, pod: Obj) -> None:
        self.pod_facts.forget(pod)
        ref = controller_ref(pod)
        if ref is None:
            return
        owner = self._resolve(meta(pod).get("namespace", ""), ref)
        if owner is None:
            return
        key = key_of(owner)
        pod_key = key_of(pod)
        # Seeing a Pod we created in any state means its creation landed.
        self.expectations.creation_observed(key, pod_key)
        self.expectations.deletion_observed(key, pod_key)
        self.worker.add(key)

    # --- sync ---------------------------------------------------------------------------------------

    async def sync(self, key: str) -> None:
        """syncReplicaSet: claim Pods, create or delete to reach spec.replicas, write the status."""
        owner = self.written.fresh(self.owners.get(key))
        if owner is None:
            self.expectations.forget(key)
            return
        needs_sync = self.expectations.satisfied(key)
        try:
            selector = selector_of(owner)
        except labels.SelectorError as exc:
            log.warning("%s %s has an invalid selector: %s", self.kind.kind, key, exc)
            return
        template = labels.selector_from_set(labels_of(spec(owner).get("template") or {}))
        counts = self._claimed_since(owner, selector, template, needs_sync)
        pods: list[Obj] = []
        if counts is None:
            pods, counts = await self._claim_all(owner, selector, template)
        manage_error: errors.StatusError | None = None
        if needs_sync and not deleting(owner):
            self.expectations.forget(key)
            try:
                await self._manage_replicas(owner, counts.replicas, pods)
            except errors.StatusError as exc:
                manage_error = exc
        new_status = self._calculate_status(owner, counts, manage_error)
        updated = await self._update_status(owner, new_status)
        min_ready = int_field(spec(updated), "minReadySeconds")
        ready, available = new_status["readyReplicas"], new_status["availableReplicas"]
        if manage_error is None and min_ready > 0 and ready == replicas_of(updated) and available != ready:
            self.worker.add_after(key, min_ready)
        if manage_error is not None:
            raise manage_error

    def _claimed_since(
        self, owner: Obj, selector: labels.Selector, template: labels.Selector, needs_sync: bool
    ) -> ReplicaCounts | None:
        """The counts the full walk would find, from the last sync's claim and the Pods changed since.

        None when only the full walk can tell: no claim yet, a new selector or template, an owner
        being deleted, minReadySeconds (availability moves with the clock), an orphan to adopt, an
        owned Pod to release, or Pods to delete (choosing them ranks every Pod).
        """
        uid = str(meta(owner).get("uid", ""))
        claimed = self.claimed.get(uid)
        if (
            claimed is None
            or claimed.selector != repr(selector)
            or claimed.template != repr(template)
            or deleting(owner)
            or int_field(spec(owner), "minReadySeconds") > 0
        ):
            return None
        for key, orphan in self.cm.orphan_pods.entries(meta(owner).get("namespace", "")):
            orphan_facts = self.pod_facts.of(orphan, key)
            if orphan_facts.active and orphan_facts.selected_by(selector):
                return None
        for key in claimed.changed:
            pod = self.pods.get(key)
            facts = None if pod is None else self.pod_facts.of(pod, key)
            if facts is None or not facts.active or facts.controller is None or facts.controller.get("uid") != uid:
                claimed.claim(key, None)
            elif facts.selected_by(selector):
                claimed.claim(key, counted(facts, template))
            else:
                return None
        claimed.changed.clear()
        counts = claimed.counts()
        if needs_sync and counts.replicas > replicas_of(owner):
            return None
        return counts

    async def _claim_all(
        self, owner: Obj, selector: labels.Selector, template: labels.Selector
    ) -> tuple[list[Obj], ReplicaCounts]:
        """The full walk: claim every candidate Pod; the claimed Pods and their counts.

        What it claims is kept for the next sync. It is kept before the claim's first write, so
        that the Pod events that arrive during the writes are noted against it.
        """
        uid = str(meta(owner).get("uid", ""))
        kept = self.claimed[uid] = ClaimedPods(repr(selector), repr(template))
        namespace = meta(owner).get("namespace", "")
        candidates = self.cm.pods_by_owner.entries(uid) + self.cm.orphan_pods.entries(namespace)
        # Each Pod's facts are looked up once a pass: a sync looks at every Pod of its ReplicaSet.
        active = [(pod, facts) for key, pod in candidates if (facts := self.pod_facts.of(pod, key)).active]
        claimed = await self._claim_pods(owner, selector, active)
        for pod, facts in claimed:
            kept.claim(key_of(pod), counted(facts, template))
        return [pod for pod, _facts in claimed], self._count(owner, claimed, template)

    async def _claim_pods(
        self, owner: Obj, selector: labels.Selector, candidates: list[tuple[Obj, PodFacts]]
    ) -> list[tuple[Obj, PodFacts]]:
        """ClaimPods: keep owned matching Pods, release owned ones that stopped matching, adopt matching orphans."""
        uid = meta(owner).get("uid")
        claimed: list[tuple[Obj, PodFacts]] = []
        can_adopt: bool | None = None
        for pod, facts in candidates:
            ref = facts.controller
            if ref is not None:
                if ref.get("uid") != uid:
                    continue
                if facts.selected_by(selector):
                    claimed.append((pod, facts))
                elif not deleting(owner):
                    await patch_owner_refs(self.client, "pods", pod, [{"$patch": "delete", "uid": uid}])
                continue
            if deleting(owner) or facts.deleting or not facts.selected_by(selector):
                continue
            if can_adopt is None:
                can_adopt = await self._can_adopt(owner)
            if can_adopt:
                adopted = await patch_owner_refs(self.client, "pods", pod, [new_controller_ref(owner)])
                if adopted is not None:
                    claimed.append((adopted, self.pod_facts.of(adopted)))
        return claimed

    async def _can_adopt(self, owner: Obj) -> bool:
        """RecheckDeletionTimestamp: adopt only for an owner that is, fresh from the API, alive and the same."""
        fresh = await self.client.get_or_none(
            self.kind.plural, meta(owner).get("name", ""), meta(owner).get("namespace", "")
        )
        return fresh is not None and meta(fresh).get("uid") == meta(owner).get("uid") and not deleting(fresh)

    async def _manage_replicas(self, owner: Obj, claimed: int, pods: list[Obj]) -> None:
        """Create or delete Pods to bring ``claimed`` to spec.replicas; ``pods`` (the claimed Pods) are
        needed only to choose which to delete, which only the full walk does."""
        key = key_of(owner)
        diff = claimed - replicas_of(owner)
        if diff < 0:
            create = functools.partial(self.pod_control.create, owner, key)
            error = await slow_start_batch(
                self.engine, f"{self.worker.name}/create", [create] * min(-diff, BURST_REPLICAS)
            )
            if error is not None:
                raise error
        elif diff > 0:
            related = self._related_pods(owner)
            victims = pods_to_delete(
                pods, related, min(diff, BURST_REPLICAS), self.cm.ready_since, self.cm.creation_rank
            )
            self.expectations.expect_deletions(key, [key_of(p) for p in victims])
            jobs = [
                functools.partial(
                    self.pod_control.delete, owner, key, meta(pod).get("namespace", ""), meta(pod).get("name", "")
                )
                for pod in victims
            ]
            results = await run_parallel(self.engine, f"{self.worker.name}/delete", jobs)
            for result in results:
                if isinstance(result, errors.StatusError) and result.code != 404:
                    raise result

    def _related_pods(self, owner: Obj) -> list[Obj]:
        """Pods of every ReplicaSet with the same controller (a Deployment's), for the co-location rank."""
        ref = controller_ref(owner)
        siblings = self.cm.rs_by_owner.get(str(ref.get("uid"))) if ref and self.kind is REPLICA_SET else [owner]
        related: list[Obj] = []
        for sibling in siblings or [owner]:
            related.extend(self.cm.pods_by_owner.get(meta(sibling).get("uid", "")))
        return related

    # --- status ---------------------------------------------------------------------------------

    def _count(self, owner: Obj, pods: list[tuple[Obj, PodFacts]], template: labels.Selector) -> ReplicaCounts:
        """The status counts of the claimed ``pods``."""
        min_ready = int_field(spec(owner), "minReadySeconds")
        fully_labeled = ready = available = 0
        for pod, facts in pods:
            labeled, is_ready = counted(facts, template)
            fully_labeled += labeled
            if is_ready:
                ready += 1
                if min_ready == 0 or self._available_since(pod, min_ready):
                    available += 1
        return ReplicaCounts(len(pods), fully_labeled, ready, available)

    def _calculate_status(
        self, owner: Obj, counts: ReplicaCounts, manage_error: errors.StatusError | None
    ) -> dict[str, Any]:
        conditions = [c for c in deep_copy(status(owner).get("conditions") or []) if isinstance(c, dict)]
        failure = next((c for c in conditions if c.get("type") == "ReplicaFailure"), None)
        if manage_error is not None and failure is None:
            diff = counts.replicas - replicas_of(owner)
            reason = "FailedCreate" if diff < 0 else ("FailedDelete" if diff > 0 else "")
            conditions.append(
                {
                    "type": "ReplicaFailure",
                    "status": "True",
                    "lastTransitionTime": clock.rfc3339(),
                    "reason": reason,
                    "message": manage_error.message,
                }
            )
        elif manage_error is None and failure is not None:
            conditions = [c for c in conditions if c.get("type") != "ReplicaFailure"]
        return {
            "replicas": counts.replicas,
            "fullyLabeledReplicas": counts.fully_labeled,
            "readyReplicas": counts.ready,
            "availableReplicas": counts.available,
            "conditions": conditions,
        }

    def _available_since(self, pod: Obj, min_ready: int) -> bool:
        """Whether a Ready Pod has been Ready for more than ``min_ready`` seconds."""
        since = self.cm.ready_since(pod)
        return since is not None and since + min_ready < self.engine.now

    async def _update_status(self, owner: Obj, new: dict[str, Any]) -> Obj:
        """updateReplicaSetStatus: write only on change, retrying once on a conflict with a fresh read."""
        old = status(owner)
        generation = int_field(meta(owner), "generation")
        unchanged = all(
            int_field(old, f) == new[f]
            for f in ("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas")
        )
        if (
            unchanged
            and int_field(old, "observedGeneration") == generation
            and (old.get("conditions") or []) == new["conditions"]
        ):
            return owner
        # Go's omitempty: zero counts and empty conditions are left out, replicas always written.
        wire: dict[str, Any] = {"replicas": new["replicas"]}
        for field in ("fullyLabeledReplicas", "readyReplicas", "availableReplicas"):
            if new[field]:
                wire[field] = new[field]
        if generation:
            wire["observedGeneration"] = generation
        if new["conditions"]:
            wire["conditions"] = new["conditions"]
        return await write_status(self.client, self.written, owner, wire, self.kind.plural)
