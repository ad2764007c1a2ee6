"""The controller manager as a whole: shared informers, repeatable runs, surviving a restart."""

from __future__ import annotations

from clusterviz.api.bootstrap import create_cluster
from clusterviz.sim import registry

from .helpers import Cluster, deployment

IMAGE_V2 = {"spec": {"template": {"spec": {"containers": [{"name": "myapp", "image": "soscscs/myapp:v2"}]}}}}


def normalised(cluster: Cluster, since: int) -> list[tuple[object, ...]]:
    """The controller manager's requests after ``since``, object names replaced by their order of first appearance.

    Only its own requests: the gate fans watch events out over a set of
    watchers, so the order in which several components hear of the same
    write is not yet repeatable.
    """
    names: dict[str, int] = {}
    return [
        (m.verb, m.kind, names.setdefault(m.name, len(names)), m.step)
        for m in cluster.engine.trace
        if m.seq > since and m.sender == "controller-manager"
    ]


async def scenario(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment())
    await cluster.settle()
    await cluster.kubectl.patch("deployments", "myapp", {"spec": {"replicas": 5}}, "default", sub="scale")
    await cluster.settle()
    await cluster.kubectl.patch("deployments", "myapp", IMAGE_V2, "default", patch_type="strategic")
    await cluster.settle()


async def test_each_watch_event_reaches_the_controller_manager_once(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment(replicas=1))
    await cluster.settle()
    pod = (await cluster.pods("app=myapp"))[0]["metadata"]["name"]
    added = [m for m in cluster.engine.trace if m.to == "controller-manager" and m.verb == "watch added"]
    assert [m.kind for m in added if m.name == pod] == ["Pod"]
    assert [m.kind for m in added if m.name == "myapp"] == ["Deployment"]


async def test_the_same_scenario_gives_the_same_trace(cluster: Cluster) -> None:
    start = cluster.engine.last_seq
    await scenario(cluster)
    first = normalised(cluster, start)

    assert await create_cluster("twin")
    twin = Cluster(await registry.start("twin", mode="fast-forward"))
    twin.kubectl.cluster = "twin"
    await twin.settle()
    start = twin.engine.last_seq
    await scenario(twin)
    assert normalised(twin, start) == first


async def test_a_rollout_interrupted_by_a_restart_completes_without_duplicates(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment(replicas=4))
    await cluster.settle()
    await cluster.kubectl.patch("deployments", "myapp", IMAGE_V2, "default", patch_type="strategic")
    cluster.engine.set_mode("step")
    for _ in range(60):
        await cluster.engine.step()
    await registry.stop("demo")

    restarted = Cluster(await registry.start("demo", mode="fast-forward"))
    await restarted.settle()
    pods = await restarted.pods("app=myapp")
    assert len(pods) == 4
    assert {p["spec"]["containers"][0]["image"] for p in pods} == {"soscscs/myapp:v2"}
    rss = (await restarted.kubectl.list("replicasets", "default"))["items"]
    assert sorted(rs["spec"]["replicas"] for rs in rss) == [0, 4]
    assert sorted(rs["status"]["replicas"] for rs in rss) == [0, 4]
