"""etcd's key-value operations over the Django models.

Every write runs in one transaction that locks the cluster row, bumps its
revision, writes the object with ``metadata.resourceVersion`` set to that
revision and appends the watch event. Watchers are woken after commit.
All functions here are synchronous; the API server calls them from threads.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction

from clusterviz.apimachinery.unstructured import dict_or_empty, str_or_empty

from . import notify
from .models import Cluster, StoredObject, WatchEvent

# Compaction runs on every Nth revision rather than every write, to keep writes cheap.
COMPACT_EVERY = 64


class StoreError(Exception):
    """Base class of the store's failures; the API server maps them to Status errors."""


class ClusterNotFound(StoreError):
    pass


class KeyExists(StoreError):
    pass


class KeyNotFound(StoreError):
    pass


class RevisionConflict(StoreError):
    """The caller's resourceVersion (or uid precondition) is not the stored one."""


class StoreUnavailable(StoreError):
    """The database could not be reached, or the connection broke; nothing was written."""


class Compacted(StoreError):
    """The requested revision is older than what the watch log still holds."""

    def __init__(self, requested: int, oldest: int) -> None:
        super().__init__(f"too old resource version: {requested} ({oldest})")
        self.requested = requested
        self.oldest = oldest


@dataclass(frozen=True)
class Key:
    """Where an object lives: group-qualified resource, namespace ('' if cluster-scoped), name."""

    resource: str
    namespace: str
    name: str


@dataclass(frozen=True)
class Event:
    """A watch-log entry as watchers see it."""

    revision: int
    type: str
    resource: str
    namespace: str
    name: str
    object: dict[str, Any]
    previous: dict[str, Any] | None


def cluster_id(name: str) -> int:
    """The primary key of the cluster called ``name``."""
    try:
        return Cluster.objects.values_list("pk", flat=True).get(name=name)
    except Cluster.DoesNotExist:
        raise ClusterNotFound(name) from None


def create_cluster(name: str) -> int:
    """Create an empty cluster and return its id (an existing one is returned as is)."""
    cluster, _ = Cluster.objects.get_or_create(name=name)
    return cluster.pk


def delete_cluster(name: str) -> bool:
    """Remove a cluster with everything in it."""
    deleted, _ = Cluster.objects.filter(name=name).delete()
    return deleted > 0


def cluster_names() -> list[str]:
    return list(Cluster.objects.values_list("name", flat=True))


def current_revision(cid: int) -> int:
    return Cluster.objects.values_list("revision", flat=True).get(pk=cid)


def _index_columns(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata") or {}
    spec = dict_or_empty(obj.get("spec"))
    status = dict_or_empty(obj.get("status"))
    labels = dict_or_empty(meta.get("labels"))
    node_name = str_or_empty(spec.get("nodeName"))
    phase = str_or_empty(status.get("phase"))
    return {
        "uid": str(meta.get("uid", "")),
        "labels": labels,
        "node_name": node_name[:253],
        "phase": phase[:32],
    }


def get(cid: int, key: Key) -> dict[str, Any] | None:
    """The stored object, or None."""
    row = (
        StoredObject.objects.filter(cluster_id=cid, resource=key.resource, namespace=key.namespace, name=key.name)
        .values_list("data", flat=True)
        .first()
    )
    return row


@contextmanager
def _snapshot() -> Iterator[None]:
    """A read-only transaction whose statements all see one moment of the database.

    PostgreSQL's default (READ COMMITTED) gives each statement its own snapshot, so a revision read
    by one and the objects or events read by the next could come from either side of a concurrent
    write or compaction; REPEATABLE READ fixes one snapshot for the transaction. SQLite's
    transactions already see one state (and this project's take the write lock up front). Inside
    a caller's transaction the reads share that transaction's isolation.
    """
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def list_objects(
    cid: int,
    resource: str,
    namespace: str | None = None,
    *,
    name: str | None = None,
    node_name: str | None = None,
    phase: str | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """Objects of one resource (optionally one namespace) and the revision they were read at."""
    with _snapshot():
        revision = current_revision(cid)
        query = StoredObject.objects.filter(cluster_id=cid, resource=resource)
        if namespace:
            query = query.filter(namespace=namespace)
        if name is not None:
            query = query.filter(name=name)
        if node_name is not None:
            query = query.filter(node_name=node_name)
        if phase is not None:
            query = query.filter(phase=phase)
        items = list(query.order_by("namespace", "name").values_list("data", flat=True))
    return items, revision


class _Writer:
    """Writes inside one locked transaction; each write gets the next revision."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.revision = cluster.revision
        # The transaction's watch events, handed to this process's watch cache after commit so
        # that it need not read back what was just written.
        self.events: list[Event] = []

    def _next(self) -> int:
        self.revision += 1
        return self.revision

    def _log(self, kind: str, key: Key, obj: dict[str, Any], previous: dict[str, Any] | None) -> None:
        # The event keeps its own copy: the caller gets ``obj`` back and may change it.
        self.events.append(Event(self.revision, kind, key.resource, key.namespace, key.name, copy.deepcopy(obj), previous))
        WatchEvent.objects.create(
            cluster_id=self.cluster.pk,
            revision=self.revision,
            type=kind,
            resource=key.resource,
            namespace=key.namespace,
            name=key.name,
            object=obj,
            previous=previous,
        )

    def create(self, key: Key, obj: dict[str, Any]) -> dict[str, Any]:
        obj = copy.deepcopy(obj)
        rev = self._next()
        obj.setdefault("metadata", {})["resourceVersion"] = str(rev)
        try:
            with transaction.atomic():
                StoredObject.objects.create(
                    cluster_id=self.cluster.pk,
                    resource=key.resource,
                    namespace=key.namespace,
                    name=key.name,
                    resource_version=rev,
                    data=obj,
                    **_index_columns(obj),
                )
        except IntegrityError:
            self.revision -= 1
            raise KeyExists(key) from None
        self._log(WatchEvent.ADDED, key, obj, None)
        return obj

    def _current(self, key: Key) -> StoredObject:
        row = StoredObject.objects.filter(
            cluster_id=self.cluster.pk, resource=key.resource, namespace=key.namespace, name=key.name
        ).first()
        if row is None:
            raise KeyNotFound(key)
        return row

    def update(self, key: Key, obj: dict[str, Any], expected_rv: int | None = None) -> dict[str, Any]:
        row = self._current(key)
        if expected_rv is not None and row.resource_version != expected_rv:
            raise RevisionConflict(key)
        obj = copy.deepcopy(obj)
        rev = self._next()
        obj.setdefault("metadata", {})["resourceVersion"] = str(rev)
        previous = row.data
        for column, value in _index_columns(obj).items():
            setattr(row, column, value)
        row.resource_version = rev
        row.data = obj
        row.save()
        self._log(WatchEvent.MODIFIED, key, obj, previous)
        return obj

    def delete(self, key: Key, expected_rv: int | None = None, expected_uid: str | None = None) -> dict[str, Any]:
        row = self._current(key)
        if expected_rv is not None and row.resource_version != expected_rv:
            raise RevisionConflict(key)
        if expected_uid is not None and row.uid != expected_uid:
            raise RevisionConflict(key)
        obj = copy.deepcopy(row.data)
        rev = self._next()
        # As in Kubernetes, the DELETED event carries the revision of the deletion.
        obj.setdefault("metadata", {})["resourceVersion"] = str(rev)
        row.delete()
        self._log(WatchEvent.DELETED, key, obj, None)
        return obj


@contextmanager
def writer(cid: int) -> Iterator[_Writer]:
    """Lock the cluster for writing; commit bumps its revision and wakes watchers."""
    with transaction.atomic():
        try:
            cluster = Cluster.objects.select_for_update().only("pk", "revision", "compacted").get(pk=cid)
        except Cluster.DoesNotExist:
            raise ClusterNotFound(cid) from None
        start = cluster.revision
        w = _Writer(cluster)
        yield w
        if w.revision != start:
            Cluster.objects.filter(pk=cid).update(revision=w.revision)
            if w.revision // COMPACT_EVERY != start // COMPACT_EVERY:
                _compact(cid, w.revision)
            final, events = w.revision, w.events
            transaction.on_commit(lambda: notify.publish(cid, final, events))


def create(cid: int, key: Key, obj: dict[str, Any]) -> dict[str, Any]:
    """Store a new object; KeyExists if the key is taken."""
    with writer(cid) as w:
        return w.create(key, obj)


def update(cid: int, key: Key, obj: dict[str, Any], expected_rv: int | None = None) -> dict[str, Any]:
    """Replace an object; RevisionConflict when ``expected_rv`` is not the stored revision."""
    with writer(cid) as w:
        return w.update(key, obj, expected_rv)


def delete(cid: int, key: Key, expected_rv: int | None = None, expected_uid: str | None = None) -> dict[str, Any]:
    """Remove an object and return it as last stored (with the deletion's revision)."""
    with writer(cid) as w:
        return w.delete(key, expected_rv, expected_uid)


def _compact(cid: int, revision: int) -> None:
    retain = settings.CLUSTERVIZ["WATCH_LOG_RETAIN"]
    horizon = revision - retain
    if horizon <= 0:
        return
    WatchEvent.objects.filter(cluster_id=cid, revision__lte=horizon).delete()
    Cluster.objects.filter(pk=cid, compacted__lt=horizon).update(compacted=horizon)


def compact(cid: int, revision: int) -> None:
    """Drop watch events at or below ``revision`` (etcd's compaction)."""
    with transaction.atomic():
        WatchEvent.objects.filter(cluster_id=cid, revision__lte=revision).delete()
        Cluster.objects.filter(pk=cid, compacted__lt=revision).update(compacted=revision)


def events_since(cid: int, revision: int, limit: int = 500) -> list[Event]:
    """Watch events after ``revision`` in order; Compacted if some were dropped."""
    with _snapshot():
        compacted = Cluster.objects.values_list("compacted", flat=True).get(pk=cid)
        if revision < compacted:
            raise Compacted(revision, compacted + 1)
        rows = WatchEvent.objects.filter(cluster_id=cid, revision__gt=revision).order_by("revision")[:limit]
        return [
            Event(r.revision, r.type, r.resource, r.namespace, r.name, r.object, r.previous)
            for r in rows
        ]
