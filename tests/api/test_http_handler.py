"""The ASGI handler: a cluster API request runs its synchronous calls on a shared thread, a page on its own."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from asgiref.testing import ApplicationCommunicator

from clusterviz.handler import HttpHandler

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def threads_started(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the threads started from now on."""
    started: list[str] = []
    start = threading.Thread.start

    def spy(self: threading.Thread) -> None:
        started.append(self.name)
        start(self)

    monkeypatch.setattr(threading.Thread, "start", spy)
    return started


async def get(path: str) -> tuple[int, bytes]:
    """The status and body HttpHandler answers a GET of ``path`` with."""
    scope: dict[str, Any] = {
        "type": "http", "method": "GET", "path": path, "raw_path": path.encode(), "query_string": b"",
        "root_path": "", "headers": [(b"host", b"testserver")], "http_version": "1.1", "scheme": "http",
        "server": ("testserver", 80), "client": ("127.0.0.1", 40000),
    }  # fmt: skip
    app = ApplicationCommunicator(HttpHandler(), scope)
    await app.send_input({"type": "http.request", "body": b""})
    start = await app.receive_output(10)
    body = b""
    while True:
        message = await app.receive_output(10)
        body += message.get("body", b"")
        if not message.get("more_body"):
            return start["status"], body


async def test_api_requests_start_no_thread_of_their_own(sim, threads_started: list[str]) -> None:
    await get("/c/demo/api/v1/nodes")  # the store's threads start on first use
    threads_started.clear()
    for _ in range(3):
        status, body = await get("/c/demo/api/v1/nodes")
        assert status == 200
        assert json.loads(body)["kind"] == "NodeList"
    assert threads_started == []


async def test_a_page_still_has_a_thread_of_its_own(sim, threads_started: list[str]) -> None:
    status, _ = await get("/")
    assert status == 200
    assert threads_started
