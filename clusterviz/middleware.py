"""The base of the project's HTTP middleware."""

from __future__ import annotations

from typing import Any

from asgiref.sync import markcoroutinefunction
from django.http import HttpRequest


class AsyncMiddleware:
    """Async only: Daphne serves every request on its event loop, and Django awaits this directly."""

    sync_capable = False
    async_capable = True

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response
        # Tells Django the instance is a coroutine function, so it is awaited rather than run in a thread.
        markcoroutinefunction(self)

    async def __call__(self, request: HttpRequest) -> Any:
        """Answer ``request``, or pass it on to ``get_response``: each middleware says which."""
        raise NotImplementedError
