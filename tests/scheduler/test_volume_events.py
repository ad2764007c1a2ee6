"""Storage events requeue Pods the volume plugins rejected, as their EventsToRegister and queueing hints say;
and the PreBind wait's verdicts on the API's claims and volumes (``checkBindings``)."""

from __future__ import annotations

import asyncio

import pytest

from clusterviz.scheduler.framework import ActionType, ClusterEvent, EventResource
from clusterviz.scheduler.plugins.volume_binding import PodVolumes
from clusterviz.scheduler.profile import default_profile
from clusterviz.scheduler.queue import UNSCHEDULABLE, SchedulingQueue
from clusterviz.scheduler.volume_binder import Changes, VolumeBindingError, bind_pod_volumes, check_bindings
from tests.scheduler.helpers import make_pod

ADD = ActionType.ADD
UPDATE = ActionType.UPDATE


def event(resource: EventResource, action: ActionType) -> ClusterEvent:
    return ClusterEvent(resource, action, f"{resource.value}{(action.name or '').title()}")


def claim(name: str, **annotations: str) -> dict:
    return {
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "annotations": annotations},
        "spec": {},
    }


def claim_pod(name: str, claim_name: str) -> dict:
    return make_pod(name, volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": claim_name}}])


def parked(plugin: str, pod: dict) -> SchedulingQueue:
    queue = SchedulingQueue.for_profile(default_profile())
    queue.add(pod, 0)
    info = queue.pop(0)
    assert info is not None
    assert queue.add_unschedulable(info, {plugin}, 0) == UNSCHEDULABLE
    return queue


@pytest.mark.parametrize(
    ("plugin", "incoming", "old", "new", "moved"),
    [
        pytest.param("VolumeBinding", event(EventResource.PERSISTENT_VOLUME, ADD), None, {}, True, id="a new PV"),
        pytest.param("VolumeBinding", event(EventResource.PERSISTENT_VOLUME, UPDATE), {}, {}, True, id="an updated PV"),
        pytest.param(
            "VolumeBinding",
            event(EventResource.PERSISTENT_VOLUME_CLAIM, UPDATE),
            claim("data"),
            claim("data", **{"pv.kubernetes.io/bind-completed": "yes"}),
            True,
            id="its claim bound",
        ),
        pytest.param(
            "VolumeBinding",
            event(EventResource.PERSISTENT_VOLUME_CLAIM, ADD),
            None,
            claim("other"),
            False,
            id="another claim",
        ),
        pytest.param(
            "VolumeBinding", event(EventResource.STORAGE_CLASS, ADD), None, {"metadata": {}}, True, id="a new class"
        ),
        pytest.param(
            "VolumeBinding",
            event(EventResource.STORAGE_CLASS, UPDATE),
            {"metadata": {}},
            {"metadata": {}, "parameters": {"a": "b"}},
            False,
            id="a class updated without topology",
        ),
        pytest.param(
            "VolumeBinding", event(EventResource.CSI_NODE, ADD), None, {"metadata": {}}, True, id="a new CSINode"
        ),
        pytest.param(
            "VolumeBinding",
            event(EventResource.PERSISTENT_VOLUME, ActionType.DELETE),
            {},
            None,
            False,
            id="a deleted PV",
        ),
        pytest.param(
            "NodeVolumeLimits", event(EventResource.CSI_NODE, ADD), None, {"metadata": {}}, True, id="limits: CSINode"
        ),
        pytest.param(
            "NodeVolumeLimits",
            event(EventResource.PERSISTENT_VOLUME_CLAIM, UPDATE),
            claim("data"),
            claim("data"),
            False,
            id="limits: claim update",
        ),
        pytest.param(
            "VolumeRestrictions",
            event(EventResource.PERSISTENT_VOLUME_CLAIM, ADD),
            None,
            claim("data"),
            True,
            id="restrictions: its claim created",
        ),
        pytest.param(
            "VolumeRestrictions",
            event(EventResource.PERSISTENT_VOLUME_CLAIM, ADD),
            None,
            claim("other"),
            False,
            id="restrictions: another claim created",
        ),
        pytest.param(
            "VolumeZone",
            event(EventResource.PERSISTENT_VOLUME, UPDATE),
            {"metadata": {"labels": {"topology.kubernetes.io/zone": "a"}}},
            {"metadata": {"labels": {"topology.kubernetes.io/zone": "b"}}},
            True,
            id="zone: a volume's zone changed",
        ),
    ],
)
def test_storage_events_requeue_as_registered(plugin, incoming, old, new, moved):
    queue = parked(plugin, claim_pod("p", "data"))
    assert queue.move_all_on_event(incoming, 1.0, old, new) == (["default/p"] if moved else [])


# --- checkBindings ----------------------------------------------------------------------------

NODE = "node01"
LABELS = {"kubernetes.io/hostname": NODE}
BOUND = {"pv.kubernetes.io/bind-completed": "yes"}


def volume(name: str, node: str = NODE, claim_uid: str = "") -> dict:
    pv: dict = {
        "metadata": {"name": name},
        "spec": {
            "nodeAffinity": {
                "required": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}
                    ]
                }
            }
        },
    }
    if claim_uid:
        pv["spec"]["claimRef"] = {"name": "data", "namespace": "default", "uid": claim_uid}
    return pv


def bound(name: str, volume_name: str, **annotations: str) -> dict:
    c = claim(name, **BOUND, **annotations)
    c["spec"]["volumeName"] = volume_name
    return c


PROVISION = PodVolumes(dynamic_provisions=(claim("data", **{"volume.kubernetes.io/selected-node": NODE}),))
STATIC = PodVolumes(static_bindings=((claim("data"), volume("pv-1", claim_uid="uid-data")),))


@pytest.mark.parametrize(
    ("volumes", "pvcs", "pvs", "want"),
    [
        pytest.param(
            PROVISION,
            [claim("data", **{"volume.kubernetes.io/selected-node": NODE})],
            [],
            (False, ""),
            id="provisioning: not bound yet",
        ),
        pytest.param(
            PROVISION,
            [bound("data", "pvc-1", **{"volume.kubernetes.io/selected-node": NODE})],
            [volume("pvc-1")],
            (True, ""),
            id="provisioning: bound on the node",
        ),
        pytest.param(
            PROVISION,
            [bound("data", "pvc-1", **{"volume.kubernetes.io/selected-node": NODE})],
            [volume("pvc-1", node="node02")],
            (False, 'pv "pvc-1" node affinity doesn\'t match node "node01": no matching NodeSelectorTerms'),
            id="provisioning: volume for another node",
        ),
        pytest.param(
            PROVISION,
            [claim("data")],
            [],
            (False, 'selectedNode annotation reset for PVC "data"'),
            id="provisioning: selected node reset",
        ),
        pytest.param(
            PROVISION,
            [claim("data", **{"volume.kubernetes.io/selected-node": "node02"})],
            [],
            (False, 'provisioning failed for PVC "data"'),
            id="provisioning: another node selected",
        ),
        pytest.param(
            STATIC, [claim("data")], [volume("pv-1", claim_uid="uid-data")], (False, ""), id="static: pending"
        ),
        pytest.param(
            STATIC,
            [bound("data", "pv-1")],
            [volume("pv-1", claim_uid="uid-data")],
            (True, ""),
            id="static: bound",
        ),
        pytest.param(
            STATIC,
            [claim("data")],
            [volume("pv-1")],
            (False, 'ClaimRef got reset for pv "pv-1"'),
            id="static: claimRef reset",
        ),
    ],
)
def test_check_bindings(volumes, pvcs, pvs, want):
    by_key = {f"default/{c['metadata']['name']}": c for c in pvcs}
    by_name = {v["metadata"]["name"]: v for v in pvs}
    assert check_bindings(volumes, NODE, LABELS, by_key, by_name) == want


# --- BindPodVolumes: the API updates, then the wait -------------------------------------------


class FakeClient:
    """Records the updates the binder sends."""

    def __init__(self) -> None:
        self.updated: list[tuple[str, str]] = []

    async def update(self, obj: dict) -> dict:
        self.updated.append((obj["kind"], obj["metadata"]["name"]))
        return obj


class FakeEngine:
    """A clock that jumps to a wait's deadline when nothing wakes it first."""

    def __init__(self) -> None:
        self.now = 0.0

    async def wait_for(self, future, timeout=None, *, background=False, what=""):
        await asyncio.sleep(0)
        if future.done():
            return future.result()
        self.now += timeout or 0.0
        return None

    def wake(self, future, value=None) -> None:
        if not future.done():
            future.set_result(value)


async def test_the_binder_writes_the_selected_node_then_gives_up_at_the_bind_timeout():
    client, engine = FakeClient(), FakeEngine()
    pvcs = {"default/data": claim("data", **{"volume.kubernetes.io/selected-node": NODE})}
    with pytest.raises(VolumeBindingError, match="^binding volumes: context deadline exceeded$"):
        await bind_pod_volumes(client, engine, Changes(engine), PROVISION, NODE, LABELS, pvcs, {})
    assert client.updated == [("PersistentVolumeClaim", "data")]
    assert engine.now == 600.0


async def test_the_binder_returns_once_a_change_shows_the_claim_bound():
    client, engine = FakeClient(), FakeEngine()
    changes = Changes(engine)
    pvcs = {"default/data": claim("data", **{"volume.kubernetes.io/selected-node": NODE})}
    pvs: dict = {}

    async def provision() -> None:
        await asyncio.sleep(0)
        pvs["pvc-1"] = volume("pvc-1")
        pvcs["default/data"] = bound("data", "pvc-1", **{"volume.kubernetes.io/selected-node": NODE})
        changes.notify()

    waiting = asyncio.ensure_future(bind_pod_volumes(client, engine, changes, PROVISION, NODE, LABELS, pvcs, pvs))
    await provision()
    await waiting
    assert engine.now == 0.0
