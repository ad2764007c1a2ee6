"""What the store's plain SQL statements share, its reads (``reads``) and writes (``kv``) alike."""

from __future__ import annotations

from typing import Any

import orjson
import psycopg
from django.db import connection
from django.db.backends.utils import CursorWrapper


def among(count: int) -> str:
    """The condition that a column is one of ``count`` ids (given by ``id_params``).

    One id, the common case, is a plain equality, whose prepared statement PostgreSQL plans once.
    Several are one array parameter on PostgreSQL, so that the statement's text is the same however
    many ids there are and the connection prepares it once (though PostgreSQL plans it again on each
    use, the array's length changing its estimates); on SQLite a list of placeholders.
    """
    if count == 1:
        return " = %s"
    if connection.vendor == "postgresql":
        return " = ANY(%s::bigint[])"
    return f" IN ({', '.join(['%s'] * count)})"


def id_params(ids: list[int]) -> list[Any]:
    """The parameters of ``among``'s condition for ``ids``."""
    return [list(ids)] if connection.vendor == "postgresql" and len(ids) != 1 else list(ids)


def cursor() -> Any:
    """A cursor for the store's own statements, which keeps no query log.

    With DEBUG on, Django's cursor copies every statement into the connection's log of the last 9,000
    with its parameters inlined, asking SQLite to quote each one: for writes, whose parameters are
    whole objects, that was a fifth of a write's time, and hundreds of MB held by the writer thread.
    A caller that asked for the log (``force_debug_cursor``, as a test's query count does) still gets it.

    On PostgreSQL the parameters travel apart from the statement (server-side binding), where Django's
    cursor would quote each object's JSON into the SQL text for the server to lex again; the statements
    are few and fixed, so the connection prepares them once it has seen them a few times (the
    ``prepare_threshold`` of the settings): no parsing per write, and no planning for those without
    an array parameter (see ``among``).
    """
    if connection.force_debug_cursor:
        return connection.cursor()
    connection.ensure_connection()
    if connection.vendor == "postgresql":
        return CursorWrapper(psycopg.Cursor(connection.connection), connection)
    return CursorWrapper(connection.create_cursor(), connection)


def table(model: type[Any]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def loads(value: Any) -> Any:
    """A JSON column's value as read by a plain SQL statement (a string on SQLite and, as Django reads it,
    on PostgreSQL), decoded."""
    return orjson.loads(value) if isinstance(value, (str, bytes)) else value
