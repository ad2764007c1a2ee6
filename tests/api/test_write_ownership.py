"""What a write is sent stays the caller's, and what it answers is the caller's to change: neither is shared
with what the server keeps (the store's objects, the watch cache's objects that patches start from)."""

import copy
from collections.abc import AsyncIterator
from typing import Any

import pytest

from clusterviz.api import objectcache, watchcache
from clusterviz.api.client import Client
from clusterviz.store import kv
from clusterviz.store.threads import in_thread

pytestmark = pytest.mark.django_db(transaction=True)


def pod(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "app", "image": "nginx:1.27",
                                 "resources": {"requests": {"cpu": "0.1", "memory": "64Mi"}}}]},
    }


@pytest.fixture
async def shared_reads(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[list[kv.Key]]:
    """The keys the watch cache answered with its own object, while a follower of "demo" keeps Pods."""
    cid = await in_thread(kv.cluster_id)("demo")
    listed = await Client("demo").list("pods", "default")
    follower = watchcache.acquire(cid, int(listed["metadata"]["resourceVersion"]))
    keys: list[kv.Key] = []
    get = objectcache.ObjectCache.get

    def recorded(self: objectcache.ObjectCache, key: kv.Key, *, shared: bool = False) -> dict[str, Any] | None:
        found = get(self, key, shared=shared)
        if shared and found is not None:
            keys.append(key)
        return found

    monkeypatch.setattr(objectcache.ObjectCache, "get", recorded)
    try:
        yield keys
    finally:
        watchcache.release(follower)


async def running(client: Client, name: str) -> dict[str, Any]:
    return await client.patch("pods", name, {"status": {"phase": "Running"}}, "default", sub="status")


async def test_changing_the_answer_to_a_patch_that_changed_nothing_changes_nothing_kept(shared_reads: list[kv.Key]):
    client = Client("demo")
    await client.create(pod("web"))
    written = await running(client, "web")
    unchanged = await running(client, "web")
    assert shared_reads  # the patches started from the watch cache's own object
    assert unchanged == written
    unchanged["status"]["phase"] = "Failed"
    unchanged["metadata"]["labels"]["app"] = "changed"
    unchanged["metadata"]["managedFields"][0]["manager"] = "someone-else"
    assert await running(client, "web") == written
    assert await client.get("pods", "web", "default") == written


async def test_changing_the_answer_to_a_patch_changes_nothing_kept(shared_reads: list[kv.Key]):
    client = Client("demo")
    await client.create(pod("web"))
    written = await running(client, "web")
    kept = copy.deepcopy(written)
    written["metadata"]["managedFields"].clear()
    written["spec"]["containers"][0]["image"] = "changed"
    ready = await client.patch("pods", "web", {"status": {"hostIP": "10.0.0.1"}}, "default", sub="status")
    assert shared_reads
    assert ready["spec"] == kept["spec"]
    assert [e["manager"] for e in ready["metadata"]["managedFields"]] == [e["manager"] for e in kept["metadata"]["managedFields"]]


async def test_changing_the_answer_to_a_patch_that_dropped_its_field_managers_changes_nothing_watched(
    shared_reads: list[kv.Key],
):
    client = Client("demo")
    start = (await client.list("pods", "default"))["metadata"]["resourceVersion"]
    await client.create(pod("web"))
    written = await running(Client("demo", "kubelet-node01"), "web")
    # Without managedFields of its own, the patched object keeps the stored object's entries (the kubelet's).
    labelled = await client.patch("pods", "web", {"metadata": {"managedFields": None, "labels": {"tier": "front"}}},
                                  "default")
    assert shared_reads
    for entry in labelled["metadata"]["managedFields"]:
        entry["manager"] = "someone-else"
    seen = []
    async for event in client.watch("pods", "default", resource_version=start, timeout_seconds=20):
        seen.append(event["object"])
        if len(seen) == 3:
            break
    assert seen[1] == written


async def test_a_create_leaves_its_body_as_the_caller_sent_it():
    client = Client("demo")
    body = pod("web")
    sent = copy.deepcopy(body)
    created = await client.create(body)
    assert body == sent
    # The server's copy was defaulted and admitted all the same.
    assert created["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "100m"
    assert created["spec"]["serviceAccountName"] == "default"
    assert any(v["name"].startswith("kube-api-access-") for v in created["spec"]["volumes"])


async def test_an_update_leaves_its_body_as_the_caller_sent_it_and_shares_nothing_with_its_answer():
    client = Client("demo")
    created = await client.create(pod("web"))
    for sub in ("", "status"):
        body = {**copy.deepcopy(created), "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}
        body["metadata"]["labels"]["tier"] = "front"
        sent = copy.deepcopy(body)
        created = await client.update(body, sub=sub)
        assert body == sent
        created_copy = copy.deepcopy(created)
        body["status"]["conditions"][0]["status"] = "False"
        body["metadata"]["labels"]["tier"] = "back"
        assert created == created_copy
    assert created["metadata"]["labels"]["tier"] == "front"
    assert created["status"]["phase"] == "Running"
