"""NodeVolumeLimits cases from upstream ``pkg/scheduler/framework/plugins/nodevolumelimits/csi_test.go``
(TestCSILimits without in-tree migration, which nothing in the simulation runs, TestCSILimitsQHint
and TestCSILimitsAddedPVCQHint).

The fixtures follow upstream's: for each driver, volumes ``csi-<driver>-0..3`` and claims of the
same names bound to them; ``csi-4`` unbound in class ``csi-sc`` (provisioned by the first driver),
``csi-5`` without a class, ``csi-6`` naming a volume that does not exist. A missing claim reads as
the informer's lister words it (``persistentvolumeclaim "..." not found``).
"""

from __future__ import annotations

import pytest

from clusterviz.scheduler.framework import Code, CycleState, QueueingHint
from clusterviz.scheduler.nodeinfo import PodInfo
from clusterviz.scheduler.plugins import node_volume_limits
from clusterviz.scheduler.plugins.node_volume_limits import NodeVolumeLimits
from tests.scheduler.helpers import OK, SKIP, make_node, make_pod, snap, verdict

EBS = "ebs.csi.aws.com"
GCE = "pd.csi.storage.gke.io"
NODE = "node-for-max-pd-test-1"
SC_NAME = "csi-sc"
EXCEEDED = (Code.UNSCHEDULABLE, ("node(s) exceed max volume count",))


def claim_volume(claim: str) -> dict:
    return {"name": claim, "persistentVolumeClaim": {"claimName": claim}}


def pod(name: str, *claims: str, namespace: str = "default", uid: str = "", volumes: tuple = ()) -> dict:
    """``st.MakePod().PVC(...)``; upstream's Pods are nameless, these get names so a node can hold several."""
    p = make_pod(name, namespace, volumes=[claim_volume(c) for c in claims] + list(volumes))
    if uid:
        p["metadata"]["uid"] = uid
    return p


def ephemeral(name: str) -> dict:
    return {"name": name, "ephemeral": {}}


def owned_claim(namespace: str, name: str, owner: str, uid: str, controller: bool = True) -> dict:
    meta: dict = {"name": name, "namespace": namespace}
    if controller:
        meta["ownerReferences"] = [{"kind": "Pod", "name": owner, "uid": uid, "controller": True}]
    return {"metadata": meta, "spec": {"storageClassName": SC_NAME}}


def fixtures(drivers: list[str]) -> tuple[list[dict], list[dict]]:
    """``getFakeCSIPVLister`` and ``getFakeCSIPVCLister`` for the ``csi`` filter."""
    pvs, pvcs = [], []
    for driver in drivers:
        for j in range(4):
            name = f"csi-{driver}-{j}"
            pvs.append({"metadata": {"name": name}, "spec": {"csi": {"driver": driver, "volumeHandle": name}}})
            pvcs.append({"metadata": {"name": name, "namespace": "default"}, "spec": {"volumeName": name}})
    pvcs += [
        {"metadata": {"name": "csi-4", "namespace": "default"}, "spec": {"storageClassName": SC_NAME}},
        {"metadata": {"name": "csi-5", "namespace": "default"}, "spec": {}},
        {
            "metadata": {"name": "csi-6", "namespace": "default"},
            "spec": {"storageClassName": SC_NAME, "volumeName": "missing-in-action"},
        },
    ]
    return pvs, pvcs


RUNNING = pod("running", f"csi-{EBS}-3")
PENDING_VOLUME = pod("pending-volume", "csi-4")
UNBOUND_PVC_2 = pod("unbound-pvc-2", "csi-4")
MISSING_PV = pod("missing-pv", "csi-6")
NO_SC_PVC = pod("no-sc-pvc", "csi-5")
GCE_TWO_VOL = pod("gce-two-vol", f"csi-{GCE}-1", f"csi-{GCE}-2")
CSI_EBS_ONE_VOL = pod("csi-ebs-one-vol", f"csi-{EBS}-0")
CSI_EBS_TWO_VOL = pod("csi-ebs-two-vol", f"csi-{EBS}-1", f"csi-{EBS}-2")
EPHEMERAL_VOLUME = pod("abc", namespace="test", uid="12345", volumes=(ephemeral("xyz"),))
EPHEMERAL_CLAIM = owned_claim("test", "abc-xyz", "abc", "12345")
CONFLICTING_CLAIM = owned_claim("test", "abc-xyz", "abc", "12345", controller=False)
EPHEMERAL_TWO_VOLUME = pod("abc", namespace="test", uid="12345II", volumes=(ephemeral("x"), ephemeral("y")))
EPHEMERAL_CLAIM_X = owned_claim("test", "abc-x", "abc", "12345II")
EPHEMERAL_CLAIM_Y = owned_claim("test", "abc-y", "abc", "12345II")
CONFIG_AND_SECRET = ({"name": "cm", "configMap": {}}, {"name": "secret", "secret": {}})
ONLY_CONFIGMAP_AND_SECRET = pod("only-cm-secret", volumes=CONFIG_AND_SECRET)
PVC_WITH_CONFIGMAP_AND_SECRET = pod("pvc-cm-secret", f"csi-{EBS}-0", volumes=CONFIG_AND_SECRET)
EPHEMERAL_WITH_CONFIGMAP_AND_SECRET = pod("abc", namespace="test", volumes=(*CONFIG_AND_SECRET, ephemeral("xyz")))
NOT_FOUND = 'looking up PVC test/abc-xyz: persistentvolumeclaim "abc-xyz" not found'


def run(new_pod: dict, existing: list[dict], limit_source: str, max_vols: int, drivers: list[str], extra=()) -> tuple:
    """(PreFilter verdict, Filter verdict or None after a Skip), on a node whose CSINode lists ``drivers``."""
    pvs, pvcs = fixtures(drivers)
    node = make_node(NODE, hostname_label=False)
    node["status"]["allocatable"] = {}
    csinodes = []
    if limit_source in ("csinode", "csinode-with-no-limit"):
        entries = []
        for driver in drivers:
            entry: dict = {"name": driver, "nodeID": NODE}
            if limit_source == "csinode":
                entry["allocatable"] = {"count": max_vols}
            entries.append(entry)
        csinodes.append({"metadata": {"name": NODE}, "spec": {"drivers": entries}})
    placed = [{**p, "spec": {**p["spec"], "nodeName": NODE}} for p in existing]
    classes = [{"metadata": {"name": SC_NAME}, "provisioner": drivers[0]}]
    snapshot = snap([node], placed, pvcs=[*pvcs, *extra], pvs=pvs, storage_classes=classes, csinodes=csinodes)
    plugin = NodeVolumeLimits()
    state = CycleState(snapshot)
    info = PodInfo.from_pod(new_pod)
    status, _ = plugin.pre_filter(state, info)
    if status.is_skip:
        return verdict(status), None
    node_info = snapshot.get(NODE)
    assert node_info is not None
    return verdict(status), verdict(plugin.filter(state, info, node_info))


@pytest.mark.parametrize(
    ("new_pod", "existing", "extra", "max_vols", "drivers", "limit_source", "want"),
    [
        pytest.param(
            CSI_EBS_ONE_VOL,
            [],
            (),
            2,
            [EBS],
            "csinode",
            OK,
            id="should schedule pod when VolumeAttachments count does not exceed limit",
        ),
        pytest.param(
            CSI_EBS_ONE_VOL,
            [RUNNING, CSI_EBS_TWO_VOL],
            (),
            4,
            [EBS],
            "csinode",
            OK,
            id="fits when node volume limit >= new pods CSI volume",
        ),
        pytest.param(
            CSI_EBS_ONE_VOL,
            [RUNNING, CSI_EBS_TWO_VOL],
            (),
            2,
            [EBS],
            "csinode",
            EXCEEDED,
            id="doesn't when node volume limit <= pods CSI volume",
        ),
        pytest.param(
            CSI_EBS_ONE_VOL,
            [RUNNING, CSI_EBS_TWO_VOL],
            (),
            2,
            [EBS],
            "csinode-with-no-limit",
            OK,
            id="should when driver does not support volume limits",
        ),
        pytest.param(
            CSI_EBS_ONE_VOL,
            [PENDING_VOLUME, CSI_EBS_TWO_VOL],
            (),
            2,
            [EBS],
            "csinode",
            EXCEEDED,
            id="count pending PVCs towards volume limit <= pods CSI volume",
        ),
        pytest.param(
            CSI_EBS_ONE_VOL,
            [PENDING_VOLUME, UNBOUND_PVC_2, CSI_EBS_TWO_VOL],
            (),
            4,
            [EBS],
            "csinode",
            OK,
            id="count multiple pending pvcs towards volume limit >= pods CSI volume",
        ),
        pytest.param(
            CSI_EBS_ONE_VOL,
            [MISSING_PV, CSI_EBS_TWO_VOL],
            (),
            2,
            [EBS],
            "csinode",
            EXCEEDED,
            id="should count PVCs with invalid PV name but valid SC",
        ),
        pytest.param(
            CSI_EBS_ONE_VOL,
            [RUNNING, NO_SC_PVC],
            (),
            2,
            [EBS],
            "csinode",
            OK,
            id="don't count pvcs with missing SC towards volume limit",
        ),
        pytest.param(
            CSI_EBS_ONE_VOL,
            [GCE_TWO_VOL, CSI_EBS_TWO_VOL],
            (),
            2,
            [EBS, GCE],
            "csinode",
            EXCEEDED,
            id="count pvcs with the same type towards volume limit",
        ),
        pytest.param(
            GCE_TWO_VOL,
            [CSI_EBS_TWO_VOL, RUNNING],
            (),
            2,
            [EBS, GCE],
            "csinode",
            OK,
            id="don't count pvcs with different type towards volume limit",
        ),
        pytest.param(
            EPHEMERAL_VOLUME,
            [],
            (),
            0,
            [EBS],
            "csinode-with-no-limit",
            (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (NOT_FOUND,)),
            id="ephemeral volume missing",
        ),
        pytest.param(
            EPHEMERAL_VOLUME,
            [],
            (CONFLICTING_CLAIM,),
            0,
            [EBS],
            "csinode-with-no-limit",
            (Code.ERROR, ("PVC test/abc-xyz was not created for pod test/abc (pod is not owner)",)),
            id="ephemeral volume not owned",
        ),
        pytest.param(
            EPHEMERAL_VOLUME,
            [],
            (EPHEMERAL_CLAIM,),
            0,
            [EBS],
            "csinode-with-no-limit",
            OK,
            id="ephemeral volume unbound",
        ),
        pytest.param(
            EPHEMERAL_VOLUME,
            [RUNNING, CSI_EBS_TWO_VOL],
            (EPHEMERAL_CLAIM,),
            2,
            [EBS],
            "csinode",
            EXCEEDED,
            id="ephemeral doesn't when node volume limit <= pods CSI volume",
        ),
        pytest.param(
            CSI_EBS_ONE_VOL,
            [RUNNING, EPHEMERAL_TWO_VOLUME],
            (EPHEMERAL_CLAIM_X, EPHEMERAL_CLAIM_Y),
            2,
            [EBS],
            "csinode",
            EXCEEDED,
            id="ephemeral doesn't when node volume limit <= pods ephemeral CSI volume",
        ),
        pytest.param(
            CSI_EBS_ONE_VOL,
            [RUNNING, EPHEMERAL_VOLUME, CSI_EBS_TWO_VOL],
            (EPHEMERAL_CLAIM,),
            3,
            [EBS],
            "csinode",
            EXCEEDED,
            id="persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent volume",
        ),
        pytest.param(
            CSI_EBS_ONE_VOL,
            [RUNNING, EPHEMERAL_VOLUME, CSI_EBS_TWO_VOL],
            (EPHEMERAL_CLAIM,),
            5,
            [EBS],
            "csinode",
            OK,
            id="persistent okay when node volume limit > pods ephemeral CSI volume + persistent volume",
        ),
        pytest.param(
            PVC_WITH_CONFIGMAP_AND_SECRET,
            [],
            (),
            2,
            [EBS],
            "csinode",
            OK,
            id="don't skip Filter when the pod has pvcs",
        ),
        pytest.param(
            EPHEMERAL_WITH_CONFIGMAP_AND_SECRET,
            [],
            (),
            0,
            [EBS],
            "csinode-with-no-limit",
            (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (NOT_FOUND,)),
            id="don't skip Filter when the pod has ephemeral volumes",
        ),
    ],
)
def test_csi_limits(new_pod, existing, extra, max_vols, drivers, limit_source, want):
    assert run(new_pod, existing, limit_source, max_vols, drivers, extra) == (OK, want)


def test_skip_filter_when_the_pod_only_uses_secrets_and_configmaps():
    assert run(ONLY_CONFIGMAP_AND_SECRET, [], "csinode", 2, [EBS]) == (SKIP, None)


def test_an_inline_migratable_volume_runs_the_filter_but_counts_only_with_migration_on():
    # "nil csi node" and "should not count ... if migration is not enabled": no simulated CSINode migrates EBS.
    inline = pod("inline", volumes=({"name": "ebs", "awsElasticBlockStore": {"volumeID": "aws-inline1"}},))
    assert run(inline, [CSI_EBS_TWO_VOL], "csinode", 2, [EBS]) == (OK, OK)
    assert run(inline, [], "none", 2, [EBS]) == (OK, OK)


def test_node_allocatable_limit_without_csinode():
    # getVolumeLimits: a Node's attachable-volumes-csi-<driver> allocatable counts when no CSINode lists it.
    pvs, pvcs = fixtures([EBS])
    node = make_node(NODE, hostname_label=False, extra={f"attachable-volumes-csi-{EBS}": "2"})
    placed = [{**p, "spec": {**p["spec"], "nodeName": NODE}} for p in (RUNNING, CSI_EBS_TWO_VOL)]
    snapshot = snap([node], placed, pvcs=pvcs, pvs=pvs)
    plugin = NodeVolumeLimits()
    state = CycleState(snapshot)
    info = PodInfo.from_pod(CSI_EBS_ONE_VOL)
    plugin.pre_filter(state, info)
    node_info = snapshot.get(NODE)
    assert node_info is not None
    assert verdict(plugin.filter(state, info, node_info)) == EXCEEDED


# --- queueing hints ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("deleted", "scheduled", "want"),
    [
        pytest.param(
            pod("deleted", "placeholder"), True, QueueingHint.QUEUE, id="return a Queue when a deleted pod has a PVC"
        ),
        pytest.param(
            pod("deleted", volumes=({"name": "ebs", "awsElasticBlockStore": {}},)),
            True,
            QueueingHint.QUEUE,
            id="return a Queue when a deleted pod has a inline migratable volume",
        ),
        pytest.param(
            pod("deleted"), True, QueueingHint.SKIP, id="return a QueueSkip when a deleted pod doesn't have any volume"
        ),
        pytest.param(
            pod("deleted", f"csi-{EBS}-0"),
            False,
            QueueingHint.SKIP,
            id="return a QueueSkip when a deleted pod is not scheduled.",
        ),
    ],
)
def test_csi_limits_qhint(deleted, scheduled, want):
    if scheduled:
        deleted = {**deleted, "spec": {**deleted["spec"], "nodeName": NODE}}
    assert node_volume_limits.hint_pod_deleted(pod("new", f"csi-{EBS}-2"), deleted, None) == want


def _claim(name: str, namespace: str) -> dict:
    return {"metadata": {"name": name, "namespace": namespace}, "spec": {}}


@pytest.mark.parametrize(
    ("new_pod", "added", "want"),
    [
        pytest.param(
            pod("p", namespace="ns1"),
            _claim("", "ns2"),
            QueueingHint.SKIP,
            id="a pod isn't in the same namespace as an added PVC",
        ),
        pytest.param(
            pod("p", "pvc1", namespace="ns1"),
            _claim("pvc1", "ns1"),
            QueueingHint.QUEUE,
            id="a pod is in the same namespace as an added PVC",
        ),
        pytest.param(
            pod("pod1", namespace="ns1", volumes=(ephemeral("ephemeral"),)),
            _claim("pod1-ephemeral", "ns1"),
            QueueingHint.QUEUE,
            id="a pod has an ephemeral volume related to an added PVC",
        ),
        pytest.param(
            pod("p", "pvc1", namespace="ns1"),
            _claim("pvc2", "ns1"),
            QueueingHint.SKIP,
            id="a pod doesn't have the same PVC as an added PVC",
        ),
        pytest.param(
            pod("p", namespace="ns1"),
            _claim("pvc2", "ns1"),
            QueueingHint.SKIP,
            id="a pod doesn't have any PVC attached",
        ),
    ],
)
def test_csi_limits_added_pvc_qhint(new_pod, added, want):
    assert node_volume_limits.hint_claim_added(new_pod, None, added) == want
