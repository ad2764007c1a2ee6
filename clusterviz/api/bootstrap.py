"""New clusters: the namespaces every cluster has, and nodes that register like kubelets do."""

from __future__ import annotations

import hashlib
from typing import Any

from asgiref.sync import async_to_sync

from clusterviz.kubelet import csi_node
from clusterviz.store import kv
from clusterviz.store.threads import in_thread

from . import clock, errors
from .addresses import API_SERVER_ADDRESS, node_address, pod_subnet
from .apiservices import local_api_services
from .client import Client
from .cluster_ca import root_ca_config_map
from .rbac_bootstrap import builtin_objects
from .storage_classes import built_in_storage_classes
from .validation.priorityclass import SYSTEM_PRIORITY_CLASSES

SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
KUBELET_VERSION = "v1.32.0"


def node_object(name: str, index: int, cpu: str = "4", memory: str = "8Gi", pods: int = 110,
                labels: dict[str, str] | None = None) -> dict[str, Any]:
    """A Ready Node as its kubelet registers it, with every status field clients expect."""
    digest = hashlib.sha256(name.encode()).hexdigest()
    now = clock.rfc3339()
    ip = node_address(index)
    subnet = pod_subnet(index)
    resources = {"cpu": cpu, "memory": memory, "pods": str(pods), "ephemeral-storage": "100Gi"}
    condition = {"lastHeartbeatTime": now, "lastTransitionTime": now}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "beta.kubernetes.io/os": "linux",
                "beta.kubernetes.io/arch": "amd64",
                **(labels or {}),
            },
            "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
        },
        # Past the cluster CIDR's last subnet a node has none, as node IPAM would leave it.
        "spec": {"podCIDR": subnet, "podCIDRs": [subnet]} if subnet else {},
        "status": {
            "capacity": dict(resources),
            "allocatable": dict(resources),
            "conditions": [
                {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory",
                 "message": "kubelet has sufficient memory available", **condition},
                {"type": "DiskPressure", "status": "False", "reason": "KubeletHasNoDiskPressure",
                 "message": "kubelet has no disk pressure", **condition},
                {"type": "PIDPressure", "status": "False", "reason": "KubeletHasSufficientPID",
                 "message": "kubelet has sufficient PID available", **condition},
                {"type": "Ready", "status": "True", "reason": "KubeletReady",
                 "message": "kubelet is posting ready status", **condition},
            ],
            "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "machineID": digest[:32],
                "systemUUID": f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}",
                "bootID": digest[32:64],
                "kernelVersion": "6.1.0-18-amd64",
                "osImage": "Debian GNU/Linux 12 (bookworm)",
                "containerRuntimeVersion": "containerd://1.7.24",
                "kubeletVersion": KUBELET_VERSION,
                "kubeProxyVersion": KUBELET_VERSION,
                "operatingSystem": "linux",
                "architecture": "amd64",
            },
            "images": [],
        },
    }


async def _unless_made(client: Client, obj: dict[str, Any]) -> None:
    """Create an object a controller also makes: a server already running the new cluster's engine may have
    made it first, which is no failure."""
    try:
        await client.create(obj)
    except errors.StatusError as exc:
        if exc.reason != "AlreadyExists":
            raise


async def create_cluster(name: str, nodes: int = 3, cpu: str = "4", memory: str = "8Gi", pods: int = 110) -> bool:
    """Create cluster ``name`` with its namespaces and ``nodes`` Ready nodes; False if it existed."""
    existing = await in_thread(kv.cluster_names)()
    if name in existing:
        return False
    await in_thread(kv.create_cluster)(name)
    client = Client(name, "kube-apiserver", simulated=False)
    for ns in SYSTEM_NAMESPACES:
        await client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        # What the service account controller and the root CA publisher of a running cluster have made
        # by the time anyone looks; they make the same for every namespace created later.
        await _unless_made(client, {"apiVersion": "v1", "kind": "ServiceAccount",
                                    "metadata": {"name": "default", "namespace": ns}})
        await _unless_made(client, root_ca_config_map(ns, name))
    # What the API server's post-start hook makes: the two system priority classes.
    for pc_name, (value, description) in SYSTEM_PRIORITY_CLASSES.items():
        await client.create({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                             "metadata": {"name": pc_name}, "value": value, "description": description})
    await client.create({
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "kubernetes", "namespace": "default",
                     "labels": {"component": "apiserver", "provider": "kubernetes"}},
        "spec": {"type": "ClusterIP", "clusterIP": "10.96.0.1",
                 "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}]},
    })
    # The API server keeps its own Service's Endpoints (the Service has no selector for a controller to follow).
    await client.create({
        "apiVersion": "v1", "kind": "Endpoints",
        "metadata": {"name": "kubernetes", "namespace": "default",
                     "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"}},
        "subsets": [{"addresses": [{"ip": API_SERVER_ADDRESS}],
                     "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]}],
    })
    # Since 1.19 it keeps the EndpointSlice of that Service too, the one kube-proxy and kubectl describe read.
    await client.create({
        "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
        "metadata": {"name": "kubernetes", "namespace": "default",
                     "labels": {"kubernetes.io/service-name": "kubernetes"}},
        "addressType": "IPv4",
        "endpoints": [{"addresses": [API_SERVER_ADDRESS], "conditions": {"ready": True}}],
        "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}],
    })
    # What the aggregator's autoregister controller makes: an APIService for each group version served here.
    for api_service in local_api_services():
        await client.create(api_service)
    for storage_class in built_in_storage_classes():
        await client.create(storage_class)
    # What the API server's RBAC post-start hook makes: the bootstrap roles and bindings.
    for obj in builtin_objects():
        await client.create(obj)
    for i in range(1, nodes + 1):
        node = await client.create(node_object(f"node{i:02d}", i, cpu, memory, pods))
        # Registered by its kubelet's CSI driver before anyone looks, as the node itself.
        await _unless_made(client, csi_node.csi_node(node))
    return True


def create_cluster_sync(name: str, nodes: int = 3, cpu: str = "4", memory: str = "8Gi", pods: int = 110) -> bool:
    """``create_cluster`` for synchronous callers (management commands, migrations)."""
    return async_to_sync(create_cluster)(name, nodes, cpu, memory, pods)


async def cluster_summaries(names: list[str] | None = None) -> list[dict[str, Any]]:
    """Each cluster (or each of ``names``) with its nodes (name, Ready) and Pod count, for the home page."""
    if names is None:
        names = await in_thread(kv.cluster_names)()
    summaries = []
    for name in names:
        client = Client(name, "dashboard", simulated=False)
        nodes = (await client.list("nodes"))["items"]
        pods = (await client.list("pods"))["items"]
        summaries.append({
            "name": name,
            "nodes": [
                {"name": n["metadata"]["name"],
                 "ready": any(c.get("type") == "Ready" and c.get("status") == "True"
                              for c in (n.get("status") or {}).get("conditions") or [])}
                for n in nodes
            ],
            "pods": len(pods),
        })
    return summaries
