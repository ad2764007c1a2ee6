"""``limit`` and ``continue``: a list in pages, in name order, each saying how many items remain."""

from __future__ import annotations

import base64
import json

import pytest

from clusterviz.api import errors, listing
from clusterviz.api.client import Client
from clusterviz.api.request import ApiRequest
from clusterviz.api.server import dispatch
from clusterviz.store import kv
from clusterviz.store.threads import in_thread

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
        ({"continue": "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MCwic3RhcnQiOiJhXHUwMDAwIn0"},  # rv 0
         "invalid continue token: continue key is not valid: incorrect encoded start resourceVersion"),
        ({"continue": "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6Mywic3RhcnQiOiIuLi9rdWJlLXN5c3RlbS94In0"},  # ../kube-system/x
         "invalid continue token: continue key is not valid: ../kube-system/x"),
        ({"continue": "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6Mywic3RhcnQiOiJhXHUwMDAwIn0", "resourceVersion": "3"},
         "specifying resource version is not allowed when using continue"),
    ],
)
async def test_bad_paging_parameters_are_a_bad_request(query, message):
    with pytest.raises(errors.StatusError) as caught:
        await Client("demo", "kubectl", simulated=False).request("GET", PATH, query=query)
    assert caught.value.code == 400 and message in caught.value.message


def decoded(token: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))


async def fresh_configmaps(client: Client, names: list[str], apps: dict[str, str] | None = None) -> None:
    """Only ``names`` in the default namespace, labelled ``app`` as ``apps`` says."""
    await client.delete("configmaps", "kube-root-ca.crt", "default")
    for name in names:
        labels = {"app": apps[name]} if apps and name in apps else {}
        await client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels}},
                            "default")


async def test_a_token_is_the_real_ones_shape_and_every_page_reports_the_first_pages_revision():
    client = Client("demo", "kubectl", simulated=False)
    await fresh_configmaps(client, ["a", "b", "c"])
    first = await page(client, limit="1")
    revision = int(first["metadata"]["resourceVersion"])
    assert decoded(first["metadata"]["continue"]) == {"v": "meta.k8s.io/v1", "rv": revision, "start": "a\x00"}
    assert "=" not in first["metadata"]["continue"]
    await client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d"}}, "default")
    second = await page(client, limit="1", **{"continue": first["metadata"]["continue"]})
    assert second["metadata"]["resourceVersion"] == str(revision)
    assert decoded(second["metadata"]["continue"]) == {"v": "meta.k8s.io/v1", "rv": revision, "start": "b\x00"}
    # Across namespaces the key names the namespace too.
    across = (await client.request("GET", "/api/v1/configmaps", query={"limit": "1"})).body
    start = decoded(across["metadata"]["continue"])["start"]
    assert start == f"{across['items'][0]['metadata']['namespace']}/{across['items'][0]['metadata']['name']}\x00"


# The store is read a few rows at a time for a selective page: as many as the default, and one past the page.
@pytest.mark.parametrize("rows_at_a_time", [listing.SELECTIVE_READ, 1])
async def test_selectors_are_applied_before_the_limit_and_only_an_unfiltered_page_counts_what_remains(
    rows_at_a_time, monkeypatch
):
    monkeypatch.setattr(listing, "SELECTIVE_READ", rows_at_a_time)
    client = Client("demo", "kubectl", simulated=False)
    await fresh_configmaps(client, ["a", "b", "c", "d", "e"], {"a": "web", "c": "web", "e": "web"})
    first = await page(client, limit="2", labelSelector="app=web")
    assert [i["metadata"]["name"] for i in first["items"]] == ["a", "c"]
    assert "remainingItemCount" not in first["metadata"] and decoded(first["metadata"]["continue"])["start"] == "c\x00"
    last = await page(client, limit="2", labelSelector="app=web", **{"continue": first["metadata"]["continue"]})
    assert [i["metadata"]["name"] for i in last["items"]] == ["e"] and "continue" not in last["metadata"]
    # As etcd's "more" counts keys, not matches: a full page before unmatched keys has a (last, empty) successor.
    await client.patch("configmaps", "e", {"metadata": {"labels": {"app": "db"}}}, "default")
    full = await page(client, limit="2", labelSelector="app=web")
    empty = await page(client, limit="2", labelSelector="app=web", **{"continue": full["metadata"]["continue"]})
    assert empty["items"] == [] and "continue" not in empty["metadata"]
    # Matches far apart: each found once, wherever the store's reads end.
    await client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "f", "labels": {"app": "db"}}},
                        "default")
    await client.patch("configmaps", "d", {"metadata": {"labels": {"app": "web"}}}, "default")
    await client.patch("configmaps", "f", {"metadata": {"labels": {"app": "web"}}}, "default")
    sparse = await page(client, limit="3", labelSelector="app=web")
    assert [i["metadata"]["name"] for i in sparse["items"]] == ["a", "c", "d"]
    assert decoded(sparse["metadata"]["continue"])["start"] == "d\x00"
    rest = await page(client, limit="3", labelSelector="app=web", **{"continue": sparse["metadata"]["continue"]})
    assert [i["metadata"]["name"] for i in rest["items"]] == ["f"] and "continue" not in rest["metadata"]
    whole = await page(client, limit="5", labelSelector="app=web")
    assert [i["metadata"]["name"] for i in whole["items"]] == ["a", "c", "d", "f"] and "continue" not in whole["metadata"]


async def test_an_expired_token_is_a_410_whose_status_carries_a_token_at_the_latest_revision():
    client = Client("demo", "kubectl", simulated=False)
    await fresh_configmaps(client, ["a", "b", "c"])
    first = await page(client, limit="1")
    await client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d"}}, "default")
    cid = await in_thread(kv.cluster_id)("demo")
    await in_thread(kv.compact)(cid, int(first["metadata"]["resourceVersion"]) + 1)
    response = await dispatch(ApiRequest("demo", "GET", PATH, {"limit": "1", "continue": first["metadata"]["continue"]},
                                         client="kubectl"))
    assert response.status == 410
    assert response.body["reason"] == "Expired" and response.body["message"].startswith(
        "The provided continue parameter is too old to display a consistent list result.")
    fresh = response.body["metadata"]["continue"]
    assert decoded(fresh) == {"v": "meta.k8s.io/v1", "rv": -1, "start": "a\x00"}
    rest = await page(client, limit="5", **{"continue": fresh})
    assert [i["metadata"]["name"] for i in rest["items"]] == ["b", "c", "d"]
    assert int(rest["metadata"]["resourceVersion"]) > int(first["metadata"]["resourceVersion"])


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"resourceVersionMatch": "NotOlderThan"},
         "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"),
        ({"resourceVersion": "0", "resourceVersionMatch": "Exact"},
         'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'),
        ({"resourceVersion": "5", "resourceVersionMatch": "Newest"},
         'resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""'),
    ],
)
async def test_resource_version_match_follows_the_list_options_rules(query, message):
    with pytest.raises(errors.StatusError) as caught:
        await Client("demo", "kubectl", simulated=False).request("GET", PATH, query=query)
    assert caught.value.code == 422
    assert caught.value.message == f'ListOptions.meta.k8s.io "" is invalid: {message}'


async def test_an_exact_read_of_a_revision_the_log_no_longer_holds_is_expired_and_resource_version_0_is_not_paged():
    client = Client("demo", "kubectl", simulated=False)
    await fresh_configmaps(client, ["a", "b", "c"])
    listed = await page(client)
    cid = await in_thread(kv.cluster_id)("demo")
    await in_thread(kv.compact)(cid, int(listed["metadata"]["resourceVersion"]))
    for query in ({"resourceVersion": "1", "limit": "2"}, {"resourceVersion": "1", "resourceVersionMatch": "Exact"}):
        with pytest.raises(errors.StatusError) as caught:
            await page(client, **query)
        assert (caught.value.code, caught.value.message) == (410, "The resourceVersion for the provided list is too old.")
    # Not older than a revision: any state since will do.
    assert len((await page(client, resourceVersion="1"))["items"]) == 3
    # Served from kube-apiserver's watch cache, which ignores the limit.
    everything = await page(client, resourceVersion="0", limit="1")
    assert len(everything["items"]) == 3 and "continue" not in everything["metadata"]
