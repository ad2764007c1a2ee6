"""Django's ASGI handler, with the cluster API's requests spared a thread of their own each."""

from __future__ import annotations

from typing import Any

from django.core.handlers.asgi import ASGIHandler

from clusterviz.classroom.middleware import is_cluster_api


class HttpHandler(ASGIHandler):
    """Every HTTP request, as Django's handler serves it; a cluster API request outside a per-request thread.

    Django's handler gives each request a thread-sensitive context: the first synchronous call the
    request makes (its ``request_started`` receivers, at the least) starts a thread for that request,
    and a second thread joins it at the end. That is most of what a small API request costs when a
    class applies at once. An API request's synchronous calls are Django's signal receivers and the
    access check's small queries, so it runs them on asgiref's one shared thread instead, as code
    outside any request does. Pages keep their own threads: their session and form work can be slow.
    """

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Serve one HTTP request."""
        if is_cluster_api(scope["path"]):
            await self.handle(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)
