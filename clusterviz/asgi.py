"""ASGI entry point: HTTP through Django, websockets through Channels."""

import gc
import os
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clusterviz.settings")
# As django.core.asgi.get_asgi_application, with the project's handler.
django.setup(set_prefix=False)

from clusterviz.handler import HttpHandler  # noqa: E402

django_asgi_app = HttpHandler()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from clusterviz.sim import registry  # noqa: E402
from clusterviz.store import notify  # noqa: E402

# The channel layer (with Redis's client) is made now, not by the first write forwarded to a worker.
notify.channel_layer()

if settings.CLUSTERVIZ["ENGINES"]:
    # This process serves clusters: their simulations run here, started on first use.
    registry.enable()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator, WebsocketDenier  # noqa: E402
from django.urls import re_path  # noqa: E402

from clusterviz.api import streams  # noqa: E402
from clusterviz.api.streams import PodStreamConsumer  # noqa: E402
from clusterviz.classroom.websocket import ClusterAccessWebsocketMiddleware  # noqa: E402
from clusterviz.web.routing import websocket_urlpatterns  # noqa: E402

# Origin check, then the session's user and cookies, then the classroom's access rules.
# A socket to any other path is refused at the handshake (403), never an error (500).
page_routes: list[Any] = [*websocket_urlpatterns, re_path(r"", WebsocketDenier.as_asgi())]
page_sockets = AllowedHostsOriginValidator(AuthMiddlewareStack(ClusterAccessWebsocketMiddleware(URLRouter(page_routes))))
# kubectl and the Python client send no Origin: the API's own sockets are checked by the access rules only.
api_sockets = AuthMiddlewareStack(ClusterAccessWebsocketMiddleware(PodStreamConsumer.as_asgi()))


async def websocket(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Websockets: the API's pod streams, or the dashboard's pages."""
    inner: Any = api_sockets if streams.WEBSOCKET_PATH.match(scope.get("path", "")) else page_sockets
    await inner(scope, receive, send)


application = ProtocolTypeRouter({"http": django_asgi_app, "websocket": websocket})

# The simulation allocates many short-lived dicts per hop. Objects alive at start-up (Django, the
# apps, the tables) never become garbage: freeze them out of the collector's scans, and collect the
# young generation less often, so that a busy class spends its time simulating, not scanning.
gc.freeze()
gc.set_threshold(20_000, 20, 20)
