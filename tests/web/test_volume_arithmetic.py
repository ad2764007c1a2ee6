"""The scoring panel explains the volume plugins' verdicts: which claim, which volume, the node affinity that
conflicted, the zone, the attach count against its limit; in English and in Chinese."""

from __future__ import annotations

from django.utils import translation

from clusterviz.web.language import translate_upstream
from tests.scheduler.helpers import make_node, make_pod, run
from tests.web.test_scoring_arithmetic import render, text


def shown(record) -> str:
    """Everything the panel says, the cells' hover text included."""
    html = render(record)
    return text(html) + html.replace("&#x27;", "'").replace("&gt;", ">").replace("&lt;", "<")

WAIT = {"metadata": {"name": "local"}, "provisioner": "kubernetes.io/no-provisioner",
        "volumeBindingMode": "WaitForFirstConsumer"}  # fmt: skip
STANDARD = {"metadata": {"name": "standard"}, "provisioner": "hostpath.csi.clusterviz.io",
            "volumeBindingMode": "WaitForFirstConsumer"}  # fmt: skip


def claim(name: str, storage_class: str, volume: str = "") -> dict:
    c: dict = {"metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "annotations": {}},
               "spec": {"storageClassName": storage_class, "accessModes": ["ReadWriteOnce"],
                        "resources": {"requests": {"storage": "1Gi"}}}}  # fmt: skip
    if volume:
        c["spec"]["volumeName"] = volume
        c["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] = "yes"
    return c


def pinned(name: str, node: str, storage_class: str = "local", **labels: str) -> dict:
    expression = {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}
    return {"metadata": {"name": name, "labels": labels},
            "spec": {"capacity": {"storage": "5Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": storage_class,
                     "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [expression]}]}}},
            "status": {"phase": "Available"}}  # fmt: skip


def claim_pod(*claims: str, node: str | None = None) -> dict:
    volumes = [{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in claims]
    return make_pod("app", volumes=volumes, node=node)


NODES = [make_node("node01"), make_node("node02")]


def test_a_bound_claims_volume_names_the_node_affinity_that_rules_a_node_out():
    record = run(claim_pod("data"), NODES, pvcs=[claim("data", "local", "pv-1")], pvs=[pinned("pv-1", "node02")],
                 storage_classes=[WAIT])  # fmt: skip
    assert record.selected == "node02"
    seen = shown(record)
    assert "✗ claim data is bound to volume pv-1, node affinity kubernetes.io/hostname In [node02]" in seen
    assert "✓ claim data is bound to volume pv-1, node affinity kubernetes.io/hostname In [node02]" in seen


def test_a_waiting_claim_shows_the_volume_it_would_bind_or_that_none_fits():
    record = run(claim_pod("data"), NODES, pvcs=[claim("data", "local")], pvs=[pinned("pv-2", "node02")],
                 storage_classes=[WAIT])  # fmt: skip
    seen = shown(record)
    assert "✓ claim data (class local) would bind Available volume pv-2" in seen
    assert "✗ claim data (class local): no Available volume fits here and the class cannot provision one" in seen


def test_a_provisionable_claim_says_a_volume_would_be_made_for_the_node():
    record = run(claim_pod("data"), NODES, pvcs=[claim("data", "standard")], storage_classes=[STANDARD])
    assert "✓ claim data (class standard): a volume would be provisioned for this node" in shown(record)


def test_a_zoned_volume_names_its_zone_and_the_nodes():
    zoned = [make_node("node01", labels={"topology.kubernetes.io/zone": "a"}),
             make_node("node02", labels={"topology.kubernetes.io/zone": "b"})]  # fmt: skip
    volume = {"metadata": {"name": "pv-z", "labels": {"topology.kubernetes.io/zone": "b"}}, "spec": {}}
    record = run(claim_pod("data"), zoned, pvcs=[claim("data", "local", "pv-z")], pvs=[volume], storage_classes=[WAIT])
    assert record.selected == "node02"
    seen = shown(record)
    assert "✗ volume pv-z is in topology.kubernetes.io/zone=b (node: topology.kubernetes.io/zone=a)" in seen


def test_the_attach_count_is_set_against_the_csinode_limit():
    driver = "hostpath.csi.clusterviz.io"
    volumes = [{"metadata": {"name": f"pv-{i}"}, "spec": {"csi": {"driver": driver, "volumeHandle": f"h{i}"}}}
               for i in range(2)]  # fmt: skip
    claims = [claim(f"c{i}", "standard", f"pv-{i}") for i in range(2)]
    csinodes = [{"metadata": {"name": n}, "spec": {"drivers": [{"name": driver, "allocatable": {"count": 1}}]}}
                for n in ("node01", "node02")]  # fmt: skip
    holder = claim_pod("c0", node="node01")
    holder["metadata"]["name"] = "holder"
    record = run(claim_pod("c1"), NODES, [holder], pvcs=claims, pvs=volumes, storage_classes=[STANDARD],
                 csinodes=csinodes)  # fmt: skip
    assert record.selected == "node02"
    seen = shown(record)
    assert f"✗ {driver}: 1 attached + 1 new = 2, limit 1" in seen
    assert f"✓ {driver}: 0 attached + 1 new = 1, limit 1" in seen


def test_the_volume_reasons_read_in_chinese():
    message = (
        "0/3 nodes are available: 1 node(s) didn't match PersistentVolume's node affinity, "
        "2 node(s) didn't find available persistent volumes to bind."
    )
    with translation.override("zh-hans"):
        assert translate_upstream(message) == "0/3 个节点可用：1 个节点不满足持久卷的节点亲和性，2 个节点找不到可绑定的可用持久卷。"
        assert translate_upstream("node(s) exceed max volume count") == "超出最大卷数量"
        assert translate_upstream("node(s) had no available volume zone") == "不在卷所在的可用区"
        assert translate_upstream('persistentvolumeclaim "data" is being deleted') == (
            'PersistentVolumeClaim "data" 正在被删除'
        )
        assert "卷申领 data（存储类 standard）：将为该节点制备一个卷" in shown(
            run(claim_pod("data"), NODES, pvcs=[claim("data", "standard")], storage_classes=[STANDARD])
        )
