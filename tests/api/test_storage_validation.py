"""PersistentVolume, PersistentVolumeClaim, StorageClass and CSINode validation and defaults, with upstream's messages."""

from __future__ import annotations

from typing import Any

from clusterviz.api.admission.storageclass import admit_claim
from clusterviz.api.defaulting import apply_defaults
from clusterviz.api.validation import validate


def volume(**spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/data"}}
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv1"}, "spec": {**base, **spec}}


def claim(**spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default"},
            "spec": {**base, **spec}}


def storage_class(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "fast"},
            "provisioner": "clusterviz.io/hostpath", **fields}


def messages(kind: str, obj: dict[str, Any], old: dict[str, Any] | None = None) -> list[str]:
    return [str(e) for e in validate(kind, obj, old)]


def test_a_volume_needs_access_modes_a_storage_capacity_and_one_source():
    assert messages("PersistentVolume", volume()) == []
    bare = volume()
    del bare["spec"]["hostPath"], bare["spec"]["accessModes"]
    bare["spec"]["capacity"] = {"storage": "0"}
    assert messages("PersistentVolume", bare) == [
        "spec.accessModes: Required value",
        'spec.capacity[storage]: Invalid value: "0": must be greater than zero',
        "spec: Required value: must specify a volume type",
    ]
    [not_storage] = messages("PersistentVolume", volume(capacity={"cpu": "1"}))
    assert not_storage.startswith("spec.capacity: Unsupported value: ")
    assert not_storage.endswith('supported values: "storage"')
    assert messages("PersistentVolume", volume(nfs={"server": "nfs", "path": "/x"})) == [
        "spec.nfs: Forbidden: may not specify more than 1 volume type"
    ]


def test_a_volume_checks_modes_policies_and_node_affinity():
    assert messages("PersistentVolume", volume(accessModes=["ReadWriteOncePod", "ReadOnlyMany"])) == [
        "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"
    ]
    assert messages("PersistentVolume", volume(persistentVolumeReclaimPolicy="Keep")) == [
        'spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"'
    ]
    assert messages("PersistentVolume", volume(volumeMode="Raw")) == [
        'spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"'
    ]
    assert messages("PersistentVolume", volume(nodeAffinity={})) == [
        "spec.nodeAffinity.required: Required value: must specify required node constraints"
    ]
    local = volume(local={"path": "/mnt/disk"})
    del local["spec"]["hostPath"]
    assert messages("PersistentVolume", local) == ["metadata.annotations: Required value: Local volume requires node affinity"]


def test_a_volume_keeps_its_source_and_mode():
    old = apply_defaults("PersistentVolume", volume())
    new = apply_defaults("PersistentVolume", volume(hostPath={"path": "/other"}, volumeMode="Block"))
    assert messages("PersistentVolume", new, old) == [
        "spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation",
        'volumeMode: Invalid value: "Block": field is immutable',
    ]
    assert messages("PersistentVolume", apply_defaults("PersistentVolume", volume(claimRef={"name": "x"})), old) == []


def test_a_claim_needs_access_modes_and_a_positive_storage_request():
    assert messages("PersistentVolumeClaim", claim()) == []
    assert messages("PersistentVolumeClaim", claim(accessModes=[], resources={})) == [
        "spec.accessModes: Required value: at least 1 access mode is required",
        "spec.resources[storage]: Required value",
    ]
    assert messages("PersistentVolumeClaim", claim(resources={"requests": {"storage": "-1Gi"}})) == [
        'spec.resources[storage]: Invalid value: "-1Gi": must be greater than zero'
    ]
    assert messages("PersistentVolumeClaim", claim(accessModes=["ReadWriteSome"], storageClassName="Fast_")) == [
        'spec.accessModes: Unsupported value: "ReadWriteSome": supported values: '
        '"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
        'spec.storageClassName: Invalid value: "Fast_": a lowercase RFC 1123 subdomain must consist of lower case '
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]


def test_a_claim_spec_is_immutable_but_for_its_volume_name_and_a_bound_claims_request():
    old = apply_defaults("PersistentVolumeClaim", claim(storageClassName="standard"))
    changed = apply_defaults("PersistentVolumeClaim", claim(storageClassName="fast"))
    assert messages("PersistentVolumeClaim", changed, old) == [
        "spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName "
        "for bound claims"
    ]
    named = apply_defaults("PersistentVolumeClaim", claim(storageClassName="standard", volumeName="pv1"))
    assert messages("PersistentVolumeClaim", named, old) == []
    grown = apply_defaults("PersistentVolumeClaim", claim(storageClassName="standard", resources={"requests": {"storage": "2Gi"}}))
    assert messages("PersistentVolumeClaim", grown, old)[0].startswith("spec: Forbidden: spec is immutable")
    bound_old = {**old, "status": {"phase": "Bound", "capacity": {"storage": "1Gi"}}}
    assert messages("PersistentVolumeClaim", {**grown, "status": bound_old["status"]}, bound_old) == []
    unset = apply_defaults("PersistentVolumeClaim", claim())
    assert messages("PersistentVolumeClaim", old, unset) == []


def test_claims_and_volumes_are_defaulted_as_upstream():
    pv = apply_defaults("PersistentVolume", volume())
    assert pv["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    assert pv["spec"]["volumeMode"] == "Filesystem"
    assert pv["status"] == {"phase": "Pending"}
    pvc = apply_defaults("PersistentVolumeClaim", claim())
    assert pvc["spec"]["volumeMode"] == "Filesystem" and pvc["status"] == {"phase": "Pending"}
    sc = apply_defaults("StorageClass", storage_class())
    assert sc["reclaimPolicy"] == "Delete" and sc["volumeBindingMode"] == "Immediate"


def test_the_default_storage_class_is_given_to_claims_that_name_none():
    standard = storage_class(metadata={"name": "standard", "creationTimestamp": "2026-01-01T00:00:00Z",
                                       "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}})
    fast = storage_class(metadata={"name": "fast", "creationTimestamp": "2026-01-02T00:00:00Z"})
    assert admit_claim(claim(), [fast, standard])["spec"]["storageClassName"] == "standard"
    assert admit_claim(claim(storageClassName=""), [standard])["spec"]["storageClassName"] == ""
    assert "storageClassName" not in admit_claim(claim(), [fast])["spec"]


def test_a_storage_class_needs_a_provisioner_and_known_policies():
    assert messages("StorageClass", apply_defaults("StorageClass", storage_class())) == []
    assert messages("StorageClass", apply_defaults("StorageClass", storage_class(
        provisioner="", reclaimPolicy="Recycle", volumeBindingMode="Later"))) == [
        "provisioner: Required value",
        'reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"',
        'volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"',
    ]


def test_a_storage_class_keeps_its_provisioner_parameters_and_policies():
    old = apply_defaults("StorageClass", storage_class())
    new = apply_defaults("StorageClass", storage_class(
        provisioner="other.io/x", parameters={"a": "b"}, reclaimPolicy="Retain", volumeBindingMode="WaitForFirstConsumer"))
    assert messages("StorageClass", new, old) == [
        "parameters: Forbidden: updates to parameters are forbidden.",
        "provisioner: Forbidden: updates to provisioner are forbidden.",
        "reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.",
        'volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable',
    ]
    relabelled = {**old, "allowVolumeExpansion": True, "metadata": {"name": "fast", "labels": {"tier": "ssd"}}}
    assert messages("StorageClass", relabelled, old) == []


def test_a_csi_node_names_each_driver_once_with_a_node_id():
    node = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "node01"}, "spec": {"drivers": [
        {"name": "hostpath.csi.clusterviz.io", "nodeID": "node01", "allocatable": {"count": 16}},
    ]}}
    assert messages("CSINode", node) == []
    bad = {**node, "spec": {"drivers": [{"name": "d.io", "nodeID": ""}, {"name": "d.io", "nodeID": "n",
                                                                         "allocatable": {"count": -1}}]}}
    assert messages("CSINode", bad) == [
        "spec.drivers[0].nodeID: Required value",
        'spec.drivers[1].name: Duplicate value: "d.io"',
        "spec.drivers[1].allocatable.count: Invalid value: -1: must be greater than or equal to 0",
    ]
    moved = {**node, "spec": {"drivers": [{**node["spec"]["drivers"][0], "nodeID": "elsewhere"}]}}
    assert messages("CSINode", moved, node) == ['spec.drivers[0].nodeID: Invalid value: "elsewhere": field is immutable']


def test_a_claim_grows_only_when_bound_and_its_class_allows_expansion():
    from clusterviz.api.admission.storageclass import resize_refusal

    old = {**claim(storageClassName="fast"), "status": {"phase": "Bound"}}
    grown = claim(storageClassName="fast", resources={"requests": {"storage": "2Gi"}})
    refused = "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize"
    assert resize_refusal(grown, old, [storage_class()]) == refused
    assert resize_refusal(grown, old, [storage_class(allowVolumeExpansion=True)]) is None
    assert resize_refusal(grown, {**old, "status": {"phase": "Pending"}}, []) == "Only bound persistent volume claims can be expanded"
    assert resize_refusal(old, old, []) is None


def test_a_stateful_sets_claim_templates_follow_the_claim_rules():
    from tests.controllers.test_statefulset import STATEFUL_SET

    template = {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "Fast",
                                                       "resources": {"requests": {"storage": "0"}}}}
    sts = {**STATEFUL_SET, "spec": {**STATEFUL_SET["spec"], "volumeClaimTemplates": [template]}}
    found = messages("StatefulSet", apply_defaults("StatefulSet", sts))
    assert found[0] == 'spec.volumeClaimTemplates[0].spec.resources[storage]: Invalid value: "0": must be greater than zero'
    assert found[1].startswith('spec.volumeClaimTemplates[0].spec.storageClassName: Invalid value: "Fast": a lowercase')
    assert len(found) == 2
