"""The scheduler's decision records over HTTP, read with the real kubectl.

A Pod whose nodeSelector no node satisfies stays Pending; ``kubectl get
schedulingdecisions`` shows every node with every filter's verdict and the
upstream-format message. ``kubectl label node`` makes it schedulable, and the
record of that attempt names the node with the highest total.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import Kubectl
from tests.e2e import test_control_plane as control_plane
from tests.e2e.test_control_plane import apply, ok, poll

cluster_kubectl = control_plane.cluster_kubectl  # the fixture: a fresh three-node cluster per test

POD = """apiVersion: v1
kind: Pod
metadata:
  name: wants-ssd
spec:
  nodeSelector:
    disktype: ssd
  containers:
  - name: web
    image: nginx:1.27
    resources:
      requests:
        cpu: 100m
"""
FILTERS = [
    "NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit",
    "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone", "PodTopologySpread",
    "InterPodAffinity",
]  # fmt: skip


def records(kubectl: Kubectl) -> list[dict[str, Any]]:
    """The Pod's decision records, attempt by attempt."""
    out = ok(kubectl("get", "schedulingdecisions", "-l", "clusterviz.io/pod=wants-ssd", "-o", "json"))
    return sorted(json.loads(out)["items"], key=lambda r: r["attempt"])


def test_pending_reasons_then_a_label_schedules_the_pod(cluster_kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl = cluster_kubectl
    apply(kubectl, tmp_path, POD)
    first = poll(lambda: records(kubectl), bool)[0]
    assert first["selected"] is None
    # v1.35 wording, the PostFilter plugins' verdicts (DRA, then preemption) included.
    assert first["message"] == (
        "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )
    assert [n["name"] for n in first["nodes"]] == ["node01", "node02", "node03"]
    for node in first["nodes"]:
        verdicts = {f["plugin"]: f for f in node["filters"]}
        assert set(FILTERS) <= set(verdicts)
        assert verdicts["NodeAffinity"]["status"] == "UnschedulableAndUnresolvable"
        assert verdicts["NodeAffinity"]["reason"] == "node(s) didn't match Pod's node affinity/selector"
        assert verdicts["NodeAffinity"]["legacyName"] == "MatchNodeSelector"
        assert verdicts["NodeResourcesFit"]["status"] == "Success"
        assert not node["feasible"]
    assert json.loads(ok(kubectl("get", "pod", "wants-ssd", "-o", "json")))["status"]["phase"] == "Pending"

    ok(kubectl("label", "node", "node02", "disktype=ssd"))
    pod = poll(
        lambda: json.loads(ok(kubectl("get", "pod", "wants-ssd", "-o", "json"))), lambda p: p["spec"].get("nodeName")
    )
    assert pod["spec"]["nodeName"] == "node02"
    last = records(kubectl)[-1]
    assert last["selected"] == "node02" and last["attempt"] > first["attempt"]
    # node02 is the only feasible node: upstream would not score; the record still shows the scores.
    assert last["scoringNeeded"] is False and last["tieBreak"]["method"] == "single-feasible"
    winner = next(n for n in last["nodes"] if n["name"] == "node02")
    assert winner["feasible"] and winner["total"] == sum(s["weighted"] for s in winner["scores"])
    assert {s["plugin"] for s in winner["scores"]} >= {
        "NodeResourcesFit",
        "NodeResourcesBalancedAllocation",
        "ImageLocality",
    }


def test_the_record_of_a_scheduled_pod_names_the_highest_total(cluster_kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl = cluster_kubectl
    ok(kubectl("label", "node", "--all", "disktype=ssd"))
    apply(kubectl, tmp_path, POD)
    record = poll(lambda: records(kubectl), lambda rs: rs and rs[-1]["selected"])[-1]
    totals = {n["name"]: n["total"] for n in record["nodes"] if n["feasible"]}
    assert set(totals) == {"node01", "node02", "node03"} and record["scoringNeeded"] is True
    assert totals[record["selected"]] == max(totals.values())
    assert set(record["tied"]) == {name for name, total in totals.items() if total == max(totals.values())}
    table = ok(kubectl("get", "schedulingdecisions"))
    assert "wants-ssd.1" in table


SPREAD = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: spread
spec:
  replicas: 6
  selector:
    matchLabels:
      app: spread
  template:
    metadata:
      labels:
        app: spread
    spec:
      containers:
      - name: web
        image: nginx:1.27
"""


def per_node(items: list[dict[str, Any]]) -> dict[str, int]:
    """How many of the Pods each node runs."""
    counts: dict[str, int] = {}
    for pod in items:
        node = pod["spec"]["nodeName"]
        counts[node] = counts.get(node, 0) + 1
    return counts


def test_a_deployment_is_spread_by_the_default_constraints(cluster_kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl = cluster_kubectl
    apply(kubectl, tmp_path, SPREAD)
    placed = control_plane.wait_running(kubectl, 6, "-l", "app=spread")
    # Upstream's system-default hostname constraint (maxSkew 3, ScheduleAnyway) spreads 6 over 3 equal nodes.
    assert per_node(placed) == {"node01": 2, "node02": 2, "node03": 2}
    out = ok(kubectl("get", "schedulingdecisions", "-o", "json"))
    decisions = [d for d in json.loads(out)["items"] if d["pod"]["name"].startswith("spread-")]
    assert len(decisions) >= 6
    for decision in decisions:
        for node in decision["nodes"]:
            spread = next(s for s in node["scores"] if s["plugin"] == "PodTopologySpread")
            assert spread["raw"] is not None and spread["normalized"] is not None  # scored, not skipped at PreScore
            assert spread["inputs"]["constraints"][0]["topologyKey"] == "kubernetes.io/hostname"


MYSQL_RC = """apiVersion: v1
kind: ReplicationController
metadata:
  name: mysql
spec:
  replicas: 1
  selector:
    app: mysql
  template:
    metadata:
      labels:
        app: mysql
    spec:
      containers:
      - name: mysql
        image: mysql:8.4
"""


def test_the_scale_lessons_rc_scaled_to_five_spreads(cluster_kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl = cluster_kubectl
    apply(kubectl, tmp_path, MYSQL_RC)
    control_plane.wait_running(kubectl, 1, "-l", "app=mysql")
    ok(kubectl("scale", "rc", "mysql", "--replicas=5"))
    placed = control_plane.wait_running(kubectl, 5, "-l", "app=mysql")
    # The image already pulled on one node is worth a few points; spreading outweighs it, as upstream.
    assert max(per_node(placed).values()) <= 2 and len(per_node(placed)) == 3


PINNED = """apiVersion: v1
kind: Pod
metadata:
  name: pinned
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchFields:
          - key: metadata.name
            operator: In
            values: [node01]
  containers:
  - name: web
    image: nginx:1.27
    resources:
      requests:
        cpu: "100"
"""


def test_nodes_left_out_by_match_fields_count_under_node_affinity(cluster_kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl = cluster_kubectl
    ok(kubectl("cordon", "node02"))
    ok(kubectl("taint", "node", "node03", "dedicated=x:NoSchedule"))
    apply(kubectl, tmp_path, PINNED)
    selector = ("-l", "clusterviz.io/pod=pinned", "-o", "json")
    record = poll(lambda: json.loads(ok(kubectl("get", "schedulingdecisions", *selector))), lambda b: b["items"])
    record = record["items"][0]
    # node02 (cordoned) and node03 (tainted) are never filtered upstream: they count under NodeAffinity alone.
    assert record["message"].startswith(
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
    )
    events = ok(kubectl("get", "events", "--field-selector", "involvedObject.name=pinned,reason=FailedScheduling"))
    assert "2 node(s) didn't satisfy plugin(s) [NodeAffinity]" in events
    node02 = next(n for n in record["nodes"] if n["name"] == "node02")
    cordoned = next(f for f in node02["filters"] if f["plugin"] == "NodeUnschedulable")
    assert cordoned["status"] == "UnschedulableAndUnresolvable" and cordoned["upstreamRan"] is False
