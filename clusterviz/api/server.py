"""The API server's front door: route a request to discovery or a verb, turn failures into Status.

``dispatch`` is the one code path for kubectl, the Python client, the
browser and the simulated components.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from clusterviz.store import kv

from . import (
    binding,
    clock,
    customresources,
    deletion,
    discovery,
    errors,
    eviction,
    field_validation,
    gate,
    handlers,
    listing,
    logs,
    openapi,
    reviews,
    streams,
    virtual,
)
from .request import ApiRequest, ApiResponse, ResourcePath, parse_resource_path
from .resources import Resource
from .tokens import request_token
from .watch import watch

log = logging.getLogger(__name__)

ROOT_PATHS = ["/api", "/api/v1", "/apis", "/healthz", "/livez", "/openapi/v2", "/openapi/v3", "/readyz", "/version"]


async def dispatch(req: ApiRequest) -> ApiResponse:
    """Answer one API request; never raises."""
    try:
        resp = await _route(req)
        resp.headers.update(field_validation.warning_header(req))
        return resp
    except errors.StatusError as exc:
        return error_response(exc)
    except kv.ClusterNotFound:
        return error_response(errors.StatusError(404, "NotFound", f'cluster "{req.cluster}" not found'))
    except kv.StoreUnavailable:
        # A write is one transaction, so a failed one stored nothing; the client may simply retry.
        return error_response(errors.store_unavailable())
    except Exception as exc:  # noqa: BLE001 - a bug must still answer as a Status, never a traceback page
        log.exception("internal error serving %s %s", req.method, req.path)
        return error_response(errors.internal(type(exc).__name__))


def error_response(exc: errors.StatusError) -> ApiResponse:
    headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else {}
    return ApiResponse(exc.code, exc.status(), headers=headers)


async def _route(req: ApiRequest) -> ApiResponse:
    parts = [p for p in req.path.split("/") if p] if req.path.strip("/") else []
    if req.method not in ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"):
        raise errors.StatusError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")
    if not parts or parts[0] in ("version", "healthz", "livez", "readyz", "openapi") or parts in (["api"], ["apis"]) \
            or (parts[0] == "api" and len(parts) == 2) or (parts[0] == "apis" and len(parts) in (2, 3)):
        if req.method not in ("GET", "HEAD"):
            raise errors.StatusError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")
        cid = await handlers.cluster_of(req)
        # Only the group lists and the OpenAPI documents change with the cluster's own definitions.
        custom = await customresources.served(cid) if parts[:1] in (["apis"], ["openapi"]) else []
        return _discovery(req, parts, custom)
    if parts[0] == "api" and len(parts) >= 3:
        group, version, rest = "", parts[1], parts[2:]
    elif parts[0] == "apis" and len(parts) >= 4:
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        raise errors.not_found_path()
    try:
        rp = parse_resource_path(group, version, rest)
    except errors.StatusError:
        if not group:
            raise
        rp = parse_resource_path(group, version, rest, await customresources.served(await handlers.cluster_of(req)))
    if reviews.handles(rp):
        return await reviews.review(req, rp)  # answered here, never a write
    if rp.sub in streams.SUBRESOURCES and rp.name:
        # Never a write, never gated: there is only a Status to answer.
        if req.method not in ("GET", "POST"):
            raise errors.method_not_allowed(req.method.lower(), f"{rp.resource.plural}/{rp.sub}", "")
        pod = ResourcePath(rp.resource, rp.namespace, rp.name, "")
        raise await streams.refusal(handlers.get(req, pod), rp.name, rp.sub)
    served_by = virtual.handler_for(rp.resource)
    if served_by is not None:
        # The simulator's own controls are never held up by the simulation, but are made where it runs.
        await handlers.cluster_of(req)
        if req.method not in ("GET", "HEAD") and await gate.for_cluster(req.cluster) is None:
            forwarded = await gate.forward(req)
            if forwarded is not None:
                return forwarded
        return await served_by(req, rp)
    req.gate = await gate.for_cluster(req.cluster) if req.simulated else None
    if req.gate is None:
        if req.simulated and req.method not in ("GET", "HEAD"):
            # Another process simulates this cluster: the write becomes hops there, as it would here.
            forwarded = await gate.forward(req)
            if forwarded is not None:
                return forwarded
        return await _verb(req, rp)
    with clock.using(req.gate.wall):
        if req.method in ("GET", "HEAD"):
            return await _verb(req, rp)
        verb = {"POST": "bind" if rp.sub == "binding" else "create", "PUT": "update", "PATCH": "patch"}.get(
            req.method, "delete"
        )
        async with req.gate.request(req, rp, verb):
            return await _verb(req, rp)


def _discovery(req: ApiRequest, parts: list[str], custom: list[Resource]) -> ApiResponse:
    body: dict[str, Any] | None = None
    if not parts:
        body = {"paths": ROOT_PATHS}
    elif parts == ["version"]:
        body = discovery.VERSION_INFO
    elif parts[0] in ("healthz", "livez", "readyz") and len(parts) == 1:
        return ApiResponse(200, "ok", content_type="text/plain")
    elif parts in (["api"], ["apis"]) and (version := discovery.aggregated_version(req.accept)) is not None:
        raw = json.dumps(discovery.aggregated(version, parts == ["api"], custom), separators=(",", ":")).encode()
        return ApiResponse(200, raw + b"\n", content_type=discovery.aggregated_content_type(version),
                           headers={"Vary": "Accept"})
    elif parts == ["api"]:
        body = discovery.core_versions(req.host)
    elif parts == ["apis"]:
        body = discovery.group_list(custom)
    elif parts[0] == "api":
        body = discovery.resource_list("", parts[1])
    elif parts[0] == "apis" and len(parts) == 2:
        body = discovery.group(parts[1], custom)
    elif parts[0] == "apis":
        body = discovery.resource_list(parts[1], parts[2], custom)
    elif parts[:2] == ["openapi", "v3"] and len(parts) > 2:
        return _openapi_v3(req, "/".join(parts[2:]), custom)
    elif parts[:2] == ["openapi", "v3"]:
        # Go marshals the map of paths with its keys sorted, and with no newline after it.
        raw = json.dumps(openapi.root(custom), separators=(",", ":"), sort_keys=True).encode()
        return _conditional(req, raw, openapi.etag_of(raw), "application/json", {})
    elif parts == ["openapi", "v2"]:
        # One ETag for both encodings: the JSON document's, as kube-openapi's v2 handler computes it.
        etag = openapi.swagger_etag()
        if "protobuf" in req.accept:
            return _conditional(req, openapi.swagger_protobuf(), etag, openapi.V2_PROTOBUF, {})
        return _conditional(req, openapi.swagger_json(), etag, "application/json", {})
    if body is None:
        raise errors.not_found_path()
    return ApiResponse(200, body)


def _openapi_v3(req: ApiRequest, gv_path: str, custom: list[Resource]) -> ApiResponse:
    built = openapi.document(gv_path, custom)
    if built is None:
        raise errors.not_found_path()
    raw, etag = built
    asked = req.query.get("hash", "")
    if asked and asked != etag:
        # An old hash: the document moved on, and its URL with the current hash is where it is now.
        location = f"/c/{req.cluster}/openapi/v3/{gv_path}?hash={etag}"
        return ApiResponse(301, f'<a href="{location}">Moved Permanently</a>.\n\n'.encode(),
                           content_type="text/html; charset=utf-8", headers={"Location": location})
    return _conditional(req, raw, etag, "application/json", openapi.cache_headers(etag, asked))


def _conditional(req: ApiRequest, raw: bytes, etag: str, content_type: str, headers: dict[str, str]) -> ApiResponse:
    """A document with its ETag, or 304 Not Modified when the caller's If-None-Match holds it (http.ServeContent)."""
    headers = {**headers, "ETag": f'"{etag}"'}
    if openapi.none_match_holds(req.if_none_match, etag):
        return ApiResponse(304, b"", content_type=content_type, headers=headers)
    return ApiResponse(200, raw, content_type=content_type, headers=headers)


def _need(verb: str, rp: ResourcePath) -> None:
    if verb not in rp.resource.verbs:
        raise errors.method_not_allowed(verb, rp.resource.plural, rp.resource.group)


async def _verb(req: ApiRequest, rp: ResourcePath) -> ApiResponse:
    method = req.method
    if method in ("GET", "HEAD"):
        if not rp.name:
            if req.flag("watch"):
                _need("watch", rp)
                return await watch(req, rp)
            _need("list", rp)
            return await listing.list_(req, rp)
        if rp.sub == "binding":
            raise errors.method_not_allowed("get", rp.resource.plural, rp.resource.group)
        if rp.sub == "log":
            return await logs.read(req, rp)
        _need("get", rp)
        return await handlers.get(req, rp)
    if method == "POST":
        if rp.name and rp.sub == "binding":
            return await binding.bind(req, rp)
        if rp.name and rp.sub == "eviction":
            return await eviction.evict(req, rp)
        if rp.name and rp.sub == "token" and rp.resource.kind == "ServiceAccount":
            return await request_token(req, rp)
        if rp.name or (rp.resource.namespaced and not rp.namespace):
            raise errors.method_not_allowed("create", rp.resource.plural, rp.resource.group)
        _need("create", rp)
        return await handlers.create(req, rp)
    if not rp.name:
        if method == "DELETE":
            return await deletion.delete_collection(req, rp)
        raise errors.method_not_allowed(method.lower(), rp.resource.plural, rp.resource.group)
    if rp.resource.namespaced and not rp.namespace:
        raise errors.not_found_path()
    if rp.sub == "binding":
        raise errors.method_not_allowed(method.lower(), rp.resource.plural, rp.resource.group)
    if method == "PUT":
        _need("update", rp)
        return await handlers.update(req, rp)
    if method == "PATCH":
        _need("patch", rp)
        return await handlers.patch(req, rp)
    if method == "DELETE":
        if rp.sub:
            raise errors.method_not_allowed("delete", rp.resource.plural, rp.resource.group)
        _need("delete", rp)
        return await deletion.delete(req, rp)
    raise errors.method_not_allowed(method.lower(), rp.resource.plural, rp.resource.group)
