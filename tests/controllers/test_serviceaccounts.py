"""The service account controller: a ``default`` ServiceAccount in every namespace, brought back if deleted."""

from __future__ import annotations

from .helpers import Cluster


async def names(cluster: Cluster, namespace: str = "") -> list[tuple[str, str]]:
    listed = await cluster.kubectl.list("serviceaccounts", namespace)
    return sorted((a["metadata"]["namespace"], a["metadata"]["name"]) for a in listed["items"])


async def test_every_namespace_of_a_new_cluster_has_a_default_account(cluster: Cluster) -> None:
    assert await names(cluster) == [
        ("default", "default"),
        ("kube-node-lease", "default"),
        ("kube-public", "default"),
        ("kube-system", "default"),
    ]


async def test_a_new_namespace_gets_its_default_account(cluster: Cluster) -> None:
    await cluster.kubectl.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}})
    await cluster.settle()
    assert await names(cluster, "team-a") == [("team-a", "default")]
    creators = {m.sender for m in cluster.engine.trace if m.kind == "ServiceAccount" and m.verb == "create"}
    assert creators == {"controller-manager"}


async def test_a_deleted_default_account_comes_back_and_others_stay_deleted(cluster: Cluster) -> None:
    account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "builder", "namespace": "default"}}
    await cluster.kubectl.create(account)
    await cluster.settle()
    old_uid = (await cluster.kubectl.get("serviceaccounts", "default", "default"))["metadata"]["uid"]
    await cluster.kubectl.delete("serviceaccounts", "default", "default")
    await cluster.kubectl.delete("serviceaccounts", "builder", "default")
    await cluster.settle()
    assert await names(cluster, "default") == [("default", "default")]
    assert (await cluster.kubectl.get("serviceaccounts", "default", "default"))["metadata"]["uid"] != old_uid
