"""etcd's key-value operations over the Django models.

Writes run in one transaction per batch (``write_many``) that locks the clusters'
rows; each write bumps its cluster's revision, stores the object with
``metadata.resourceVersion`` set to that revision and appends the watch event.
After commit the events go to this process's watchers (``notify.publish``).
The reads live in ``reads`` and the failures in ``errors``; callers find them here
too (``kv.get``, ``kv.ClusterNotFound``), so that the store has one name to import.
All functions here are synchronous; the API server calls them from threads.
"""

from __future__ import annotations

import functools
import threading
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import orjson
from django.conf import settings
from django.db import connection, transaction

from clusterviz.apimachinery.unstructured import dict_or_empty, dumps, str_or_empty

from . import notify, reads, sql
from .errors import ClusterNotFound, Compacted, KeyExists, KeyNotFound, RevisionConflict, StoreError
from .errors import StoreUnavailable as StoreUnavailable
from .models import Cluster, StoredObject, WatchEvent
from .reads import cluster_id as cluster_id
from .reads import current_revision as current_revision
from .reads import get as get
from .reads import list_objects as list_objects
from .reads import list_page as list_page
from .reads import objects_in as objects_in
from .reads import revisions as revisions

# Compaction runs on every Nth revision rather than every write, to keep writes cheap.
COMPACT_EVERY = 64


@dataclass(frozen=True)
class Key:
    """Where an object lives: group-qualified resource, namespace ('' if cluster-scoped), name."""

    resource: str
    namespace: str
    name: str


class Event:
    """A watch-log entry as watchers see it.

    Its objects are decoded from the JSON the store wrote (or read) when first asked for, once, and
    shared by every watcher of the process from then on: an event of a resource nobody watches (a
    scheduling decision, an Event) is never decoded.
    """

    __slots__ = ("_object", "_object_text", "_previous", "_previous_text", "name", "namespace", "resource",
                 "revision", "size", "type")

    def __init__(
        self, revision: int, type: str, resource: str, namespace: str, name: str, object_text: str,
        previous_text: str | None = None,
    ) -> None:
        self.revision = revision
        self.type = type
        self.resource = resource
        self.namespace = namespace
        self.name = name
        # The length of the event's JSON as stored, a measure of what it holds in memory.
        self.size = len(object_text) + len(previous_text or "")
        self._object_text: str | None = object_text
        self._object: dict[str, Any] | None = None
        self._previous_text = previous_text
        self._previous: dict[str, Any] | None = None

    @property
    def object(self) -> dict[str, Any]:
        """The object as written (for a DELETED event, as last stored, at the deletion's revision)."""
        if self._object is None:
            self._object = orjson.loads(self._object_text or "{}")
            self._object_text = None
        return self._object

    @property
    def previous(self) -> dict[str, Any] | None:
        """The object before a MODIFIED event's change (None for other events)."""
        if self._previous is None and self._previous_text is not None:
            self._previous = orjson.loads(self._previous_text)
            self._previous_text = None
        return self._previous

    def without_previous(self) -> Event:
        """This event without the object before it, sharing its object (decoded or not)."""
        event = Event(self.revision, self.type, self.resource, self.namespace, self.name, self._object_text or "")
        event._object = self._object
        return event

    def __repr__(self) -> str:
        return f"Event({self.revision}, {self.type}, {self.resource}, {self.namespace}/{self.name})"


def create_cluster(name: str) -> int:
    """Create an empty cluster and return its id (an existing one is returned as is)."""
    cluster, created = Cluster.objects.get_or_create(name=name)
    if created:
        # An id cached for an earlier cluster of that name (a test's flushed database) is not this one's.
        reads.forget_cluster(name)
    return cluster.pk


def delete_cluster(name: str) -> bool:
    """Remove a cluster with everything in it."""
    reads.forget_cluster(name)
    deleted, _ = Cluster.objects.filter(name=name).delete()
    return deleted > 0


def cluster_names() -> list[str]:
    return list(Cluster.objects.values_list("name", flat=True))


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


@contextmanager
def _pipelined() -> Iterator[None]:
    """On PostgreSQL, send the enclosed statements without waiting for the answer of each.

    A statement whose result nobody reads (a write's UPDATE, the watch events, the revision) then
    travels with the next one whose result is read, or with the last: a batch of writes takes one
    round trip per statement read rather than per statement. The failure of a statement surfaces
    at the next read or at the end, and fails the whole transaction as any database failure does.
    """
    if connection.vendor != "postgresql":
        yield
        return
    connection.ensure_connection()
    # Errors met when the pipeline ends reach the caller as Django's, as every statement's do.
    with connection.wrap_database_errors, connection.connection.pipeline():
        yield


def _encode(value: Any) -> str:
    """The JSON text of a column's value, encoded once: a write's row and its watch event share it."""
    return dumps(value).decode()


def _labels_param() -> str:
    """The placeholder of the labels column's parameter, given as JSON text (PostgreSQL's column is jsonb)."""
    return "%s::json" if connection.vendor == "postgresql" else "%s"


def _text(value: Any) -> str:
    """A JSON column's value as read by a plain SQL statement, as text."""
    return value if isinstance(value, str) else _encode(value)


def _key_values(key: Key) -> tuple[str, str, str]:
    return key.resource, key.namespace, key.name


# A stored object's row as a write needs it: its resourceVersion, uid and object's JSON text.
Row = tuple[int, str, str]
# The condition naming one object by its key (the unique index), as the writes find their rows.
_KEY_IS = "cluster_id = %s AND resource = %s AND namespace = %s AND name = %s"


@dataclass
class _Logged:
    """A write's watch event with the JSON texts its log row stores."""

    event: Event
    text: str
    previous_text: str | None


class _Writer:
    """Writes inside one locked transaction; each write gets the next revision.

    Writes are the hot path of every hop (a heartbeat, a status, a binding), so they are plain
    SQL statements rather than ORM calls: one statement per object, the transaction's watch
    events inserted together at the end, and the cluster's revision set once. Each object is
    encoded once: its row, its log entry and (decoded from the same text) the event every watcher
    of this process shares.
    """

    def __init__(self, cid: int, revision: int, rows: dict[Key, Row | None] | None = None) -> None:
        self.cid = cid
        self.revision = revision
        # The rows this transaction has read ahead (``_lock_and_read_ahead``) or written, as they stand now
        # (None: not there); the row of any other key is read when a write needs it.
        self.rows: dict[Key, Row | None] = rows or {}
        # The transaction's watch events: inserted at the end, and handed to this process's watch
        # cache after commit so that it need not read back what was just written.
        self.logged: list[_Logged] = []

    @property
    def events(self) -> list[Event]:
        return [logged.event for logged in self.logged]

    def wire_rows(self) -> list[notify.Row]:
        """The transaction's events as they travel to other processes: the JSON texts this one stored."""
        return [(logged.event.revision, logged.event.type, logged.event.resource, logged.event.namespace,
                 logged.event.name, logged.text, logged.previous_text) for logged in self.logged]

    def _next(self) -> int:
        self.revision += 1
        return self.revision

    def _log(self, kind: str, key: Key, text: str, previous_text: str | None = None) -> None:
        event = Event(self.revision, kind, key.resource, key.namespace, key.name, text, previous_text)
        self.logged.append(_Logged(event, text, previous_text))

    def flush(self, cursor: Any, rows: list[notify.Row]) -> None:
        """Append the transaction's watch events (``wire_rows``) to the log."""
        cursor.executemany(
            f"INSERT INTO {sql.table(WatchEvent)}"
            " (cluster_id, revision, type, resource, namespace, name, object, previous)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            [(self.cid, *row) for row in rows],
        )

    def _stamped(self, obj: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """``obj`` at the next revision (the caller's dict is left as it was) and its JSON text."""
        rev = self._next()
        meta = obj.get("metadata")
        stored = {**obj, "metadata": {**(meta if isinstance(meta, dict) else {}), "resourceVersion": str(rev)}}
        return stored, _encode(stored)

    def create(self, key: Key, obj: dict[str, Any]) -> dict[str, Any]:
        # A key read ahead (or written) in this transaction is known to be free or taken: under the
        # cluster's lock nobody else stores it meanwhile, so the insert need not answer whether it did.
        known = key in self.rows
        if known and self.rows[key] is not None:
            raise KeyExists(key)
        obj, text = self._stamped(obj)
        index = _index_columns(obj)
        insert = (
            f"INSERT INTO {sql.table(StoredObject)} (cluster_id, resource, namespace, name, uid, resource_version,"
            f" node_name, phase, labels, data) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, {_labels_param()}, %s)"
        )
        values = [self.cid, *_key_values(key), index["uid"], self.revision, index["node_name"], index["phase"],
                  _encode(index["labels"]), text]  # fmt: skip
        with sql.cursor() as cursor:
            if known:
                cursor.execute(insert, values)
            else:
                # ON CONFLICT rather than catching IntegrityError: on PostgreSQL a failed statement
                # would abort the whole transaction.
                conflict = " ON CONFLICT (cluster_id, resource, namespace, name) DO NOTHING RETURNING 1"
                cursor.execute(insert + conflict, values)
                if cursor.fetchone() is None:
                    self.revision -= 1
                    raise KeyExists(key)
        self.rows[key] = (self.revision, index["uid"], text)
        # The event decodes its own copy from the text just stored: the caller may change ``obj``.
        self._log(WatchEvent.ADDED, key, text)
        return obj

    def _current(self, cursor: Any, key: Key) -> Row:
        """The stored row of ``key``."""
        if key in self.rows:
            row = self.rows[key]
        else:
            cursor.execute(
                f"SELECT resource_version, uid, data FROM {sql.table(StoredObject)} WHERE {_KEY_IS}",
                [self.cid, *_key_values(key)],
            )
            found = cursor.fetchone()
            row = None if found is None else (found[0], found[1], _text(found[2]))
        if row is None:
            raise KeyNotFound(key)
        return row

    def update(self, key: Key, obj: dict[str, Any], expected_rv: int | None = None) -> dict[str, Any]:
        with sql.cursor() as cursor:
            stored_rv, _, previous_text = self._current(cursor, key)
            if expected_rv is not None and stored_rv != expected_rv:
                raise RevisionConflict(key)
            obj, text = self._stamped(obj)
            index = _index_columns(obj)
            cursor.execute(
                f"UPDATE {sql.table(StoredObject)} SET uid = %s, labels = {_labels_param()}, node_name = %s,"
                f" phase = %s, resource_version = %s, data = %s WHERE {_KEY_IS}",
                [index["uid"], _encode(index["labels"]), index["node_name"], index["phase"], self.revision, text,
                 self.cid, *_key_values(key)],  # fmt: skip
            )
        self.rows[key] = (self.revision, index["uid"], text)
        self._log(WatchEvent.MODIFIED, key, text, previous_text)
        return obj

    def delete(self, key: Key, expected_rv: int | None = None, expected_uid: str | None = None) -> dict[str, Any]:
        with sql.cursor() as cursor:
            stored_rv, uid, stored_text = self._current(cursor, key)
            if expected_rv is not None and stored_rv != expected_rv:
                raise RevisionConflict(key)
            if expected_uid is not None and uid != expected_uid:
                raise RevisionConflict(key)
            rev = self._next()
            obj = orjson.loads(stored_text)
            # As in Kubernetes, the DELETED event carries the revision of the deletion.
            obj.setdefault("metadata", {})["resourceVersion"] = str(rev)
            cursor.execute(f"DELETE FROM {sql.table(StoredObject)} WHERE {_KEY_IS}", [self.cid, *_key_values(key)])
        self.rows[key] = None
        self._log(WatchEvent.DELETED, key, _encode(obj))
        return obj


# SQLite has one writer at a time, and a connection that finds the database locked sleeps in its
# busy handler (up to 100 ms a try) even after the lock is free. The writers of this process queue
# here instead and go the moment the previous one commits; other processes still meet the handler.
_sqlite_writers = threading.Lock()


@contextmanager
def exclusive() -> Iterator[None]:
    """Hold this process's turn to write (on SQLite; PostgreSQL locks rows, not the database)."""
    if connection.vendor != "sqlite" or connection.in_atomic_block:
        yield
        return
    with _sqlite_writers:
        yield


def _commit_writers(cursor: Any, writers: list[_Writer], starts: dict[int, int]) -> None:
    """Append each cluster's events, set its revision and wake its watchers after commit."""
    for w in writers:
        start = starts[w.cid]
        if w.revision == start:
            continue
        # The log's rows are also what other processes are sent: built once for both.
        rows = w.wire_rows()
        w.flush(cursor, rows)
        cursor.execute(f"UPDATE {sql.table(Cluster)} SET revision = %s WHERE id = %s", [w.revision, w.cid])
        if w.revision // COMPACT_EVERY != start // COMPACT_EVERY:
            _compact(w.cid, w.revision)
        transaction.on_commit(functools.partial(notify.publish, w.cid, w.revision, w.events, rows))


@dataclass(frozen=True)
class Write:
    """One write of a batch: ``create`` (obj), ``update`` (obj, expected_rv) or ``delete`` (expected_rv, expected_uid)."""

    op: str
    cid: int
    key: Key
    obj: dict[str, Any] | None = None
    expected_rv: int | None = None
    expected_uid: str | None = None


def _lock_and_read_ahead(writes: list[Write]) -> tuple[dict[int, int], dict[int, dict[Key, Row | None]]]:
    """Lock the clusters ``writes`` write to: their revisions and, on PostgreSQL, the rows of every key written.

    The rows are read in one statement, so that no write waits for a read of its own (and a create
    knows whether its key is taken before it inserts). The clusters are locked in id order, so two
    batches never wait for each other. Both statements go down the pipeline (``_pipelined``) together,
    one round trip: the server runs them in order, so the rows are read once the locks are held, and
    they stay as read until this transaction changes them.
    """
    cids = sorted({w.cid for w in writes})
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    wanted = sorted({(w.cid, *_key_values(w.key)) for w in writes}) if connection.vendor == "postgresql" else []
    rows: dict[int, dict[Key, Row | None]] = defaultdict(dict)
    with sql.cursor() as locking, sql.cursor() as reading:
        locking.execute(
            f"SELECT id, revision FROM {sql.table(Cluster)} WHERE id{sql.among(len(cids))} ORDER BY id{lock}",
            sql.id_params(cids),
        )
        if len(wanted) == 1:
            # One key, most batches: plain equalities, which PostgreSQL plans once for the prepared statement.
            reading.execute(
                "SELECT cluster_id, resource, namespace, name, resource_version, uid, data"
                f" FROM {sql.table(StoredObject)} WHERE {_KEY_IS}",
                list(wanted[0]),
            )
        elif wanted:
            # One statement text however many keys (an array per column), so that it is prepared once.
            reading.execute(
                "SELECT cluster_id, resource, namespace, name, resource_version, uid, data"
                " FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[])"
                f" AS k(cluster_id, resource, namespace, name) JOIN {sql.table(StoredObject)}"
                " USING (cluster_id, resource, namespace, name)",
                [list(column) for column in zip(*wanted, strict=True)],
            )
        starts = dict(locking.fetchall())
        if wanted:
            for cid, resource, namespace, name in wanted:
                rows[cid][Key(resource, namespace, name)] = None
            for cid, resource, namespace, name, rv, uid, data in reading.fetchall():
                rows[cid][Key(resource, namespace, name)] = (rv, uid, _text(data))
    return starts, rows


def write_many(writes: list[Write]) -> list[dict[str, Any] | StoreError]:
    """Perform ``writes`` in order in one transaction: each still its own revision and watch event.

    Each write gets its stored object, or the error that refused it alone (KeyExists, KeyNotFound,
    RevisionConflict, ClusterNotFound), which writes nothing; a database failure fails them all.
    """
    results: list[dict[str, Any] | StoreError] = []
    with exclusive(), transaction.atomic(), _pipelined(), sql.cursor() as cursor:
        starts, ahead = _lock_and_read_ahead(writes)
        writers = {cid: _Writer(cid, revision, ahead.get(cid)) for cid, revision in starts.items()}
        for write in writes:
            w = writers.get(write.cid)
            try:
                if w is None:
                    raise reads.cluster_gone(write.cid)
                if write.op == "create":
                    results.append(w.create(write.key, write.obj or {}))
                elif write.op == "update":
                    results.append(w.update(write.key, write.obj or {}, write.expected_rv))
                else:
                    results.append(w.delete(write.key, write.expected_rv, write.expected_uid))
            except (KeyExists, KeyNotFound, RevisionConflict, ClusterNotFound) as refused:
                results.append(refused)
        _commit_writers(cursor, list(writers.values()), starts)
    return results


def _one(write: Write) -> dict[str, Any]:
    result = write_many([write])[0]
    if isinstance(result, StoreError):
        raise result
    return result


def create(cid: int, key: Key, obj: dict[str, Any]) -> dict[str, Any]:
    """Store a new object; KeyExists if the key is taken."""
    return _one(Write("create", cid, key, obj))


def update(cid: int, key: Key, obj: dict[str, Any], expected_rv: int | None = None) -> dict[str, Any]:
    """Replace an object; RevisionConflict when ``expected_rv`` is not the stored revision."""
    return _one(Write("update", cid, key, obj, expected_rv))


def delete(cid: int, key: Key, expected_rv: int | None = None, expected_uid: str | None = None) -> dict[str, Any]:
    """Remove an object and return it as last stored (with the deletion's revision)."""
    return _one(Write("delete", cid, key, None, expected_rv, expected_uid))


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
    """Watch events after ``revision`` in order; Compacted if some were dropped.

    One statement, so that the compaction mark and the events come from one moment of the database.
    """
    with sql.cursor() as cursor:
        # The cluster's row comes once even without events (their columns then NULL).
        cursor.execute(
            f"SELECT c.compacted, e.revision, e.type, e.resource, e.namespace, e.name, e.object, e.previous"
            f" FROM {sql.table(Cluster)} c LEFT JOIN {sql.table(WatchEvent)} e"
            " ON e.cluster_id = c.id AND e.revision > %s"
            " WHERE c.id = %s ORDER BY e.revision LIMIT %s",
            [revision, cid, limit],
        )
        rows = cursor.fetchall()
    if not rows:
        raise Cluster.DoesNotExist(f"no cluster {cid}")
    compacted = rows[0][0]
    if revision < compacted:
        raise Compacted(revision, compacted + 1)
    return [Event(r[1], r[2], r[3], r[4], r[5], _text(r[6]), None if r[7] is None else _text(r[7]))
            for r in rows if r[1] is not None]  # fmt: skip
