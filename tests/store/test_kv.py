"""The etcd-shaped store: revisions, optimistic concurrency, the watch log and compaction."""

import os

import pytest
from django.test import override_settings

from clusterviz.store import kv

pytestmark = pytest.mark.django_db


def pod(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "uid": name}}


@pytest.fixture
def cid() -> int:
    return kv.create_cluster("unit")


def test_every_write_bumps_the_cluster_revision_and_stamps_the_object(cid):
    before = kv.current_revision(cid)
    created = kv.create(cid, kv.Key("pods", "default", "a"), pod("a"))
    assert created["metadata"]["resourceVersion"] == str(before + 1)
    updated = kv.update(cid, kv.Key("pods", "default", "a"), created)
    assert updated["metadata"]["resourceVersion"] == str(before + 2)
    assert kv.current_revision(cid) == before + 2


def test_creating_an_existing_key_fails_and_writes_nothing(cid):
    kv.create(cid, kv.Key("pods", "default", "a"), pod("a"))
    revision = kv.current_revision(cid)
    with pytest.raises(kv.KeyExists):
        kv.create(cid, kv.Key("pods", "default", "a"), pod("a"))
    assert kv.current_revision(cid) == revision
    assert [e.type for e in kv.events_since(cid, revision - 1)] == ["ADDED"]


def test_a_stale_resource_version_is_a_conflict(cid):
    key = kv.Key("pods", "default", "a")
    first = kv.create(cid, key, pod("a"))
    rv = int(first["metadata"]["resourceVersion"])
    kv.update(cid, key, first, expected_rv=rv)
    with pytest.raises(kv.RevisionConflict):
        kv.update(cid, key, first, expected_rv=rv)


def test_watch_log_replays_every_write_in_revision_order(cid):
    start = kv.current_revision(cid)
    key = kv.Key("pods", "default", "a")
    obj = kv.create(cid, key, pod("a"))
    obj = kv.update(cid, key, obj)
    kv.delete(cid, key)
    events = kv.events_since(cid, start)
    assert [e.type for e in events] == ["ADDED", "MODIFIED", "DELETED"]
    assert [e.revision for e in events] == [start + 1, start + 2, start + 3]
    assert events[1].previous["metadata"]["resourceVersion"] == str(start + 1)
    assert events[2].object["metadata"]["resourceVersion"] == str(start + 3)


def test_an_object_reads_back_with_its_keys_in_the_order_they_were_written(cid):
    """As etcd keeps a value's bytes: kubectl compares a ControllerRevision's ``data`` byte for byte."""
    key = kv.Key("controllerrevisions.apps", "default", "a")
    # PostgreSQL's jsonb would put the shorter key first.
    data = {"spec": {"template": {"metadata": {}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    written = {**pod("a"), "apiVersion": "apps/v1", "kind": "ControllerRevision", "revision": 1, "data": data}
    start = kv.current_revision(cid)
    kv.create(cid, key, written)
    order = ["spec", "template", "metadata", "spec"]

    def keys(obj: dict) -> list[str]:
        template = obj["data"]["spec"]["template"]
        return [*obj["data"], *obj["data"]["spec"], *template]

    assert keys(kv.get(cid, key)) == order
    assert keys(kv.list_objects(cid, "controllerrevisions.apps")[0][0]) == order
    assert keys(kv.events_since(cid, start)[0].object) == order


def test_clusters_have_independent_revisions(cid):
    other = kv.create_cluster("other")
    kv.create(cid, kv.Key("pods", "default", "a"), pod("a"))
    assert kv.current_revision(other) == 0
    assert kv.get(other, kv.Key("pods", "default", "a")) is None


@override_settings(CLUSTERVIZ={"WATCH_LOG_RETAIN": 10, "DEMO_CLUSTER": "", "ENGINES": False})
def test_compaction_keeps_the_log_bounded_and_old_revisions_expire(cid):
    key = kv.Key("pods", "default", "a")
    obj = kv.create(cid, key, pod("a"))
    for _ in range(kv.COMPACT_EVERY * 2):
        obj = kv.update(cid, key, obj)
    revision = kv.current_revision(cid)
    with pytest.raises(kv.Compacted) as info:
        kv.events_since(cid, 1)
    assert "too old resource version: 1" in str(info.value)
    kept = kv.events_since(cid, revision - 5)
    assert [e.revision for e in kept] == list(range(revision - 4, revision + 1))


def test_list_reads_objects_with_the_revision_they_were_read_at(cid):
    kv.create(cid, kv.Key("pods", "default", "b"), pod("b"))
    kv.create(cid, kv.Key("pods", "other", "a"), {**pod("a"), "metadata": {"name": "a", "namespace": "other"}})
    items, revision = kv.list_objects(cid, "pods")
    assert [i["metadata"]["name"] for i in items] == ["b", "a"]
    assert revision == kv.current_revision(cid)
    items, _ = kv.list_objects(cid, "pods", "other")
    assert [i["metadata"]["namespace"] for i in items] == ["other"]


def test_a_postgresql_commit_waits_for_the_disk_unless_told_otherwise():
    """CLUSTERVIZ_PG_SYNCHRONOUS_COMMIT reaches every store session; ``on`` (PostgreSQL's default) unless set."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's setting")
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone() == (os.environ.get("CLUSTERVIZ_PG_SYNCHRONOUS_COMMIT", "on"),)


def _postgresql():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's setting")
    return connection


def test_a_postgresql_session_compresses_large_objects_with_lz4(cid):
    """pglz took about a third of the server's CPU on writes; CLUSTERVIZ_PG_TOAST_COMPRESSION changes it."""
    connection = _postgresql()
    big = {**pod("big"), "spec": {"containers": [{"name": f"c{i}", "image": f"nginx:{i}"} for i in range(200)]}}
    kv.create(cid, kv.Key("pods", "default", "big"), big)
    expected = os.environ.get("CLUSTERVIZ_PG_TOAST_COMPRESSION", "lz4")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_column_compression(data) FROM store_storedobject WHERE name = 'big'")
        assert cursor.fetchone() == (expected,)
        cursor.execute("SELECT pg_column_compression(object) FROM store_watchevent WHERE name = 'big'")
        assert cursor.fetchone() == (expected,)


def test_the_stores_statements_are_prepared_once_on_postgresql(cid):
    """Written often, the store's statements are parsed and planned once per connection, not per write."""
    connection = _postgresql()
    obj = kv.create(cid, kv.Key("pods", "default", "a"), pod("a"))
    for _ in range(6):
        obj = kv.update(cid, kv.Key("pods", "default", "a"), obj)
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = " ".join(row[0] for row in cursor.fetchall())
    assert 'UPDATE "store_storedobject"' in prepared
    assert 'INSERT INTO "store_watchevent"' in prepared


def test_a_clusters_id_is_looked_up_once_and_a_cluster_made_again_is_found_under_its_new_id(
    django_assert_num_queries,
):
    first = kv.create_cluster("again")
    assert kv.cluster_id("again") == first
    with django_assert_num_queries(0):
        assert kv.cluster_id("again") == first
    kv.create_cluster("between")  # so that the next "again" cannot get the first one's id back
    assert kv.delete_cluster("again")
    with pytest.raises(kv.ClusterNotFound):
        kv.cluster_id("again")
    second = kv.create_cluster("again")
    assert second != first
    assert kv.cluster_id("again") == second


def test_a_cluster_deleted_by_another_process_is_forgotten_once_the_store_finds_it_gone():
    from clusterviz.store.models import Cluster

    cid = kv.create_cluster("elsewhere")
    assert kv.cluster_id("elsewhere") == cid
    # As another process deletes it: this one's cached id is not told.
    Cluster.objects.filter(pk=cid).delete()
    with pytest.raises(kv.ClusterNotFound):
        kv.list_objects(kv.cluster_id("elsewhere"), "pods")
    with pytest.raises(kv.ClusterNotFound):
        kv.cluster_id("elsewhere")
