"""VolumeBinding's PreBind reads what it wrote until the informer catches up, as upstream's assume cache."""

from __future__ import annotations

from clusterviz.scheduler.plugins.volume_binding import PodVolumes
from clusterviz.scheduler.volume_binder import Assumed, check_bindings

NODE = "node01"
SELECTED = "volume.kubernetes.io/selected-node"


def claim(resource_version: str, **annotations: str) -> dict:
    return {"metadata": {"name": "data", "namespace": "default", "uid": "uid-data",
                         "resourceVersion": resource_version, "annotations": annotations}, "spec": {}}


def volume(resource_version: str, claim_uid: str = "") -> dict:
    pv = {"metadata": {"name": "pv-1", "resourceVersion": resource_version}, "spec": {}}
    if claim_uid:
        pv["spec"]["claimRef"] = {"name": "data", "namespace": "default", "uid": claim_uid}
    return pv


PROVISION = PodVolumes(dynamic_provisions=(claim("6", **{SELECTED: NODE}),))
STATIC = PodVolumes(static_bindings=((claim("5"), volume("6", "uid-data")),))


def test_a_selected_node_the_informer_has_not_seen_yet_is_waited_for_not_taken_for_a_reset():
    pvcs = Assumed({"default/data": claim("5")}, {"default/data": claim("6", **{SELECTED: NODE})})
    assert check_bindings(PROVISION, NODE, {}, pvcs, {}) == (False, "")


def test_a_newer_claim_without_the_selected_node_is_a_reset():
    pvcs = Assumed({"default/data": claim("7")}, {"default/data": claim("6", **{SELECTED: NODE})})
    assert check_bindings(PROVISION, NODE, {}, pvcs, {}) == (False, 'selectedNode annotation reset for PVC "data"')


def test_a_claim_ref_the_informer_has_not_seen_yet_is_waited_for_and_a_deleted_volume_is_gone():
    pvcs = {"default/data": claim("5")}
    pvs = Assumed({"pv-1": volume("5")}, {"pv-1": volume("6", "uid-data")})
    assert check_bindings(STATIC, NODE, {}, pvcs, pvs) == (False, "")
    gone = Assumed({}, {"pv-1": volume("6", "uid-data")})
    assert check_bindings(STATIC, NODE, {}, pvcs, gone) == (False, 'failed to check binding: persistentvolume "pv-1" not found')
