"""A database outage met anywhere in a request answers 503 with Retry-After, never 500.

The API server turns the store's ``StoreUnavailable`` into a Status itself (``server.dispatch``);
this covers what runs before it or beside it (sessions, authentication, the classroom's access
checks, pages), whose database errors Django would answer with a 500. Django turns each
middleware's exception into a response on the spot, so the exception is noted on the request as
Django reports it (``got_request_exception``) and the outermost middleware swaps that 500 for a 503.
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.signals import got_request_exception
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse

from clusterviz.middleware import AsyncMiddleware
from clusterviz.store.kv import StoreUnavailable

from . import errors
from .server import error_response
from .views import to_http

OUTAGES = (OperationalError, InterfaceError, StoreUnavailable)
_NOTE = "clusterviz_database_unavailable"


def note_outage(sender: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
    """``got_request_exception`` receiver: remember that this request failed for want of a database."""
    if request is not None and isinstance(sys.exc_info()[1], OUTAGES):
        setattr(request, _NOTE, True)


got_request_exception.connect(note_outage, dispatch_uid="clusterviz-database-outage")


class DatabaseOutageMiddleware(AsyncMiddleware):
    """Outermost: a request that failed because the database was away gets 503, not 500."""

    async def __call__(self, request: HttpRequest) -> Any:
        response = await self.get_response(request)
        if response.status_code != 500 or not getattr(request, _NOTE, False):
            return response
        failure = errors.store_unavailable()
        if "text/html" in request.headers.get("Accept", ""):
            replacement = HttpResponse(failure.message, status=503, content_type="text/plain; charset=utf-8")
            replacement["Retry-After"] = str(failure.retry_after)
            return replacement
        return to_http(error_response(failure))
