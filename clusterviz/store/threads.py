"""Running the synchronous store from async code: its worker threads and their database connections.

Every async caller (the API server, the simulation) runs store functions through ``in_thread``,
so three rules hold everywhere:

- Bounded pools of threads, shared by every event loop of the process: ``THREADS`` for reads and
  one for writes. Each thread keeps its own connection, so a process holds at most ``THREADS`` + 1
  connections however many event loops come and go (a fresh default executor per loop would open
  new ones each time and leave the old ones for the garbage collector).
- A connection that failed is closed, so the thread's next call connects again instead of
  failing on a dead socket for ever (Django only does this at request boundaries, which these
  threads never see).
- A database that cannot be reached raises ``kv.StoreUnavailable``; the API server answers it
  with 503 ServiceUnavailable and Retry-After. Writes are single transactions, so a failure
  leaves nothing half-written.
- The process remembers whether its last store call found the database gone (``unreachable``)
  and tells those who asked (``on_loss``): a request waiting for the simulation, which cannot
  go on without the database, then fails at once instead of waiting for it.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import contextmanager

from django.db import DEFAULT_DB_ALIAS, DatabaseError, InterfaceError, OperationalError, connections

from .kv import StoreUnavailable

log = logging.getLogger(__name__)

# Enough for the API server's concurrent requests and an engine's components on two cores;
# PostgreSQL's default of 100 connections leaves room for several processes.
THREADS = 8

_executor = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="store")
# Writes have a thread of their own, so that reads never queue behind writes waiting for their
# turn. One is enough: the writes of an event loop are committed in batches, one at a time
# (``batch``), and SQLite has one writer at a time anyway.
_writer_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="store-writer")


def _discard_connection() -> None:
    """Drop this thread's failed connection so that its next query connects afresh."""
    connection = connections[DEFAULT_DB_ALIAS]
    try:
        connection.close()
    except DatabaseError:
        # Closing a connection whose server end is gone can fail; the socket is released either way.
        connection.connection = None


# The failure of this process's last store call if it found the database gone; None once one succeeded.
_unreachable: StoreUnavailable | None = None
# Who wants to hear of such a failure at once: each in its own event loop.
_loss_listeners: set[tuple[asyncio.AbstractEventLoop, Callable[[StoreUnavailable], None]]] = set()


def unreachable() -> StoreUnavailable | None:
    """Why the database could not be reached, if the store's last call in this process could not; else None."""
    return _unreachable


@contextmanager
def on_loss(callback: Callable[[StoreUnavailable], None]) -> Iterator[None]:
    """Within the block, call ``callback`` in the caller's event loop whenever a store call finds the database gone."""
    listener = (asyncio.get_running_loop(), callback)
    _loss_listeners.add(listener)
    try:
        yield
    finally:
        _loss_listeners.discard(listener)


def _lost(failure: StoreUnavailable) -> None:
    global _unreachable
    _unreachable = failure
    for loop, callback in list(_loss_listeners):
        # A closed loop's listener is on its way out with it.
        if not loop.is_closed():
            loop.call_soon_threadsafe(callback, failure)


def _guarded[**P, R](fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` with a lost or unreachable database turned into ``StoreUnavailable`` (for any thread)."""

    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        global _unreachable
        try:
            result = fn(*args, **kwargs)
        except (OperationalError, InterfaceError) as exc:
            _discard_connection()
            log.warning("database unavailable in %s: %s", getattr(fn, "__qualname__", fn), exc)
            failure = StoreUnavailable(str(exc).strip() or type(exc).__name__)
            _lost(failure)
            raise failure from exc
        _unreachable = None
        return result

    return call


def _run_in[**P, R](executor: Executor, fn: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """``fn`` as a coroutine function that runs it in ``executor`` with the caller's context variables.

    Every store call of every hop goes through here, so it is the event loop's own ``run_in_executor``
    rather than asgiref's ``sync_to_async``, whose bookkeeping (thread-sensitive mode, copying the
    context back) the store has no use for and which costs more than a small read does.
    """
    guarded = _guarded(fn)

    @functools.wraps(fn)
    async def call(*args: P.args, **kwargs: P.kwargs) -> R:
        run = functools.partial(contextvars.copy_context().run, guarded, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(executor, run)

    return call


def in_thread[**P, R](fn: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """Run the synchronous ``fn`` in the store's thread pool (see the module docstring)."""
    return _run_in(_executor, fn)


def in_writer_thread[**P, R](fn: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """Run the synchronous write ``fn`` in the store's writer thread."""
    return _run_in(_writer_executor, fn)
