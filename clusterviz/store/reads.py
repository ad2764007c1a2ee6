"""The store's reads: a cluster's id and revision, and its objects, in plain SQL statements.

``kv`` makes them its own (``kv.get``, ``kv.list_objects``, ...), beside the writes.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from django.db import connection

from . import sql
from .errors import ClusterNotFound
from .models import Cluster, StoredObject

if TYPE_CHECKING:
    from .kv import Key


def _one_value(statement: str, params: list[Any]) -> Any:
    """The first column of the first row of a plain SQL read (None without a row).

    Every request looks its cluster up, and every watch its revision: plain SQL, as the store's
    other reads, skips the ORM's compiling and DEBUG's query log."""
    with sql.cursor() as cursor:
        cursor.execute(statement, params)
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
    pk = _one_value(f"SELECT id FROM {sql.table(Cluster)} WHERE name = %s", [name])
    if pk is None:
        raise ClusterNotFound(name)
    _cluster_ids[name] = (now, int(pk))
    return int(pk)


def cluster_gone(cid: int) -> ClusterNotFound:
    """The error for a cluster id with no cluster (any more), which ``cluster_id`` then forgets."""
    for name, (_, known) in list(_cluster_ids.items()):
        if known == cid:
            _cluster_ids.pop(name, None)
    return ClusterNotFound(str(cid))


def forget_cluster(name: str) -> None:
    """Look ``name``'s id up afresh next time (its cluster was just created or deleted)."""
    _cluster_ids.pop(name, None)


def current_revision(cid: int) -> int:
    revision = _one_value(f"SELECT revision FROM {sql.table(Cluster)} WHERE id = %s", [cid])
    if revision is None:
        raise cluster_gone(cid)
    return int(revision)


def revisions(cids: list[int]) -> dict[int, int]:
    """The current revision of each cluster, in one read (clusters that are gone are left out)."""
    if not cids:
        return {}
    with sql.cursor() as cursor:
        cursor.execute(
            f"SELECT id, revision FROM {sql.table(Cluster)} WHERE id{sql.among(len(cids))}", sql.id_params(cids)
        )
        return {int(pk): int(revision) for pk, revision in cursor.fetchall()}


def get(cid: int, key: Key) -> dict[str, Any] | None:
    """The stored object, or None (plain SQL: every update and patch reads one first)."""
    with sql.cursor() as cursor:
        cursor.execute(
            f"SELECT data FROM {sql.table(StoredObject)}"
            " WHERE cluster_id = %s AND resource = %s AND namespace = %s AND name = %s",
            [cid, key.resource, key.namespace, key.name],
        )
        row = cursor.fetchone()
    return None if row is None else sql.loads(row[0])


def _objects(cid: int, resource: str, where: dict[str, str]) -> list[dict[str, Any]]:
    """One resource's objects whose columns equal ``where``, by namespace and name (plain SQL, orjson)."""
    conditions = "".join(f" AND {column} = %s" for column in where)
    with sql.cursor() as cursor:
        cursor.execute(
            f"SELECT data FROM {sql.table(StoredObject)} WHERE cluster_id = %s AND resource = %s{conditions}"
            " ORDER BY namespace, name",
            [cid, resource, *where.values()],
        )
        return [sql.loads(row[0]) for row in cursor.fetchall()]


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
    with sql.cursor() as cursor:
        # The cluster's row comes once even without objects (its data then NULL).
        cursor.execute(
            f"SELECT c.revision, o.data FROM {sql.table(Cluster)} c LEFT JOIN {sql.table(StoredObject)} o"
            f" ON o.cluster_id = c.id AND o.resource = %s{conditions} WHERE c.id = %s ORDER BY o.namespace, o.name",
            [resource, *where.values(), cid],
        )
        rows = cursor.fetchall()
    if not rows:
        raise cluster_gone(cid)
    return [sql.loads(data) for _, data in rows if data is not None], int(rows[0][0])


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
    with sql.cursor() as cursor:
        # The cluster's row comes once even without objects (its data then NULL). The count is a statement of
        # its own within this one, which the key's index answers without reading the objects.
        cursor.execute(
            f"SELECT c.revision, o.data,"
            f" (SELECT count(*) FROM {sql.table(StoredObject)} n WHERE {selected.format(o='n')})"
            f" FROM {sql.table(Cluster)} c LEFT JOIN {sql.table(StoredObject)} o ON {selected.format(o='o')}"
            " WHERE c.id = %s"
            f" ORDER BY o.namespace{collate}, o.name{collate} LIMIT %s",
            [cid, *params, cid, *params, cid, limit],
        )
        rows = cursor.fetchall()
    if not rows:
        raise cluster_gone(cid)
    return [sql.loads(data) for _, data, _ in rows if data is not None], int(rows[0][0]), int(rows[0][2])


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
