"""Snapshot and NodeInfo: incremental updates from add/update/remove of nodes and Pods."""

from __future__ import annotations

import copy
import random

from clusterviz.scheduler.cycle import schedule
from clusterviz.scheduler.nodeinfo import DEFAULT_MEMORY_REQUEST, NodeInfo
from clusterviz.scheduler.profile import default_profile
from clusterviz.scheduler.snapshot import Snapshot
from tests.scheduler.helpers import MiB, container, make_node, make_pod


def test_adding_and_removing_pods_keeps_sums_in_step():
    snap = Snapshot.from_objects([make_node("n")])
    snap.add_pod(make_pod("a", cpu="500m", memory="1Gi", node="n"))
    snap.add_pod(make_pod("b", node="n"))
    info = snap.get("n")
    assert (info.requested.milli_cpu, info.requested.memory) == (500, 1024 * MiB)
    assert (info.non_zero_requested.milli_cpu, info.non_zero_requested.memory) == (
        600,
        1024 * MiB + DEFAULT_MEMORY_REQUEST,
    )
    snap.remove_pod(make_pod("a", node="n"))
    assert (info.requested.milli_cpu, len(info.pods)) == (0, 1)


def test_generation_counts_every_change():
    snap = Snapshot()
    before = snap.generation
    snap.add_node(make_node("n"))
    snap.add_pod(make_pod("a", node="n"))
    assert snap.generation == before + 2


def test_moving_a_pod_between_nodes():
    snap = Snapshot.from_objects([make_node("a"), make_node("b")], [make_pod("p", cpu="1", node="a")])
    snap.update_pod(make_pod("p", cpu="1", node="b"))
    assert (snap.get("a").requested.milli_cpu, snap.get("b").requested.milli_cpu) == (0, 1000)
    assert snap.pod_node("default/p") == "b"


def test_unbound_and_finished_pods_are_not_counted():
    done = make_pod("done", cpu="1", node="n")
    done["status"]["phase"] = "Succeeded"
    snap = Snapshot.from_objects([make_node("n")], [make_pod("pending", cpu="1"), done])
    assert snap.get("n").pods == {}


def test_pods_seen_before_their_node_attach_when_it_arrives():
    snap = Snapshot()
    snap.add_pod(make_pod("early", cpu="1", node="late"))
    assert snap.get("late") is None
    snap.add_node(make_node("late"))
    assert snap.get("late").requested.milli_cpu == 1000


def test_node_update_keeps_pods_and_refreshes_labels():
    snap = Snapshot.from_objects([make_node("n")], [make_pod("p", node="n")])
    snap.update_node(make_node("n", labels={"disk": "ssd"}))
    assert snap.get("n").labels["disk"] == "ssd" and len(snap.get("n").pods) == 1


def test_a_heartbeat_leaves_where_pods_go_and_a_relabel_moves_them():
    """Status-only updates (heartbeats) and in-place relabels of nodes the table was built over."""
    nodes = [make_node(f"n{i}", labels={"disk": "hdd"}) for i in range(4)]
    snap = Snapshot.from_objects(nodes)
    wants_ssd = make_pod("p", nodeSelector={"disk": "ssd"})

    def placed() -> str | None:
        return schedule(wants_ssd, snap, default_profile(), random.Random(0)).selected

    assert placed() is None
    for node in nodes:
        beat = copy.deepcopy(node)
        beat["status"]["conditions"] = [{"type": "Ready", "status": "True", "lastHeartbeatTime": "2025-01-01T00:00:10Z"}]
        snap.update_node(beat)
    assert placed() is None
    nodes[2]["metadata"]["labels"]["disk"] = "ssd"  # the very object the snapshot holds, changed in place
    snap.update_node(nodes[2])
    assert placed() == "n2"


def test_image_node_counts_follow_nodes():
    image = [(["nginx:1.25"], 100 * MiB)]
    snap = Snapshot.from_objects([make_node("a", images=image), make_node("b", images=image), make_node("c")])
    assert snap.get("a").image_state("nginx:1.25").num_nodes == 2
    snap.remove_node("b")
    assert snap.get("a").image_state("nginx:1.25").num_nodes == 1
    assert snap.get("c").image_state("nginx:1.25") is None


def test_host_ports_and_claims_are_tracked():
    pod = make_pod(
        "p",
        node="n",
        containers=[container(ports=[{"containerPort": 80, "hostPort": 8080}])],
        volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}],
    )
    snap = Snapshot.from_objects([make_node("n")], [pod])
    info = snap.get("n")
    assert len(info.used_ports) == 1 and info.pvc_ref_counts == {"default/data": 1}
    snap.remove_pod("default/p")
    assert len(info.used_ports) == 0 and not info.pvc_ref_counts


def test_clone_and_view_leave_the_original_alone():
    snap = Snapshot.from_objects([make_node("n")], [make_pod("p", cpu="1", node="n")])
    clone = snap.get("n").clone()
    clone.remove_pod("default/p")
    view = snap.with_node(clone)
    assert view.get("n").requested.milli_cpu == 0
    assert snap.get("n").requested.milli_cpu == 1000


def test_node_info_is_usable_on_its_own():
    info = NodeInfo(make_node("solo", images=[(["x:1"], 50 * MiB)]))
    info.add_pod(make_pod("p", memory="1Gi"))
    assert info.image_state("x:1").num_nodes == 1
    again = copy.deepcopy(make_pod("p", memory="2Gi"))
    info.add_pod(again)  # same key replaces the old copy
    assert info.requested.memory == 2048 * MiB


def test_workloads_from_a_list_are_kept_by_kind_and_forgotten_on_delete():
    # Items of a LIST carry no kind: the scheduler's informer names it.
    rs = {"metadata": {"name": "web", "namespace": "shop"}, "spec": {"selector": {"matchLabels": {"app": "web"}}}}
    snap = Snapshot()
    before = snap.generation
    snap.add_workload(rs, "ReplicaSet")
    assert snap.workload("ReplicaSet", "shop", "web") is rs and snap.generation > before
    snap.add_workload({"metadata": {"name": "web", "namespace": "shop"}, "spec": {}}, "Service")
    assert [s["metadata"]["name"] for s in snap.services("shop")] == ["web"] and snap.services("default") == []
    snap.remove_workload(rs, "ReplicaSet")
    assert snap.workload("ReplicaSet", "shop", "web") is None
    assert snap.workload("Service", "shop", "web") is not None
