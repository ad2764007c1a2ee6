"""exec, attach and portforward: served, and answered with a clear Status.

The simulated containers run no processes and listen on no ports, so there is
nothing to stream. The real API server would upgrade the connection and relay
to the kubelet; this one answers every way a client may ask with a Status
saying so (a 404 first if the Pod does not exist):

- an HTTP request (kubectl's SPDY upgrade, a plain GET or POST) gets the Status as its response;
- a websocket asking for the remote-command protocols (``v5.channel.k8s.io`` ... ``channel.k8s.io``,
  as kubectl and the Python client do for exec and attach) is accepted, and the Status goes on
  channel 3, the error stream, before the socket closes: both clients print its message;
- a port-forward websocket on ``v4.channel.k8s.io`` (the Python client's) is accepted as the
  kubelet's: each requested port gets its data and error channels, the error channel carries the
  message, then the socket closes;
- any other websocket (port forwarding's tunnelled SPDY) is refused at the handshake, which
  makes kubectl fall back to SPDY and so meet the HTTP answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable
from typing import Any
from urllib.parse import parse_qsl

from channels.generic.websocket import AsyncWebsocketConsumer

from . import errors

SUBRESOURCES = ("exec", "attach", "portforward")
# Remote-command protocols, newest first; v4 and v5 carry a Status on the error channel, older ones text.
CHANNEL_PROTOCOLS = (
    "v5.channel.k8s.io", "v4.channel.k8s.io", "v3.channel.k8s.io", "v2.channel.k8s.io", "channel.k8s.io"
)
ERROR_CHANNEL = 3
# Port forwarding over a websocket: the kubelet's only protocol for it, two channels per port.
FORWARD_PROTOCOL = "v4.channel.k8s.io"
WEBSOCKET_PATH = re.compile(
    r"^/c/(?P<cluster>[-a-zA-Z0-9_]+)/api/v1/namespaces/(?P<namespace>[^/]+)/pods/(?P<name>[^/]+)/"
    r"(?P<sub>exec|attach|portforward)$"
)

_WHY = {
    "exec": 'cannot exec into pod "{name}": its containers are simulated and run no processes',
    "attach": 'cannot attach to pod "{name}": its containers are simulated and run no processes',
    "portforward": 'cannot forward ports to pod "{name}": its containers are simulated and listen on no ports',
}


async def refusal(read_pod: Awaitable[Any], name: str, sub: str) -> errors.StatusError:
    """The Status for streaming ``sub`` of a Pod: the read's failure (NotFound), or why nothing can be streamed."""
    try:
        await read_pod
    except errors.StatusError as exc:
        return exc
    return errors.bad_request(_WHY[sub].format(name=name))


class PodStreamConsumer(AsyncWebsocketConsumer):
    """A websocket to ``pods/<name>/exec|attach|portforward``: the Status on the error channel, then close."""

    async def connect(self) -> None:
        match = WEBSOCKET_PATH.match(self.scope.get("path", ""))
        offered = list(self.scope.get("subprotocols") or [])
        protocol = next((p for p in CHANNEL_PROTOCOLS if p in offered), None)
        forwarding = match is not None and match["sub"] == "portforward"
        if forwarding:
            protocol = FORWARD_PROTOCOL if FORWARD_PROTOCOL in offered else None
        ports = _ports(self.scope.get("query_string", b"")) if forwarding else []
        if match is None or protocol is None or forwarding and not ports:
            await self.close()  # refused at the handshake: kubectl falls back to SPDY
            return
        await self.accept(protocol)
        from .client import Client  # the client imports the server, which imports this module

        client = Client(match["cluster"], "websocket", simulated=False)
        status = await refusal(client.get("pods", match["name"], match["namespace"]), match["name"], match["sub"])
        if forwarding:
            await self._refuse_ports(ports, status.message)
        else:
            await self.send(bytes_data=bytes([ERROR_CHANNEL]) + _error_payload(status, protocol))
        await self.close(code=1000)

    async def _refuse_ports(self, ports: list[int], message: str) -> None:
        """Each port's two channels open with its number (little-endian), then its error channel says why."""
        for index, port in enumerate(ports):
            number = port.to_bytes(2, "little")
            await self.send(bytes_data=bytes([2 * index]) + number)
            await self.send(bytes_data=bytes([2 * index + 1]) + number)
        for index in range(len(ports)):
            await self.send(bytes_data=bytes([2 * index + 1]) + message.encode())

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Input for a process that does not exist: nothing to do."""


def _ports(query: bytes) -> list[int]:
    """The ``ports`` a port-forward asks for (repeated or comma-separated); none if any is not a port."""
    ports: list[int] = []
    for key, value in parse_qsl(query.decode("latin-1")):
        if key != "ports":
            continue
        for part in value.split(","):
            if not part.strip().isdigit() or not 0 < int(part) < 65536:
                return []
            ports.append(int(part))
    return ports


def _error_payload(status: errors.StatusError, protocol: str) -> bytes:
    """What the error channel carries: a Status from v4 on, its message before."""
    if protocol in ("v5.channel.k8s.io", "v4.channel.k8s.io"):
        body: dict[str, Any] = status.status()
        return json.dumps(body, separators=(",", ":")).encode()
    return status.message.encode()
