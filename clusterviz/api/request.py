"""What a request to the API server is, wherever it comes from (HTTP or in-process)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import errors, resources

if TYPE_CHECKING:
    from .gate import Gate  # gate.py names requests in its protocol


@dataclass
class ApiRequest:
    """One API call: the same shape for kubectl over HTTP and for the components in-process."""

    cluster: str
    method: str
    path: str
    query: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    content_type: str = ""
    accept: str = ""
    # The caller's If-None-Match: the ETags it holds (the OpenAPI documents answer 304 when one is current).
    if_none_match: str = ""
    # Who is calling, as the flow diagram names it: kubectl, client, scheduler, kubelet/node01...
    client: str = "client"
    # The HTTP caller's User-Agent (names its field manager when it does not).
    user_agent: str = ""
    # Who asks, as the authenticator named them, and what the classroom's rules grant them on this cluster
    # ("write", "read" or None); the components are the cluster's own, with every right.
    user: str = ""
    groups: tuple[str, ...] = ()
    granted: str | None = "write"
    host: str = "127.0.0.1"
    # Already-decoded body from in-process callers (skips JSON encoding).
    payload: Any = None
    # The in-process caller keeps no reference to ``payload``, so a create need not copy it first.
    payload_handed_over: bool = False
    # The caller changes nothing it is answered (an HTTP reply is encoded at once; an informer's cache is only
    # read, as the watch events it is sent are), so a list may answer with the watch cache's own objects.
    reads_only: bool = False
    # The cluster's simulation, when one runs it in this process (see api/gate.py).
    gate: Gate | None = None
    # False for set-up writes (a new cluster's namespaces and nodes), which are not part of any lesson.
    simulated: bool = True
    # Scratch space the gate keeps per request (the hop numbers of this write).
    context: dict[str, Any] = field(default_factory=dict)

    def flag(self, name: str) -> bool:
        """A boolean query parameter (true, True and 1 all count, as the clients send them)."""
        return self.query.get(name, "").lower() in ("true", "1")

    @property
    def wants_table(self) -> bool:
        return "as=table" in self.accept.replace(" ", "").lower()


@dataclass
class ApiResponse:
    """A JSON reply, or a stream of newline-delimited JSON for watches."""

    status: int
    body: Any = None
    # Watch events (dicts with "type" and "object"), for streamed replies.
    stream: AsyncIterator[dict[str, Any]] | None = None
    # Raw chunks of ``content_type``, for a streamed reply that is not a watch (a followed log).
    chunks: AsyncIterator[bytes] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json"


@dataclass(frozen=True)
class ResourcePath:
    """A parsed resource URL: /api/v1/namespaces/<ns>/<plural>/<name>/<sub>."""

    resource: resources.Resource
    namespace: str  # '' for cluster-scoped resources and all-namespace lists
    name: str
    sub: str


def parse_resource_path(group: str, version: str, rest: list[str], custom: Sequence[resources.Resource] = ()) -> ResourcePath:
    """Turn the segments after /api/v1 or /apis/<g>/<v> into a ResourcePath (404 if none); ``custom`` are the
    cluster's custom resources."""
    namespace = ""
    if rest[:1] == ["namespaces"] and len(rest) >= 3:
        ns_res = resources.lookup(group, version, "namespaces")
        if not (ns_res and len(rest) == 3 and rest[2] in ns_res.subresources):
            namespace, rest = rest[1], rest[2:]
    if not rest or len(rest) > 3 or any(not part for part in rest):
        raise errors.not_found_path()
    resource = resources.lookup(group, version, rest[0]) or next(
        (r for r in custom if (r.group, r.version, r.plural) == (group, version, rest[0])), None
    )
    if resource is None:
        raise errors.not_found_path()
    if namespace and not resource.namespaced:
        raise errors.not_found_path()
    name = rest[1] if len(rest) > 1 else ""
    sub = rest[2] if len(rest) > 2 else ""
    if sub and sub not in resource.subresources:
        raise errors.not_found_path()
    return ResourcePath(resource, namespace, name, sub)
