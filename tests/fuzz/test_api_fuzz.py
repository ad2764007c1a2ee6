"""Fuzzing the API server with random and mutated input (the "class of 100" issue).

Whatever arrives — valid-looking objects with odd field values, wrong types, huge numbers, strange
unicode, random bytes and text under any content type, random verbs and paths — the answer is never a
5xx; a refusal is a Kubernetes Status (Failure, a 4xx code, a message); and a refused write leaves the
store as it was.

Most examples go in-process through Django's ASGI handler (the same URL routing and view kubectl
reaches), with no simulation running so the cluster's revision must not move on a refusal; some go
through a running simulation's gate, and a few over real HTTP to a Daphne process. Every run draws the
same examples (``derandomize``), so a failure reproduces.
"""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fuzz.fuzzing import (
    ACCEPTS,
    CLUSTER,
    FUZZ,
    WRITE_TARGETS,
    assert_refusal_is_a_status,
    bodies,
    junk,
    methods,
    objects,
    queries,
    random_paths,
    revision,
    send,
    snapshot,
    write_requests,
)
from tests.livesim import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)


# --- the API server, in-process -------------------------------------------------------------------------


@settings(max_examples=500, **FUZZ)
@given(request=write_requests())
async def test_random_writes_never_fail_with_5xx_and_a_refusal_writes_nothing(async_client, request):
    method, path, query, body, content_type = request
    before = await revision()
    resp = await send(async_client, method, path, query, body, content_type)
    assert_refusal_is_a_status(resp.status_code, resp.content, resp.get("Content-Type", ""), method)
    if resp.status_code >= 400 or query.get("dryRun"):
        assert await revision() == before, (resp.status_code, resp.content[:300])


@settings(max_examples=300, **FUZZ)
@given(
    method=methods,
    path=random_paths,
    query=queries,
    body=bodies(junk | objects()),
    accept=st.sampled_from(ACCEPTS),
    cluster=st.sampled_from([CLUSTER, CLUSTER, "nowhere"]),
)
async def test_random_verbs_and_paths_never_fail_with_5xx(async_client, method, path, query, body, accept, cluster):
    # A watch stays open until its timeout; it is started with the same checks as a list, which this covers.
    query.pop("watch", None)
    before = await revision()
    resp = await send(async_client, method, "/" + path, query, *body, accept=accept, cluster=cluster)
    assert_refusal_is_a_status(resp.status_code, resp.content, resp.get("Content-Type", ""), method)
    if resp.status_code >= 400:
        assert await revision() == before


# Not the simulation's own controls: a paused or stepped simulation would hold every later write.
SIMULATED_TARGETS = [(m, p) for m, p in WRITE_TARGETS if "simulations" not in p]


@settings(max_examples=60, **FUZZ)
@given(request=write_requests(SIMULATED_TARGETS))
async def test_refused_writes_through_a_running_simulation_write_nothing(async_client, sim, request):
    method, path, query, body, content_type = request
    await sim.engine.until_settled()
    before = await snapshot(CLUSTER)
    resp = await send(async_client, method, path, query, body, content_type)
    assert_refusal_is_a_status(resp.status_code, resp.content, resp.get("Content-Type", ""), method)
    # Whatever the simulation does about the request happens before the comparison (and the next example).
    await sim.engine.until_settled()
    if resp.status_code >= 400:
        assert await snapshot(CLUSTER) == before


# --- over real HTTP -------------------------------------------------------------------------------------

LIVE_CLUSTER = "fuzzlive"


@pytest.fixture(scope="module")
def live_cluster(live: LiveServer) -> str:
    result = live.manage("createcluster", LIVE_CLUSTER, "--nodes", "1")
    assert result.returncode == 0, result.stderr
    return LIVE_CLUSTER


def _live_state(live: LiveServer) -> set[tuple[Any, ...]]:
    """Every object a refused write could have touched (labels only for the node, whose status the kubelet
    keeps renewing)."""
    conn = http.client.HTTPConnection("127.0.0.1", live.port, timeout=30)
    state: set[tuple[Any, ...]] = set()
    for path in (
        "/api/v1/pods",
        "/api/v1/services",
        "/api/v1/configmaps",
        "/api/v1/namespaces",
        "/apis/apps/v1/deployments",
        "/apis/apps/v1/replicasets",
        "/api/v1/nodes",
    ):
        conn.request("GET", f"/c/{LIVE_CLUSTER}{path}")
        for item in json.loads(conn.getresponse().read())["items"]:
            meta = item["metadata"]
            marker = (
                json.dumps(meta.get("labels"), sort_keys=True) if item["kind"] == "Node" else meta["resourceVersion"]
            )
            state.add((item["kind"], meta.get("namespace", ""), meta["name"], marker))
    conn.close()
    return state


LIVE_TARGETS = [(m, p) for m, p in SIMULATED_TARGETS if m != "DELETE"]


@st.composite
def refused_requests(draw: st.DrawFn) -> tuple[str, str, bytes, str]:
    """A write certain to be refused (an object with an invalid name, under any media type), so that no
    successful write's aftermath (scheduling, kubelets) can blur the before/after comparison."""
    method, template = draw(st.sampled_from(LIVE_TARGETS))
    obj = {**draw(objects()), "metadata": {"name": draw(st.sampled_from(["Not_Valid!", "a" * 300, "x\u200b"]))}}
    body, content_type = draw(bodies(st.just(obj), method, raw_bytes=False))
    return method, template.format(name="ghost"), body, content_type


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(request=refused_requests())
def test_refused_writes_over_http_get_a_status_and_write_nothing(live, live_cluster, request):
    method, path, body, content_type = request
    before = _live_state(live)
    conn = http.client.HTTPConnection("127.0.0.1", live.port, timeout=30)
    try:
        conn.putrequest(method, f"/c/{LIVE_CLUSTER}{path}")
        conn.putheader("Content-Type", content_type.encode("utf-8", "surrogatepass"))
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        resp = conn.getresponse()
        reply = resp.read()
    finally:
        conn.close()
    assert_refusal_is_a_status(resp.status, reply, resp.getheader("Content-Type", ""), method)
    assert resp.status >= 400
    assert _live_state(live) == before


async def test_a_path_with_a_newline_is_answered_by_the_api_not_by_a_page(async_client):
    resp = await async_client.get("/c/demo/api/\n", HTTP_ACCEPT="application/json")
    assert resp.status_code < 500
    assert resp["Content-Type"].startswith("application/json")
    assert json.loads(resp.content)["kind"] in ("APIVersions", "Status")
