"""VolumeBinding cases from upstream ``pkg/scheduler/framework/plugins/volumebinding/``:
``volume_binding_test.go`` (TestVolumeBinding, the cases without the StorageCapacityScoring feature,
which is off by default) and ``binder_test.go`` (TestFindPodVolumesWithoutProvisioning,
TestFindPodVolumesWithProvisioning), through PreFilter, Filter and Reserve; and the queueing-hint tables."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.framework import Code, CycleState, QueueingHint
from clusterviz.scheduler.nodeinfo import PodInfo
from clusterviz.scheduler.plugins import volume_binding
from clusterviz.scheduler.plugins.volume_binding import VolumeBinding
from tests.scheduler.helpers import OK, SKIP, make_node, make_pod, snap, verdict

BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
UNRESOLVABLE = Code.UNSCHEDULABLE_AND_UNRESOLVABLE

IMMEDIATE_SC = {"metadata": {"name": "immediate-sc"}, "provisioner": "", "volumeBindingMode": "Immediate"}
WAIT_SC = {"metadata": {"name": "wait-sc"}, "provisioner": "", "volumeBindingMode": "WaitForFirstConsumer"}
PROVISION_SC = {
    "metadata": {"name": "provisionable-sc"},
    "provisioner": "test-provisioner",
    "volumeBindingMode": "WaitForFirstConsumer",
}
NO_PROVISIONER_SC = {
    "metadata": {"name": "no-provisioner-sc"},
    "provisioner": "kubernetes.io/no-provisioner",
    "volumeBindingMode": "WaitForFirstConsumer",
}
TOPOLOGY_SC = {
    "metadata": {"name": "topology-sc"},
    "provisioner": "test-provisioner",
    "volumeBindingMode": "WaitForFirstConsumer",
    "allowedTopologies": [{"matchLabelExpressions": [{"key": "nodeKey", "values": ["node1"]}]}],
}
CLASSES = [IMMEDIATE_SC, WAIT_SC, PROVISION_SC, NO_PROVISIONER_SC, TOPOLOGY_SC]


def pvc(
    name: str,
    class_name: str,
    *,
    size: str = "1G",
    volume: str = "",
    bound: bool = False,
    phase: str = "",
    namespace: str = "default",
    selected_node: str = "",
    owner_uid: str = "",
) -> dict:
    """``makePVC``/``makeTestPVC``: a claim of a class; ``bound`` marks the binding complete."""
    annotations = {}
    if bound:
        annotations["pv.kubernetes.io/bind-completed"] = "yes"
    if selected_node:
        annotations["volume.kubernetes.io/selected-node"] = selected_node
    meta: dict = {"name": name, "namespace": namespace, "uid": "pvc-uid", "annotations": annotations}
    if owner_uid:
        meta["ownerReferences"] = [{"kind": "Pod", "name": "test-pod", "uid": owner_uid, "controller": True}]
    claim: dict = {
        "metadata": meta,
        "spec": {
            "storageClassName": class_name,
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": size}},
            "volumeMode": "Filesystem",
        },
        "status": {"phase": phase} if phase else {},
    }
    if volume:
        claim["spec"]["volumeName"] = volume
    return claim


def pv(
    name: str,
    class_name: str,
    *,
    node: str = "",
    capacity: str = "1G",
    claim: dict | None = None,
    affinity: dict[str, list[str]] | None = None,
) -> dict:
    """``makeTestPV``/``makePV``: an Available volume, reachable from ``node`` (by ``nodeKey``) when given."""
    volume: dict = {
        "metadata": {"name": name, "annotations": {}},
        "spec": {
            "capacity": {"storage": capacity},
            "storageClassName": class_name,
            "accessModes": ["ReadWriteOnce"],
            "volumeMode": "Filesystem",
        },
        "status": {"phase": "Available"},
    }
    terms = affinity if affinity is not None else ({"nodeKey": [node]} if node else None)
    if terms:
        expressions = [{"key": k, "operator": "In", "values": v} for k, v in terms.items()]
        volume["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": expressions}]}}
    if claim is not None:
        volume["spec"]["claimRef"] = {
            "name": claim["metadata"]["name"],
            "namespace": claim["metadata"]["namespace"],
            "uid": claim["metadata"]["uid"],
        }
        volume["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"] = "yes"
    return volume


def claim_pod(*claims: str, name: str = "pod-a", ephemeral: tuple[str, ...] = ()) -> dict:
    """``makePod(name).withPVCVolume(...)``, and generic ephemeral volumes."""
    volumes: list[dict] = [{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in claims]
    volumes += [{"name": e, "ephemeral": {"volumeClaimTemplate": {"spec": {}}}} for e in ephemeral]
    return make_pod(name, volumes=volumes)


def node(name: str, **labels: str) -> dict:
    return make_node(name, labels=labels)


def run(
    pod: dict, nodes: list[dict], pvcs: list[dict], pvs: list[dict]
) -> tuple[tuple, list[tuple] | None, CycleState]:
    """(PreFilter verdict, each node's Filter verdict or None when PreFilter did not succeed, the state)."""
    snapshot = snap(nodes, pvcs=pvcs, pvs=pvs, storage_classes=CLASSES)
    plugin = VolumeBinding()
    state = CycleState(snapshot)
    info = PodInfo.from_pod(pod)
    status, _ = plugin.pre_filter(state, info)
    if not status.is_success:
        return verdict(status), None, state
    filters = []
    for n in nodes:
        node_info = snapshot.get(n["metadata"]["name"])
        assert node_info is not None
        filters.append(verdict(plugin.filter(state, info, node_info)))
    return verdict(status), filters, state


def chosen(pod: dict, state: CycleState, node_name: str) -> tuple[list[tuple[str, str]], list[str]]:
    """Reserve on one node: the (claim, volume) pairs to bind and the claims to provision."""
    volumes = VolumeBinding().reserve(state, PodInfo.from_pod(pod), node_name)
    if volumes is None:
        return [], []
    static = [(c["metadata"]["name"], v["metadata"]["name"]) for c, v in volumes.static_bindings]
    return static, [c["metadata"]["name"] for c in volumes.dynamic_provisions]


# --- TestVolumeBinding ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pod", "pvcs", "pvs", "node_labels", "want_pre_filter", "want_filter"),
    [
        pytest.param(make_pod("pod-a"), [], [], {}, SKIP, None, id="pod has not pvcs"),
        pytest.param(
            claim_pod("pvc-a"),
            [pvc("pvc-a", "wait-sc", volume="pv-a", bound=True)],
            [pv("pv-a", "wait-sc")],
            {},
            OK,
            [OK],
            id="all bound",
        ),
        pytest.param(
            claim_pod("pvc-a"),
            [],
            [],
            {},
            (UNRESOLVABLE, ('persistentvolumeclaim "pvc-a" not found',)),
            None,
            id="PVC does not exist",
        ),
        pytest.param(
            claim_pod("pvc-a", "pvc-b"),
            [pvc("pvc-a", "wait-sc", volume="pv-a", bound=True)],
            [],
            {},
            (UNRESOLVABLE, ('persistentvolumeclaim "pvc-b" not found',)),
            None,
            id="Part of PVCs do not exist",
        ),
        pytest.param(
            claim_pod("pvc-a"),
            [pvc("pvc-a", "immediate-sc")],
            [],
            {},
            (UNRESOLVABLE, ("pod has unbound immediate PersistentVolumeClaims",)),
            None,
            id="immediate claims not bound",
        ),
        pytest.param(
            claim_pod("pvc-a"),
            [pvc("pvc-a", "wait-sc")],
            [],
            {},
            OK,
            [(UNRESOLVABLE, (BIND_CONFLICT,))],
            id="unbound claims no matches",
        ),
        pytest.param(
            claim_pod("pvc-a", "pvc-b"),
            [pvc("pvc-a", "wait-sc", volume="pv-a", bound=True), pvc("pvc-b", "wait-sc")],
            [pv("pv-a", "wait-sc", affinity={"foo": ["bar"]})],
            {"foo": "barbar"},
            OK,
            [(UNRESOLVABLE, (NODE_CONFLICT, BIND_CONFLICT))],
            id="bound and unbound unsatisfied",
        ),
        pytest.param(
            claim_pod("pvc-a"),
            [pvc("pvc-a", "wait-sc", volume="pv-a", bound=True)],
            [],
            {},
            OK,
            [(UNRESOLVABLE, (PV_NOT_EXIST,))],
            id="pv not found",
        ),
        pytest.param(
            claim_pod("pvc-a"),
            [pvc("pvc-a", "wait-sc", volume="pv-a", bound=True, phase="Lost")],
            [],
            {},
            (UNRESOLVABLE, ('persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"',)),
            None,
            id="pv not found claim lost",
        ),
    ],
)
def test_volume_binding(pod, pvcs, pvs, node_labels, want_pre_filter, want_filter):
    pre_filter, filters, _ = run(pod, [node("node-a", **node_labels)], pvcs, pvs)
    assert (pre_filter, filters) == (want_pre_filter, want_filter)


def test_local_volumes_filter_by_node():
    # "local volumes with close capacity are preferred": the Filter half (its scores need StorageCapacityScoring).
    pvs = [
        pv("pv-a-0", "wait-sc", capacity="200Gi", affinity={"kubernetes.io/hostname": ["node-a"]}),
        pv("pv-a-1", "wait-sc", capacity="200Gi", affinity={"kubernetes.io/hostname": ["node-a"]}),
        pv("pv-b-0", "wait-sc", capacity="100Gi", affinity={"kubernetes.io/hostname": ["node-b"]}),
        pv("pv-b-1", "wait-sc", capacity="100Gi", affinity={"kubernetes.io/hostname": ["node-b"]}),
    ]
    pod = claim_pod("pvc-a")
    _, filters, state = run(
        pod, [node("node-a"), node("node-b"), node("node-c")], [pvc("pvc-a", "wait-sc", size="50Gi")], pvs
    )
    assert filters == [OK, OK, (UNRESOLVABLE, (BIND_CONFLICT,))]
    assert chosen(pod, state, "node-b") == ([("pvc-a", "pv-b-0")], [])


# --- TestFindPodVolumesWithoutProvisioning ----------------------------------------------------

UNBOUND = pvc("unbound-pvc", "wait-sc", size="1G")
UNBOUND_2 = pvc("unbound-pvc2", "wait-sc", size="5G")
BOUND = pvc("bound-pvc", "wait-sc", volume="pv-bound", bound=True)
PREBOUND = pvc("prebound-pvc", "wait-sc", volume="pv-node1a")
IMMEDIATE_BOUND = pvc("immediate-bound-pvc", "immediate-sc", volume="pv-bound-immediate", bound=True)
IMMEDIATE_UNBOUND = pvc("immediate-unbound-pvc", "immediate-sc")
PV_NODE1A = pv("pv-node1a", "wait-sc", node="node1", capacity="5G")
PV_NODE1B = pv("pv-node1b", "wait-sc", node="node1", capacity="10G")
PV_NODE2 = pv("pv-node2", "wait-sc", node="node2", capacity="1G")
PV_BOUND = pv("pv-bound", "wait-sc", node="node1", claim=BOUND)
PV_BOUND_IMMEDIATE = pv("pv-bound-immediate", "immediate-sc", node="node1", claim=IMMEDIATE_BOUND)
PV_BOUND_IMMEDIATE_NODE2 = pv("pv-bound-immediate", "immediate-sc", node="node2", claim=IMMEDIATE_BOUND)
EPHEMERAL_NO_OWNER = pvc("test-pod-my-volume", "wait-sc", owner_uid="some-other-uid")
EPHEMERAL_OWNED = pvc("test-pod-my-volume", "wait-sc", owner_uid="uid-default-test-pod")


@pytest.mark.parametrize(
    ("claims", "ephemeral", "pvcs", "pvs", "want_pre_filter", "want_filter", "want_bindings"),
    [
        pytest.param((), (), [], [], SKIP, None, [], id="no-volumes"),
        pytest.param(
            ("unbound-pvc",),
            (),
            [],
            [],
            (UNRESOLVABLE, ('persistentvolumeclaim "unbound-pvc" not found',)),
            None,
            [],
            id="pvc-not-found",
        ),
        pytest.param(("bound-pvc",), (), [BOUND], [PV_BOUND], OK, [OK], [], id="bound-pvc"),
        pytest.param(
            ("bound-pvc",), (), [BOUND], [], OK, [(UNRESOLVABLE, (PV_NOT_EXIST,))], [], id="bound-pvc,pv-not-exists"
        ),
        pytest.param(
            ("prebound-pvc",),
            (),
            [PREBOUND],
            [PV_NODE1A],
            (UNRESOLVABLE, ("pod has unbound immediate PersistentVolumeClaims",)),
            None,
            [],
            id="prebound-pvc",
        ),
        pytest.param(
            ("unbound-pvc",),
            (),
            [UNBOUND],
            [PV_NODE2, PV_NODE1A, PV_NODE1B],
            OK,
            [OK],
            [("unbound-pvc", "pv-node1a")],
            id="unbound-pvc,pv-same-node",
        ),
        pytest.param(
            ("unbound-pvc",),
            (),
            [UNBOUND],
            [PV_NODE2],
            OK,
            [(UNRESOLVABLE, (BIND_CONFLICT,))],
            [],
            id="unbound-pvc,pv-different-node",
        ),
        pytest.param(
            ("unbound-pvc", "unbound-pvc2"),
            (),
            [UNBOUND, UNBOUND_2],
            [PV_NODE1A, PV_NODE1B],
            OK,
            [OK],
            [("unbound-pvc", "pv-node1a"), ("unbound-pvc2", "pv-node1b")],
            id="two-unbound-pvcs",
        ),
        pytest.param(
            ("unbound-pvc2", "unbound-pvc"),
            (),
            [UNBOUND, UNBOUND_2],
            [PV_NODE1A, PV_NODE1B],
            OK,
            [OK],
            [("unbound-pvc", "pv-node1a"), ("unbound-pvc2", "pv-node1b")],
            id="two-unbound-pvcs,order-by-size",
        ),
        pytest.param(
            ("unbound-pvc", "unbound-pvc2"),
            (),
            [UNBOUND, UNBOUND_2],
            [PV_NODE1A],
            OK,
            [(UNRESOLVABLE, (BIND_CONFLICT,))],
            [],
            id="two-unbound-pvcs,partial-match",
        ),
        pytest.param(
            ("unbound-pvc", "bound-pvc"),
            (),
            [UNBOUND, BOUND],
            [PV_BOUND, PV_NODE1A],
            OK,
            [OK],
            [("unbound-pvc", "pv-node1a")],
            id="one-bound,one-unbound",
        ),
        pytest.param(
            ("unbound-pvc", "bound-pvc"),
            (),
            [UNBOUND, BOUND],
            [PV_BOUND, PV_NODE2],
            OK,
            [(UNRESOLVABLE, (BIND_CONFLICT,))],
            [],
            id="one-bound,one-unbound,no-match",
        ),
        pytest.param(
            ("unbound-pvc", "prebound-pvc"),
            (),
            [UNBOUND, PREBOUND],
            [PV_NODE1A, PV_NODE1B],
            (UNRESOLVABLE, ("pod has unbound immediate PersistentVolumeClaims",)),
            None,
            [],
            id="one-prebound,one-unbound",
        ),
        pytest.param(
            ("immediate-bound-pvc",),
            (),
            [IMMEDIATE_BOUND],
            [PV_BOUND_IMMEDIATE],
            OK,
            [OK],
            [],
            id="immediate-bound-pvc",
        ),
        pytest.param(
            ("immediate-bound-pvc",),
            (),
            [IMMEDIATE_BOUND],
            [PV_BOUND_IMMEDIATE_NODE2],
            OK,
            [(UNRESOLVABLE, (NODE_CONFLICT,))],
            [],
            id="immediate-bound-pvc-wrong-node",
        ),
        pytest.param(
            ("immediate-unbound-pvc", "bound-pvc"),
            (),
            [IMMEDIATE_UNBOUND, BOUND],
            [PV_BOUND],
            (UNRESOLVABLE, ("pod has unbound immediate PersistentVolumeClaims",)),
            None,
            [],
            id="immediate-unbound-pvc,delayed-mode-bound",
        ),
        pytest.param(
            (),
            ("my-volume",),
            [],
            [],
            (
                UNRESOLVABLE,
                ('waiting for ephemeral volume controller to create the persistentvolumeclaim "test-pod-my-volume"',),
            ),
            None,
            [],
            id="generic-ephemeral,no-pvc",
        ),
        pytest.param(
            (),
            ("my-volume",),
            [EPHEMERAL_OWNED],
            [PV_NODE1A],
            OK,
            [OK],
            [("test-pod-my-volume", "pv-node1a")],
            id="generic-ephemeral,with-pvc",
        ),
        pytest.param(
            (),
            ("my-volume",),
            [EPHEMERAL_NO_OWNER],
            [PV_NODE1A],
            (
                UNRESOLVABLE,
                ("PVC default/test-pod-my-volume was not created for pod default/test-pod (pod is not owner)",),
            ),
            None,
            [],
            id="generic-ephemeral,wrong-pvc",
        ),
    ],
)
def test_find_pod_volumes_without_provisioning(
    claims, ephemeral, pvcs, pvs, want_pre_filter, want_filter, want_bindings
):
    pod = claim_pod(*claims, name="test-pod", ephemeral=ephemeral)
    pre_filter, filters, state = run(pod, [node("node1", nodeKey="node1")], pvcs, pvs)
    assert (pre_filter, filters) == (want_pre_filter, want_filter)
    if filters == [OK]:
        assert chosen(pod, state, "node1") == (want_bindings, [])


# --- TestFindPodVolumesWithProvisioning -------------------------------------------------------

PROVISIONED = pvc("provisioned-pvc", "provisionable-sc")
PROVISIONED_BIG = pvc("provisioned-pvc", "provisionable-sc", size="100G")
NO_PROVISIONER = pvc("no-provisioner-pvc", "no-provisioner-sc")
TOPOLOGY = pvc("topology-pvc", "topology-sc")
SELECTED_NODE1 = pvc("provisioned-pvc", "provisionable-sc", selected_node="node1")
SELECTED_NODE2 = pvc("provisioned-pvc", "provisionable-sc", selected_node="node2")


@pytest.mark.parametrize(
    ("claims", "pvcs", "pvs", "want_filter", "want_bindings", "want_provisions"),
    [
        pytest.param(("provisioned-pvc",), [PROVISIONED], [], [OK], [], ["provisioned-pvc"], id="one-provisioned"),
        pytest.param(
            ("unbound-pvc", "provisioned-pvc"),
            [UNBOUND, PROVISIONED],
            [PV_NODE1A, PV_NODE1B],
            [OK],
            [("unbound-pvc", "pv-node1a")],
            ["provisioned-pvc"],
            id="two-unbound-pvcs,one-matched,one-provisioned",
        ),
        pytest.param(
            ("bound-pvc", "provisioned-pvc"),
            [BOUND, PROVISIONED],
            [PV_BOUND],
            [OK],
            [],
            ["provisioned-pvc"],
            id="one-bound,one-provisioned",
        ),
        pytest.param(
            ("no-provisioner-pvc",),
            [NO_PROVISIONER],
            [PV_NODE1A],
            [(UNRESOLVABLE, (BIND_CONFLICT,))],
            [],
            [],
            id="invalid-provisioner",
        ),
        pytest.param(
            ("topology-pvc",), [TOPOLOGY], [], [OK], [], ["topology-pvc"], id="provisioning-allowed-topologies"
        ),
        pytest.param(
            ("provisioned-pvc",), [SELECTED_NODE1], [], [OK], [], ["provisioned-pvc"], id="selected-node-this-node"
        ),
        pytest.param(
            ("provisioned-pvc",),
            [SELECTED_NODE2],
            [],
            [(UNRESOLVABLE, (BIND_CONFLICT,))],
            [],
            [],
            id="selected-node-another-node",
        ),
        pytest.param(
            ("provisioned-pvc",),
            [PROVISIONED_BIG],
            [PV_NODE1A],
            [OK],
            [],
            ["provisioned-pvc"],
            id="large-claim-provisioned-not-matched",
        ),
    ],
)
def test_find_pod_volumes_with_provisioning(claims, pvcs, pvs, want_filter, want_bindings, want_provisions):
    pod = claim_pod(*claims, name="test-pod")
    _, filters, state = run(pod, [node("node1", nodeKey="node1")], pvcs, pvs)
    assert filters == want_filter
    if filters == [OK]:
        assert chosen(pod, state, "node1") == (want_bindings, want_provisions)


def test_provisioning_outside_allowed_topologies():
    # TestFindPodVolumesWithProvisioning "provisioning-topology-mismatch" on node2 of the class's node1.
    pod = claim_pod("topology-pvc", name="test-pod")
    _, filters, _ = run(pod, [node("node2", nodeKey="node2")], [TOPOLOGY], [])
    assert filters == [(UNRESOLVABLE, (BIND_CONFLICT,))]


def test_reserve_assumes_bindings_in_the_snapshot():
    # AssumePodVolumes: the chosen volume's claimRef names the claim, the provisioned claim carries the node.
    pod = claim_pod("unbound-pvc", "provisioned-pvc", name="test-pod")
    _, _, state = run(pod, [node("node1", nodeKey="node1")], [UNBOUND, PROVISIONED], [PV_NODE1A])
    volumes = VolumeBinding().reserve(state, PodInfo.from_pod(pod), "node1")
    assert volumes is not None
    snapshot = state.snapshot
    assert snapshot is not None
    ref = snapshot.pvs["pv-node1a"]["spec"]["claimRef"]
    assert (ref["kind"], ref["namespace"], ref["name"], ref["uid"]) == (
        "PersistentVolumeClaim",
        "default",
        "unbound-pvc",
        "pvc-uid",
    )
    assert snapshot.pvs["pv-node1a"]["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"] == "yes"
    selected = snapshot.pvcs["default/provisioned-pvc"]["metadata"]["annotations"]
    assert selected["volume.kubernetes.io/selected-node"] == "node1"
    # The informer's objects are left as they were.
    assert "claimRef" not in PV_NODE1A["spec"]


def test_a_volume_of_another_attributes_class_does_not_match():
    # FindMatchingVolume with VolumeAttributesClass (GA): the claim's and the volume's classes must agree.
    gold = {**PV_NODE1A, "spec": {**PV_NODE1A["spec"], "volumeAttributesClassName": "gold"}}
    pod = claim_pod("unbound-pvc", name="test-pod")
    _, filters, _ = run(pod, [node("node1", nodeKey="node1")], [UNBOUND], [gold])
    assert filters == [(UNRESOLVABLE, (BIND_CONFLICT,))]
    wants_gold = {**UNBOUND, "spec": {**UNBOUND["spec"], "volumeAttributesClassName": "gold"}}
    _, filters, state = run(pod, [node("node1", nodeKey="node1")], [wants_gold], [gold])
    assert filters == [OK]
    assert chosen(pod, state, "node1") == ([("unbound-pvc", "pv-node1a")], [])


# --- queueing hints (TestIsSchedulableAfter*Change) ---------------------------------------------

MIGRATED = "storage.alpha.kubernetes.io/migrated-plugins"


def csinode(**annotations: str) -> dict:
    return {"metadata": {"name": "node-a", "annotations": annotations}, "spec": {}}


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, csinode(), QueueingHint.QUEUE, id="CSINode is newly created"),
        pytest.param(
            csinode(),
            csinode(**{MIGRATED: "test1"}),
            QueueingHint.QUEUE,
            id="CSINode's migrated-plugins annotations is added",
        ),
        pytest.param(
            csinode(**{MIGRATED: "test1"}),
            csinode(**{MIGRATED: "test1, test2"}),
            QueueingHint.QUEUE,
            id="CSINode's migrated-plugins annotation is updated",
        ),
        pytest.param(
            csinode(**{MIGRATED: "test1"}),
            csinode(**{MIGRATED: "test1", "other": "a"}),
            QueueingHint.SKIP,
            id="CSINode is updated but migrated-plugins annotation gets unchanged",
        ),
    ],
)
def test_is_schedulable_after_csinode_change(old, new, want):
    assert volume_binding.hint_csinode_change(claim_pod("pvc-a"), old, new) == want


@pytest.mark.parametrize(
    ("pod", "new", "want"),
    [
        pytest.param(
            make_pod("pod-a"), pvc("pvc-a", "wait-sc"), QueueingHint.SKIP, id="pod has no pvc or ephemeral volumes"
        ),
        pytest.param(
            claim_pod("pvc-a"),
            pvc("pvc-a", "wait-sc", namespace="ns1"),
            QueueingHint.SKIP,
            id="pvc with the same name as the one used by the pod in a different namespace is modified",
        ),
        pytest.param(
            claim_pod("pvc-b"), pvc("pvc-a", "wait-sc"), QueueingHint.SKIP, id="pod has no pvc that is being modified"
        ),
        pytest.param(
            claim_pod(ephemeral=("ephemeral",)),
            pvc("pod-a-other", "wait-sc"),
            QueueingHint.SKIP,
            id="pod has no generic ephemeral volume that is being modified",
        ),
        pytest.param(
            claim_pod("pvc-a"), pvc("pvc-a", "wait-sc"), QueueingHint.QUEUE, id="pod has the pvc that is being modified"
        ),
        pytest.param(
            claim_pod(ephemeral=("ephemeral",)),
            pvc("pod-a-ephemeral", "wait-sc"),
            QueueingHint.QUEUE,
            id="pod has the generic ephemeral volume that is being modified",
        ),
    ],
)
def test_is_schedulable_after_persistent_volume_claim_change(pod, new, want):
    assert volume_binding.hint_claim_change(pod, pvc(new["metadata"]["name"], "wait-sc"), new) == want


ZONE_TOPOLOGY = [{"matchLabelExpressions": [{"key": "kubernetes.io/hostname", "values": ["node-a"]}]}]


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, WAIT_SC, QueueingHint.QUEUE, id="When a new StorageClass is created, it returns Queue"),
        pytest.param(
            WAIT_SC,
            {**WAIT_SC, "allowedTopologies": ZONE_TOPOLOGY},
            QueueingHint.QUEUE,
            id="When the AllowedTopologies are changed, it returns Queue",
        ),
        pytest.param(
            WAIT_SC,
            {**WAIT_SC, "parameters": {"a": "b"}},
            QueueingHint.SKIP,
            id="When there are no changes to the StorageClass's AllowedTopologies, it returns QueueSkip",
        ),
    ],
)
def test_is_schedulable_after_storage_class_change(old, new, want):
    assert volume_binding.hint_storage_class_change(claim_pod("pvc-a"), old, new) == want


def csi_driver(storage_capacity: bool | None) -> dict:
    spec = {} if storage_capacity is None else {"storageCapacity": storage_capacity}
    return {"metadata": {"name": "test-driver"}, "spec": spec}


INLINE_CSI_POD = make_pod("pod-a", volumes=[{"name": "v", "csi": {"driver": "test-driver"}}])


@pytest.mark.parametrize(
    ("pod", "old", "new", "want"),
    [
        pytest.param(
            make_pod("pod-a"), csi_driver(True), csi_driver(False), QueueingHint.SKIP, id="pod has no CSIDriver"
        ),
        pytest.param(
            INLINE_CSI_POD,
            csi_driver(True),
            csi_driver(False),
            QueueingHint.QUEUE,
            id="CSIDriver.StorageCapacity is changed from true to false",
        ),
        pytest.param(
            INLINE_CSI_POD,
            csi_driver(False),
            csi_driver(True),
            QueueingHint.SKIP,
            id="CSIDriver.StorageCapacity is changed from false to true",
        ),
        pytest.param(
            INLINE_CSI_POD,
            csi_driver(True),
            csi_driver(True),
            QueueingHint.SKIP,
            id="CSIDriver.StorageCapacity is not changed",
        ),
    ],
)
def test_is_schedulable_after_csi_driver_change(pod, old, new, want):
    assert volume_binding.hint_csi_driver_change(pod, old, new) == want
