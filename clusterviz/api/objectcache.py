"""The watch cache's objects by key: what admission and updates read without asking the store.

kube-apiserver's admission plugins (NamespaceLifecycle, LimitRanger, ResourceQuota, Priority,
ServiceAccount) read through informers, and its updates start from the watch cache's copy of the
object, going back to etcd only when the write conflicts. Here each process's follower of a
cluster's log (``watchcache.LogFollower``) keeps, for a few resources, the latest object of every
key: a resource is listed from the store once, at a revision, and from then on kept by the
follower's events after that revision. A create then costs no store read for its admission, and a
status patch none for the object it patches.

A read is served here only while the follower has every revision this process wrote or heard of
(``LogFollower.current``); otherwise, and for a key not found here, the store answers. A copy that
is stale all the same (another process's write not yet announced) is what an informer's would be:
writes carry the revision they started from, so the store refuses a write based on it (409), and
the callers read the store again before they retry.
"""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import deep_copy
from clusterviz.store import kv

# The resources kept: those every create's admission reads, those written by patch, and those whose
# updates name a revision often older than the last few events (Leases, workloads' status).
KEPT = frozenset({
    "namespaces",
    "serviceaccounts",
    "limitranges",
    "resourcequotas",
    "priorityclasses.scheduling.k8s.io",
    "pods",
    "nodes",
    "leases.coordination.k8s.io",
    "replicasets.apps",
    "deployments.apps",
})

# (namespace, name) -> the object at its latest revision: the event that wrote it (decoded when first
# read, and shared with the watchers), or a listed object.
_Table = dict[tuple[str, str], "kv.Event | dict[str, Any]"]


class ObjectCache:
    """The latest object of every key of the ``KEPT`` resources that have been listed."""

    def __init__(self) -> None:
        self._tables: dict[str, _Table] = {}
        # The revision each table was listed at: its events up to there are in the listing.
        self._listed: dict[str, int] = {}

    def has(self, resource: str) -> bool:
        """Whether ``resource`` is listed and kept."""
        return resource in self._tables

    def apply(self, events: list[kv.Event]) -> None:
        """Take the follower's next events, in revision order."""
        tables = self._tables
        for event in events:
            table = tables.get(event.resource)
            if table is None or event.revision <= self._listed[event.resource]:
                continue
            where = (event.namespace, event.name)
            if event.type == "DELETED":
                table.pop(where, None)
            else:
                table[where] = event

    def release(self, events: list[kv.Event]) -> None:
        """``events`` have left the follower's memory: keep only their objects.

        A key's latest event may stay here long after that, and the object before it (which only
        watchers offered the event read) would otherwise stay alive with it.
        """
        tables = self._tables
        for event in events:
            table = tables.get(event.resource)
            where = (event.namespace, event.name)
            if table is not None and table.get(where) is event:
                table[where] = event.without_previous()

    def load(self, resource: str, items: list[dict[str, Any]], revision: int, later: list[kv.Event]) -> None:
        """Keep ``resource`` from its listing at ``revision`` on, with the follower's events after it (``later``)."""
        table: _Table = {}
        for obj in items:
            meta = obj.get("metadata") or {}
            table[(str(meta.get("namespace") or ""), str(meta.get("name") or ""))] = obj
        self._tables[resource] = table
        self._listed[resource] = revision
        self.apply([event for event in later if event.resource == resource])

    def reset(self) -> None:
        """Forget everything (the follower starts again from a later revision)."""
        self._tables.clear()
        self._listed.clear()

    def get(self, key: kv.Key, *, shared: bool = False) -> dict[str, Any] | None:
        """A copy of ``key``'s object, None if there is none (its resource must be listed); with ``shared``,
        the object itself, for a caller that only reads it."""
        found = self._tables[key.resource].get((key.namespace, key.name))
        if found is None:
            return None
        if shared:
            return found.object if isinstance(found, kv.Event) else found
        return _copy(found)

    def objects(self, resource: str, namespace: str | None) -> list[dict[str, Any]]:
        """Copies of ``resource``'s objects (of one namespace, or all), by namespace and name, as the store lists them."""
        table = self._tables[resource]
        return [_copy(table[where]) for where in self.keys(resource, namespace)]

    def keys(self, resource: str, namespace: str | None) -> list[tuple[str, str]]:
        """``resource``'s keys (of one namespace, or all), by namespace and name."""
        return sorted(where for where in self._tables[resource] if namespace is None or where[0] == namespace)

    def shared(self, resource: str, where: tuple[str, str]) -> dict[str, Any]:
        """The object at a key ``keys`` gave, itself (decoded now if nobody read it yet): for a caller that only
        reads it, before the cache takes the next events."""
        found = self._tables[resource][where]
        return found.object if isinstance(found, kv.Event) else found


def _copy(found: kv.Event | dict[str, Any]) -> dict[str, Any]:
    # Callers may change what they read; the cached object is shared with watchers and later reads.
    return deep_copy(found.object if isinstance(found, kv.Event) else found)
