"""VolumeRestrictions (NoDiskConflict): GCE PD, AWS EBS, iSCSI, Ceph RBD and ReadWriteOncePod."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.framework import Code
from clusterviz.scheduler.plugins.volume_restrictions import (
    REASON_DISK_CONFLICT,
    REASON_READ_WRITE_ONCE_POD_CONFLICT,
    VolumeRestrictions,
)
from tests.scheduler.helpers import filter_status, make_node, make_pod, snap


def gce(read_only=False, name="disk-1"):
    return {"name": "v", "gcePersistentDisk": {"pdName": name, "readOnly": read_only}}


def ebs(read_only=False, volume_id="vol-1"):
    return {"name": "v", "awsElasticBlockStore": {"volumeID": volume_id, "readOnly": read_only}}


def iscsi(read_only=False, iqn="iqn.2001-04.com.example:storage"):
    return {"name": "v", "iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": iqn, "lun": 0, "readOnly": read_only}}


def rbd(read_only=False, monitors=("10.0.0.1:6789",), pool=None, image="img"):
    source = {"monitors": list(monitors), "image": image, "readOnly": read_only}
    if pool:
        source["pool"] = pool
    return {"name": "v", "rbd": source}


def check(volume, existing_volume):
    existing = make_pod("existing", node="n", volumes=[existing_volume])
    return filter_status(VolumeRestrictions(), make_pod("p", volumes=[volume]), snap([make_node("n")], [existing]), "n")


@pytest.mark.parametrize("kind", [gce, iscsi, rbd])
def test_read_only_on_both_sides_may_share(kind):
    assert check(kind(read_only=True), kind(read_only=True)).is_success


@pytest.mark.parametrize("kind", [gce, iscsi, rbd])
@pytest.mark.parametrize(("mine", "theirs"), [(False, True), (True, False), (False, False)])
def test_any_read_write_mount_conflicts(kind, mine, theirs):
    status = check(kind(read_only=mine), kind(read_only=theirs))
    assert (status.code, status.reasons) == (Code.UNSCHEDULABLE, (REASON_DISK_CONFLICT,))


def test_aws_ebs_conflicts_even_read_only():
    assert not check(ebs(read_only=True), ebs(read_only=True)).is_success


def test_different_disks_do_not_conflict():
    assert check(gce(name="a"), gce(name="b")).is_success
    assert check(ebs(volume_id="a"), ebs(volume_id="b")).is_success


def test_rbd_needs_a_shared_monitor_same_pool_and_image():
    assert check(rbd(monitors=("m1",)), rbd(monitors=("m2",))).is_success
    assert check(rbd(pool="a"), rbd(pool="b")).is_success
    assert not check(rbd(pool="rbd"), rbd()).is_success  # "rbd" is the default pool


def test_pods_without_guarded_volumes_skip():
    assert filter_status(VolumeRestrictions(), make_pod("p"), snap([make_node("n")]), "n").is_skip


def test_read_write_once_pod_claim_in_use_rejects_every_node():
    claim = {"metadata": {"name": "data", "namespace": "default"}, "spec": {"accessModes": ["ReadWriteOncePod"]}}
    volume = {"name": "d", "persistentVolumeClaim": {"claimName": "data"}}
    existing = make_pod("holder", node="a", volumes=[volume])
    snapshot = snap([make_node("a"), make_node("b")], [existing], pvcs=[claim])
    status = filter_status(VolumeRestrictions(), make_pod("p", volumes=[volume]), snapshot, "b")
    assert status.reasons == (REASON_READ_WRITE_ONCE_POD_CONFLICT,)
