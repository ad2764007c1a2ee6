"""Group commit: writes queued together share one transaction, each keeping its own revision and event."""

import asyncio

import pytest
from asgiref.sync import sync_to_async

from clusterviz.store import batch, kv


def pod(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "uid": name}}


@pytest.mark.django_db
def test_a_batch_gives_each_write_its_revision_and_refuses_only_the_bad_one():
    one, two = kv.create_cluster("one"), kv.create_cluster("two")
    kv.create(one, kv.Key("pods", "default", "taken"), pod("taken"))
    start_one, start_two = kv.current_revision(one), kv.current_revision(two)
    results = kv.write_many([
        kv.Write("create", one, kv.Key("pods", "default", "a"), pod("a")),
        kv.Write("create", one, kv.Key("pods", "default", "taken"), pod("taken")),
        kv.Write("create", two, kv.Key("pods", "default", "b"), pod("b")),
        kv.Write("update", one, kv.Key("pods", "default", "a"), pod("a"), expected_rv=start_one + 1),
        kv.Write("delete", one, kv.Key("pods", "default", "missing")),
    ])
    assert results[0]["metadata"]["resourceVersion"] == str(start_one + 1)
    assert isinstance(results[1], kv.KeyExists)
    assert results[2]["metadata"]["resourceVersion"] == str(start_two + 1)
    assert results[3]["metadata"]["resourceVersion"] == str(start_one + 2)
    assert isinstance(results[4], kv.KeyNotFound)
    assert [(e.revision, e.type, e.name) for e in kv.events_since(one, start_one)] == [
        (start_one + 1, "ADDED", "a"), (start_one + 2, "MODIFIED", "a"),
    ]
    assert [(e.revision, e.name) for e in kv.events_since(two, start_two)] == [(start_two + 1, "b")]
    assert (kv.current_revision(one), kv.current_revision(two)) == (start_one + 2, start_two + 1)


@pytest.mark.django_db(transaction=True)
async def test_writes_queued_while_a_batch_commits_go_together_in_the_order_asked(monkeypatch):
    cid = await sync_to_async(kv.create_cluster)("grouped")
    batches: list[list[str]] = []
    write_many = batch._write_many

    async def counted(writes: list[kv.Write]) -> list:
        batches.append([w.key.name for w in writes])
        return await write_many(writes)

    monkeypatch.setattr(batch, "_write_many", counted)
    first = asyncio.ensure_future(batch.create(cid, kv.Key("pods", "default", "alone"), pod("alone")))
    while not batches:
        await asyncio.sleep(0)
    # Asked for while the first write commits: they wait for it, then go together.
    names = [f"p{i}" for i in range(5)]
    stored = await asyncio.gather(*(batch.create(cid, kv.Key("pods", "default", n), pod(n)) for n in names))
    await first
    assert batches == [["alone"], names]
    revisions = [int(s["metadata"]["resourceVersion"]) for s in stored]
    assert revisions == list(range(revisions[0], revisions[0] + 5))
    with pytest.raises(kv.KeyExists):
        await batch.create(cid, kv.Key("pods", "default", "p0"), pod("p0"))


@pytest.mark.django_db
def test_a_batch_that_writes_one_key_several_times_sees_its_own_writes():
    cid = kv.create_cluster("again")
    key = kv.Key("pods", "default", "a")
    start = kv.current_revision(cid)
    results = kv.write_many([
        kv.Write("create", cid, key, pod("a")),
        kv.Write("create", cid, key, pod("a")),
        kv.Write("delete", cid, key, expected_rv=start + 1),
        kv.Write("update", cid, key, pod("a")),
        kv.Write("create", cid, key, pod("a")),
        kv.Write("update", cid, key, pod("a"), expected_rv=start + 3),
    ])
    assert results[0]["metadata"]["resourceVersion"] == str(start + 1)
    assert isinstance(results[1], kv.KeyExists)
    assert results[2]["metadata"]["resourceVersion"] == str(start + 2)
    assert isinstance(results[3], kv.KeyNotFound)
    assert results[4]["metadata"]["resourceVersion"] == str(start + 3)
    assert results[5]["metadata"]["resourceVersion"] == str(start + 4)
    assert [(e.revision, e.type) for e in kv.events_since(cid, start)] == [
        (start + 1, "ADDED"), (start + 2, "DELETED"), (start + 3, "ADDED"), (start + 4, "MODIFIED"),
    ]
    assert kv.get(cid, key)["metadata"]["resourceVersion"] == str(start + 4)
