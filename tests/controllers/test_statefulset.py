"""The StatefulSet controller with the real scheduler and kubelets, in fast-forward on the demo cluster."""

from __future__ import annotations

import copy
from typing import Any

from clusterviz.api.client import Client
from clusterviz.api.informer import Handler
from clusterviz.controllers.util import is_pod_ready

Obj = dict[str, Any]

SERVICE: Obj = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "nginx", "namespace": "default"},
    "spec": {"clusterIP": "None", "selector": {"app": "nginx"}, "ports": [{"port": 80}]},
}
STATEFUL_SET: Obj = {
    "apiVersion": "apps/v1",
    "kind": "StatefulSet",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {
        "serviceName": "nginx",
        "replicas": 3,
        "selector": {"matchLabels": {"app": "nginx"}},
        "template": {
            "metadata": {"labels": {"app": "nginx"}},
            "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]},
        },
    },
}


def stateful_set(**spec: Any) -> Obj:
    body = copy.deepcopy(STATEFUL_SET)
    body["spec"].update(spec)
    return body


async def web_pods(client: Client) -> dict[str, Obj]:
    items = (await client.list("pods", "default", label_selector="app=nginx"))["items"]
    return {p["metadata"]["name"]: p for p in items if not p["metadata"].get("deletionTimestamp")}


def watch_pods(sim: Any) -> list[tuple[str, str, dict[str, bool]]]:
    """(event, pod, readiness of every web Pod in the cache then) for each change to a web Pod."""
    pods = sim.components["controller-manager"].informers["pods"]
    seen: list[tuple[str, str, dict[str, bool]]] = []

    def note(kind: str, pod: Obj) -> None:
        if pod["metadata"]["name"].startswith("web-"):
            ready = {
                p["metadata"]["name"]: is_pod_ready(p) for p in pods.items() if p["metadata"]["name"].startswith("web-")
            }
            seen.append((kind, pod["metadata"]["name"], ready))

    pods.add_handler(
        Handler(lambda p: note("ADDED", p), lambda old, new: note("MODIFIED", new), lambda p: note("DELETED", p))
    )
    return seen


async def events_of(client: Client) -> list[tuple[str, str]]:
    items = (await client.list("events", "default"))["items"]
    return [(e["reason"], e["message"]) for e in items if e["involvedObject"]["kind"] == "StatefulSet"]


async def test_ordered_ready_makes_each_pod_only_once_the_one_before_is_ready(sim):
    client = Client("demo", "kubectl")
    seen = watch_pods(sim)
    await client.create(SERVICE)
    await client.create(stateful_set())
    await sim.engine.until_settled()
    added = [(name, ready) for kind, name, ready in seen if kind == "ADDED"]
    assert [name for name, _ in added] == ["web-0", "web-1", "web-2"]
    assert added[1][1]["web-0"] is True and added[2][1]["web-1"] is True
    pods = await web_pods(client)
    assert sorted(pods) == ["web-0", "web-1", "web-2"]
    for ordinal, (name, pod) in enumerate(sorted(pods.items())):
        assert pod["spec"]["hostname"] == name and pod["spec"]["subdomain"] == "nginx"
        assert pod["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"] == name
        assert pod["metadata"]["labels"]["apps.kubernetes.io/pod-index"] == str(ordinal)
        assert pod["metadata"]["generateName"] == "web-"
        assert pod["metadata"]["ownerReferences"][0]["kind"] == "StatefulSet"
        assert pod["status"]["phase"] == "Running"
    sts = await client.get("statefulsets", "web", "default")
    revision = sts["status"]["updateRevision"]
    assert {p["metadata"]["labels"]["controller-revision-hash"] for p in pods.values()} == {revision}
    assert sts["status"] == {
        "observedGeneration": 1,
        "replicas": 3,
        "readyReplicas": 3,
        "currentReplicas": 3,
        "updatedReplicas": 3,
        "availableReplicas": 3,
        "currentRevision": revision,
        "updateRevision": revision,
        "collisionCount": 0,
    }
    assert ("SuccessfulCreate", "create Pod web-0 in StatefulSet web successful") in await events_of(client)


async def test_scale_down_removes_the_highest_ordinal_first_one_at_a_time(sim):
    client = Client("demo", "kubectl")
    await client.create(stateful_set())
    await sim.engine.until_settled()
    seen = watch_pods(sim)
    sts = await client.get("statefulsets", "web", "default")
    sts["spec"]["replicas"] = 1
    await client.update(sts)
    await sim.engine.until_settled()
    deleted = [name for kind, name, _ in seen if kind == "DELETED"]
    assert deleted == ["web-2", "web-1"]
    # web-1 is asked to go only once web-2 is gone.
    assert "web-2" not in next(ready for kind, name, ready in seen if name == "web-1")
    assert sorted(await web_pods(client)) == ["web-0"]
    messages = [m for r, m in await events_of(client) if r == "SuccessfulDelete"]
    assert messages == [
        "delete Pod web-2 in StatefulSet web successful",
        "delete Pod web-1 in StatefulSet web successful",
    ]


async def test_parallel_makes_every_pod_at_once(sim):
    client = Client("demo", "kubectl")
    seen = watch_pods(sim)
    await client.create(stateful_set(podManagementPolicy="Parallel"))
    await sim.engine.until_settled()
    added = [(name, ready) for kind, name, ready in seen if kind == "ADDED"]
    assert sorted(name for name, _ in added) == ["web-0", "web-1", "web-2"]
    # web-2 appeared before any of them was ready.
    assert not any(added[-1][1].values())


async def test_rolling_update_goes_from_the_highest_ordinal_down_to_the_partition(sim):
    client = Client("demo", "kubectl")
    await client.create(stateful_set(updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 1}}))
    await sim.engine.until_settled()
    seen = watch_pods(sim)
    sts = await client.get("statefulsets", "web", "default")
    old_revision = sts["status"]["currentRevision"]
    sts["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28"
    await client.update(sts)
    await sim.engine.until_settled()
    assert [name for kind, name, _ in seen if kind == "DELETED"] == ["web-2", "web-1"]
    pods = await web_pods(client)
    images = {name: p["spec"]["containers"][0]["image"] for name, p in pods.items()}
    assert images == {"web-0": "nginx:1.27", "web-1": "nginx:1.28", "web-2": "nginx:1.28"}
    sts = await client.get("statefulsets", "web", "default")
    new_revision = sts["status"]["updateRevision"]
    assert new_revision != old_revision and sts["status"]["currentRevision"] == old_revision
    assert sts["status"]["updatedReplicas"] == 2 and sts["status"]["currentReplicas"] == 1
    assert pods["web-0"]["metadata"]["labels"]["controller-revision-hash"] == old_revision
    # Partition 0 finishes the rollout: web-0 too, and the current revision becomes the new one.
    sts["spec"]["updateStrategy"]["rollingUpdate"]["partition"] = 0
    await client.update(sts)
    await sim.engine.until_settled()
    sts = await client.get("statefulsets", "web", "default")
    assert sts["status"]["currentRevision"] == new_revision == sts["status"]["updateRevision"]
    assert sts["status"]["currentReplicas"] == 3 and sts["status"]["updatedReplicas"] == 3
    revisions = sorted(r["revision"] for r in (await client.list("controllerrevisions", "default"))["items"])
    assert revisions == [1, 2]


async def test_a_deleted_pod_comes_back_with_the_same_name(sim):
    client = Client("demo", "kubectl")
    await client.create(stateful_set(replicas=2))
    await sim.engine.until_settled()
    uid = (await client.get("pods", "web-1", "default"))["metadata"]["uid"]
    await client.delete("pods", "web-1", "default")
    await sim.engine.until_settled()
    pod = await client.get("pods", "web-1", "default")
    assert pod["metadata"]["uid"] != uid and pod["status"]["phase"] == "Running"


async def test_deleting_the_set_collects_its_pods_and_revisions(sim):
    client = Client("demo", "kubectl")
    await client.create(stateful_set())
    await sim.engine.until_settled()
    await client.delete("statefulsets", "web", "default")
    await sim.engine.until_settled()
    assert await web_pods(client) == {}
    assert (await client.list("controllerrevisions", "default"))["items"] == []


async def test_the_headless_service_names_each_pod_in_its_endpoints(sim):
    # The hostname in each address is what gives web-<n>.nginx.default.svc.cluster.local its record.
    client = Client("demo", "kubectl")
    await client.create(SERVICE)
    await client.create(stateful_set())
    await sim.engine.until_settled()
    endpoints = await client.get("endpoints", "nginx", "default")
    addresses = [a for subset in endpoints["subsets"] for a in subset["addresses"]]
    assert sorted((a["hostname"], a["targetRef"]["name"]) for a in addresses) == [
        ("web-0", "web-0"),
        ("web-1", "web-1"),
        ("web-2", "web-2"),
    ]


async def test_on_delete_replaces_a_pod_only_when_it_is_deleted(sim):
    client = Client("demo", "kubectl")
    await client.create(stateful_set(replicas=2, updateStrategy={"type": "OnDelete"}))
    await sim.engine.until_settled()
    sts = await client.get("statefulsets", "web", "default")
    sts["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28"
    await client.update(sts)
    await sim.engine.until_settled()
    images = {n: p["spec"]["containers"][0]["image"] for n, p in (await web_pods(client)).items()}
    assert images == {"web-0": "nginx:1.27", "web-1": "nginx:1.27"}
    await client.delete("pods", "web-0", "default")
    await sim.engine.until_settled()
    images = {n: p["spec"]["containers"][0]["image"] for n, p in (await web_pods(client)).items()}
    assert images == {"web-0": "nginx:1.28", "web-1": "nginx:1.27"}
    status = (await client.get("statefulsets", "web", "default"))["status"]
    assert status["updatedReplicas"] == 1 and status["currentReplicas"] == 1
    assert status["currentRevision"] != status["updateRevision"]
