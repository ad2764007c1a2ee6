"""etcd's key-value operations over the Django models.

Writes run in one transaction per batch (``write_many``) that locks the clusters'
rows; each write bumps its cluster's revision, stores the object with
``metadata.resourceVersion`` set to that revision and appends the watch event.
After commit the events go to this process's watchers (``notify.publish``).
All functions here are synchronous; the API server calls them from threads.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import orjson
import psycopg
from django.conf import settings
from django.db import connection, transaction
from django.db.backends.utils import CursorWrapper

from clusterviz.apimachinery.unstructured import dict_or_empty, dumps, str_or_empty

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


def _one_value(sql: str, params: list[Any]) -> Any:
    """The first column of the first row of a plain SQL read (None without a row).

    Every request looks its cluster up, and every watch its revision: plain SQL, as the store's
    other reads, skips the ORM's compiling and DEBUG's query log."""
    with _cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return None if row is None else row[0]


# Every API request names its cluster: the ids looked up lately, by name, with when (time.monotonic).
# A cluster deleted here is forgotten at once; one deleted by another process is found gone by the
# store's reads and writes (ClusterNotFound, which forgets it too) or, at the latest, after this long.
CLUSTER_ID_TTL = 10.0
_cluster_ids: dict[str, tuple[float, int]] = {}


def cluster_id(name: str) -> int:
    """The primary key of the cluster called ``name``."""
    now = time.monotonic()
    known = _cluster_ids.get(name)
    if known is not None and now - known[0] < CLUSTER_ID_TTL:
        return known[1]
    pk = _one_value(f"SELECT id FROM {_table(Cluster)} WHERE name = %s", [name])
    if pk is None:
        raise ClusterNotFound(name)
    _cluster_ids[name] = (now, int(pk))
    return int(pk)


def _cluster_gone(cid: int) -> ClusterNotFound:
    """The error for a cluster id with no cluster (any more), which ``cluster_id`` then forgets."""
    for name, (_, known) in list(_cluster_ids.items()):
        if known == cid:
            _cluster_ids.pop(name, None)
    return ClusterNotFound(str(cid))


def create_cluster(name: str) -> int:
    """Create an empty cluster and return its id (an existing one is returned as is)."""
    cluster, created = Cluster.objects.get_or_create(name=name)
    if created:
        # An id cached for an earlier cluster of that name (a test's flushed database) is not this one's.
        _cluster_ids.pop(name, None)
    return cluster.pk


def delete_cluster(name: str) -> bool:
    """Remove a cluster with everything in it."""
    _cluster_ids.pop(name, None)
    deleted, _ = Cluster.objects.filter(name=name).delete()
    return deleted > 0


def cluster_names() -> list[str]:
    return list(Cluster.objects.values_list("name", flat=True))


def current_revision(cid: int) -> int:
    revision = _one_value(f"SELECT revision FROM {_table(Cluster)} WHERE id = %s", [cid])
    if revision is None:
        raise _cluster_gone(cid)
    return int(revision)


def revisions(cids: list[int]) -> dict[int, int]:
    """The current revision of each cluster, in one read (clusters that are gone are left out)."""
    if not cids:
        return {}
    with _cursor() as cursor:
        cursor.execute(f"SELECT id, revision FROM {_table(Cluster)} WHERE id{_among(len(cids))}", _ids(cids))
        return {int(pk): int(revision) for pk, revision in cursor.fetchall()}


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
    """The stored object, or None (plain SQL: every update and patch reads one first)."""
    with _cursor() as cursor:
        cursor.execute(
            f"SELECT data FROM {_table(StoredObject)}"
            " WHERE cluster_id = %s AND resource = %s AND namespace = %s AND name = %s",
            [cid, key.resource, key.namespace, key.name],
        )
        row = cursor.fetchone()
    return None if row is None else _loads(row[0])


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


def _objects(cid: int, resource: str, where: dict[str, str]) -> list[dict[str, Any]]:
    """One resource's objects whose columns equal ``where``, by namespace and name (plain SQL, orjson)."""
    conditions = "".join(f" AND {column} = %s" for column in where)
    with _cursor() as cursor:
        cursor.execute(
            f"SELECT data FROM {_table(StoredObject)} WHERE cluster_id = %s AND resource = %s{conditions}"
            " ORDER BY namespace, name",
            [cid, resource, *where.values()],
        )
        return [_loads(row[0]) for row in cursor.fetchall()]


def list_objects(
    cid: int,
    resource: str,
    namespace: str | None = None,
    *,
    name: str | None = None,
    node_name: str | None = None,
    phase: str | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """Objects of one resource (optionally one namespace) and the revision they were read at.

    One statement, so that the revision and the objects come from one moment of the database (each
    statement has a snapshot of its own) without a transaction around them: one round trip.
    """
    columns = {"namespace": namespace or None, "name": name, "node_name": node_name, "phase": phase}
    where = {column: value for column, value in columns.items() if value is not None}
    conditions = "".join(f" AND o.{column} = %s" for column in where)
    with _cursor() as cursor:
        # The cluster's row comes once even without objects (its data then NULL).
        cursor.execute(
            f"SELECT c.revision, o.data FROM {_table(Cluster)} c LEFT JOIN {_table(StoredObject)} o"
            f" ON o.cluster_id = c.id AND o.resource = %s{conditions} WHERE c.id = %s ORDER BY o.namespace, o.name",
            [resource, *where.values(), cid],
        )
        rows = cursor.fetchall()
    if not rows:
        raise _cluster_gone(cid)
    return [_loads(data) for _, data in rows if data is not None], int(rows[0][0])


def list_page(
    cid: int,
    resource: str,
    namespace: str | None,
    start: tuple[str, str] | None,
    limit: int,
    *,
    name: str | None = None,
    node_name: str | None = None,
    phase: str | None = None,
) -> tuple[list[dict[str, Any]], int, int]:
    """Up to ``limit`` objects of one resource in key order from the key ``start`` (a ``(namespace, name)``,
    inclusive), the revision they were read at, and how many objects there are from ``start`` on.

    What a page of a big listing costs: the rows it returns, found through the key's index, rather than
    the whole collection. Keys are compared byte by byte (PostgreSQL's "C" collation), the order of
    continue tokens.
    """
    columns = {"namespace": namespace or None, "name": name, "node_name": node_name, "phase": phase}
    where = {column: value for column, value in columns.items() if value is not None}
    conditions = "".join(f" AND {{o}}.{column} = %s" for column in where)
    collate = ' COLLATE "C"' if connection.vendor == "postgresql" else ""
    params: list[Any] = [resource, *where.values()]
    if start is not None:
        condition, bound = _from_key(start, collate)
        conditions += condition
        params += bound
    selected = "{o}.cluster_id = %s AND {o}.resource = %s" + conditions
    with _cursor() as cursor:
        # The cluster's row comes once even without objects (its data then NULL). The count is a statement of
        # its own within this one, which the key's index answers without reading the objects.
        cursor.execute(
            f"SELECT c.revision, o.data, (SELECT count(*) FROM {_table(StoredObject)} n WHERE {selected.format(o='n')})"
            f" FROM {_table(Cluster)} c LEFT JOIN {_table(StoredObject)} o ON {selected.format(o='o')} WHERE c.id = %s"
            f" ORDER BY o.namespace{collate}, o.name{collate} LIMIT %s",
            [cid, *params, cid, *params, cid, limit],
        )
        rows = cursor.fetchall()
    if not rows:
        raise _cluster_gone(cid)
    return [_loads(data) for _, data, _ in rows if data is not None], int(rows[0][0]), int(rows[0][2])


def _from_key(start: tuple[str, str], collate: str) -> tuple[str, list[str]]:
    """The condition (and its parameters) of the keys from ``start`` on.

    A continue token starts just after its last key, at that key with a NUL byte appended, which PostgreSQL
    cannot be sent; no name holds one, so the keys from there on are those after the part before the NUL.
    """
    namespace, name = start
    if "\x00" in namespace:
        return f" AND {{o}}.namespace{collate} > %s", [namespace.partition("\x00")[0]]
    comparison = ">" if "\x00" in name else ">="
    return f" AND ({{o}}.namespace{collate}, {{o}}.name{collate}) {comparison} (%s, %s)", [namespace, name.partition("\x00")[0]]


def objects_in(cid: int, resource: str, namespace: str) -> list[dict[str, Any]]:
    """One namespace's objects of a resource, by name, in a single statement (no revision: admission's look-ups)."""
    return _objects(cid, resource, {"namespace": namespace})


def _encode(value: Any) -> str:
    """The JSON text of a column's value, encoded once: a write's row and its watch event share it."""
    return dumps(value).decode()


def _json_param() -> str:
    """The placeholder of a document column's parameter given as text (PostgreSQL checks it as json)."""
    return "%s::json" if connection.vendor == "postgresql" else "%s"


def _loads(value: Any) -> Any:
    """A JSON column's value as read by a plain SQL statement (a string on SQLite and, as Django reads it,
    on PostgreSQL), decoded."""
    return orjson.loads(value) if isinstance(value, (str, bytes)) else value


def _text(value: Any) -> str:
    """A JSON column's value as read by a plain SQL statement, as text."""
    return value if isinstance(value, str) else _encode(value)


def _table(model: type[Any]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _key_values(key: Key) -> tuple[str, str, str]:
    return key.resource, key.namespace, key.name


def _among(count: int) -> str:
    """The condition that a column is one of ``count`` ids (given by ``_ids``).

    On PostgreSQL one array parameter, so that the statement's text is the same however many ids there
    are and the connection prepares it once; on SQLite a list of placeholders.
    """
    if connection.vendor == "postgresql":
        return " = ANY(%s::bigint[])"
    return f" IN ({', '.join(['%s'] * count)})"


def _ids(ids: list[int]) -> list[Any]:
    """The parameters of ``_among``'s condition for ``ids``."""
    return [list(ids)] if connection.vendor == "postgresql" else list(ids)


def _cursor() -> Any:
    """A cursor for the store's own statements, which keeps no query log.

    With DEBUG on, Django's cursor copies every statement into the connection's log of the last 9,000
    with its parameters inlined, asking SQLite to quote each one: for writes, whose parameters are
    whole objects, that was a fifth of a write's time, and hundreds of MB held by the writer thread.
    A caller that asked for the log (``force_debug_cursor``, as a test's query count does) still gets it.

    On PostgreSQL the parameters travel apart from the statement (server-side binding), where Django's
    cursor would quote each object's JSON into the SQL text for the server to lex again; the statements
    are few and fixed, so the connection prepares them once it has seen them a few times (the
    ``prepare_threshold`` of the settings): no parsing or planning per write.
    """
    if connection.force_debug_cursor:
        return connection.cursor()
    connection.ensure_connection()
    if connection.vendor == "postgresql":
        return CursorWrapper(psycopg.Cursor(connection.connection), connection)
    return CursorWrapper(connection.create_cursor(), connection)


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
        # The rows this transaction has read ahead (``_read_ahead``) or written, as they stand now
        # (None: not there); the row of any other key is read when a write needs it.
        self.rows: dict[Key, Row | None] = rows or {}
        # The transaction's watch events: inserted at the end, and handed to this process's watch
        # cache after commit so that it need not read back what was just written.
        self.logged: list[_Logged] = []

    @property
    def events(self) -> list[Event]:
        return [logged.event for logged in self.logged]

    def _next(self) -> int:
        self.revision += 1
        return self.revision

    def _log(self, kind: str, key: Key, text: str, previous_text: str | None = None) -> None:
        event = Event(self.revision, kind, key.resource, key.namespace, key.name, text, previous_text)
        self.logged.append(_Logged(event, text, previous_text))

    def flush(self, cursor: Any) -> None:
        """Append the transaction's watch events to the log."""
        param = _json_param()
        cursor.executemany(
            f"INSERT INTO {_table(WatchEvent)} (cluster_id, revision, type, resource, namespace, name, object, previous)"
            f" VALUES (%s, %s, %s, %s, %s, %s, {param}, {param})",
            [(self.cid, logged.event.revision, logged.event.type, logged.event.resource, logged.event.namespace,
              logged.event.name, logged.text, logged.previous_text) for logged in self.logged],
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
        param = _json_param()
        insert = (
            f"INSERT INTO {_table(StoredObject)} (cluster_id, resource, namespace, name, uid, resource_version,"
            f" node_name, phase, labels, data) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, {param}, {param})"
        )
        values = [self.cid, *_key_values(key), index["uid"], self.revision, index["node_name"], index["phase"],
                  _encode(index["labels"]), text]  # fmt: skip
        with _cursor() as cursor:
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
                f"SELECT resource_version, uid, data FROM {_table(StoredObject)} WHERE {_KEY_IS}",
                [self.cid, *_key_values(key)],
            )
            found = cursor.fetchone()
            row = None if found is None else (found[0], found[1], _text(found[2]))
        if row is None:
            raise KeyNotFound(key)
        return row

    def update(self, key: Key, obj: dict[str, Any], expected_rv: int | None = None) -> dict[str, Any]:
        with _cursor() as cursor:
            stored_rv, _, previous_text = self._current(cursor, key)
            if expected_rv is not None and stored_rv != expected_rv:
                raise RevisionConflict(key)
            obj, text = self._stamped(obj)
            index = _index_columns(obj)
            param = _json_param()
            cursor.execute(
                f"UPDATE {_table(StoredObject)} SET uid = %s, labels = {param}, node_name = %s, phase = %s,"
                f" resource_version = %s, data = {param} WHERE {_KEY_IS}",
                [index["uid"], _encode(index["labels"]), index["node_name"], index["phase"], self.revision, text,
                 self.cid, *_key_values(key)],  # fmt: skip
            )
        self.rows[key] = (self.revision, index["uid"], text)
        self._log(WatchEvent.MODIFIED, key, text, previous_text)
        return obj

    def delete(self, key: Key, expected_rv: int | None = None, expected_uid: str | None = None) -> dict[str, Any]:
        with _cursor() as cursor:
            stored_rv, uid, stored_text = self._current(cursor, key)
            if expected_rv is not None and stored_rv != expected_rv:
                raise RevisionConflict(key)
            if expected_uid is not None and uid != expected_uid:
                raise RevisionConflict(key)
            rev = self._next()
            obj = orjson.loads(stored_text)
            # As in Kubernetes, the DELETED event carries the revision of the deletion.
            obj.setdefault("metadata", {})["resourceVersion"] = str(rev)
            cursor.execute(f"DELETE FROM {_table(StoredObject)} WHERE {_KEY_IS}", [self.cid, *_key_values(key)])
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
        w.flush(cursor)
        cursor.execute(f"UPDATE {_table(Cluster)} SET revision = %s WHERE id = %s", [w.revision, w.cid])
        if w.revision // COMPACT_EVERY != start // COMPACT_EVERY:
            _compact(w.cid, w.revision)
        transaction.on_commit(functools.partial(notify.publish, w.cid, w.revision, w.events))


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
    with _cursor() as locking, _cursor() as reading:
        locking.execute(
            f"SELECT id, revision FROM {_table(Cluster)} WHERE id{_among(len(cids))} ORDER BY id{lock}", _ids(cids)
        )
        if wanted:
            # One statement text however many keys (an array per column), so that it is prepared once.
            reading.execute(
                "SELECT cluster_id, resource, namespace, name, resource_version, uid, data"
                " FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[])"
                f" AS k(cluster_id, resource, namespace, name) JOIN {_table(StoredObject)}"
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
    with exclusive(), transaction.atomic(), _pipelined(), _cursor() as cursor:
        starts, ahead = _lock_and_read_ahead(writes)
        writers = {cid: _Writer(cid, revision, ahead.get(cid)) for cid, revision in starts.items()}
        for write in writes:
            w = writers.get(write.cid)
            try:
                if w is None:
                    raise _cluster_gone(write.cid)
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
    with _cursor() as cursor:
        # The cluster's row comes once even without events (their columns then NULL).
        cursor.execute(
            f"SELECT c.compacted, e.revision, e.type, e.resource, e.namespace, e.name, e.object, e.previous"
            f" FROM {_table(Cluster)} c LEFT JOIN {_table(WatchEvent)} e ON e.cluster_id = c.id AND e.revision > %s"
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
