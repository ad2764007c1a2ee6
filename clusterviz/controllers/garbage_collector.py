"""The garbage collector: deletes objects whose owners are all gone (background cascading deletion).

It keeps a graph of ownerReferences over the watched resources. When an
owner is deleted, or an object names an owner that is not in the caches,
the dependent is checked: each owner is looked up (in the caches, then
with a GET, matching the uid). An object with no owner left is deleted,
with its uid as a precondition; one with some owners left loses the
references to the missing ones. So deleting a Deployment deletes its
ReplicaSets, and their deletion deletes the Pods.
"""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING, Any

from clusterviz.api import errors, resources
from clusterviz.api.client import path_for
from clusterviz.api.customresources import resources_of
from clusterviz.api.informer import Handler, Informer, key_of
from clusterviz.api.resources import Resource
from clusterviz.apimachinery.unstructured import dict_or_empty

from .util import Index, Obj, Worker, by_owner_uids, by_uid, meta, owner_refs

if TYPE_CHECKING:
    from .manager import ControllerManager

COMPONENT = "garbage-collector"
WATCHED = (
    "deployments",
    "replicasets",
    "replicationcontrollers",
    "daemonsets",
    "statefulsets",
    "controllerrevisions",
    "cronjobs",
    "jobs",
    "pods",
    "services",
    "endpoints",
    "nodes",
    "persistentvolumeclaims",
    "csinodes",
)


class GarbageCollector:
    """Background cascading deletion by ownerReferences."""

    def __init__(self, cm: ControllerManager) -> None:
        self.cm = cm
        self.client = cm.client
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        self.uids: dict[str, Index] = {}
        self.dependents: dict[str, Index] = {}
        self.informers = {plural: cm.informers[plural] for plural in WATCHED}
        for plural in WATCHED:
            self._follow(plural, self.informers[plural])
        # Custom kinds are watched while a definition serves them, as upstream's GC follows discovery.
        self.custom: dict[str, tuple[Resource, asyncio.Task[None]]] = {}
        crds = cm.informers["customresourcedefinitions"]
        crds.add_handler(Handler(self._crd_seen, lambda _old, new: self._crd_seen(new), self._crd_gone))

    def _follow(self, plural: str, informer: Informer) -> None:
        self.uids[plural] = Index(informer, by_uid)
        self.dependents[plural] = Index(informer, by_owner_uids)
        informer.add_handler(self._handler(plural))

    def _crd_seen(self, crd: Obj) -> None:
        served = {f"{r.plural}.{r.group}": r for r in resources_of(crd) if not r.storage_version}
        for plural, resource in served.items():
            if plural not in self.custom:
                informer = Informer(self.client, plural)
                self.informers[plural] = informer
                self._follow(plural, informer)
                task = self.cm.engine.spawn(f"{COMPONENT}/informer/{plural}", functools.partial(self._watch, informer))
                self.custom[plural] = (resource, task)
        if not served:
            self._crd_gone(crd)

    def _crd_gone(self, crd: Obj) -> None:
        names = dict_or_empty(dict_or_empty(crd.get("spec")).get("names"))
        plural = f"{names.get('plural', '')}.{dict_or_empty(crd.get('spec')).get('group', '')}"
        if plural in self.custom:
            _resource, task = self.custom.pop(plural)
            task.cancel()
            # What the kind's watch had not reported gone is gone with the kind: its dependents are checked.
            self.informers[plural].forget_all()
            for index in (self.informers, self.uids, self.dependents):
                del index[plural]

    async def _watch(self, informer: Informer) -> None:
        try:
            await informer.run()
        except errors.StatusError as exc:
            if exc.code != 404:  # the definition went while the watch was being made again
                raise

    def _handler(self, plural: str) -> Handler:
        """The handlers of ``plural``'s informer: changed objects are checked, a gone owner's dependents too."""
        return Handler(
            lambda obj: self._changed(plural, obj), lambda _old, new: self._changed(plural, new), self._owner_gone
        )

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    def _known(self, uid: str) -> bool:
        return any(index.has(uid) for index in self.uids.values())

    def _changed(self, plural: str, obj: Obj) -> None:
        """An object naming an owner the caches do not hold is worth a check."""
        if any(not self._known(str(ref.get("uid"))) for ref in owner_refs(obj)):
            self.worker.add(f"{plural}|{key_of(obj)}")

    def _owner_gone(self, owner: Obj) -> None:
        uid = meta(owner).get("uid", "")
        for plural, index in self.dependents.items():
            for key in index.keys(uid):
                self.worker.add(f"{plural}|{key}")

    async def sync(self, item: str) -> None:
        """attemptToDeleteItem."""
        plural, _, key = item.partition("|")
        informer = self.informers.get(plural)
        obj = informer.get(key) if informer is not None else None
        if obj is None:
            return
        namespace = meta(obj).get("namespace", "")
        solid: list[dict[str, Any]] = []
        dangling: list[dict[str, Any]] = []
        for ref in owner_refs(obj):
            (dangling if await self._dangling(ref, namespace) else solid).append(ref)
        if not dangling:
            return
        name, uid = meta(obj).get("name", ""), meta(obj).get("uid")
        try:
            if not solid:
                options = {
                    "kind": "DeleteOptions",
                    "apiVersion": "v1",
                    "preconditions": {"uid": uid},
                    "propagationPolicy": "Background",
                }
                await self.client.delete(plural, name, namespace, options)
            else:
                refs: list[dict[str, Any]] = [{"$patch": "delete", "uid": ref.get("uid")} for ref in dangling]
                await self.client.patch(
                    plural, name, {"metadata": {"ownerReferences": refs, "uid": uid}}, namespace, patch_type="strategic"
                )
        except errors.StatusError as exc:
            # Gone already, or replaced by a namesake (the uid precondition failed): nothing to collect.
            if exc.code not in (404, 409):
                raise

    async def _dangling(self, ref: dict[str, Any], namespace: str) -> bool:
        """isDangling: the owner does not exist, or a different object (another uid) has its name."""
        uid = str(ref.get("uid"))
        if self._known(uid):
            return False
        api_version = str(ref.get("apiVersion", ""))
        group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
        resource = resources.by_kind(group, str(ref.get("kind", ""))) or next(
            (r for r, _task in self.custom.values() if (r.group, r.kind) == (group, ref.get("kind"))), None
        )
        if resource is None:
            return False  # an owner type this server does not serve cannot be checked; leave it be
        path = path_for(resource, namespace if resource.namespaced else "", str(ref.get("name", "")))
        try:
            owner = (await self.client.request("GET", path)).body
        except errors.StatusError as exc:
            if exc.code != 404:
                raise
            return True
        return meta(owner).get("uid") != uid
