"""The Deployment controller: hash-named ReplicaSets, scaling, rolling and recreate rollouts, history."""

from __future__ import annotations

import re

from clusterviz.controllers import deployment_util as du
from clusterviz.controllers.util import is_pod_ready

from .helpers import Cluster, deployment


async def test_it_creates_a_replica_set_named_by_the_template_hash_with_three_pods(cluster: Cluster) -> None:
    stored = await cluster.kubectl.create(deployment())
    await cluster.settle()

    pod_hash = du.compute_hash(stored["spec"]["template"])
    rs = await cluster.kubectl.get("replicasets", f"myapp-{pod_hash}", "default")
    assert re.fullmatch(r"[bcdfghjklmnpqrstvwxz2456789]{6,10}", pod_hash)
    assert rs["spec"]["selector"]["matchLabels"] == {"app": "myapp", "pod-template-hash": pod_hash}
    assert rs["spec"]["template"]["metadata"]["labels"]["pod-template-hash"] == pod_hash
    assert rs["metadata"]["annotations"] == {
        "deployment.kubernetes.io/revision": "1",
        "deployment.kubernetes.io/desired-replicas": "3",
        "deployment.kubernetes.io/max-replicas": "4",
    }
    owner = rs["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"], owner["controller"], owner["blockOwnerDeletion"]) == (
        "Deployment",
        "myapp",
        True,
        True,
    )
    pods = await cluster.pods("app=myapp")
    assert len(pods) == 3
    assert all(
        re.fullmatch(rf"myapp-{pod_hash}-[bcdfghjklmnpqrstvwxz2456789]{{5}}", p["metadata"]["name"]) for p in pods
    )
    assert all(p["metadata"]["ownerReferences"][0]["name"] == rs["metadata"]["name"] for p in pods)

    d = await cluster.kubectl.get("deployments", "myapp", "default")
    assert d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
    assert {
        k: d["status"].get(k)
        for k in ("observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas")
    } == {"observedGeneration": 1, "replicas": 3, "updatedReplicas": 3, "readyReplicas": 3, "availableReplicas": 3}
    conditions = {c["type"]: c for c in d["status"]["conditions"]}
    assert (
        conditions["Available"]["status"],
        conditions["Available"]["reason"],
        conditions["Available"]["message"],
    ) == ("True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
    assert (conditions["Progressing"]["reason"], conditions["Progressing"]["message"]) == (
        "NewReplicaSetAvailable",
        f'ReplicaSet "myapp-{pod_hash}" has successfully progressed.',
    )

    scaling = await cluster.events("ScalingReplicaSet")
    assert [(e["message"], e["source"]["component"]) for e in scaling] == [
        (f"Scaled up replica set myapp-{pod_hash} from 0 to 3", "deployment-controller")
    ]
    created = await cluster.events("SuccessfulCreate")
    assert sorted(e["message"] for e in created) == sorted(f"Created pod: {p['metadata']['name']}" for p in pods)
    assert {e["source"]["component"] for e in created} == {"replicaset-controller"}


async def test_the_creation_flow_numbers_the_controller_managers_hops(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment())
    await cluster.settle()

    steps = [m.step for m in cluster.engine.trace if m.sender == "controller-manager" and m.verb == "create"]
    assert steps == [6] * 4  # one ReplicaSet, three Pods
    watched = [m.step for m in cluster.engine.trace if m.to == "controller-manager" and m.kind == "Deployment"]
    assert watched[0] == 5


async def test_it_scales_three_to_five_to_one(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment())
    await cluster.settle()
    rs_name = (await cluster.kubectl.list("replicasets", "default"))["items"][0]["metadata"]["name"]

    await cluster.kubectl.patch("deployments", "myapp", {"spec": {"replicas": 5}}, "default", sub="scale")
    await cluster.settle()
    assert len(await cluster.pods("app=myapp")) == 5
    rs = await cluster.kubectl.get("replicasets", rs_name, "default")
    assert rs["spec"]["replicas"] == 5
    assert rs["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] == "5"
    assert rs["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] == "7"

    await cluster.kubectl.patch("deployments", "myapp", {"spec": {"replicas": 1}}, "default", sub="scale")
    await cluster.settle()
    assert len(await cluster.pods("app=myapp")) == 1
    d = await cluster.kubectl.get("deployments", "myapp", "default")
    assert (d["status"]["replicas"], d["status"]["availableReplicas"], d["status"]["observedGeneration"]) == (1, 1, 3)
    messages = [e["message"] for e in await cluster.events("ScalingReplicaSet")]
    assert f"Scaled up replica set {rs_name} from 3 to 5" in messages
    assert f"Scaled down replica set {rs_name} from 5 to 1" in messages
    assert len(await cluster.events("SuccessfulDelete")) == 4


async def test_an_image_change_rolls_without_dropping_below_the_allowed_availability(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment(replicas=4))
    await cluster.settle()
    seen: list[tuple[int, int]] = []

    def watch(pods: list[dict]) -> None:
        mine = [p for p in pods if p["metadata"].get("labels", {}).get("app") == "myapp"]
        alive = [p for p in mine if not p["metadata"].get("deletionTimestamp")]
        seen.append((sum(1 for p in alive if is_pod_ready(p)), len(mine)))

    cluster.fake.observers.append(watch)
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "myapp", "image": "soscscs/myapp:v2"}]}}}}
    await cluster.kubectl.patch("deployments", "myapp", patch, "default", patch_type="strategic")
    await cluster.settle()

    # 4 replicas: maxUnavailable 25% -> 1, maxSurge 25% -> 1.
    assert min(ready for ready, _ in seen) >= 3
    assert max(total for _, total in seen) <= 5
    pods = await cluster.pods("app=myapp")
    assert len(pods) == 4 and all(p["spec"]["containers"][0]["image"] == "soscscs/myapp:v2" for p in pods)
    rss = {
        rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"]: rs
        for rs in (await cluster.kubectl.list("replicasets", "default"))["items"]
    }
    assert (rss["1"]["spec"]["replicas"], rss["2"]["spec"]["replicas"]) == (0, 4)
    d = await cluster.kubectl.get("deployments", "myapp", "default")
    assert d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    assert d["status"]["updatedReplicas"] == 4 and d["status"]["availableReplicas"] == 4
    progressing = next(c for c in d["status"]["conditions"] if c["type"] == "Progressing")
    assert progressing["reason"] == "NewReplicaSetAvailable"
    assert rss["2"]["metadata"]["name"] in progressing["message"]


async def test_scaling_mid_rollout_is_proportional(cluster: Cluster) -> None:
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 3, "maxUnavailable": 2}}
    await cluster.kubectl.create(deployment(replicas=10, strategy=strategy))
    await cluster.settle()
    for node in ("node01", "node02", "node03"):
        cluster.fake.stop_node(node)  # the new Pods never become ready: the rollout stalls
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "myapp", "image": "soscscs/myapp:v2"}]}}}}
    await cluster.kubectl.patch("deployments", "myapp", patch, "default", patch_type="strategic")
    await cluster.settle()
    sizes = {
        rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"]: rs["spec"]["replicas"]
        for rs in (await cluster.kubectl.list("replicasets", "default"))["items"]
    }
    assert sizes == {"1": 8, "2": 5}  # 13 = 10 + maxSurge; 8 = 10 - maxUnavailable still available

    await cluster.kubectl.patch("deployments", "myapp", {"spec": {"replicas": 20}}, "default", sub="scale")
    await cluster.settle()
    rss = (await cluster.kubectl.list("replicasets", "default"))["items"]
    sizes = {rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"]: rs["spec"]["replicas"] for rs in rss}
    assert sizes == {"1": 14, "2": 9}  # 23 = 20 + maxSurge, shared 8:5 (8 * 23/13 = 14.2, 5 * 23/13 = 8.8)
    assert {rs["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] for rs in rss} == {"23"}


async def test_recreate_scales_the_old_pods_away_before_starting_new_ones(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment(strategy={"type": "Recreate"}))
    await cluster.settle()
    overlap: list[bool] = []

    def watch(pods: list[dict]) -> None:
        images = {
            p["spec"]["containers"][0]["image"] for p in pods if p["metadata"].get("labels", {}).get("app") == "myapp"
        }
        overlap.append(len(images) > 1)

    cluster.fake.observers.append(watch)
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "myapp", "image": "soscscs/myapp:v2"}]}}}}
    await cluster.kubectl.patch("deployments", "myapp", patch, "default", patch_type="strategic")
    await cluster.settle()

    assert not any(overlap)
    pods = await cluster.pods("app=myapp")
    assert len(pods) == 3 and all(p["spec"]["containers"][0]["image"] == "soscscs/myapp:v2" for p in pods)
    messages = [e["message"] for e in await cluster.events("ScalingReplicaSet")]
    assert [m.split(" replica set ")[0] for m in messages] == ["Scaled up", "Scaled down", "Scaled up"]


async def test_old_replica_sets_beyond_the_revision_history_limit_are_deleted(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment(replicas=1, revisionHistoryLimit=1))
    await cluster.settle()
    for version in ("v2", "v3"):
        patch = {
            "spec": {"template": {"spec": {"containers": [{"name": "myapp", "image": f"soscscs/myapp:{version}"}]}}}
        }
        await cluster.kubectl.patch("deployments", "myapp", patch, "default", patch_type="strategic")
        await cluster.settle()

    revisions = sorted(
        rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"]
        for rs in (await cluster.kubectl.list("replicasets", "default"))["items"]
    )
    assert revisions == ["2", "3"]


async def test_rolling_back_reuses_the_old_replica_set_with_a_new_revision(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment(replicas=2))
    await cluster.settle()
    for version in ("v2", "v1"):
        patch = {
            "spec": {"template": {"spec": {"containers": [{"name": "myapp", "image": f"soscscs/myapp:{version}"}]}}}
        }
        await cluster.kubectl.patch("deployments", "myapp", patch, "default", patch_type="strategic")
        await cluster.settle()

    rss = (await cluster.kubectl.list("replicasets", "default"))["items"]
    assert len(rss) == 2
    first = next(rs for rs in rss if rs["spec"]["template"]["spec"]["containers"][0]["image"].endswith(":v1"))
    assert first["spec"]["replicas"] == 2
    assert first["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3"
    assert first["metadata"]["annotations"]["deployment.kubernetes.io/revision-history"] == "1"


async def test_a_paused_deployment_does_not_roll_until_resumed(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment(replicas=2))
    await cluster.settle()
    await cluster.kubectl.patch("deployments", "myapp", {"spec": {"paused": True}}, "default")
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "myapp", "image": "soscscs/myapp:v2"}]}}}}
    await cluster.kubectl.patch("deployments", "myapp", patch, "default", patch_type="strategic")
    await cluster.settle()
    assert len((await cluster.kubectl.list("replicasets", "default"))["items"]) == 1
    d = await cluster.kubectl.get("deployments", "myapp", "default")
    progressing = next(c for c in d["status"]["conditions"] if c["type"] == "Progressing")
    assert (progressing["status"], progressing["reason"], progressing["message"]) == (
        "Unknown",
        "DeploymentPaused",
        "Deployment is paused",
    )

    await cluster.kubectl.patch("deployments", "myapp", {"spec": {"paused": False}}, "default")
    await cluster.settle()
    pods = await cluster.pods("app=myapp")
    assert len(pods) == 2 and {p["spec"]["containers"][0]["image"] for p in pods} == {"soscscs/myapp:v2"}


def test_the_hash_is_fnv_based_and_safely_encoded() -> None:
    assert du.safe_encode("0123456789") == "456789bcdf"
    assert du.fnv32a(b"") == 0x811C9DC5 and du.fnv32a(b"a") == 0xE40C292C
    template = {"metadata": {"labels": {"app": "myapp"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}
    assert du.compute_hash(template) == du.compute_hash({"spec": template["spec"], "metadata": template["metadata"]})
    assert du.compute_hash(template, 1) != du.compute_hash(template)


def test_surge_rounds_up_and_unavailability_rounds_down() -> None:
    d = deployment(
        replicas=10, strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}
    )
    assert (du.max_surge(d), du.max_unavailable(d)) == (3, 2)
    d["spec"]["strategy"]["rollingUpdate"] = {"maxSurge": 0, "maxUnavailable": "10%"}
    d["spec"]["replicas"] = 5
    assert (du.max_surge(d), du.max_unavailable(d)) == (0, 1)  # never both zero
