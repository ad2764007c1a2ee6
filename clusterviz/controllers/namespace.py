"""The namespace controller: empties a Terminating namespace, then lets it go.

``kubectl delete namespace x`` only marks the namespace: the API server sets
its deletionTimestamp and phase Terminating, refuses new objects in it, and
keeps it while ``spec.finalizers`` names ``kubernetes``. This controller then
deletes every namespaced resource in it (a DELETE on each collection, so Pods
terminate gracefully on their kubelets), lists what remains, reports it in
the namespace's conditions (NamespaceContentRemaining, NamespaceFinalizersRemaining,
...), and comes back: after the longest remaining grace period while Pods
terminate, or with a growing back-off while other finalizers hold objects.
Once nothing is left it removes its finalizer through ``/finalize``, and the
API server deletes the namespace.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from clusterviz.api import clock, errors, resources
from clusterviz.api.client import path_for
from clusterviz.api.informer import Handler

from .util import Obj, Worker, deleting, meta, spec, status

if TYPE_CHECKING:
    from .manager import ControllerManager

COMPONENT = "namespace-controller"
FINALIZER = "kubernetes"
# The controller's rate limiter: 5 ms doubling, but a namespace is looked at again at least every minute.
RETRY_BASE, RETRY_MAX = 0.005, 60.0

CONDITION_TYPES = (
    "NamespaceDeletionDiscoveryFailure",
    "NamespaceDeletionGroupVersionParsingFailure",
    "NamespaceDeletionContentFailure",
    "NamespaceContentRemaining",
    "NamespaceFinalizersRemaining",
)
# (reason, message) of each condition when it is False: nothing wrong, nothing left.
_FINE = {
    "NamespaceDeletionDiscoveryFailure": ("ResourcesDiscovered", "All resources successfully discovered"),
    "NamespaceDeletionGroupVersionParsingFailure": ("ParsedGroupVersions", "All legacy kube types successfully parsed"),
    "NamespaceDeletionContentFailure": ("ContentDeleted", "All content successfully deleted, may be waiting on finalization"),
    "NamespaceContentRemaining": ("ContentRemoved", "All content successfully removed"),
    "NamespaceFinalizersRemaining": ("ContentHasNoFinalizers", "All content-preserving finalizers finished"),
}


class Remaining:
    """What a pass left in the namespace: instances per resource, holders per finalizer, Pods' grace."""

    def __init__(self) -> None:
        self.instances: dict[str, int] = {}
        self.finalizers: Counter[str] = Counter()
        self.grace = 0.0

    def __bool__(self) -> bool:
        return bool(self.instances)

    def conditions(self) -> dict[str, tuple[str, str, str]]:
        """Condition type -> (status, reason, message), worded as upstream's deleter."""
        out = {kind: ("False", *_FINE[kind]) for kind in CONDITION_TYPES}
        if self.instances:
            listed = ", ".join(f"{gr} has {n} resource instances" for gr, n in sorted(self.instances.items()))
            out["NamespaceContentRemaining"] = ("True", "SomeResourcesRemain", f"Some resources are remaining: {listed}")
        if self.finalizers:
            listed = ", ".join(f"{name} in {n} resource instances" for name, n in sorted(self.finalizers.items()))
            out["NamespaceFinalizersRemaining"] = (
                "True", "SomeFinalizersRemain", f"Some content in the namespace has finalizers remaining: {listed}"
            )
        return out


def namespaced_resources() -> list[resources.Resource]:
    """What discovery lists as namespaced and deletable, each in its preferred version (a converted view lists the
    same objects), events last (deleting the rest makes more)."""
    served = [r for r in resources.RESOURCES
              if r.namespaced and "delete" in r.verbs and "list" in r.verbs and r.stored_as == r.version]
    return sorted(served, key=lambda r: r.kind == "Event")


class NamespaceController:
    """Deletes the content of Terminating namespaces and finalizes them."""

    def __init__(self, cm: ControllerManager) -> None:
        self.cm = cm
        self.client = cm.client
        self.engine = cm.engine
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        self._failures: dict[str, int] = {}
        cm.informers["namespaces"].add_handler(
            Handler(self._seen, lambda _old, new: self._seen(new), self._gone)
        )

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    def _seen(self, ns: Obj) -> None:
        if deleting(ns):
            self.worker.add(str(meta(ns).get("name")))

    def _gone(self, ns: Obj) -> None:
        self._failures.pop(str(meta(ns).get("name")), None)

    async def sync(self, name: str) -> None:
        """One pass of upstream's NamespacedResourcesDeleter.Delete over namespace ``name``."""
        ns = await self.client.get_or_none("namespaces", name)
        if ns is None or not deleting(ns) or FINALIZER not in (spec(ns).get("finalizers") or []):
            self._failures.pop(name, None)
            return
        remaining = await self._delete_content(name)
        ns = await self._report(ns, remaining)
        if remaining:
            self._come_back(name, remaining)
            return
        self._failures.pop(name, None)
        finalized = dict(ns, spec={**spec(ns), "finalizers": [f for f in spec(ns)["finalizers"] if f != FINALIZER]})
        try:
            await self.client.update(finalized, sub="finalize")
        except errors.StatusError as exc:
            if exc.code != 404:
                raise

    async def _delete_content(self, namespace: str) -> Remaining:
        """Delete every collection in the namespace, then count what is still there."""
        left = Remaining()
        custom = [r for r in await self.client.custom_resources()
                  if r.namespaced and {"delete", "list"} <= set(r.verbs)]
        for resource in namespaced_resources() + custom:
            if "deletecollection" in resource.verbs:
                await self.client.request("DELETE", path_for(resource, namespace), payload={})
            items = (await self.client.request("GET", path_for(resource, namespace))).body.get("items") or []
            for item in items:
                if "deletecollection" not in resource.verbs and not deleting(item):
                    await self._delete_one(resource, namespace, item)
                left.finalizers.update(meta(item).get("finalizers") or [])
                if resource.kind == "Pod":
                    left.grace = max(left.grace, _grace_left(item))
            if items:
                left.instances[f"{resource.plural}.{resource.group}"] = len(items)
        return left

    async def _delete_one(self, resource: resources.Resource, namespace: str, item: Obj) -> None:
        try:
            await self.client.request("DELETE", path_for(resource, namespace, meta(item)["name"]), payload={})
        except errors.StatusError as exc:
            if exc.code != 404:
                raise

    async def _report(self, ns: Obj, remaining: Remaining) -> Obj:
        """Write the namespace's deletion conditions when they changed."""
        old = {c.get("type"): c for c in status(ns).get("conditions") or [] if isinstance(c, dict)}
        conditions: list[dict[str, Any]] = []
        changed = False
        for kind, (state, reason, message) in remaining.conditions().items():
            before = old.get(kind) or {}
            if (before.get("status"), before.get("reason"), before.get("message")) != (state, reason, message):
                changed = True
            moment = before.get("lastTransitionTime") if before.get("status") == state else clock.rfc3339()
            conditions.append(
                {"type": kind, "status": state, "lastTransitionTime": moment, "reason": reason, "message": message}
            )
        if not changed:
            return ns
        body = dict(ns, status={**status(ns), "conditions": conditions})
        try:
            return await self.client.update(body, sub="status")
        except errors.StatusError as exc:
            if exc.code == 409:  # written meanwhile: the next pass reports again
                return ns
            raise

    def _come_back(self, name: str, remaining: Remaining) -> None:
        """Requeue: when the Pods' grace runs out, else back off while finalizers hold content."""
        if remaining.grace > 0:
            self.worker.add_after(name, remaining.grace)
            return
        failures = self._failures.get(name, 0)
        self._failures[name] = failures + 1
        # In the background: a namespace held by someone else's finalizer must not keep fast-forward running.
        self.worker.add_after(name, min(RETRY_BASE * 2**failures, RETRY_MAX), background=True)


def _grace_left(pod: Obj) -> float:
    """Seconds until a terminating Pod's grace period ends (its deletionTimestamp), at least one."""
    due = clock.parse(str(meta(pod).get("deletionTimestamp") or ""))
    if due is None:
        return 1.0
    return max((due - clock.now()).total_seconds(), 1.0)
