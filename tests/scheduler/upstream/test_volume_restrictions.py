"""VolumeRestrictions cases from upstream
``pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions_test.go``
(TestGCEDiskConflicts, TestAWSDiskConflicts, TestRBDDiskConflicts, TestISCSIDiskConflicts,
TestAccessModeConflicts)."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.framework import Code, CycleState
from clusterviz.scheduler.nodeinfo import PodInfo
from clusterviz.scheduler.plugins.volume_restrictions import VolumeRestrictions
from tests.scheduler.helpers import OK, SKIP, make_node, make_pod, snap, verdict

DISK_CONFLICT = (Code.UNSCHEDULABLE, ("node(s) had no available disk",))
RWOP_CONFLICT = (
    Code.UNSCHEDULABLE,
    ("node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode",),
)

# Each disk kind: the volume the node's Pod mounts, and a second one that is a different disk.
DISKS = {
    "GCE": ({"gcePersistentDisk": {"pdName": "foo"}}, {"gcePersistentDisk": {"pdName": "bar"}}),
    "AWS": ({"awsElasticBlockStore": {"volumeID": "foo"}}, {"awsElasticBlockStore": {"volumeID": "bar"}}),
    "RBD": (
        {"rbd": {"monitors": ["a", "b"], "pool": "foo", "image": "bar", "fsType": "ext4"}},
        {"rbd": {"monitors": ["c", "d"], "pool": "foo", "image": "bar", "fsType": "ext4"}},
    ),
    "ISCSI": (
        {"iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2016-12.server:storage.target01", "lun": 0}},
        {"iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2017-12.server:storage.target01", "lun": 0}},
    ),
}


def volume_pod(name: str, *volumes: dict, node: str | None = None) -> dict:
    return make_pod(name, node=node, volumes=[{"name": f"v{i}", **v} for i, v in enumerate(volumes)])


def run_plugin(pod: dict, existing: list[dict], pvcs: list[dict] = ()) -> tuple[tuple, tuple | None]:
    """(PreFilter verdict, Filter verdict or None when PreFilter did not succeed), as upstream's loop."""
    snapshot = snap([make_node("node-1")], existing, pvcs=pvcs)
    plugin = VolumeRestrictions()
    state = CycleState(snapshot)
    info = PodInfo.from_pod(pod)
    status, _ = plugin.pre_filter(state, info)
    if not status.is_success:
        return verdict(status), None
    return verdict(status), verdict(plugin.filter(state, info, snapshot.get("node-1")))


@pytest.mark.parametrize("kind", list(DISKS))
@pytest.mark.parametrize(
    ("case", "want_pre_filter", "want"),
    [
        pytest.param("nothing", SKIP, None, id="nothing"),
        pytest.param("one state", SKIP, None, id="one state"),
        pytest.param("same state", OK, DISK_CONFLICT, id="same state"),
        pytest.param("different state", OK, OK, id="different state"),
    ],
)
def test_disk_conflicts(kind, case, want_pre_filter, want):
    vol, other = DISKS[kind]
    pod, on_node = {
        "nothing": (make_pod("p"), None),
        "one state": (make_pod("p"), vol),
        "same state": (volume_pod("p", vol), vol),
        "different state": (volume_pod("p", other), vol),
    }[case]
    existing = [volume_pod("existing", on_node, node="node-1")] if on_node else []
    assert run_plugin(pod, existing) == (want_pre_filter, want)


def test_gce_pod_with_a_volume_that_doesnt_have_restrictions():
    # TestGCEDiskConflicts "pod with a volume that doesn't have restrictions": an emptyDir needs no check.
    pod = make_pod("p", volumes=[{"name": "volume with no restriction", "emptyDir": {}}])
    assert run_plugin(pod, []) == (SKIP, None)


def pvc(name: str, mode: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"accessModes": [mode]},
    }


def claim_pod(name: str, *claims: str, node: str | None = "node-1") -> dict:
    volumes = [{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in claims]
    return make_pod(name, node=node, volumes=volumes)


RWOP_1, RWOP_2, RWX = (
    pvc("claim-with-rwop-1", "ReadWriteOncePod"),
    pvc("claim-with-rwop-2", "ReadWriteOncePod"),
    pvc("claim-with-rwx", "ReadWriteMany"),
)


@pytest.mark.parametrize(
    ("pod", "existing", "pvcs", "want_pre_filter", "want"),
    [
        pytest.param(make_pod("p"), [], [], SKIP, None, id="nothing"),
        pytest.param(
            claim_pod("pod-with-one-pvc", "claim-with-rwop-1"),
            [],
            [],
            (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ('persistentvolumeclaim "claim-with-rwop-1" not found',)),
            None,
            id="failed to get PVC",
        ),
        pytest.param(
            claim_pod("pod-with-one-pvc", "claim-with-rwop-1"),
            [claim_pod("pod-with-rwx", "claim-with-rwx")],
            [RWOP_1, RWX],
            SKIP,
            None,
            id="no access mode conflict",
        ),
        pytest.param(
            claim_pod("pod-with-one-conflict", "claim-with-rwop-1"),
            [claim_pod("pod-with-one-pvc", "claim-with-rwop-1"), claim_pod("pod-with-rwx", "claim-with-rwx")],
            [RWOP_1, RWX],
            OK,
            RWOP_CONFLICT,
            id="access mode conflict, unschedulable",
        ),
        pytest.param(
            claim_pod("pod-with-two-conflicts", "claim-with-rwop-1", "claim-with-rwop-2"),
            [
                claim_pod("pod-with-two-pvcs", "claim-with-rwop-1", "claim-with-rwop-2"),
                claim_pod("pod-with-rwx", "claim-with-rwx"),
            ],
            [RWOP_1, RWOP_2, RWX],
            OK,
            RWOP_CONFLICT,
            id="two conflicts, unschedulable",
        ),
    ],
)
def test_access_mode_conflicts(pod, existing, pvcs, want_pre_filter, want):
    assert run_plugin(pod, existing, pvcs) == (want_pre_filter, want)
