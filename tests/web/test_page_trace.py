"""An open page follows the trace from the newest message on, however long the trace already is."""

from __future__ import annotations

import json

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from clusterviz.api.client import Client
from clusterviz.sim import api_group
from clusterviz.web.routing import websocket_urlpatterns

pytestmark = pytest.mark.django_db(transaction=True)


def configmap(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}}


async def test_a_page_opened_on_a_long_trace_gets_new_messages_not_old_ones(sim, monkeypatch):
    # With two messages to a page of the trace, this short trace is a long one.
    monkeypatch.setattr(api_group, "PAGE", 2)
    kubectl = Client("demo", "kubectl")
    await kubectl.create(configmap("before"))
    await sim.engine.until_settled()
    last = sim.engine.last_seq
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/c/demo/")
    connected, _ = await communicator.connect()
    assert connected
    try:
        await kubectl.create(configmap("after"))
        for _ in range(100):
            text = await communicator.receive_from(timeout=10)
            if text.startswith('{"flows"'):
                break
        assert json.loads(text)["flows"][0]["flow"]["seq"] > last
    finally:
        await communicator.disconnect()
