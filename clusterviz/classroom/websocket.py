"""The same access rules for the dashboard's websocket: no read access, no live updates."""

from __future__ import annotations

import re
from typing import Any

from .access import READ, UNOWNED, Identity, allows, permission
from .identity import SANDBOX_COOKIE, InvalidToken, classroom_mode, identify, ownership

# The page's sockets (/ws/c/<cluster>/) and the API's (/c/<cluster>/api/..., exec and attach).
WS_PATH = re.compile(r"^/(?:ws/)?c/(?P<cluster>[-a-zA-Z0-9_]+)/")
FORBIDDEN = 4403  # the close code a refused page sees


class ClusterAccessWebsocketMiddleware:
    """ASGI middleware (inside Channels' AuthMiddlewareStack) refusing sockets of clusters the caller may not read."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        match = WS_PATH.match(scope.get("path", ""))
        if match is not None and not await self._may_read(scope, match["cluster"]):
            # Accepting the handshake only to close it at once gives the browser a clear close code.
            await receive()
            await send({"type": "websocket.close", "code": FORBIDDEN})
            return None
        return await self.inner(scope, receive, send)

    async def _may_read(self, scope: dict[str, Any], cluster: str) -> bool:
        owner = await ownership(cluster)
        if owner.kind == UNOWNED and not classroom_mode():
            return True
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        try:
            identity = await identify(
                headers.get("authorization", ""), scope.get("user"), scope.get("cookies", {}).get(SANDBOX_COOKIE)
            )
        except InvalidToken:
            identity = Identity()
        return allows(permission(identity, cluster, owner, classroom_mode()), READ)
