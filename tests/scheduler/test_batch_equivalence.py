"""Every plugin's all-nodes-at-once form gives exactly its node-by-node verdicts and scores.

The cycle judges nodes through ``filter_nodes`` / ``score_nodes`` /
``normalize_nodes`` over the snapshot's NodeTable; the upstream test tables
check the per-node rules. Random clusters (taints, cordons, labels in three
zones, images, full and empty nodes, Pods with and without affinity) tie the two
together, including after the snapshot changed under a built table.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from clusterviz.scheduler.cycle import schedule
from clusterviz.scheduler.framework import CycleState
from clusterviz.scheduler.nodeinfo import PodInfo
from clusterviz.scheduler.plugins import FILTER, NORMALIZING, PRE_FILTER, PRE_SCORE, SCORE
from clusterviz.scheduler.profile import default_profile
from tests.scheduler.helpers import make_node, make_pod, snap

ZONES = ("a", "b", "c")
IMAGES = ("nginx:1.25", "redis:7", "busybox")
TAINTS = (
    {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},
    {"key": "soft", "effect": "PreferNoSchedule"},
    {"key": "other", "value": "x", "effect": "PreferNoSchedule"},
)


def random_node(rng: random.Random, i: int) -> dict[str, Any]:
    labels = {"topology.kubernetes.io/zone": rng.choice(ZONES)}
    if rng.random() < 0.5:
        labels["disk"] = rng.choice(("ssd", "hdd"))
    return make_node(
        f"n{i:03d}",
        cpu=str(rng.choice((1, 2, 4))),
        memory=f"{rng.choice((1, 2, 8))}Gi",
        pods=str(rng.choice((2, 5, 110))),
        labels=labels,
        taints=rng.sample(TAINTS, rng.choice((0, 0, 1, 2))),
        images=[((image,), rng.choice((10, 300, 900)) * 1024 * 1024) for image in IMAGES if rng.random() < 0.5],
        unschedulable=rng.random() < 0.1,
    )


def affinity(rng: random.Random) -> dict[str, Any]:
    def term(app: str) -> dict[str, Any]:
        return {
            "labelSelector": {"matchLabels": {"app": app}},
            "topologyKey": rng.choice(("kubernetes.io/hostname", "topology.kubernetes.io/zone")),
        }

    out: dict[str, Any] = {}
    if rng.random() < 0.5:
        out["podAffinity"] = {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": rng.randint(1, 100), "podAffinityTerm": term(rng.choice("xyz"))}
            ]
        }
    if rng.random() < 0.5:
        out["podAntiAffinity"] = {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": rng.randint(1, 100), "podAffinityTerm": term(rng.choice("xyz"))}
            ]
        }
    if rng.random() < 0.2:
        out["podAffinity"] = {
            **out.get("podAffinity", {}),
            "requiredDuringSchedulingIgnoredDuringExecution": [term("x")],
        }
    return out


def random_pod(rng: random.Random, name: str, node: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if rng.random() < 0.5:
        spec["affinity"] = affinity(rng)
    if rng.random() < 0.3:
        spec["tolerations"] = [{"key": "soft", "operator": "Exists"}]
    if rng.random() < 0.2:
        spec["nodeSelector"] = {"disk": "ssd"}
    app = rng.choice("xyz")
    pod = make_pod(
        name,
        cpu=rng.choice((None, "100m", "500m", "3")),
        memory=rng.choice((None, "128Mi", "1Gi", "6Gi")),
        image=rng.choice(IMAGES),
        labels={"app": app},
        node=node,
        **spec,
    )
    if rng.random() < 0.5:  # owned by its app's ReplicaSet: default spreading applies
        pod["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": app,
                                               "controller": True}]  # fmt: skip
    return pod


def workloads() -> list[dict[str, Any]]:
    """A ReplicaSet per app, and a Service selecting app z: the default selector's sources."""
    out: list[dict[str, Any]] = [
        {"kind": "ReplicaSet", "metadata": {"name": app, "namespace": "default"},
         "spec": {"selector": {"matchLabels": {"app": app}}}}
        for app in "xyz"
    ]  # fmt: skip
    out.append(
        {"kind": "Service", "metadata": {"name": "z", "namespace": "default"}, "spec": {"selector": {"app": "z"}}}
    )
    return out


def check_plugins(snapshot: Any, pod: dict[str, Any]) -> int:
    """Compare every batch form with its per-node rule; return how many comparisons ran."""
    profile = default_profile()
    state = CycleState(snapshot)
    info = PodInfo.from_pod(pod)
    table = snapshot.table()
    compared = 0
    for plugin in profile.at(PRE_FILTER):
        status, _ = plugin.pre_filter(state, info)
        if status.is_skip:
            state.skip_filter_plugins.add(plugin.name)
    for plugin in profile.at(FILTER):
        if plugin.name in state.skip_filter_plugins or not hasattr(plugin, "filter_nodes"):
            continue
        batch = plugin.filter_nodes(state, info, table)
        for row, node in enumerate(table.infos):
            assert batch.statuses[batch.index[row]] == plugin.filter(state, info, node), (plugin.name, node.name)
            compared += 1
    nodes = table.infos
    for plugin in profile.at(PRE_SCORE):
        if plugin.pre_score(state, info, nodes).is_skip:
            state.skip_score_plugins.add(plugin.name)
    rows = np.arange(len(table))
    for plugin in profile.at(SCORE):
        if plugin.name in state.skip_score_plugins or not hasattr(plugin, "score_nodes"):
            continue
        raw = plugin.score_nodes(state, info, table, rows)
        expected = {node.name: plugin.score(state, info, node) for node in nodes}
        assert dict(zip(table.names, raw.tolist(), strict=True)) == expected, plugin.name
        if plugin.name in NORMALIZING:
            normalized = plugin.normalize_nodes(state, info, raw)
            want = plugin.normalize_score(state, info, expected)
            assert dict(zip(table.names, normalized.tolist(), strict=True)) == want, plugin.name
        compared += len(nodes)
    return compared


@pytest.mark.parametrize("seed", range(12))
def test_batch_forms_match_the_per_node_rules_on_random_clusters(seed):
    rng = random.Random(seed)
    nodes = [random_node(rng, i) for i in range(rng.choice((3, 20, 60)))]
    placed = [random_pod(rng, f"placed{i}", rng.choice(nodes)["metadata"]["name"]) for i in range(rng.randint(0, 40))]
    if placed and seed % 3 == 0:  # a terminating Pod: PodTopologySpread must leave it out of its counts
        placed[0]["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    snapshot = snap(nodes, placed, workloads=workloads())
    compared = 0
    for i in range(6):
        pod = random_pod(rng, f"incoming{i}")
        compared += check_plugins(snapshot, pod)
        # Keep the built table and change the cluster under it, as the running scheduler does.
        record = schedule(pod, snapshot, default_profile(), rng)
        if record.selected:
            pod["spec"]["nodeName"] = record.selected
            snapshot.add_pod(pod)
        if placed and rng.random() < 0.5:
            snapshot.remove_pod(placed.pop())
        relabelled = rng.choice(nodes)
        relabelled["metadata"]["labels"]["topology.kubernetes.io/zone"] = rng.choice(ZONES)
        snapshot.update_node(relabelled)
    assert compared > 0


def test_a_big_record_lists_the_best_candidates_and_counts_the_rest():
    nodes = [make_node(f"n{i:04d}", cpu="1" if i % 2 else "8") for i in range(600)]
    record = schedule(make_pod("p", cpu="2"), snap(nodes), default_profile(), random.Random(0))
    body = record.to_dict()
    listed = {n["name"] for n in body["nodes"]}
    # 300 nodes tie; the 50 listed first by name, plus the drawn winner when it is not among them.
    assert record.selected in listed and len(listed) == 50 + (record.selected > "n0098")
    assert all(n["feasible"] for n in body["nodes"])
    omitted = body["omittedNodes"]
    assert omitted["count"] == 600 - len(listed) and omitted["feasible"] == 300 - len(listed)
    assert omitted["reasons"] == [{"plugin": "NodeResourcesFit", "reason": "Insufficient cpu", "nodes": 300}]
