"""The endpoints controller: a Service's Endpoints follow its selector and its Pods' readiness."""

from __future__ import annotations

from typing import Any

from clusterviz.controllers.endpoints import repack

from .helpers import Cluster, deployment

GRACE = 40.0


def service(name: str = "myapp", target_port: Any = "http", selector: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": "default", "labels": {"team": "web"}},
        "spec": {
            "selector": selector if selector is not None else {"app": name},
            "ports": [{"port": 8080, "targetPort": target_port, "protocol": "TCP"}],
        },
    }


async def addresses(cluster: Cluster, name: str = "myapp") -> tuple[set[str], set[str]]:
    """(ready Pod names, not-ready Pod names) listed in the Endpoints."""
    endpoints = await cluster.kubectl.get("endpoints", name, "default")
    ready, not_ready = set(), set()
    for subset in endpoints.get("subsets", []):
        ready |= {a["targetRef"]["name"] for a in subset.get("addresses", [])}
        not_ready |= {a["targetRef"]["name"] for a in subset.get("notReadyAddresses", [])}
    return ready, not_ready


async def test_endpoints_list_the_ready_pods_with_the_resolved_port(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment())
    await cluster.kubectl.create(service())
    await cluster.settle()

    endpoints = await cluster.kubectl.get("endpoints", "myapp", "default")
    pods = {p["metadata"]["name"]: p for p in await cluster.pods("app=myapp")}
    assert endpoints["metadata"]["labels"] == {"team": "web"}
    [subset] = endpoints["subsets"]
    assert subset["ports"] == [{"port": 80, "protocol": "TCP"}]  # targetPort "http" is containerPort 80
    assert {a["targetRef"]["name"] for a in subset["addresses"]} == set(pods)
    for address in subset["addresses"]:
        pod = pods[address["targetRef"]["name"]]
        assert address["ip"] == pod["status"]["podIP"]
        assert address["nodeName"] == pod["spec"]["nodeName"]
        assert address["targetRef"] == {
            "kind": "Pod",
            "namespace": "default",
            "name": pod["metadata"]["name"],
            "uid": pod["metadata"]["uid"],
        }
    assert [a["ip"] for a in subset["addresses"]] == sorted(a["ip"] for a in subset["addresses"])


async def test_endpoints_follow_readiness_and_scaling(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment())
    await cluster.kubectl.create(service(target_port=80))
    await cluster.settle()
    victim = (await cluster.pods("app=myapp"))[0]["metadata"]["name"]
    cluster.fake.held.add(victim)

    not_ready = {"status": {"conditions": [{"type": "Ready", "status": "False"}]}}
    await cluster.kubectl.patch("pods", victim, not_ready, "default", patch_type="strategic", sub="status")
    await cluster.settle()
    ready, waiting = await addresses(cluster)
    assert victim in waiting and victim not in ready and len(ready) == 2

    await cluster.kubectl.patch("deployments", "myapp", {"spec": {"replicas": 5}}, "default", sub="scale")
    await cluster.settle()
    ready, waiting = await addresses(cluster)
    assert len(ready) == 4 and waiting == {victim}

    await cluster.kubectl.patch("deployments", "myapp", {"spec": {"replicas": 1}}, "default", sub="scale")
    await cluster.settle()
    ready, waiting = await addresses(cluster)
    assert len(ready | waiting) == 1
    assert ready | waiting == {p["metadata"]["name"] for p in await cluster.pods("app=myapp")}


async def test_endpoints_follow_a_node_failure(cluster: Cluster) -> None:
    cluster.ctx.settings.pod_eviction_timeout = 30.0
    await cluster.kubectl.create(deployment())
    await cluster.kubectl.create(service())
    await cluster.settle()

    cluster.fake.stop_node("node01")
    await cluster.settle(at_least=GRACE + 10)
    ready, waiting = await addresses(cluster)
    assert ready == {p["metadata"]["name"] for p in await cluster.pods("app=myapp")}
    assert not waiting
    assert all(p["spec"]["nodeName"] != "node01" for p in await cluster.pods("app=myapp"))


async def test_services_without_a_selector_are_left_alone(cluster: Cluster) -> None:
    manual = service("external")
    del manual["spec"]["selector"]
    await cluster.kubectl.create(manual)
    await cluster.settle()
    assert await cluster.kubectl.get_or_none("endpoints", "external", "default") is None
    # The kubernetes Service has no selector either: its Endpoints are the API server's, left as it wrote them.
    endpoints = await cluster.kubectl.get_or_none("endpoints", "kubernetes", "default")
    assert endpoints is not None
    assert endpoints["subsets"] == [{"addresses": [{"ip": "192.168.49.2"}],
                                     "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]}]


async def test_deleting_the_service_deletes_its_endpoints(cluster: Cluster) -> None:
    await cluster.kubectl.create(service())
    await cluster.settle()
    assert await cluster.kubectl.get_or_none("endpoints", "myapp", "default") is not None
    await cluster.kubectl.delete("services", "myapp", "default")
    await cluster.settle()
    assert await cluster.kubectl.get_or_none("endpoints", "myapp", "default") is None


def test_repacking_groups_addresses_by_their_ports() -> None:
    a = {"ip": "10.0.0.2", "targetRef": {"uid": "a"}}
    b = {"ip": "10.0.0.1", "targetRef": {"uid": "b"}}
    http, metrics = (
        {"name": "http", "port": 80, "protocol": "TCP"},
        {"name": "metrics", "port": 9090, "protocol": "TCP"},
    )
    subsets = repack([(a, True, http), (a, True, metrics), (b, False, http), (b, True, metrics)])
    assert subsets == [
        {"addresses": [a], "notReadyAddresses": [b], "ports": [http]},
        {"addresses": [b, a], "ports": [metrics]},
    ] or subsets == [
        {"addresses": [b, a], "ports": [metrics]},
        {"addresses": [a], "notReadyAddresses": [b], "ports": [http]},
    ]
