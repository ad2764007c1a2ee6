"""Small builders for Node and Pod objects (Kubernetes JSON) used by the scheduler tests."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from clusterviz.scheduler.cycle import schedule
from clusterviz.scheduler.decision import DecisionRecord
from clusterviz.scheduler.framework import Code, CycleState, Status
from clusterviz.scheduler.nodeinfo import PodInfo
from clusterviz.scheduler.profile import Profile, default_profile
from clusterviz.scheduler.snapshot import Snapshot

MiB = 1024 * 1024


def make_node(
    name: str,
    cpu: str = "4",
    memory: str = "8Gi",
    pods: str = "110",
    *,
    labels: Mapping[str, str] | None = None,
    taints: Sequence[Mapping[str, Any]] = (),
    images: Sequence[tuple[Sequence[str], int]] = (),
    unschedulable: bool = False,
    extra: Mapping[str, str] | None = None,
    hostname_label: bool = True,
) -> dict[str, Any]:
    """A Node with allocatable resources, the hostname label (unless turned off) and optional labels/taints/images."""
    allocatable = {"cpu": cpu, "memory": memory, "pods": pods, **(extra or {})}
    node_labels = {"kubernetes.io/hostname": name} if hostname_label else {}
    node: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {**node_labels, **(labels or {})}},
        "spec": {},
        "status": {"allocatable": allocatable, "capacity": dict(allocatable)},
    }
    if taints:
        node["spec"]["taints"] = list(taints)
    if unschedulable:
        node["spec"]["unschedulable"] = True
    if images:
        node["status"]["images"] = [{"names": list(names), "sizeBytes": size} for names, size in images]
    return node


def capacity_node(name: str, allocatable: Mapping[str, str], **kwargs: Any) -> dict[str, Any]:
    """A Node whose allocatable (and capacity) is exactly ``allocatable``, as upstream's ``MakeNode().Capacity``."""
    node = make_node(name, **kwargs)
    node["status"]["allocatable"] = dict(allocatable)
    node["status"]["capacity"] = dict(allocatable)
    return node


def container(
    name: str = "app",
    image: str = "nginx:1.25",
    requests: Mapping[str, str] | None = None,
    ports: Sequence[Mapping[str, Any]] = (),
    restart_policy: str | None = None,
) -> dict[str, Any]:
    """A container; ``requests`` None means no resources block at all."""
    c: dict[str, Any] = {"name": name, "image": image}
    if requests is not None:
        c["resources"] = {"requests": dict(requests)}
    if ports:
        c["ports"] = list(ports)
    if restart_policy:
        c["restartPolicy"] = restart_policy
    return c


def make_pod(
    name: str,
    namespace: str = "default",
    *,
    cpu: str | None = None,
    memory: str | None = None,
    requests: Mapping[str, str] | None = None,
    containers: Sequence[Mapping[str, Any]] | None = None,
    init_containers: Sequence[Mapping[str, Any]] = (),
    node: str | None = None,
    labels: Mapping[str, str] | None = None,
    image: str = "nginx:1.25",
    priority: int | None = None,
    **spec: Any,
) -> dict[str, Any]:
    """A Pod. ``cpu``/``memory`` fill one container's requests; extra keyword args go into ``spec``."""
    if containers is None:
        reqs = dict(requests or {})
        if cpu is not None:
            reqs["cpu"] = cpu
        if memory is not None:
            reqs["memory"] = memory
        containers = [container(image=image, requests=reqs or None)]
    pod_spec: dict[str, Any] = {"containers": list(containers), **spec}
    if init_containers:
        pod_spec["initContainers"] = list(init_containers)
    if node:
        pod_spec["nodeName"] = node
    if priority is not None:
        pod_spec["priority"] = priority
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": f"uid-{namespace}-{name}",
            "labels": dict(labels or {}),
        },
        "spec": pod_spec,
        "status": {"phase": "Running" if node else "Pending"},
    }


def req_pod(
    name: str,
    *requests: Mapping[str, str],
    init: Sequence[Mapping[str, str]] = (),
    sidecars: Sequence[Mapping[str, str]] = (),
    node: str | None = None,
    **spec: Any,
) -> dict[str, Any]:
    """A Pod with one container per ``requests`` mapping, as upstream's ``MakePod().Req(...).Req(...)``.

    No mapping means no containers at all (upstream's bare ``MakePod().Obj()``). ``init`` adds
    classic init containers, ``sidecars`` restartable ones, each with those requests.
    """
    inits = [container(f"init{i}", requests=r) for i, r in enumerate(init)]
    inits += [container(f"sidecar{i}", requests=r, restart_policy="Always") for i, r in enumerate(sidecars)]
    return make_pod(
        name,
        containers=[container(f"c{i}", requests=r) for i, r in enumerate(requests)],
        init_containers=inits,
        node=node,
        **spec,
    )


def snap(nodes: Iterable[Mapping[str, Any]], pods: Iterable[Mapping[str, Any]] = (), **kwargs: Any) -> Snapshot:
    """A snapshot from node and pod objects."""
    return Snapshot.from_objects(nodes, pods, **kwargs)


def run(
    pod: Mapping[str, Any],
    nodes: Iterable[Mapping[str, Any]],
    pods: Iterable[Mapping[str, Any]] = (),
    profile: Profile | None = None,
    seed: int = 0,
    **snapshot_kwargs: Any,
) -> DecisionRecord:
    """Schedule one Pod with the default profile (unless given) and a seeded RNG."""
    return schedule(pod, snap(nodes, pods, **snapshot_kwargs), profile or default_profile(), random.Random(seed))


def filter_status(plugin: Any, pod: Mapping[str, Any], snapshot: Snapshot, node: str) -> Status:
    """Run a plugin's PreFilter (if any) then its Filter on one node; a PreFilter Skip reads as Skip."""
    state = CycleState(snapshot)
    info = PodInfo.from_pod(pod)
    if hasattr(plugin, "pre_filter"):
        status, result = plugin.pre_filter(state, info)
        if status.is_skip or not status.is_success:
            return status
        if result is not None and result.node_names is not None and node not in result.node_names:
            return Status.unresolvable("excluded by PreFilter")
    node_info = snapshot.get(node)
    assert node_info is not None
    return plugin.filter(state, info, node_info)


def scores(
    plugin: Any, pod: Mapping[str, Any], snapshot: Snapshot, nodes: Sequence[str] | None = None
) -> dict[str, Any]:
    """Raw and normalised scores of one plugin over ``nodes`` (all by default).

    Returns ``{"raw": {...}, "normalized": {...}}`` or ``{"skip": True}`` when PreScore skips.
    """
    state = CycleState(snapshot)
    info = PodInfo.from_pod(pod)
    infos = [n for n in snapshot.list() if nodes is None or n.name in nodes]
    if hasattr(plugin, "pre_score"):
        status = plugin.pre_score(state, info, infos)
        if status.is_skip:
            return {"skip": True}
        assert status.is_success, status
    raw = {n.name: plugin.score(state, info, n) for n in infos}
    normalized = plugin.normalize_score(state, info, raw) if hasattr(plugin, "normalize_score") else dict(raw)
    return {"raw": raw, "normalized": normalized}


def verdict(status: Status) -> tuple[Code, tuple[str, ...]]:
    """A status as (code, reasons), the pair upstream's unit tests compare."""
    return status.code, status.reasons


OK = (Code.SUCCESS, ())
SKIP = (Code.SKIP, ())


def scores_without_pre_score(plugin: Any, pod: Mapping[str, Any], snapshot: Snapshot) -> dict[str, int]:
    """Raw scores of every node when PreScore never ran (upstream's "if PreScore is not called" cases)."""
    state = CycleState(snapshot)
    info = PodInfo.from_pod(pod)
    return {n.name: plugin.score(state, info, n) for n in snapshot.list()}


def reasons(record: DecisionRecord, node: str) -> dict[str, tuple[str, str]]:
    """Filter plugin -> (status, reason) for one node of a record."""
    return {f.plugin: (f.status, f.reason) for f in record.node(node).filters}
