"""VolumeZone cases from upstream ``pkg/scheduler/framework/plugins/volumezone/volume_zone_test.go``
(TestSingleZone, TestMultiZone, TestWithBinding and the queueing-hint tables)."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.framework import Code, CycleState, QueueingHint
from clusterviz.scheduler.nodeinfo import PodInfo
from clusterviz.scheduler.plugins import volume_zone
from clusterviz.scheduler.plugins.volume_zone import VolumeZone
from tests.scheduler.helpers import OK, SKIP, make_node, make_pod, snap, verdict

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
CONFLICT = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) had no available volume zone",))


def pv(name: str, **labels: str) -> dict:
    return {"metadata": {"name": name, "labels": labels}, "spec": {}}


def pvc(name: str, volume: str = "", class_name: str | None = None) -> dict:
    claim: dict = {"metadata": {"name": name, "namespace": "default"}, "spec": {}}
    if volume:
        claim["spec"]["volumeName"] = volume
    if class_name is not None:
        claim["spec"]["storageClassName"] = class_name
    return claim


def claim_pod(claim: str) -> dict:
    """``createPodWithVolume``."""
    return make_pod("pod_1", volumes=[{"name": claim, "persistentVolumeClaim": {"claimName": claim}}])


SINGLE_ZONE_PVS = [
    pv("Vol_1", **{BETA_ZONE: "us-west1-a"}),
    pv("Vol_2", **{BETA_REGION: "us-west1", "uselessLabel": "none"}),
    pv("Vol_3", **{BETA_REGION: "us-west1"}),
    pv("Vol_Stable_1", **{ZONE: "us-west1-a"}),
    pv("Vol_Stable_2", **{REGION: "us-west1", "uselessLabel": "none"}),
    pv("Vol_Stable_3", **{ZONE: "us-west1-a", REGION: "us-west1-a"}),
]
MULTI_ZONE_PVS = [
    pv("Vol_1", **{BETA_ZONE: "us-west1-a"}),
    pv("Vol_2", **{BETA_ZONE: "us-west1-b", "uselessLabel": "none"}),
    pv("Vol_3", **{BETA_ZONE: "us-west1-c__us-west1-a"}),
    pv("Vol_Stable_1", **{ZONE: "us-west1-a"}),
    pv("Vol_Stable_2", **{ZONE: "us-west1-c__us-west1-a"}),
]
PVCS = [
    pvc("PVC_1", "Vol_1"),
    pvc("PVC_2", "Vol_2"),
    pvc("PVC_3", "Vol_3"),
    pvc("PVC_4", "Vol_not_exist"),
    pvc("PVC_Stable_1", "Vol_Stable_1"),
    pvc("PVC_Stable_2", "Vol_Stable_2"),
    pvc("PVC_Stable_3", "Vol_Stable_3"),
]
CLASSES = [
    {"metadata": {"name": "Class_Immediate"}},
    {"metadata": {"name": "Class_Wait"}, "volumeBindingMode": "WaitForFirstConsumer"},
]
BINDING_PVCS = [
    pvc("PVC_1", "Vol_1"),
    pvc("PVC_NoSC", class_name="Class_0"),
    pvc("PVC_EmptySC"),
    pvc("PVC_WaitSC", class_name="Class_Wait"),
    pvc("PVC_ImmediateSC", class_name="Class_Immediate"),
]


def run(pod: dict, node_labels: dict, pvs: list[dict], pvcs: list[dict], classes: list[dict] = ()) -> tuple:
    """(PreFilter verdict, Filter verdict): upstream runs Filter even after a failed PreFilter."""
    node = make_node("host1", labels=node_labels, hostname_label=False)
    snapshot = snap([node], pvcs=pvcs, pvs=pvs, storage_classes=classes)
    plugin = VolumeZone()
    state = CycleState(snapshot)
    info = PodInfo.from_pod(pod)
    status, _ = plugin.pre_filter(state, info)
    node_info = snapshot.get("host1")
    assert node_info is not None
    return verdict(status), verdict(plugin.filter(state, info, node_info))


@pytest.mark.parametrize(
    ("pod", "node_labels", "want_pre_filter", "want_filter"),
    [
        pytest.param(make_pod("pod_1"), {BETA_ZONE: "us-west1-a"}, SKIP, OK, id="pod without volume"),
        pytest.param(claim_pod("PVC_1"), {}, OK, OK, id="node without labels"),
        pytest.param(
            claim_pod("PVC_1"), {BETA_ZONE: "us-west1-a", "uselessLabel": "none"}, OK, OK, id="beta zone label matched"
        ),
        pytest.param(
            claim_pod("PVC_2"),
            {BETA_REGION: "us-west1", "uselessLabel": "none"},
            OK,
            OK,
            id="beta region label matched",
        ),
        pytest.param(
            claim_pod("PVC_2"),
            {BETA_REGION: "no_us-west1", "uselessLabel": "none"},
            OK,
            CONFLICT,
            id="beta region label doesn't match",
        ),
        pytest.param(
            claim_pod("PVC_1"),
            {BETA_ZONE: "no_us-west1-a", "uselessLabel": "none"},
            OK,
            CONFLICT,
            id="beta zone label doesn't match",
        ),
        pytest.param(
            claim_pod("PVC_Stable_1"), {ZONE: "us-west1-a", "uselessLabel": "none"}, OK, OK, id="zone label matched"
        ),
        pytest.param(
            claim_pod("PVC_Stable_2"), {REGION: "us-west1", "uselessLabel": "none"}, OK, OK, id="region label matched"
        ),
        pytest.param(
            claim_pod("PVC_Stable_2"),
            {REGION: "no_us-west1", "uselessLabel": "none"},
            OK,
            CONFLICT,
            id="region label doesn't match",
        ),
        pytest.param(
            claim_pod("PVC_Stable_1"),
            {ZONE: "no_us-west1-a", "uselessLabel": "none"},
            OK,
            CONFLICT,
            id="zone label doesn't match",
        ),
        pytest.param(
            claim_pod("PVC_Stable_3"),
            {ZONE: "us-west1-a"},
            OK,
            CONFLICT,
            id="pv with zone and region, node with only zone",
        ),
        pytest.param(
            claim_pod("PVC_Stable_1"), {BETA_ZONE: "us-west1-a"}, OK, CONFLICT, id="pv with zone,node with beta zone"
        ),
        pytest.param(
            claim_pod("PVC_1"), {ZONE: "us-west1-a"}, OK, OK, id="pv with beta label,node with ga label, matched"
        ),
        pytest.param(
            claim_pod("PVC_1"),
            {ZONE: "us-west1-b"},
            OK,
            CONFLICT,
            id="pv with beta label,node with ga label, don't match",
        ),
    ],
)
def test_single_zone(pod, node_labels, want_pre_filter, want_filter):
    assert run(pod, node_labels, SINGLE_ZONE_PVS, PVCS) == (want_pre_filter, want_filter)


@pytest.mark.parametrize(
    ("claim", "node_labels", "want_filter"),
    [
        pytest.param("PVC_3", {}, OK, id="node without labels"),
        pytest.param("PVC_3", {BETA_ZONE: "us-west1-a", "uselessLabel": "none"}, OK, id="beta zone label matched"),
        pytest.param(
            "PVC_1", {BETA_ZONE: "us-west1-b", "uselessLabel": "none"}, CONFLICT, id="beta zone label doesn't match"
        ),
        pytest.param("PVC_Stable_2", {ZONE: "us-west1-a", "uselessLabel": "none"}, OK, id="zone label matched"),
        pytest.param(
            "PVC_Stable_1", {ZONE: "us-west1-b", "uselessLabel": "none"}, CONFLICT, id="zone label doesn't match"
        ),
    ],
)
def test_multi_zone(claim, node_labels, want_filter):
    assert run(claim_pod(claim), node_labels, MULTI_ZONE_PVS, PVCS) == (OK, want_filter)


def _unresolvable(message: str) -> tuple:
    return (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (message,))


@pytest.mark.parametrize(
    ("claim", "want_pre_filter", "want_filter"),
    [
        pytest.param("PVC_1", OK, OK, id="label zone failure domain matched"),
        pytest.param(
            "PVC_EmptySC",
            _unresolvable("PersistentVolumeClaim had no pv name and storageClass name"),
            _unresolvable("PersistentVolumeClaim had no pv name and storageClass name"),
            id="unbound volume empty storage class",
        ),
        pytest.param(
            "PVC_NoSC",
            _unresolvable('storageclasses.storage.k8s.io "Class_0" not found'),
            _unresolvable('storageclasses.storage.k8s.io "Class_0" not found'),
            id="unbound volume no storage class",
        ),
        pytest.param(
            "PVC_ImmediateSC",
            _unresolvable('VolumeBindingMode not set for StorageClass "Class_Immediate"'),
            _unresolvable('VolumeBindingMode not set for StorageClass "Class_Immediate"'),
            id="unbound volume immediate binding mode",
        ),
        pytest.param("PVC_WaitSC", SKIP, OK, id="unbound volume wait binding mode"),
    ],
)
def test_with_binding(claim, want_pre_filter, want_filter):
    node_labels = {BETA_ZONE: "us-west1-a", "uselessLabel": "none"}
    pvs = [pv("Vol_1", **{BETA_ZONE: "us-west1-a"})]
    assert run(claim_pod(claim), node_labels, pvs, BINDING_PVCS, CLASSES) == (want_pre_filter, want_filter)


# --- queueing hints ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pod", "old", "new", "want"),
    [
        pytest.param(
            make_pod("pod_1"), None, pvc("PVC_1", "Vol_1"), QueueingHint.SKIP, id="pvc-was-added-but-pod-refers-no-pvc"
        ),
        pytest.param(
            claim_pod("PVC_2"),
            None,
            pvc("PVC_1", "Vol_1"),
            QueueingHint.SKIP,
            id="pvc-was-added-and-pod-was-bound-to-different-pvc",
        ),
        pytest.param(
            claim_pod("PVC_1"),
            None,
            {"metadata": {"name": "PVC_1", "namespace": "ns1"}, "spec": {"volumeName": "Vol_1"}},
            QueueingHint.SKIP,
            id="pvc-was-added-and-pod-was-bound-to-pvc-but-different-ns",
        ),
        pytest.param(
            claim_pod("PVC_1"),
            None,
            pvc("PVC_1", "Vol_1"),
            QueueingHint.QUEUE,
            id="pvc-was-added-and-pod-was-bound-to-the-pvc",
        ),
        pytest.param(
            claim_pod("PVC_1"),
            pvc("PVC_1"),
            pvc("PVC_1", "Vol_1"),
            QueueingHint.QUEUE,
            id="pvc-was-updated-and-pod-was-bound-to-the-pvc",
        ),
        pytest.param(
            make_pod("pod_1"),
            pvc("PVC_1"),
            pvc("PVC_1", "Vol_1"),
            QueueingHint.SKIP,
            id="pvc-was-updated-but-pod-refers-no-pvc",
        ),
    ],
)
def test_is_schedulable_after_persistent_volume_claim_change(pod, old, new, want):
    assert volume_zone.hint_claim(pod, old, new) == want


@pytest.mark.parametrize(
    ("new", "want"),
    [
        pytest.param({"metadata": {"name": "SC_1"}}, QueueingHint.SKIP, id="sc-doesn't-have-volume-binding-mode"),
        pytest.param(
            {"metadata": {"name": "SC_1"}, "volumeBindingMode": "WaitForFirstConsumer"},
            QueueingHint.QUEUE,
            id="new-sc-is-wait-for-first-consumer-mode",
        ),
    ],
)
def test_is_schedulable_after_storage_class_added(new, want):
    assert volume_zone.hint_storage_class_added(claim_pod("PVC_1"), None, new) == want


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, pv("Vol_1", **{BETA_ZONE: "us-west1-b"}), QueueingHint.QUEUE, id="new-pv-was-added"),
        pytest.param(
            pv("Vol_1", **{BETA_ZONE: "us-west1-a"}),
            pv("Vol_1", **{BETA_ZONE: "us-west1-b"}),
            QueueingHint.QUEUE,
            id="pv-was-updated-and-changed-topology",
        ),
        pytest.param(
            pv("Vol_1", **{BETA_ZONE: "us-west1-a"}),
            pv("Vol_1", **{BETA_ZONE: "us-west1-a", ZONE: "zone"}),
            QueueingHint.QUEUE,
            id="pv-was-updated-and-added-topology-label",
        ),
        pytest.param(
            pv("Vol_1", **{BETA_ZONE: "us-west1-a", ZONE: "zone"}),
            pv("Vol_1", **{BETA_ZONE: "us-west1-a", ZONE: "zone"}),
            QueueingHint.SKIP,
            id="pv-was-updated-but-no-topology-is-changed",
        ),
    ],
)
def test_is_schedulable_after_persistent_volume_change(old, new, want):
    assert volume_zone.hint_volume_change(claim_pod("PVC_1"), old, new) == want
