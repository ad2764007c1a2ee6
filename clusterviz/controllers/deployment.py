"""The Deployment controller: ReplicaSets named by their pod-template hash, rollouts, scaling, history.

A sync follows upstream's syncDeployment: claim the ReplicaSets, then
either only scale (paused, or spec.replicas changed: proportionally across
the active ReplicaSets mid-rollout) or roll out (RollingUpdate within
maxSurge/maxUnavailable, or Recreate), clean up old revisions and write the
status with its Available and Progressing conditions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from clusterviz.api import clock, errors
from clusterviz.api.informer import Handler, key_of
from clusterviz.apimachinery import labels
from clusterviz.apimachinery.unstructured import deep_copy

from . import deployment_status as ds
from . import deployment_util as du
from .deployment_rollout import Rollouts
from .util import (
    Obj,
    RecentWrites,
    Worker,
    annotations_of,
    controller_ref,
    deleting,
    int_field,
    labels_of,
    meta,
    new_controller_ref,
    patch_owner_refs,
    replicas_of,
    selector_of,
    spec,
    status,
)

if TYPE_CHECKING:
    from .manager import ControllerManager

COMPONENT = "deployment-controller"


class DeploymentController:
    """Reconciles every Deployment with its ReplicaSets."""

    def __init__(self, cm: ControllerManager) -> None:
        self.cm = cm
        self.client = cm.client
        self.recorder = cm.ctx.recorder(COMPONENT)
        self.deployments = cm.informers["deployments"]
        self.replica_sets = cm.informers["replicasets"]
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        self.written = RecentWrites()
        self.written_rs = RecentWrites()
        self.creation = du.by_creation(cm.creation_rank)
        self.rollouts = Rollouts(self)
        enqueue = self._enqueue
        self.deployments.add_handler(Handler(enqueue, lambda old, new: enqueue(new), self._deployment_deleted))
        self.replica_sets.add_handler(Handler(self._rs_added, self._rs_updated, self._rs_deleted))
        cm.informers["pods"].add_handler(Handler(on_delete=self._pod_deleted))

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    # --- event handlers -----------------------------------------------------------------------------

    def _enqueue(self, d: Obj) -> None:
        self.worker.add(key_of(d))

    def _deployment_deleted(self, d: Obj) -> None:
        self.written.forget(key_of(d))
        self._enqueue(d)

    def _resolve(self, namespace: str, ref: dict[str, Any] | None) -> Obj | None:
        if ref is None or ref.get("kind") != "Deployment" or not str(ref.get("apiVersion", "")).startswith("apps/"):
            return None
        d = self.deployments.get(f"{namespace}/{ref.get('name')}")
        return d if d is not None and meta(d).get("uid") == ref.get("uid") else None

    def _deployments_for_orphan(self, rs: Obj) -> list[Obj]:
        found = []
        for d in self.deployments.items():
            if meta(d).get("namespace") != meta(rs).get("namespace"):
                continue
            try:
                selector = selector_of(d)
            except labels.SelectorError:
                continue
            if not selector.empty and selector.matches(labels_of(rs)):
                found.append(d)
        return found

    def _rs_added(self, rs: Obj) -> None:
        if deleting(rs):
            self._rs_deleted(rs)
            return
        ref = controller_ref(rs)
        if ref is not None:
            d = self._resolve(meta(rs).get("namespace", ""), ref)
            if d is not None:
                self._enqueue(d)
            return
        for d in self._deployments_for_orphan(rs):
            self._enqueue(d)

    def _rs_updated(self, old: Obj, cur: Obj) -> None:
        if meta(old).get("resourceVersion") == meta(cur).get("resourceVersion"):
            return
        namespace = meta(cur).get("namespace", "")
        cur_ref, old_ref = controller_ref(cur), controller_ref(old)
        if cur_ref != old_ref and old_ref is not None:
            previous = self._resolve(namespace, old_ref)
            if previous is not None:
                self._enqueue(previous)
        if cur_ref is not None:
            d = self._resolve(namespace, cur_ref)
            if d is not None:
                self._enqueue(d)
            return
        if labels_of(old) != labels_of(cur) or cur_ref != old_ref:
            for d in self._deployments_for_orphan(cur):
                self._enqueue(d)

    def _rs_deleted(self, rs: Obj) -> None:
        self.written_rs.forget(key_of(rs))
        d = self._resolve(meta(rs).get("namespace", ""), controller_ref(rs))
        if d is not None:
            self._enqueue(d)

    def _pod_deleted(self, pod: Obj) -> None:
        """A Recreate rollout waits for the old Pods to be gone."""
        namespace = meta(pod).get("namespace", "")
        ref = controller_ref(pod)
        if ref is None or ref.get("kind") != "ReplicaSet":
            return
        rs = self.replica_sets.get(f"{namespace}/{ref.get('name')}")
        d = self._resolve(namespace, controller_ref(rs)) if rs is not None else None
        if d is not None and not du.is_rolling(d):
            self._enqueue(d)

    # --- sync -----------------------------------------------------------------------------------

    async def sync(self, key: str) -> None:
        """syncDeployment."""
        cached = self.written.fresh(self.deployments.get(key))
        if cached is None:
            return
        d = deep_copy(cached)
        try:
            selector = selector_of(d)
        except labels.SelectorError:
            return
        if selector.empty:
            await self.recorder.event(
                d, "Warning", "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required."
            )
            if int_field(status(d), "observedGeneration") < int_field(meta(d), "generation"):
                d.setdefault("status", {})["observedGeneration"] = int_field(meta(d), "generation")
                await self.client.update(d, sub="status")
            return
        rs_list = await self._claim_replica_sets(d, selector)
        if deleting(d):
            new_rs, old_rss = await self.all_rs_and_sync_revision(d, rs_list, False)
            await self._sync_deployment_status(old_rss, new_rs, d)
            return
        await self._check_paused_conditions(d)
        if spec(d).get("paused"):
            await self._sync_scale(d, rs_list)
            return
        if await self._is_scaling_event(d, rs_list):
            await self._sync_scale(d, rs_list)
            return
        if du.is_rolling(d):
            await self.rollouts.rolling(d, rs_list)
        else:
            await self.rollouts.recreate(d, rs_list)

    async def _claim_replica_sets(self, d: Obj, selector: labels.Selector) -> list[Obj]:
        """ClaimReplicaSets: own the matching orphans, release what no longer matches."""
        uid = meta(d).get("uid", "")
        candidates = [
            self.written_rs.fresh(rs) or rs
            for rs in self.cm.rs_by_owner.get(uid) + self.cm.orphan_rs.get(meta(d).get("namespace", ""))
        ]
        claimed: list[Obj] = []
        can_adopt: bool | None = None
        for rs in candidates:
            ref = controller_ref(rs)
            if ref is not None:
                if selector.matches(labels_of(rs)):
                    claimed.append(rs)
                elif not deleting(d):
                    await patch_owner_refs(self.client, "replicasets", rs, [{"$patch": "delete", "uid": uid}])
                continue
            if deleting(d) or deleting(rs) or not selector.matches(labels_of(rs)):
                continue
            if can_adopt is None:
                fresh = await self.client.get_or_none(
                    "deployments", meta(d).get("name", ""), meta(d).get("namespace", "")
                )
                can_adopt = fresh is not None and meta(fresh).get("uid") == uid and not deleting(fresh)
            if can_adopt:
                adopted = await patch_owner_refs(self.client, "replicasets", rs, [new_controller_ref(d)])
                if adopted is not None:
                    claimed.append(adopted)
        return claimed

    async def _write_status(self, d: Obj, annotations_changed: bool = False) -> None:
        """UpdateStatus; ``d`` takes the stored object. Upstream's status update also carries the revision
        annotation; here the main resource takes it first, in its own write."""
        wanted_status = d.get("status") or {}
        if annotations_changed:
            patch = {"metadata": {"annotations": {du.REVISION: annotations_of(d).get(du.REVISION)}}}
            fresh = self.written.remember(
                await self.client.patch("deployments", meta(d).get("name", ""), patch, meta(d).get("namespace", ""))
            )
            d.clear()
            d.update(fresh)
            d["status"] = wanted_status
        stored = self.written.remember(await self.client.update(d, sub="status"))
        d.clear()
        d.update(stored)

    async def _check_paused_conditions(self, d: Obj) -> None:
        condition = ds.paused_condition(d, clock.rfc3339())
        if condition is not None:
            ds.set_condition(d.setdefault("status", {}), condition)
            await self._write_status(d)

    async def all_rs_and_sync_revision(self, d: Obj, rs_list: list[Obj], create: bool) -> tuple[Obj | None, list[Obj]]:
        """getAllReplicaSetsAndSyncRevision: the new ReplicaSet (created if asked) and the old ones."""
        template = spec(d).get("template")
        # FindNewReplicaSet: the oldest one with the Deployment's template; every other one is old.
        existing = next(
            (
                rs
                for rs in sorted(rs_list, key=self.creation)
                if du.equal_ignore_hash(spec(rs).get("template"), template)
            ),
            None,
        )
        old_rss = [rs for rs in rs_list if rs is not existing]
        new_rs = await self._new_replica_set(d, rs_list, existing, old_rss, create)
        return new_rs, old_rss

    async def _new_replica_set(
        self, d: Obj, rs_list: list[Obj], existing: Obj | None, old_rss: list[Obj], create: bool
    ) -> Obj | None:
        """getNewReplicaSet: sync the existing new ReplicaSet's annotations, or create it."""
        new_revision = str(du.max_revision(old_rss) + 1)
        if existing is not None:
            rs_copy = deep_copy(existing)
            annotations_updated = du.set_new_rs_annotations(d, rs_copy, new_revision, True)
            min_ready = int_field(spec(d), "minReadySeconds")
            if annotations_updated or int_field(spec(rs_copy), "minReadySeconds") != min_ready:
                rs_copy["spec"]["minReadySeconds"] = min_ready
                updated = self.written_rs.remember(await self.client.update(rs_copy))
                rs_list[rs_list.index(existing)] = updated
                return updated
            rs_revision = annotations_of(rs_copy).get(du.REVISION, "")
            needs_update = annotations_changed = self._set_deployment_revision(d, rs_revision)
            if (
                spec(d).get("progressDeadlineSeconds") is not None
                and ds.get_condition(status(d), "Progressing") is None
            ):
                message = f'Found new replica set "{meta(rs_copy).get("name")}"'
                ds.set_condition(
                    d.setdefault("status", {}),
                    ds.new_condition(clock.rfc3339(), "Progressing", "True", ds.FOUND_NEW_RS_REASON, message),
                )
                needs_update = True
            if needs_update:
                await self._write_status(d, annotations_changed)
            return rs_copy
        if not create:
            return None
        return await self._create_new_replica_set(d, old_rss, new_revision)

    async def _create_new_replica_set(self, d: Obj, old_rss: list[Obj], new_revision: str) -> Obj | None:
        template = deep_copy(spec(d).get("template") or {})
        collision_count = status(d).get("collisionCount")
        pod_hash = du.compute_hash(template, collision_count if isinstance(collision_count, int) else None)
        template_meta = template.setdefault("metadata", {})
        template_meta["labels"] = {**(template_meta.get("labels") or {}), du.HASH_LABEL: pod_hash}
        selector = deep_copy(spec(d).get("selector") or {})
        selector["matchLabels"] = {**(selector.get("matchLabels") or {}), du.HASH_LABEL: pod_hash}
        namespace = meta(d).get("namespace", "")
        new_rs: Obj = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": f"{meta(d).get('name')}-{pod_hash}",
                "namespace": namespace,
                "labels": dict(template_meta["labels"]),
                "ownerReferences": [new_controller_ref(d)],
            },
            "spec": {
                "replicas": 0,
                "minReadySeconds": int_field(spec(d), "minReadySeconds"),
                "selector": selector,
                "template": template,
            },
        }
        replicas = du.new_rs_new_replicas(d, [*old_rss, new_rs], new_rs)
        new_rs["spec"]["replicas"] = replicas
        du.set_new_rs_annotations(d, new_rs, new_revision, False)
        already_exists = False
        try:
            created = self.written_rs.remember(await self.client.create(new_rs, namespace))
        except errors.StatusError as exc:
            if exc.reason != "AlreadyExists":
                message = f'Failed to create new replica set "{meta(new_rs)["name"]}": {exc.message}'
                if spec(d).get("progressDeadlineSeconds") is not None:
                    ds.set_condition(
                        d.setdefault("status", {}),
                        ds.new_condition(
                            clock.rfc3339(), "Progressing", "False", ds.FAILED_RS_CREATE_REASON, message
                        ),
                    )
                    try:
                        await self._write_status(d)
                    except errors.StatusError:
                        pass  # the creation failure is the error worth reporting
                await self.recorder.event(d, "Warning", ds.FAILED_RS_CREATE_REASON, message)
                raise
            found = self.replica_sets.get(f"{namespace}/{meta(new_rs)['name']}")
            ref = controller_ref(found) if found is not None else None
            if (
                found is None
                or ref is None
                or ref.get("uid") != meta(d).get("uid")
                or not du.equal_ignore_hash(spec(found).get("template"), spec(d).get("template"))
            ):
                # A hash collision: bump collisionCount so the next sync computes another name.
                d.setdefault("status", {})["collisionCount"] = int_field(status(d), "collisionCount") + 1
                await self._write_status(d)
                raise
            created, already_exists = found, True
        if not already_exists and replicas > 0:
            await self.recorder.event(
                d,
                "Normal",
                "ScalingReplicaSet",
                f"Scaled up replica set {meta(created).get('name')} from 0 to {replicas}",
            )
        needs_update = annotations_changed = self._set_deployment_revision(d, new_revision)
        if not already_exists and spec(d).get("progressDeadlineSeconds") is not None:
            message = f'Created new replica set "{meta(created).get("name")}"'
            ds.set_condition(
                d.setdefault("status", {}),
                ds.new_condition(clock.rfc3339(), "Progressing", "True", ds.NEW_RS_REASON, message),
            )
            needs_update = True
        if needs_update:
            await self._write_status(d, annotations_changed)
        return created

    @staticmethod
    def _set_deployment_revision(d: Obj, rev: str) -> bool:
        annotations = meta(d).setdefault("annotations", {})
        if annotations.get(du.REVISION) == rev:
            return False
        annotations[du.REVISION] = rev
        return True

    # --- scaling ----------------------------------------------------------------------------------

    async def _is_scaling_event(self, d: Obj, rs_list: list[Obj]) -> bool:
        """isScalingEvent: an active ReplicaSet was sized for another spec.replicas."""
        new_rs, old_rss = await self.all_rs_and_sync_revision(d, rs_list, False)
        for rs in du.active([*old_rss, *([new_rs] if new_rs else [])]):
            desired = annotations_of(rs).get(du.DESIRED_REPLICAS)
            if desired is not None and desired != str(replicas_of(d)):
                return True
        return False

    async def _sync_scale(self, d: Obj, rs_list: list[Obj]) -> None:
        """sync: scale (proportionally when mid-rollout) without rolling out, then the status."""
        new_rs, old_rss = await self.all_rs_and_sync_revision(d, rs_list, False)
        await self.rollouts.scale(d, new_rs, old_rss)
        if spec(d).get("paused"):
            await self.rollouts.cleanup(d, old_rss)
        await self._sync_deployment_status(old_rss, new_rs, d)

    async def _sync_deployment_status(self, old_rss: list[Obj], new_rs: Obj | None, d: Obj) -> None:
        """syncDeploymentStatus: counts and Available, no Progressing update."""
        all_rss = [*old_rss, *([new_rs] if new_rs else [])]
        new_status = ds.calculate_status(all_rss, new_rs, d, clock.rfc3339())
        if new_status != status(d):
            d["status"] = new_status
            await self._write_status(d)

    async def scale_rs(self, rs: Obj, new_scale: int, d: Obj) -> tuple[bool, Obj]:
        """scaleReplicaSet: size and replica annotations in one update; a ScalingReplicaSet event on resizing."""
        size_changed = replicas_of(rs) != new_scale
        desired, most = replicas_of(d), replicas_of(d) + du.max_surge(d)
        if not size_changed and not du.replicas_annotations_need_update(rs, desired, most):
            return False, rs
        old_scale = replicas_of(rs)
        rs_copy = deep_copy(rs)
        rs_copy.setdefault("spec", {})["replicas"] = new_scale
        du.set_replicas_annotations(rs_copy, desired, most)
        updated = self.written_rs.remember(await self.client.update(rs_copy))
        if size_changed:
            direction = "up" if old_scale < new_scale else "down"
            message = f"Scaled {direction} replica set {meta(updated).get('name')} from {old_scale} to {new_scale}"
            await self.recorder.event(d, "Normal", "ScalingReplicaSet", message)
        return size_changed, updated

    async def sync_rollout_status(self, old_rss: list[Obj], new_rs: Obj | None, d: Obj) -> None:
        """syncRolloutStatus: write the status (with Progressing) when it changed."""
        new_status = ds.rollout_status([*old_rss, *([new_rs] if new_rs else [])], new_rs, d, clock.rfc3339())
        if new_status != status(d):
            d["status"] = new_status
            await self._write_status(d)
