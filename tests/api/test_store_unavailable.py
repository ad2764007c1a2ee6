"""A database that cannot be reached: every request is a clean 503 with Retry-After, nothing half-written."""

from __future__ import annotations

import json

import pytest
from django.test import AsyncClient

from clusterviz.api import errors
from clusterviz.api.client import Client

pytestmark = pytest.mark.django_db(transaction=True)

CONFIGMAPS = "/c/demo/api/v1/namespaces/default/configmaps"


def configmap(name: str) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"a": "1"}})


async def test_reads_and_writes_answer_503_with_retry_after_while_the_database_is_away(outage):
    outage("")
    # The test client would re-raise what Django logged; a real client only sees the response.
    http = AsyncClient(raise_request_exception=False)
    for response in (
        await http.get(CONFIGMAPS),
        await http.post(CONFIGMAPS, configmap("a"), content_type="application/json"),
        await http.get("/c/demo/api/v1"),
    ):
        assert response.status_code == 503
        assert response["Retry-After"] == "1"
        status = response.json()
        assert (status["kind"], status["reason"], status["code"]) == ("Status", "ServiceUnavailable", 503)


async def test_a_write_that_fails_half_way_stores_nothing_and_a_retry_succeeds(outage):
    client = Client("demo")
    before = await client.list("configmaps", "default")
    # The object row is inserted, then the watch-log row fails: the transaction must take both back.
    outage('INSERT INTO "store_watchevent"')
    with pytest.raises(errors.StatusError) as failed:
        await client.create(json.loads(configmap("half")))
    assert (failed.value.code, failed.value.reason, failed.value.retry_after) == (503, "ServiceUnavailable", 1)
    outage.end()
    after = await client.list("configmaps", "default")
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    assert await client.get_or_none("configmaps", "half", "default") is None
    created = await client.create(json.loads(configmap("half")))
    assert int(created["metadata"]["resourceVersion"]) == int(before["metadata"]["resourceVersion"]) + 1


async def test_a_page_that_needs_the_database_answers_503_too(outage):
    outage("")
    response = await AsyncClient(raise_request_exception=False).get("/c/demo/", headers={"Accept": "text/html"})
    assert response.status_code == 503
    assert response["Retry-After"] == "1"
    assert "temporarily unavailable" in response.content.decode()
