"""The base of the project's HTTP middleware."""

from __future__ import annotations

from typing import Any

from asgiref.sync import markcoroutinefunction, sync_to_async
from django.http import HttpRequest
from whitenoise.middleware import WhiteNoiseMiddleware


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


class StaticFilesMiddleware(AsyncMiddleware):
    """WhiteNoise's static files, asked for only on a static path.

    WhiteNoise's middleware is synchronous: in the chain, it would send every request (kubectl's
    included) through a thread and back. Here a static path is looked up in WhiteNoise's table and
    served from a thread, and every other request goes straight on.
    """

    def __init__(self, get_response: Any) -> None:
        super().__init__(get_response)
        self.whitenoise = WhiteNoiseMiddleware(get_response=None)

    async def __call__(self, request: HttpRequest) -> Any:
        """Serve a static file, or pass the request on."""
        if not request.path_info.startswith(self.whitenoise.static_prefix):
            return await self.get_response(request)
        if self.whitenoise.autorefresh:
            static_file = await sync_to_async(self.whitenoise.find_file, thread_sensitive=False)(request.path_info)
        else:
            static_file = self.whitenoise.files.get(request.path_info)
        if static_file is None:
            return await self.get_response(request)
        return await sync_to_async(self.whitenoise.serve, thread_sensitive=False)(static_file, request)
