"""Kubelets come and go with their Nodes, heartbeat through Leases, and stop and start on request."""

import ipaddress
import re

from clusterviz.kubelet import images

from .helpers import condition, events_of, kubectl, lease_renewed, let_time_pass, pinned_pod, pod, set_kubelet

NEW_NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "node04", "labels": {"disktype": "ssd"}},
    "spec": {"taints": [{"key": "dedicated", "value": "lesson", "effect": "NoSchedule"}]},
    "status": {
        "capacity": {"cpu": "8", "memory": "16Gi", "pods": "20"},
        "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "20"},
        "images": [{"names": ["docker.io/library/redis@sha256:" + "ab" * 32, "redis:7"], "sizeBytes": 45_000_000}],
    },
}
# What the node lifecycle controller writes when a node's heartbeats stop.
UNKNOWN = {
    "type": "Ready",
    "status": "Unknown",
    "reason": "NodeStatusUnknown",
    "message": "Kubelet stopped posting node status.",
}


async def test_every_node_renews_its_lease(sim):
    await sim.engine.until_settled()

    lease = await kubectl().get("leases", "node01", "kube-node-lease")
    assert lease["spec"]["holderIdentity"] == "node01"
    assert lease["spec"]["leaseDurationSeconds"] == 40
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", lease["spec"]["renewTime"])
    assert lease["metadata"]["ownerReferences"][0]["kind"] == "Node"


async def test_a_stopped_kubelet_stops_renewing_and_a_started_one_resumes(sim):
    await sim.engine.until_settled()
    await set_kubelet("node02", "stopped")
    await sim.engine.until_settled()
    stopped_at = await lease_renewed("node02")
    other = await lease_renewed("node01")

    await let_time_pass()
    await sim.engine.until_settled()
    assert await lease_renewed("node02") == stopped_at
    assert await lease_renewed("node01") > other

    await set_kubelet("node02", "running")
    await sim.engine.until_settled()
    assert await lease_renewed("node02") > stopped_at


async def test_a_stopped_kubelet_does_no_pod_work_until_started(sim):
    await set_kubelet("node02", "stopped")
    await sim.engine.until_settled()
    await kubectl().create(pinned_pod("late", node="node02"))
    await sim.engine.until_settled()
    assert (await pod("late"))["status"]["phase"] == "Pending"
    assert not [m for m in sim.engine.trace if m.to == "kubelet/node02" and m.name == "late"]

    await set_kubelet("node02", "running")
    await sim.engine.until_settled()
    assert (await pod("late"))["status"]["phase"] == "Running"


async def test_a_restarted_kubelet_posts_ready_when_its_node_was_marked_not_ready(sim):
    await set_kubelet("node03", "stopped")
    await kubectl().patch("nodes", "node03", {"status": {"conditions": [UNKNOWN]}}, sub="status")
    await sim.engine.until_settled()
    assert condition(await kubectl().get("nodes", "node03"), "Ready")["status"] != "True"

    await set_kubelet("node03", "running")
    await sim.engine.until_settled()
    ready = condition(await kubectl().get("nodes", "node03"), "Ready")
    assert (ready["status"], ready["reason"]) == ("True", "KubeletReady")
    messages = [e["message"] for e in await events_of("node03") if e["reason"] == "NodeReady"]
    assert "Node node03 status is now: NodeReady" in messages


async def test_a_node_created_through_the_api_joins_with_its_own_kubelet(sim):
    await kubectl().create(NEW_NODE)
    await kubectl().create(pinned_pod("on-new-node", node="node04", image="redis:7"))  # before it has a podCIDR
    await sim.engine.until_settled()

    node = await kubectl().get("nodes", "node04")
    assert condition(node, "Ready")["status"] == "True"
    assert node["status"]["capacity"] == NEW_NODE["status"]["capacity"]
    assert node["metadata"]["labels"]["disktype"] == "ssd"
    assert node["spec"]["taints"] == NEW_NODE["spec"]["taints"]
    assert node["status"]["images"] == NEW_NODE["status"]["images"]
    cidr = ipaddress.ip_network(node["spec"]["podCIDR"])
    assert cidr not in {ipaddress.ip_network(f"10.244.{i}.0/24") for i in (1, 2, 3)}

    status = (await pod("on-new-node"))["status"]
    assert status["phase"] == "Running"
    assert ipaddress.ip_address(status["podIP"]) in cidr
    reasons = [e["reason"] for e in await events_of("on-new-node")]
    assert reasons == ["Pulled", "Created", "Started"]  # the image it was created with counts as present
    assert status["containerStatuses"][0]["imageID"] == "docker.io/library/redis@sha256:" + "ab" * 32


async def test_a_deleted_node_loses_its_kubelet(sim):
    await sim.engine.until_settled()
    manager = sim.components["kubelets"]
    assert set(manager.kubelets) == {"node01", "node02", "node03"}

    await kubectl().delete("nodes", "node03")
    await sim.engine.until_settled()
    assert set(manager.kubelets) == {"node01", "node02"}
    assert "node03" not in manager.runtimes


async def test_images_pulled_on_one_node_are_reported_by_that_node_only(sim):
    await kubectl().create(pinned_pod("a", node="node01", image="busybox:1.36"))
    await kubectl().create(pinned_pod("b", node="node02", image="busybox:1.36"))
    await kubectl().create(pinned_pod("c", node="node02", image="redis:7"))
    await sim.engine.until_settled()

    def names(node):
        return [n for image in node["status"]["images"] for n in image["names"] if "@" not in n]

    assert names(await kubectl().get("nodes", "node01")) == ["busybox:1.36"]
    assert names(await kubectl().get("nodes", "node02")) == ["redis:7", "busybox:1.36"]  # biggest first
    assert images.size_bytes("redis:7") > images.size_bytes("busybox:1.36")


async def test_nodes_past_the_256th_still_register_with_a_pod_subnet_and_an_address_of_their_own(sim):
    from clusterviz.api.addresses import POD_SUBNETS, pod_subnet
    from clusterviz.api.bootstrap import node_object

    # A cluster of a thousand nodes outgrows flannel's 10.244.0.0/16: the 256th node and on are accepted too.
    for index in (255, 256, 700, POD_SUBNETS - 1):
        await kubectl().create(node_object(f"node{index}", index))
    await sim.engine.until_settled()
    nodes = {node["metadata"]["name"]: node for node in (await kubectl().list("nodes"))["items"]}
    assert nodes["node256"]["spec"]["podCIDR"] == "10.245.0.0/24"
    assert nodes["node1023"]["spec"]["podCIDRs"] == ["10.247.255.0/24"]
    subnets = [ipaddress.ip_network(node["spec"]["podCIDR"]) for node in nodes.values()]
    assert len(set(subnets)) == len(subnets)
    assert all(subnet.subnet_of(ipaddress.ip_network("10.244.0.0/14")) for subnet in subnets)
    addresses = [node["status"]["addresses"][0]["address"] for node in nodes.values()]
    assert len(set(addresses)) == len(addresses) and all(ipaddress.ip_address(a) for a in addresses)
    # Past the cluster CIDR a node gets no subnet, as node IPAM leaves it.
    assert pod_subnet(POD_SUBNETS) is None and pod_subnet(0) is None
