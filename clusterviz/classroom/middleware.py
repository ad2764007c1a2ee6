"""Access control and write rate limits for everything under /c/<cluster>/.

The API (what kubectl and the Python client call) answers refusals as
Kubernetes Status objects: 401 for an unknown token, 403 with RBAC's wording
(``pods is forbidden: User "student:ann" cannot create resource "pods" in API
group "" in the namespace "default"``), 429 with Retry-After for too many
writes. The dashboard's pages and forms get the same decisions as plain text.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import resolve

from clusterviz.api import authorizer, errors
from clusterviz.api.outage import OUTAGES
from clusterviz.api.server import error_response
from clusterviz.api.views import to_http
from clusterviz.middleware import AsyncMiddleware

from . import ratelimit
from .access import READ, UNOWNED, WRITE, Identity, allows, groups_of, permission
from .identity import SANDBOX_COOKIE, InvalidToken, classroom_mode, identify, ownership

# Everything of one cluster: its page, forms and API; plus the home page's reset and delete buttons.
CLUSTER_PATH = re.compile(
    r"^/(?:c/(?P<cluster>[-a-zA-Z0-9_]+)/|clusters/(?P<managed>[-a-zA-Z0-9_]+)/|clusters/(?P<new>new)$)(?P<rest>.*)$"
)
API_PREFIXES = ("api", "apis", "version", "openapi", "healthz", "livez", "readyz")
READ_METHODS = ("GET", "HEAD", "OPTIONS")
SELF_REVIEWS = (
    "apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
    "apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
    "apis/authentication.k8s.io/v1/selfsubjectreviews",
)
VERBS = {"POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


def describe_request(method: str, path: str, query: dict[str, str]) -> tuple[str, str, str, str]:
    """(verb, resource, group, namespace) of an API path, as an RBAC message names them."""
    parts = [p for p in path.split("/") if p]
    group, rest = "", parts[2:]
    if parts[:1] == ["apis"]:
        group, rest = (parts[1] if len(parts) > 1 else ""), parts[3:]
    namespace = ""
    if len(rest) >= 3 and rest[0] == "namespaces":
        namespace, rest = rest[1], rest[2:]
    resource = rest[0] if rest else (parts[0] if parts else "")
    if method in READ_METHODS:
        named = len(rest) >= 2
        verb = "watch" if query.get("watch", "").lower() in ("true", "1") else ("get" if named else "list")
    else:
        verb = VERBS.get(method, method.lower())
    return verb, resource, group, namespace


def request_attributes(method: str, path: str, query: dict[str, str]) -> authorizer.Attributes:
    """The request as the RBAC authorizer sees it: describe_request's verb, resource, group and namespace, with
    the object's name and subresource; a write to the whole collection is ``deletecollection``."""
    verb, resource, group, namespace = describe_request(method, path, query)
    parts = [p for p in path.split("/") if p]
    if parts[:1] not in (["api"], ["apis"]):
        return authorizer.Attributes(verb=method.lower(), path="/" + "/".join(parts))
    rest = parts[2:] if parts[0] == "api" else parts[3:]
    if len(rest) >= 3 and rest[0] == "namespaces":
        rest = rest[2:]
    name, subresource = (rest[1] if len(rest) > 1 else ""), (rest[2] if len(rest) > 2 else "")
    if verb == "delete" and not name:
        verb = "deletecollection"
    return authorizer.Attributes(verb, resource, group, namespace, name, subresource)


async def rbac_allows(cluster: str, identity: Identity, attrs: authorizer.Attributes) -> bool:
    """Whether the cluster's own Roles and bindings allow what the classroom's rules did not."""
    try:
        return await authorizer.authorize(cluster, identity.username, groups_of(identity), attrs) is not None
    except errors.StatusError:
        return False  # no such cluster: nothing is bound in it


def is_cluster_api(path: str) -> bool:
    """Whether ``path`` is one of a cluster's API paths (/c/<cluster>/api/..., /c/<cluster>/openapi/...)."""
    match = CLUSTER_PATH.match(path)
    return match is not None and bool(match["cluster"]) and match["rest"].split("/", 1)[0] in API_PREFIXES


def is_discovery(rest: str) -> bool:
    """Paths every caller may read, as Kubernetes' system:discovery role allows: the same for every cluster."""
    parts = [p for p in rest.split("/") if p]
    if parts[:1] in (["version"], ["openapi"], ["healthz"], ["livez"], ["readyz"]):
        return True
    return (parts[:1] == ["api"] and len(parts) <= 2) or (parts[:1] == ["apis"] and len(parts) <= 3)


def is_self_review(rest: str) -> bool:
    """Asking what one may do, or who one is: every caller may, as Kubernetes' system:basic-user role allows."""
    return rest.rstrip("/") in SELF_REVIEWS


def forbidden_message(identity: Identity, verb: str, resource: str, group: str, namespace: str) -> str:
    """RBAC's refusal text."""
    where = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
    return (
        f'{resource} is forbidden: User "{identity.username}" cannot {verb} resource "{resource}" '
        f'in API group "{group}" {where}'
    )


def status(code: int, reason: str, message: str, retry_after: int | None = None) -> HttpResponse:
    """A Kubernetes Status reply."""
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": reason, "code": code}  # fmt: skip
    response = HttpResponse(json.dumps(body), status=code, content_type="application/json")
    if retry_after:
        response["Retry-After"] = str(retry_after)
    return response


def page_refusal(request: HttpRequest, message: str, code: int) -> HttpResponse:
    """A refusal for the dashboard: htmx shows only successful replies, so its forms get the flash fragment."""
    if request.headers.get("HX-Request"):
        return render(request, "web/flash.html", {"error": message})
    return HttpResponse(message, status=code, content_type="text/plain; charset=utf-8")


class ClusterAccessMiddleware(AsyncMiddleware):
    """Checks every request under /c/<cluster>/ against the classroom's rules before any view runs."""

    async def __call__(self, request: HttpRequest) -> Any:
        match = CLUSTER_PATH.match(request.path)
        if match is None:
            return await self.get_response(request)
        # A new cluster belongs to no class yet: creating one is a write to an unowned cluster.
        cluster, rest = match["cluster"] or match["managed"] or "", match["rest"]
        is_api = rest.split("/", 1)[0] in API_PREFIXES
        wanted = READ if request.method in READ_METHODS or is_self_review(rest) else WRITE
        try:
            refusal = await self._refusal(request, cluster, rest, is_api, wanted)
        except OUTAGES:
            # Who is asking is in the database too: without it, the same clean 503 as the API's.
            return to_http(error_response(errors.store_unavailable()))
        if refusal is not None:
            return refusal
        return await self.get_response(request)

    async def _refusal(self, request: HttpRequest, cluster: str, rest: str, is_api: bool, wanted: str) -> Any:
        authorization = request.headers.get("Authorization", "")
        owner = await ownership(cluster)
        identity = Identity()
        # What the API's self-reviews answer (kubectl auth can-i, auth whoami): who asks and what they may.
        request.clusterviz_access = (identity.username, groups_of(identity), WRITE)  # type: ignore[attr-defined]
        if authorization or owner.kind != UNOWNED or classroom_mode():
            try:
                identity = await identify(authorization, await request.auser(), request.COOKIES.get(SANDBOX_COOKIE))
            except InvalidToken:
                return (
                    status(401, "Unauthorized", "Unauthorized") if is_api else HttpResponse("Unauthorized", status=401)
                )
            granted = permission(identity, cluster, owner, classroom_mode())
            request.clusterviz_access = (identity.username, groups_of(identity), granted)  # type: ignore[attr-defined]
            exempt = is_api and (is_self_review(rest) or wanted == READ and is_discovery(rest))
            query = request.GET.dict()
            if not allows(granted, wanted) and not exempt and not (
                is_api and await rbac_allows(cluster, identity, request_attributes(request.method or "GET", rest, query))
            ):
                if not is_api:
                    return page_refusal(
                        request, f'User "{identity.username}" may not {wanted} cluster "{cluster}".', 403
                    )
                message = forbidden_message(identity, *describe_request(request.method or "GET", rest, query))
                return status(403, "Forbidden", message)
        if wanted == WRITE:
            key = identity.username if not identity.anonymous else f"addr:{request.META.get('REMOTE_ADDR', '')}"
            wait = ratelimit.writes().allow(key)
            if wait:
                seconds = max(1, math.ceil(wait))
                if is_api:
                    return status(429, "TooManyRequests", "too many requests, please try again later", seconds)
                response = page_refusal(request, "Too many changes at once; wait a moment.", 429)
                response["Retry-After"] = str(seconds)
                return response
        return None


async def _anonymous() -> AnonymousUser:
    return AnonymousUser()


class ApiClientMiddleware(AsyncMiddleware):
    """A cluster API request without cookies (kubectl, the Python client) skips the browser's middleware.

    Sessions, CSRF tokens, the page's language, messages and the page's security headers are for the
    browser, and each of Django's middlewares runs its hooks in a thread and back: about a fifth of the
    server's time when a class applies at once. A request that carries no cookie has no session to
    use, so it goes straight to the access check (``ClusterAccessMiddleware``) and the API view. A
    browser's API calls carry its session cookie and take the whole chain.
    """

    def __init__(self, get_response: Any) -> None:
        super().__init__(get_response)
        self.direct = ClusterAccessMiddleware(self._view)

    async def __call__(self, request: HttpRequest) -> Any:
        if request.COOKIES or not is_cluster_api(request.path):
            return await self.get_response(request)
        request.auser = _anonymous
        return await self.direct(request)

    @staticmethod
    async def _view(request: HttpRequest) -> Any:
        request.resolver_match = resolve(request.path_info)
        view, args, kwargs = request.resolver_match
        return await view(request, *args, **kwargs)
