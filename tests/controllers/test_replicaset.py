"""The ReplicaSet and ReplicationController controllers: replica counts, expectations, adoption, release."""

from __future__ import annotations

import re
from typing import Any

from clusterviz.api import errors
from clusterviz.api.client import Client
from clusterviz.api.informer import Handler
from clusterviz.controllers.replicaset import REPLICA_SET, ReplicaSetController

from .helpers import Cluster

SUFFIX = "[bcdfghjklmnpqrstvwxz2456789]{5}"


def replication_controller(name: str = "mysql", replicas: int = 1) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"app": name},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": name, "image": "mysql:5.7"}]},
            },
        },
    }


def replica_set(name: str = "frontend", replicas: int = 2) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"tier": name}},
            "template": {
                "metadata": {"labels": {"tier": name}},
                "spec": {"containers": [{"name": name, "image": "nginx:1.25"}]},
            },
        },
    }


def rs_controller(cluster: Cluster) -> ReplicaSetController:
    return next(c for c in cluster.cm.controllers if isinstance(c, ReplicaSetController) and c.kind is REPLICA_SET)


async def test_a_replication_controller_mysql_scales_from_one_to_two(cluster: Cluster) -> None:
    await cluster.kubectl.create(replication_controller())
    await cluster.settle()
    pods = await cluster.pods("app=mysql")
    assert len(pods) == 1
    assert re.fullmatch(f"mysql-{SUFFIX}", pods[0]["metadata"]["name"])
    assert pods[0]["metadata"]["generateName"] == "mysql-"
    ref = pods[0]["metadata"]["ownerReferences"]
    assert [(r["apiVersion"], r["kind"], r["name"], r["controller"], r["blockOwnerDeletion"]) for r in ref] == [
        ("v1", "ReplicationController", "mysql", True, True)
    ]

    await cluster.kubectl.patch("replicationcontrollers", "mysql", {"spec": {"replicas": 2}}, "default", sub="scale")
    await cluster.settle()
    assert len(await cluster.pods("app=mysql")) == 2
    rc = await cluster.kubectl.get("replicationcontrollers", "mysql", "default")
    assert rc["status"] == {
        "replicas": 2,
        "fullyLabeledReplicas": 2,
        "readyReplicas": 2,
        "availableReplicas": 2,
        "observedGeneration": 2,
    }
    created = await cluster.events("SuccessfulCreate")
    assert len(created) == 2 and {e["source"]["component"] for e in created} == {"replication-controller"}


async def test_watch_events_delivered_twice_create_no_duplicate_pods(cluster: Cluster) -> None:
    controller = rs_controller(cluster)
    pods = cluster.cm.informers["pods"]
    # Deliver every Pod event to the ReplicaSet controller twice, as a replayed watch would.
    mine = next(h for h in pods.handlers if getattr(h.on_add, "__self__", None) is controller)
    pods.handlers.append(Handler(mine.on_add, mine.on_update, mine.on_delete))

    await cluster.kubectl.create(replica_set(replicas=3))
    await cluster.settle()
    await cluster.kubectl.patch("replicasets", "frontend", {"spec": {"replicas": 7}}, "default", sub="scale")
    await cluster.settle()
    await cluster.kubectl.patch("replicasets", "frontend", {"spec": {"replicas": 2}}, "default", sub="scale")
    await cluster.settle()

    assert len(cluster.pod_creations()) == 7
    assert len(await cluster.pods("tier=frontend")) == 2
    assert controller.expectations.pending("default/frontend") == (0, 0)


async def test_it_waits_for_its_own_creations_before_counting_again(cluster: Cluster) -> None:
    controller = rs_controller(cluster)
    await cluster.kubectl.create(replica_set(replicas=2))
    await cluster.settle()
    # Pretend a creation is still on its way: the controller must not act on its cache meanwhile.
    controller.expectations.expect_creation("default/frontend", "default/frontend-zzzzz")
    await cluster.kubectl.patch("replicasets", "frontend", {"spec": {"replicas": 4}}, "default", sub="scale")
    await cluster.settle()
    assert len(await cluster.pods("tier=frontend")) == 2

    controller.expectations.creation_observed("default/frontend", "default/frontend-zzzzz")
    controller.worker.add("default/frontend")
    await cluster.settle()
    assert len(await cluster.pods("tier=frontend")) == 4


async def test_it_adopts_a_matching_orphan_and_releases_a_pod_that_stops_matching(cluster: Cluster) -> None:
    orphan = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "stray", "namespace": "default", "labels": {"tier": "frontend"}},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]},
    }
    await cluster.kubectl.create(orphan)
    await cluster.kubectl.create(replica_set(replicas=2))
    await cluster.settle()
    pods = await cluster.pods("tier=frontend")
    assert len(pods) == 2
    stray = await cluster.kubectl.get("pods", "stray", "default")
    assert stray["metadata"]["ownerReferences"][0]["name"] == "frontend"

    await cluster.kubectl.patch("pods", "stray", {"metadata": {"labels": {"tier": "debug"}}}, "default")
    await cluster.settle()
    stray = await cluster.kubectl.get("pods", "stray", "default")
    assert not stray["metadata"].get("ownerReferences")
    assert len(await cluster.pods("tier=frontend")) == 2


async def test_scaling_down_deletes_unscheduled_and_not_ready_pods_first(cluster: Cluster) -> None:
    await cluster.kubectl.create(replica_set(replicas=2))
    await cluster.settle()
    running = {p["metadata"]["name"] for p in await cluster.pods("tier=frontend")}
    cluster.fake.stop_node("node01")
    cluster.fake.stop_node("node02")
    cluster.fake.stop_node("node03")  # new Pods stay unscheduled
    await cluster.kubectl.patch("replicasets", "frontend", {"spec": {"replicas": 4}}, "default", sub="scale")
    await cluster.settle()
    await cluster.kubectl.patch("replicasets", "frontend", {"spec": {"replicas": 2}}, "default", sub="scale")
    await cluster.settle()
    assert {p["metadata"]["name"] for p in await cluster.pods("tier=frontend")} == running
    deleted = [e["message"] for e in await cluster.events("SuccessfulDelete")]
    assert len(deleted) == 2 and all(m.removeprefix("Deleted pod: ") not in running for m in deleted)


async def test_a_failing_creation_is_reported_as_replica_failure(cluster: Cluster, monkeypatch: Any) -> None:
    controller = rs_controller(cluster)

    class Refusing(Client):
        async def create(self, obj: dict[str, Any], namespace: str = "", **query: str) -> dict[str, Any]:
            raise errors.forbidden('pods "x" is forbidden: exceeded quota: compute-resources')

    monkeypatch.setattr(controller, "client", Refusing("demo", "controller-manager"))
    await cluster.kubectl.create(replica_set(replicas=2))
    await cluster.settle()

    stored = await cluster.kubectl.get("replicasets", "frontend", "default")
    failure = next(c for c in stored["status"]["conditions"] if c["type"] == "ReplicaFailure")
    assert (failure["status"], failure["reason"], failure["message"]) == (
        "True",
        "FailedCreate",
        'pods "x" is forbidden: exceeded quota: compute-resources',
    )
    failed = await cluster.events("FailedCreate")
    assert failed[0]["type"] == "Warning"
    assert failed[0]["message"] == 'Error creating: pods "x" is forbidden: exceeded quota: compute-resources'
    assert controller.expectations.pending("default/frontend") == (0, 0)


async def test_pods_count_as_available_only_after_min_ready_seconds(cluster: Cluster) -> None:
    rs = replica_set(replicas=2)
    rs["spec"]["minReadySeconds"] = 30
    await cluster.kubectl.create(rs)
    await cluster.settle()
    stored = await cluster.kubectl.get("replicasets", "frontend", "default")
    assert (stored["status"]["readyReplicas"], stored["status"]["availableReplicas"]) == (2, 2)
    for pod in await cluster.pods("tier=frontend"):
        since = cluster.cm.ready_since(pod)
        assert since is not None and cluster.engine.now >= since + 30


async def test_the_status_counts_follow_every_kind_of_pod_change(cluster: Cluster) -> None:
    # After its first sync the controller re-examines only the Pods that changed: every kind of change
    # must still show in the counts exactly as a count of every Pod would.
    rs = replica_set(replicas=4)
    rs["spec"]["template"]["metadata"]["labels"]["track"] = "stable"
    created = await cluster.kubectl.create(rs)
    await cluster.settle()
    uid = created["metadata"]["uid"]

    async def counts() -> tuple[dict[str, int], dict[str, int]]:
        """(the ReplicaSet's status counts, the same counted from its Pods)."""
        status = (await cluster.kubectl.get("replicasets", "frontend", "default"))["status"]
        pods = [
            p for p in await cluster.pods("tier=frontend")
            if p["status"].get("phase") not in ("Succeeded", "Failed")
            and any(r.get("uid") == uid and r.get("controller") for r in p["metadata"].get("ownerReferences", []))
        ]
        counted = {
            "replicas": len(pods),
            "fullyLabeledReplicas": sum(p["metadata"]["labels"].get("track") == "stable" for p in pods),
            "readyReplicas": sum(
                any(c["type"] == "Ready" and c["status"] == "True" for c in p["status"].get("conditions", []))
                for p in pods
            ),
        }
        return {field: status.get(field, 0) for field in counted}, counted

    first, second, third, fourth = sorted(p["metadata"]["name"] for p in await cluster.pods("tier=frontend"))
    cluster.fake.held.update((first, second))
    not_ready = {"status": {"conditions": [{"type": "Ready", "status": "False"}]}}
    await cluster.kubectl.patch("pods", first, not_ready, "default", patch_type="strategic", sub="status")
    await cluster.settle()
    status, counted = await counts()
    assert status == counted == {"replicas": 4, "fullyLabeledReplicas": 4, "readyReplicas": 3}

    # A label the template sets but the selector does not ask for: still claimed, no longer fully labelled.
    await cluster.kubectl.patch("pods", second, {"metadata": {"labels": {"track": None}}}, "default")
    await cluster.settle()
    status, counted = await counts()
    assert status == counted == {"replicas": 4, "fullyLabeledReplicas": 3, "readyReplicas": 3}

    # A finished Pod stops counting and is replaced; a deleted one too.
    await cluster.kubectl.patch("pods", third, {"status": {"phase": "Failed"}}, "default", sub="status")
    await cluster.kubectl.delete("pods", fourth, "default")
    await cluster.settle()
    status, counted = await counts()
    assert status == counted == {"replicas": 4, "fullyLabeledReplicas": 3, "readyReplicas": 3}

    # Ready again, and a Pod that stops matching the selector is released and replaced.
    ready = {"status": {"conditions": [{"type": "Ready", "status": "True"}]}}
    await cluster.kubectl.patch("pods", first, ready, "default", patch_type="strategic", sub="status")
    await cluster.kubectl.patch("pods", second, {"metadata": {"labels": {"tier": "debug"}}}, "default")
    await cluster.settle()
    status, counted = await counts()
    assert status == counted == {"replicas": 4, "fullyLabeledReplicas": 4, "readyReplicas": 4}
