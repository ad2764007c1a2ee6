"""Resources served by code rather than the store (the simulation's own controls and trace)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from .request import ApiRequest, ApiResponse, ResourcePath
from .resources import Resource

Handler = Callable[[ApiRequest, ResourcePath], Awaitable[ApiResponse]]

_handlers: dict[str, Handler] = {}


def register(resource: Resource, handler: Handler) -> None:
    """Serve every verb on ``resource`` with ``handler``."""
    _handlers[resource.key] = handler


def handler_for(resource: Resource) -> Handler | None:
    return _handlers.get(resource.key)
