"""Where the simulation hooks into the API server, without the API server knowing it.

The real kube-apiserver answers at network speed; in clusterviz every hop of
a write (client -> apiserver -> etcd -> apiserver) is a message on the
cluster's bus, delivered when the simulation says so. The simulation installs
a ``GateProvider``; with none installed (or no engine for a cluster) requests
pass straight through.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Any, Protocol

from clusterviz.store import kv

from .request import ApiRequest, ApiResponse, ResourcePath

# How a watch sees a stored event: the event type the watcher gets (ADDED, MODIFIED, DELETED), or ""
# when the event is not for it (its selectors). Given the event itself, so that the object before a
# change is decoded only for a watch whose selectors ask about it.
Classify = Callable[[kv.Event], str]

# As kube-apiserver's watch cache does with its trigger functions (a Pod's by spec.nodeName), a watch that
# selects one value of its resource's field here is offered only the events whose object has that value,
# or had it before the change; every other event would be classified "" for it anyway.
TRIGGER_FIELDS = {"pods": "spec.nodeName"}


class Gate(Protocol):
    """A cluster's simulation, as the API server sees it."""

    cid: int  # the cluster's id in the store

    def wall(self) -> datetime:
        """The cluster's simulated time as a timestamp."""

    def request(self, req: ApiRequest, rp: ResourcePath, verb: str) -> AbstractAsyncContextManager[None]:
        """Hold a write while its request hop travels, and count it as running work."""

    async def write(
        self,
        req: ApiRequest,
        rp: ResourcePath,
        verb: str,
        name: str,
        perform: Callable[[], Awaitable[dict[str, Any]]],
    ) -> dict[str, Any]:
        """Perform a store write between its apiserver -> etcd and etcd -> apiserver hops."""

    async def watch(
        self,
        req: ApiRequest,
        rp: ResourcePath,
        start: int,
        classify: Classify,
        trigger: str | None,
    ) -> AsyncIterator[dict[str, Any]] | None:
        """A simulated component's watch, delivered over the bus; None for ordinary watchers.

        ``trigger`` is the value of the resource's ``TRIGGER_FIELDS`` field the watch selects, if it does.
        """


GateProvider = Callable[[str], Awaitable[Gate | None]]
# Sends a write to the process that runs its cluster's simulation; None when there is none to send to.
Forwarder = Callable[[ApiRequest], Awaitable[ApiResponse | None]]

_provider: GateProvider | None = None
_forwarder: Forwarder | None = None


def install(provider: GateProvider | None) -> None:
    """Let the simulation gate requests (None removes it)."""
    global _provider
    _provider = provider


def install_forwarder(forwarder: Forwarder | None) -> None:
    """Let the simulation send writes to the process that runs their cluster (None removes it)."""
    global _forwarder
    _forwarder = forwarder


async def forward(req: ApiRequest) -> ApiResponse | None:
    """The answer of the process that simulates ``req``'s cluster, or None to serve the request here."""
    if _forwarder is None:
        return None
    return await _forwarder(req)


async def for_cluster(cluster: str) -> Gate | None:
    """The gate of ``cluster``, if a simulation runs it in this process."""
    if _provider is None:
        return None
    return await _provider(cluster)
