"""A real Daphne on PostgreSQL whose database goes away for a moment (sessions killed, new ones refused).

Every request meanwhile is a 503 ServiceUnavailable Status with Retry-After, never a 500; nothing
is half-written; afterwards the same process serves again and its simulation carries on.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import backend
from tests.livesim import LiveServer, wait_until

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def request(server: LiveServer, method: str, path: str, body: Any = None) -> tuple[int, dict[str, str], Any]:
    """Status, headers and JSON body of one request to the demo cluster."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        content_type = "application/merge-patch+json" if method == "PATCH" else "application/json"
        conn.request(
            method,
            "/c/demo" + path,
            body=json.dumps(body) if body is not None else None,
            headers={"Content-Type": content_type},
        )
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), json.loads(response.read() or b"null")
    finally:
        conn.close()


def configmap(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"v": "1"}}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path, {"CLUSTERVIZ_DEFAULT_MODE": "fast-forward"})
    live.start()
    yield live
    backend.allow_connections(live.database)
    live.stop()


def test_requests_get_503_while_the_database_is_away_and_succeed_after(server: LiveServer) -> None:
    assert request(server, "POST", CONFIGMAPS, configmap("before"))[0] == 201
    start = request(server, "GET", CONFIGMAPS)[2]["metadata"]["resourceVersion"]

    assert backend.terminate_connections(server.database, block=True) > 0
    try:
        attempts = [
            request(server, "GET", CONFIGMAPS),
            request(server, "POST", CONFIGMAPS, configmap("during")),
            request(server, "PATCH", CONFIGMAPS + "/before", {"data": {"v": "2"}}),
            request(server, "DELETE", CONFIGMAPS + "/before"),
            request(server, "GET", "/api/v1/nodes"),
        ]
    finally:
        backend.allow_connections(server.database)
    for status, headers, body in attempts:
        assert status == 503, body
        assert headers.get("Retry-After") == "1"
        assert (body["kind"], body["reason"], body["code"]) == ("Status", "ServiceUnavailable", 503)

    # A client that honours Retry-After gets through once the database is back.
    assert wait_until(lambda: request(server, "GET", CONFIGMAPS)[0] == 200, 30)
    listed = request(server, "GET", CONFIGMAPS)[2]
    # Besides the namespace's kube-root-ca.crt, which its publisher keeps in every namespace.
    mine = [c for c in listed["items"] if c["metadata"]["name"] != "kube-root-ca.crt"]
    assert [c["metadata"]["name"] for c in mine] == ["before"]
    assert mine[0]["data"] == {"v": "1"}
    assert wait_until(lambda: request(server, "POST", CONFIGMAPS, configmap("after"))[0] == 201, 30)
    # The watch log agrees: the only ConfigMap event since the outage began is the write made after it.
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.request("GET", f"/c/demo{CONFIGMAPS}?watch=1&resourceVersion={start}&timeoutSeconds=2")
    events = [json.loads(line) for line in conn.getresponse()]
    conn.close()
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "after")]

    # The engine in this process lived through it: a Deployment still gets its Pods running.
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
            },
        },
    }
    assert wait_until(
        lambda: request(server, "POST", "/apis/apps/v1/namespaces/default/deployments", deployment)[0] in (201, 409), 30
    )

    def running() -> int:
        items = request(server, "GET", "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb")[2]["items"]
        return sum(p["status"].get("phase") == "Running" for p in items)

    assert wait_until(lambda: running() == 2, 60)
    # The API server met no unexpected failure (it logs those as "internal error serving").
    log = server.log.read_text()
    assert "internal error serving" not in log, log[-5000:]
