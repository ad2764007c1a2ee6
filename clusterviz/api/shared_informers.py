"""One list-watch per cluster and resource for all the pages of a process, as client-go's shared informers.

A class projects the same cluster on many screens. With a list-watch of its own per resource, every
page made each write cost one watch delivery per page and resource (100 pages, 1,900); the pages of a
cluster now share one :class:`~clusterviz.api.informer.Informer` per resource, each adding its
handler, with the informer's own relist and 503 retry. The last page to leave stops it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from clusterviz.store import loops

from .client import Client
from .informer import Handler, Informer


@dataclass
class _Shared:
    informer: Informer
    task: asyncio.Task[None]


# Per event loop: (cluster, plural) -> its shared informer.
_shared: dict[asyncio.AbstractEventLoop, dict[tuple[str, str], _Shared]] = {}


def join(client: Client, plural: str, handler: Handler) -> Informer:
    """The running loop's shared informer of ``plural`` in ``client``'s cluster, with ``handler`` added.

    A handler joining an informer that has listed already is told so at once (``on_sync``), as it
    would be after its own first list.
    """
    table = loops.entry(_shared, dict)
    key = (client.cluster, plural)
    shared = table.get(key)
    if shared is None or shared.task.done():
        informer = Informer(client, plural)
        shared = table[key] = _Shared(informer, asyncio.get_running_loop().create_task(informer.run()))
    shared.informer.add_handler(handler)
    if shared.informer.synced and handler.on_sync:
        handler.on_sync()
    return shared.informer


def leave(informer: Informer, handler: Handler) -> None:
    """Take ``handler`` off ``informer``; the informer stops when no handler is left."""
    table = loops.entry(_shared, dict)
    key = (informer.client.cluster, informer.plural)
    shared = table.get(key)
    if shared is None or shared.informer is not informer:
        return
    informer.remove_handler(handler)
    if not informer.handlers:
        shared.task.cancel()
        del table[key]
