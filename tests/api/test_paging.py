"""``limit`` and ``continue``: a list in pages, in name order, each saying how many items remain."""

from __future__ import annotations

import pytest

from clusterviz.api import errors
from clusterviz.api.client import Client

pytestmark = pytest.mark.django_db(transaction=True)
PATH = "/api/v1/namespaces/default/configmaps"


async def page(client: Client, **query: str) -> dict:
    return (await client.request("GET", PATH, query=query)).body


async def test_pages_cover_the_list_once_in_order():
    client = Client("demo", "kubectl", simulated=False)
    # Only the five made here are paged: the namespace's own CA ConfigMap goes first.
    await client.delete("configmaps", "kube-root-ca.crt", "default")
    for name in ("e", "a", "d", "c", "b"):
        await client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}, "default")
    first = await page(client, limit="2")
    assert [i["metadata"]["name"] for i in first["items"]] == ["a", "b"]
    assert first["metadata"]["remainingItemCount"] == 3
    second = await page(client, limit="2", **{"continue": first["metadata"]["continue"]})
    assert [i["metadata"]["name"] for i in second["items"]] == ["c", "d"]
    last = await page(client, limit="2", **{"continue": second["metadata"]["continue"]})
    assert [i["metadata"]["name"] for i in last["items"]] == ["e"]
    assert "continue" not in last["metadata"] and "remainingItemCount" not in last["metadata"]
    everything = await page(client)
    assert [i["metadata"]["name"] for i in everything["items"]] == ["a", "b", "c", "d", "e"]
    table = await client.request(
        "GET", PATH, query={"limit": "1"}, accept="application/json;as=Table;v=v1;g=meta.k8s.io"
    )
    assert len(table.body["rows"]) == 1 and table.body["metadata"]["remainingItemCount"] == 4


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"limit": "ten"}, 'invalid value for limit: "ten"'),
        ({"continue": "%%%"}, "continue key is not valid"),
        ({"continue": "eyJydiI6MX0"}, "continue key is not valid"),  # {"rv":1}: no start
    ],
)
async def test_bad_paging_parameters_are_a_bad_request(query, message):
    with pytest.raises(errors.StatusError) as caught:
        await Client("demo", "kubectl", simulated=False).request("GET", PATH, query=query)
    assert caught.value.code == 400 and message in caught.value.message
