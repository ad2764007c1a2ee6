"""A DaemonSet's history as ControllerRevisions, after pkg/controller/daemon/update.go.

Each distinct Pod template a DaemonSet has had is kept as a ControllerRevision
named ``<daemonset>-<hash>``, whose ``data`` is the strategic merge patch that
puts that template back (what ``kubectl rollout undo`` sends) and whose
``revision`` numbers the templates in the order they were last current. The
current revision's hash labels the Pods (``controller-revision-hash``), which
is how the rolling update tells old Pods from new ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from clusterviz.api import errors
from clusterviz.apimachinery import labels
from clusterviz.apimachinery.unstructured import deep_copy

from .daemonset_util import HASH_LABEL
from .deployment_util import compute_hash
from .util import (
    Index,
    Obj,
    RecentWrites,
    annotations_of,
    by_controller_uid,
    by_namespace_if_orphan,
    controller_ref,
    deleting,
    int_field,
    labels_of,
    meta,
    new_controller_ref,
    selector_of,
    spec,
    status,
)

if TYPE_CHECKING:
    from clusterviz.api.client import Client

    from .manager import ControllerManager

PLURAL = "controllerrevisions"
# ControllerRevisionName keeps the prefix short enough for the hash and a dash.
NAME_PREFIX_MAX = 223


def revision_patch(ds: Obj) -> dict[str, Any]:
    """getPatch: the DaemonSet's template as a strategic merge patch that replaces the whole template.

    Shaped as Go marshals it (the typed template's ``creationTimestamp: null``,
    every map's keys sorted), because ``kubectl rollout undo`` compares these
    bytes with its own rendering of the DaemonSet to skip a rollback to the
    template already in place.
    """
    template = deep_copy(spec(ds).get("template") or {})
    template_meta = template.get("metadata")
    if not isinstance(template_meta, dict):
        template_meta = template["metadata"] = {}
    template_meta.setdefault("creationTimestamp", None)
    template["$patch"] = "replace"
    return _sorted_keys({"spec": {"template": template}})


def _sorted_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _sorted_keys(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted_keys(item) for item in value]
    return value


def revision_of(history: Obj) -> int:
    """The ControllerRevision's revision number."""
    return int_field(history, "revision")


class History:
    """Claims, creates, renumbers and prunes the ControllerRevisions of one kind of owner (DaemonSets by
    default, or StatefulSets: ``owner_plural`` is where a hash collision is counted)."""

    def __init__(self, cm: ControllerManager, client: Client, owner_plural: str = "daemonsets") -> None:
        self.client = client
        self.owner_plural = owner_plural
        self.informer = cm.informers[PLURAL]
        self.by_owner = Index(self.informer, by_controller_uid)
        self.orphans = Index(self.informer, by_namespace_if_orphan)
        self.written = RecentWrites()

    def owned(self, ds: Obj) -> list[Obj]:
        """The revisions a DaemonSet controls (its uid in their controller reference), freshest copies."""
        found = [self.written.fresh(h) for h in self.by_owner.get(str(meta(ds).get("uid") or ""))]
        return [h for h in found if h is not None]

    async def claim(self, ds: Obj, selector: labels.Selector) -> list[Obj]:
        """controlledHistories: owned revisions that still match, plus matching orphans, adopted."""
        claimed = [h for h in self.owned(ds) if selector.matches(labels_of(h))]
        namespace = str(meta(ds).get("namespace") or "")
        for orphan in self.orphans.get(namespace):
            if deleting(ds) or selector.empty or not selector.matches(labels_of(orphan)):
                continue
            body = {"metadata": {"ownerReferences": [new_controller_ref(ds)], "uid": meta(orphan).get("uid")}}
            try:
                adopted = await self.client.patch(
                    PLURAL, meta(orphan).get("name", ""), body, namespace, patch_type="strategic"
                )
            except errors.StatusError as exc:
                if exc.code == 404:
                    continue
                raise
            claimed.append(self.written.remember(adopted))
        return claimed

    async def construct(self, ds: Obj) -> tuple[Obj, list[Obj]]:
        """constructHistory: the current revision (made or renumbered as needed) and the old ones."""
        selector = selector_of(ds)
        histories = await self.claim(ds, selector)
        patch = revision_patch(ds)
        current = [h for h in histories if h.get("data") == patch]
        old = [h for h in histories if h.get("data") != patch]
        next_revision = max((revision_of(h) for h in old), default=0) + 1
        if not current:
            cur = await self._snapshot(ds, next_revision)
        else:
            current.sort(key=revision_of)
            cur = current[-1]
            for duplicate in current[:-1]:
                # dedupCurHistories: one revision per template; the newest number stays.
                await self._delete(duplicate)
        if revision_of(cur) < next_revision:
            body = deep_copy(cur)
            body["revision"] = next_revision
            cur = self.written.remember(await self.client.update(body))
        return cur, old

    async def _snapshot(self, ds: Obj, revision: int) -> Obj:
        """snapshot: store the template as a new revision; a name taken by another template is a collision."""
        collision_count = status(ds).get("collisionCount")
        hash_ = compute_hash(
            spec(ds).get("template") or {}, collision_count if isinstance(collision_count, int) else None
        )
        name = f"{str(meta(ds).get('name'))[:NAME_PREFIX_MAX]}-{hash_}"
        namespace = str(meta(ds).get("namespace") or "")
        template_labels = dict(labels_of(spec(ds).get("template") or {}))
        history: Obj = {
            "apiVersion": "apps/v1",
            "kind": "ControllerRevision",
            "metadata": {
                "name": name,
                "namespace": namespace,
                "labels": {**template_labels, HASH_LABEL: hash_},
                "ownerReferences": [new_controller_ref(ds)],
            },
            "data": revision_patch(ds),
            "revision": revision,
        }
        if annotations_of(ds):
            history["metadata"]["annotations"] = dict(annotations_of(ds))
        try:
            return self.written.remember(await self.client.create(history, namespace))
        except errors.StatusError as exc:
            if exc.reason != "AlreadyExists":
                raise
        existing = await self.client.get(PLURAL, name, namespace)
        ref = controller_ref(existing)
        if existing.get("data") == history["data"] and ref is not None and ref.get("uid") == meta(ds).get("uid"):
            return existing
        # Another template hashed to this name: count the collision, so the next hash differs.
        fresh = await self.client.get(self.owner_plural, str(meta(ds).get("name")), namespace)
        fresh.setdefault("status", {})["collisionCount"] = int_field(status(fresh), "collisionCount") + 1
        await self.client.update(fresh, sub="status")
        raise errors.already_exists(PLURAL, "apps", name)

    async def cleanup(self, ds: Obj, old: list[Obj], live_hashes: set[str]) -> None:
        """cleanupHistory: delete the oldest revisions beyond revisionHistoryLimit that no live Pod runs."""
        to_kill = len(old) - int_field(spec(ds), "revisionHistoryLimit", 10)
        for history in sorted(old, key=revision_of):
            if to_kill <= 0:
                break
            if labels_of(history).get(HASH_LABEL) in live_hashes:
                continue
            await self._delete(history)
            to_kill -= 1

    async def _delete(self, history: Obj) -> None:
        try:
            await self.client.delete(PLURAL, meta(history).get("name", ""), meta(history).get("namespace", ""))
        except errors.StatusError as exc:
            if exc.code != 404:
                raise
