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
