"""metrics.k8s.io/v1beta1: what metrics-server would report, from a load the class sets.

No process uses CPU here, so each Pod's use is read from a knob:

- ``clusterviz.io/cpu-usage`` / ``clusterviz.io/memory-usage`` on a Pod: its containers' use,
  shared between them;
- ``clusterviz.io/load`` on a workload (Deployment, ReplicaSet, ReplicationController, StatefulSet,
  DaemonSet): the CPU its Pods use together, shared evenly by its Running Pods — so adding
  replicas lowers each Pod's share, as spreading a real load does;
- otherwise a quiet container: 1m of CPU, and the memory its image typically holds.

A node's use is its Running Pods' plus the system's. ``kubectl top`` and the
HorizontalPodAutoscaler read these, as they read metrics-server.
"""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery import labels
from clusterviz.apimachinery.quantity import QuantityError, parse_quantity
from clusterviz.apimachinery.unstructured import dict_or_empty
from clusterviz.kubelet.memory import container_memory_kib
from clusterviz.store import kv

from . import clock, errors, resources, virtual
from .handlers import _get, _list, cluster_of, not_found, ok
from .request import ApiRequest, ApiResponse, ResourcePath

GROUP, VERSION = "metrics.k8s.io", "v1beta1"
API_VERSION = f"{GROUP}/{VERSION}"
CPU_ANNOTATION = "clusterviz.io/cpu-usage"
LOAD_ANNOTATION = "clusterviz.io/load"
WINDOW = "30s"
IDLE_CPU_MILLI = 1
# The node's own daemons (kubelet, containerd, the system).
SYSTEM_CPU_MILLI, SYSTEM_MEMORY_KIB = 100, 600 * 1024
# Owner kind -> the plural its informer and store key use.
OWNERS = {"ReplicaSet": "replicasets.apps", "Deployment": "deployments.apps", "ReplicationController":
          "replicationcontrollers", "StatefulSet": "statefulsets.apps", "DaemonSet": "daemonsets.apps"}

NODE_METRICS = resources.Resource(GROUP, VERSION, "nodes", "NodeMetrics", False, (), (), ("get", "list"))
POD_METRICS = resources.Resource(GROUP, VERSION, "pods", "PodMetrics", True, (), (), ("get", "list"))


def register() -> None:
    """Serve the metrics API group."""
    for resource in (NODE_METRICS, POD_METRICS):
        resources.register(resource)
    virtual.register(NODE_METRICS, serve)
    virtual.register(POD_METRICS, serve)


async def serve(req: ApiRequest, rp: ResourcePath) -> ApiResponse:
    """get and list of NodeMetrics and PodMetrics."""
    if req.method not in ("GET", "HEAD") or req.flag("watch"):
        raise errors.method_not_allowed("watch" if req.flag("watch") else req.method.lower(), rp.resource.plural, GROUP)
    cid = await cluster_of(req)
    pods_resource = resources.lookup("", "v1", "pods")
    assert pods_resource is not None
    pods, _ = await _list(cid, pods_resource.key, rp.namespace or None)
    running = [p for p in pods if dict_or_empty(p.get("status")).get("phase") == "Running"]
    shares = await _load_shares(cid, running)
    now = clock.rfc3339()
    if rp.resource.kind == "PodMetrics":
        items = [_pod_metrics(p, shares, now) for p in running]
        kind = "PodMetricsList"
    else:
        nodes, _ = await _list(cid, "nodes", None)
        all_running = running if not rp.namespace else [
            p for p in (await _list(cid, pods_resource.key, None))[0]
            if dict_or_empty(p.get("status")).get("phase") == "Running"
        ]
        items = [_node_metrics(n, all_running, shares, now) for n in nodes]
        kind = "NodeMetricsList"
    selector = req.query.get("labelSelector", "")
    if selector:
        try:
            chosen = labels.parse_selector(selector)
        except labels.SelectorError as exc:
            raise errors.bad_request(f"unable to parse requirement: {exc}") from None
        items = [i for i in items if chosen.matches(i["metadata"].get("labels") or {})]
    if rp.name:
        found = next((i for i in items if i["metadata"]["name"] == rp.name), None)
        if found is None:
            raise not_found(rp)
        return ok(found)
    return ok({"kind": kind, "apiVersion": API_VERSION, "metadata": {}, "items": items})


async def _load_shares(cid: int, pods: list[dict[str, Any]]) -> dict[str, int]:
    """Pod uid -> its share (millicores) of its workload's load, for the Pods whose workload sets one."""
    cache: dict[tuple[str, str, str], dict[str, Any] | None] = {}
    groups: dict[tuple[str, str], tuple[int, list[str]]] = {}
    for pod in pods:
        found = await _load_of(cid, pod, cache)
        if found is not None:
            key, milli = found
            groups.setdefault(key, (milli, []))[1].append(str(dict_or_empty(pod.get("metadata")).get("uid")))
    shares: dict[str, int] = {}
    for milli, uids in groups.values():
        for uid in uids:
            shares[uid] = milli // len(uids)
    return shares


async def _load_of(
    cid: int, obj: dict[str, Any], cache: dict[tuple[str, str, str], dict[str, Any] | None]
) -> tuple[tuple[str, str], int] | None:
    """The nearest owner up the controller chain with a load annotation: (its identity, the load in millicores)."""
    namespace = str(dict_or_empty(obj.get("metadata")).get("namespace", ""))
    for _ in range(3):
        ref = next((r for r in dict_or_empty(obj.get("metadata")).get("ownerReferences") or []
                    if isinstance(r, dict) and r.get("controller")), None)
        if ref is None or ref.get("kind") not in OWNERS:
            return None
        key = (OWNERS[str(ref["kind"])], namespace, str(ref.get("name")))
        if key not in cache:
            cache[key] = await _get(cid, kv.Key(*key))
        owner = cache[key]
        if owner is None:
            return None
        load = dict_or_empty(dict_or_empty(owner.get("metadata")).get("annotations")).get(LOAD_ANNOTATION)
        if load is not None:
            milli = _milli(load)
            return ((key[0], f"{namespace}/{key[2]}"), milli) if milli is not None else None
        obj = owner
    return None


def _milli(value: Any) -> int | None:
    try:
        return max(parse_quantity(str(value)).milli_value(), 0)
    except QuantityError:
        return None


def _container_usage(pod: dict[str, Any], shares: dict[str, int]) -> list[tuple[str, int, int]]:
    """(container, millicores, KiB) for each container of a Running Pod."""
    meta = dict_or_empty(pod.get("metadata"))
    annotations = dict_or_empty(meta.get("annotations"))
    containers = [c for c in dict_or_empty(pod.get("spec")).get("containers") or [] if isinstance(c, dict)]
    if not containers:
        return []
    cpu = _milli(annotations[CPU_ANNOTATION]) if CPU_ANNOTATION in annotations else shares.get(str(meta.get("uid")))
    out = []
    for container in containers:
        each_cpu = cpu // len(containers) if cpu is not None else IDLE_CPU_MILLI
        out.append((str(container.get("name")), each_cpu, container_memory_kib(pod, container)))
    return out


def _pod_metrics(pod: dict[str, Any], shares: dict[str, int], now: str) -> dict[str, Any]:
    meta = dict_or_empty(pod.get("metadata"))
    return {
        "kind": "PodMetrics",
        "apiVersion": API_VERSION,
        "metadata": {"name": meta.get("name"), "namespace": meta.get("namespace"), "creationTimestamp": now,
                     "labels": dict_or_empty(meta.get("labels"))},
        "timestamp": now,
        "window": WINDOW,
        "containers": [
            {"name": name, "usage": {"cpu": f"{cpu}m", "memory": f"{memory}Ki"}}
            for name, cpu, memory in _container_usage(pod, shares)
        ],
    }


def _node_metrics(node: dict[str, Any], pods: list[dict[str, Any]], shares: dict[str, int], now: str) -> dict[str, Any]:
    name = dict_or_empty(node.get("metadata")).get("name")
    cpu, memory = SYSTEM_CPU_MILLI, SYSTEM_MEMORY_KIB
    for pod in pods:
        if dict_or_empty(pod.get("spec")).get("nodeName") == name:
            for _container, c, m in _container_usage(pod, shares):
                cpu, memory = cpu + c, memory + m
    return {
        "kind": "NodeMetrics",
        "apiVersion": API_VERSION,
        "metadata": {"name": name, "creationTimestamp": now, "labels": dict_or_empty(dict_or_empty(node.get("metadata")).get("labels"))},
        "timestamp": now,
        "window": WINDOW,
        "usage": {"cpu": f"{cpu}m", "memory": f"{memory}Ki"},
    }
