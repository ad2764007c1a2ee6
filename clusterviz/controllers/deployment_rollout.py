"""How the Deployment controller moves its ReplicaSets: rolling update, recreate, scaling, history cleanup.

After rolling.go, recreate.go and sync.go upstream. Every resize goes
through the controller's ``scale_rs`` (one update, one ScalingReplicaSet
event); the status is written by the controller afterwards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clusterviz.api import errors

from . import deployment_status as ds
from . import deployment_util as du
from .util import Obj, deleting, int_field, meta, replicas_of, spec, status

if TYPE_CHECKING:
    from .deployment import DeploymentController


class Rollouts:
    """The rollout steps of one Deployment controller."""

    def __init__(self, dc: DeploymentController) -> None:
        self.dc = dc
        self.creation = dc.creation

    # --- scaling --------------------------------------------------------------------------------

    async def scale(self, d: Obj, new_rs: Obj | None, old_rss: list[Obj]) -> None:
        """scale: the one active ReplicaSet takes the new size; mid-rollout all share it proportionally."""
        target = self._active_or_latest(new_rs, old_rss)
        if target is not None:
            if replicas_of(target) != replicas_of(d):
                await self.dc.scale_rs(target, replicas_of(d), d)
            return
        if du.is_saturated(d, new_rs):
            for old in du.active(old_rss):
                await self.dc.scale_rs(old, 0, d)
            return
        if not du.is_rolling(d):
            return
        all_rss = du.active([*old_rss, *([new_rs] if new_rs else [])])
        allowed = replicas_of(d) + du.max_surge(d) if replicas_of(d) > 0 else 0
        to_add = allowed - du.spec_replicas(all_rss)
        if to_add != 0:
            all_rss = du.sort_by_size(all_rss, self.dc.cm.creation_rank, newer_first=to_add > 0)
        added = 0
        sizes: dict[str, int] = {}
        for rs in all_rss:
            proportion = du.get_proportion(rs, d, to_add, added) if to_add != 0 else 0
            sizes[meta(rs)["name"]] = replicas_of(rs) + proportion
            added += proportion
        for index, rs in enumerate(all_rss):
            name = meta(rs)["name"]
            if index == 0 and to_add != 0:
                # Leftovers of the rounding go to the largest ReplicaSet.
                sizes[name] = max(sizes[name] + to_add - added, 0)
            await self.dc.scale_rs(rs, sizes[name], d)

    def _active_or_latest(self, new_rs: Obj | None, old_rss: list[Obj]) -> Obj | None:
        """FindActiveOrLatest: the only active ReplicaSet, or the newest when none is active."""
        if new_rs is None and not old_rss:
            return None
        newest_first = sorted(old_rss, key=self.creation, reverse=True)
        actives = du.active([*newest_first, *([new_rs] if new_rs else [])])
        if not actives:
            return new_rs if new_rs is not None else newest_first[0]
        return actives[0] if len(actives) == 1 else None

    # --- rolling update -------------------------------------------------------------------------

    async def rolling(self, d: Obj, rs_list: list[Obj]) -> None:
        """rolloutRolling: scale the new ReplicaSet up within maxSurge, then old ones down within maxUnavailable."""
        new_rs, old_rss = await self.dc.all_rs_and_sync_revision(d, rs_list, True)
        if new_rs is None:
            return
        all_rss = [*old_rss, new_rs]
        if await self._reconcile_new_rs(d, all_rss, new_rs) or await self._reconcile_old_rss(
            d, all_rss, du.active(old_rss), new_rs
        ):
            await self.dc.sync_rollout_status(old_rss, new_rs, d)
            return
        if ds.deployment_complete(d, status(d)):
            await self.cleanup(d, old_rss)
        await self.dc.sync_rollout_status(old_rss, new_rs, d)

    async def _reconcile_new_rs(self, d: Obj, all_rss: list[Obj], new_rs: Obj) -> bool:
        if replicas_of(new_rs) == replicas_of(d):
            return False
        if replicas_of(new_rs) > replicas_of(d):
            return (await self.dc.scale_rs(new_rs, replicas_of(d), d))[0]
        return (await self.dc.scale_rs(new_rs, du.new_rs_new_replicas(d, all_rss, new_rs), d))[0]

    async def _reconcile_old_rss(self, d: Obj, all_rss: list[Obj], old_rss: list[Obj], new_rs: Obj) -> bool:
        """Scale old ReplicaSets down as far as maxUnavailable allows, unhealthy Pods first."""
        if du.spec_replicas(old_rss) == 0:
            return False
        min_available = replicas_of(d) - du.max_unavailable(d)
        new_unavailable = replicas_of(new_rs) - int_field(status(new_rs), "availableReplicas")
        max_scaled_down = du.spec_replicas(all_rss) - min_available - new_unavailable
        if max_scaled_down <= 0:
            return False
        old_rss, cleaned = await self._cleanup_unhealthy(d, old_rss, max_scaled_down)
        scaled = await self._scale_down_old(d, [*old_rss, new_rs], old_rss, min_available)
        return cleaned + scaled > 0

    async def _cleanup_unhealthy(self, d: Obj, old_rss: list[Obj], max_cleanup: int) -> tuple[list[Obj], int]:
        """cleanupUnhealthyReplicas: unavailable old Pods go first, they block the rollout otherwise."""
        old_rss = sorted(old_rss, key=self.creation)
        total = 0
        for index, rs in enumerate(old_rss):
            if total >= max_cleanup:
                break
            unhealthy = replicas_of(rs) - int_field(status(rs), "availableReplicas")
            if replicas_of(rs) == 0 or unhealthy == 0:
                continue
            count = min(max_cleanup - total, unhealthy)
            _, old_rss[index] = await self.dc.scale_rs(rs, replicas_of(rs) - count, d)
            total += count
        return old_rss, total

    async def _scale_down_old(self, d: Obj, all_rss: list[Obj], old_rss: list[Obj], min_available: int) -> int:
        """scaleDownOldReplicaSetsForRollingUpdate: only what keeps minAvailable Pods available, oldest first."""
        available = du.status_count(all_rss, "availableReplicas")
        if available <= min_available:
            return 0
        total, wanted = 0, available - min_available
        for rs in sorted(old_rss, key=self.creation):
            if total >= wanted:
                break
            if replicas_of(rs) == 0:
                continue
            count = min(replicas_of(rs), wanted - total)
            await self.dc.scale_rs(rs, replicas_of(rs) - count, d)
            total += count
        return total

    # --- recreate -------------------------------------------------------------------------------

    async def recreate(self, d: Obj, rs_list: list[Obj]) -> None:
        """rolloutRecreate: every old ReplicaSet to zero, wait until their Pods are gone, then the new one up."""
        new_rs, old_rss = await self.dc.all_rs_and_sync_revision(d, rs_list, False)
        scaled_down = False
        for index, rs in enumerate(old_rss):
            if replicas_of(rs) > 0:
                scaled, old_rss[index] = await self.dc.scale_rs(rs, 0, d)
                scaled_down = scaled_down or scaled
        if scaled_down or self._old_pods_running(new_rs, old_rss):
            await self.dc.sync_rollout_status(old_rss, new_rs, d)
            return
        if new_rs is None:
            new_rs, old_rss = await self.dc.all_rs_and_sync_revision(d, rs_list, True)
        if new_rs is not None:
            _, new_rs = await self.dc.scale_rs(new_rs, replicas_of(d), d)
        if ds.deployment_complete(d, status(d)):
            await self.cleanup(d, old_rss)
        await self.dc.sync_rollout_status(old_rss, new_rs, d)

    def _old_pods_running(self, new_rs: Obj | None, old_rss: list[Obj]) -> bool:
        """oldPodsRunning: terminating Pods count too, they may still be serving."""
        if du.status_count(old_rss, "replicas") > 0:
            return True
        for rs in old_rss:
            if new_rs is not None and meta(rs).get("uid") == meta(new_rs).get("uid"):
                continue
            for pod in self.dc.cm.pods_by_owner.get(meta(rs).get("uid", "")):
                if status(pod).get("phase") not in ("Succeeded", "Failed"):
                    return True
        return False

    # --- history --------------------------------------------------------------------------------

    async def cleanup(self, d: Obj, old_rss: list[Obj]) -> None:
        """cleanupDeployment: delete the oldest idle ReplicaSets beyond revisionHistoryLimit."""
        limit = spec(d).get("revisionHistoryLimit")
        if not isinstance(limit, int):
            return
        alive = sorted((rs for rs in old_rss if not deleting(rs)), key=du.by_revision(self.dc.cm.creation_rank))
        for rs in alive[: max(len(alive) - limit, 0)]:
            if not du.cleanable(rs):
                continue
            try:
                await self.dc.client.delete("replicasets", meta(rs).get("name", ""), meta(rs).get("namespace", ""))
            except errors.StatusError as exc:
                if exc.code != 404:
                    raise
