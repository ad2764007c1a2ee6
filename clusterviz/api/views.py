"""The HTTP adapter: Django requests in, API server replies out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt

from clusterviz.apimachinery.unstructured import dumps

from . import discovery, errors
from .request import ApiRequest, ApiResponse
from .server import dispatch, error_response

# Who an HTTP caller is when no access check named them (the open embedded default).
ANONYMOUS_ACCESS = ("system:anonymous", ("system:unauthenticated",), "write")


def client_name(user_agent: str) -> str:
    """How the flow diagram names an HTTP caller."""
    return "kubectl" if user_agent.startswith("kubectl") else "client"


@csrf_exempt
async def api(request: HttpRequest, cluster: str, path: str = "") -> HttpResponse | StreamingHttpResponse:
    """Every /c/<cluster>/... API path."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    try:
        body = request.body
    except RequestDataTooBig:
        return to_http(error_response(errors.too_large(limit)))
    if limit is not None and len(body) > limit:
        return to_http(error_response(errors.too_large(limit)))
    req = ApiRequest(
        cluster=cluster,
        method=request.method or "GET",
        path="/" + path,
        query=request.GET.dict(),
        body=body,
        content_type=request.headers.get("Content-Type", ""),
        accept=request.headers.get("Accept", ""),
        if_none_match=request.headers.get("If-None-Match", ""),
        client=client_name(request.headers.get("User-Agent", "")),
        user_agent=request.headers.get("User-Agent", ""),
        host=request.get_host(),
        reads_only=True,
    )
    req.user, req.groups, req.granted = getattr(request, "clusterviz_access", ANONYMOUS_ACCESS)
    return to_http(await dispatch(req))


async def unprefixed(request: HttpRequest, path: str) -> HttpResponse | StreamingHttpResponse:
    """/version and the health checks at the site's root, which no cluster changes.

    ``kubectl --server http://host/c/<cluster> get --raw /version`` asks the host's root: kubectl's
    raw requests drop the server URL's path.
    """
    if path == "version":
        return to_http(ApiResponse(200, discovery.VERSION_INFO))
    return to_http(ApiResponse(200, "ok", content_type="text/plain"))


def encode(body: Any) -> bytes:
    """A response body's JSON."""
    return dumps(body)


async def _frames(events: AsyncIterator[dict[str, Any]]) -> AsyncIterator[bytes]:
    # An empty first chunk sends the status line and headers at once, as the real server flushes them:
    # a client must be able to close a watch on a quiet resource before its first event.
    yield b""
    # One JSON document per line: the Python client splits the stream on newlines.
    async for event in events:
        yield encode(event) + b"\n"


async def _flushed(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    yield b""  # the status line and headers at once, as for a watch
    async for chunk in chunks:
        yield chunk


def to_http(resp: ApiResponse) -> HttpResponse | StreamingHttpResponse:
    if resp.stream is not None:
        out: HttpResponse | StreamingHttpResponse = StreamingHttpResponse(
            _frames(resp.stream), status=resp.status, content_type="application/json"
        )
        out["Cache-Control"] = "no-cache, private"
        out["X-Accel-Buffering"] = "no"
    elif resp.chunks is not None:
        out = StreamingHttpResponse(_flushed(resp.chunks), status=resp.status, content_type=resp.content_type)
        out["X-Accel-Buffering"] = "no"
    elif resp.content_type == "application/json" and not isinstance(resp.body, bytes):
        # The real server's JSON encoder ends every document with a newline.
        out = HttpResponse(encode(resp.body) + b"\n", status=resp.status, content_type="application/json")
    else:
        out = HttpResponse(resp.body, status=resp.status, content_type=resp.content_type)
    for name, value in resp.headers.items():
        out[name] = value
    if resp.status == 304:
        del out["Content-Type"]  # a 304 has no body to describe, as Go's http.ServeContent answers
    return out
