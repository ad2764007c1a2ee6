"""Admission and patches read the watch cache's objects, and a copy that is behind the store changes no outcome."""

from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from clusterviz.api import errors, handlers, watchcache
from clusterviz.api.client import Client
from clusterviz.store import kv, notify

NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team", "labels": {"colour": "blue"}}}
TEAM = kv.Key("namespaces", "", "team")


async def _written_elsewhere(
    sim: Any, monkeypatch: pytest.MonkeyPatch, change: Callable[[dict[str, Any]], None]
) -> int:
    """Change the team namespace as another process would, unannounced to this one; the store's id of the cluster."""

    def write() -> int:
        cid = kv.cluster_id("demo")
        obj = kv.get(cid, TEAM)
        assert obj is not None
        change(obj)
        with monkeypatch.context() as quiet:
            quiet.setattr(notify, "publish", lambda *args, **kwargs: None)
            written = kv.update(cid, TEAM, obj)
        # Nor does this process's poll of the store's revisions find it before the test is done.
        with notify._lock:
            notify._known[cid] = int(written["metadata"]["resourceVersion"])
        return cid

    # Quiet first: the next write of this process would show the follower the revision it missed.
    await sim.engine.until_settled()
    cid: int = await sync_to_async(write)()
    # The watch cache still has the namespace as this process last wrote it.
    assert (await watchcache.get(cid, TEAM) or {})["metadata"]["labels"]["colour"] == "blue"
    return cid


async def test_a_patch_from_a_copy_behind_the_store_applies_to_what_is_stored(sim, monkeypatch):
    client = Client("demo")
    await client.create(NAMESPACE)
    await _written_elsewhere(sim, monkeypatch, lambda ns: ns["metadata"]["labels"].update(size="large"))
    patched = await client.patch("namespaces", "team", {"metadata": {"labels": {"owner": "ana"}}})
    assert patched["metadata"]["labels"] == {"colour": "blue", "size": "large", "owner": "ana",
                                             "kubernetes.io/metadata.name": "team"}


async def test_a_patch_that_changes_nothing_in_a_copy_behind_the_store_changes_what_is_stored(sim, monkeypatch):
    client = Client("demo")
    await client.create(NAMESPACE)
    await _written_elsewhere(sim, monkeypatch, lambda ns: ns["metadata"]["labels"].update(colour="green"))
    patched = await client.patch("namespaces", "team", {"metadata": {"labels": {"colour": "blue"}}})
    assert patched["metadata"]["labels"]["colour"] == "blue"
    assert (await client.get("namespaces", "team"))["metadata"]["labels"]["colour"] == "blue"


async def test_admission_follows_the_limit_ranges_the_api_server_wrote(sim):
    client = Client("demo")
    await client.create(NAMESPACE)
    limits = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "defaults", "namespace": "team"},
              "spec": {"limits": [{"type": "Container", "defaultRequest": {"cpu": "250m"}}]}}

    def pod(name: str) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "team"},
                "spec": {"containers": [{"name": "app", "image": "nginx"}]}}

    def requests(created: dict[str, Any]) -> Any:
        return created["spec"]["containers"][0].get("resources", {}).get("requests")

    assert requests(await client.create(pod("before"))) is None
    await client.create(limits)
    assert requests(await client.create(pod("during"))) == {"cpu": "250m"}
    await client.delete("limitranges", "defaults", "team")
    assert requests(await client.create(pod("after"))) is None


async def test_an_update_naming_a_revision_long_past_the_last_events_starts_from_the_kept_copy(sim, monkeypatch):
    client = Client("demo")
    lease = await client.create({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                                 "metadata": {"name": "worker", "namespace": "default"},
                                 "spec": {"holderIdentity": "a"}})
    for i in range(watchcache.RECENT_EVENTS + 1):
        await client.create({"apiVersion": "v1", "kind": "ConfigMap",
                             "metadata": {"name": f"filler{i}", "namespace": "default"}})

    async def no_store_read(cid: int, key: kv.Key) -> None:
        raise AssertionError(f"{key} read from the store")

    with monkeypatch.context() as reads:
        reads.setattr(handlers, "_get", no_store_read)
        renewed = await client.update({**lease, "spec": {"holderIdentity": "b"}})
    assert renewed["spec"] == {"holderIdentity": "b"}
    with pytest.raises(errors.StatusError) as refused:
        await client.update({**lease, "spec": {"holderIdentity": "c"}})
    assert refused.value.code == 409
