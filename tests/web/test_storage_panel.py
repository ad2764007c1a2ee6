"""Claims, volumes and StorageClasses on the cluster page: their tab of the objects panel and their describe
panels, as kubectl prints them, in English and Chinese."""

import re

import pytest

from clusterviz.api.client import Client
from tests.web.test_language import chinese_page, names_in
from tests.web.test_objects import get, headings, rows
from tests.web.untranslated import untranslated_english

pytestmark = pytest.mark.django_db(transaction=True)

KUBECTL = Client("demo", "kubectl")
CLAIM = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default"},
         "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                  "resources": {"requests": {"storage": "1Gi"}}}}
USER = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "db", "namespace": "default"},
        "spec": {"containers": [{"name": "db", "image": "redis"}],
                 "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]}}


def test_the_panel_has_a_storage_tab(client):
    page = client.get("/c/demo/").content.decode()
    assert 'name="tab" value="storage"' in page


async def test_the_tab_reads_like_kubectl_get_pvc_pv_and_storageclasses_wide(sim, async_client):
    await KUBECTL.create(CLAIM)
    await sim.engine.until_settled()
    volume = (await KUBECTL.get("persistentvolumeclaims", "data", "default"))["spec"]["volumeName"]
    html = await get(async_client, "/c/demo/objects?tab=storage")
    assert headings(html, "persistentvolumeclaims") == ["NAMESPACE", "NAME", "STATUS", "VOLUME", "CAPACITY",
                                                        "ACCESS MODES", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS",
                                                        "AGE", "VOLUMEMODE"]
    [claim] = rows(html, "persistentvolumeclaims")
    assert claim[:7] == ["default", "data", "Bound", volume, "1Gi", "RWO", "fast"]
    [pv] = rows(html, "persistentvolumes")
    assert pv[:7] == [volume, "1Gi", "RWO", "Delete", "Bound", "default/data", "fast"]
    classes = rows(html, "storageclasses")
    assert [c[:4] for c in classes] == [["fast", "hostpath.csi.clusterviz.io", "Delete", "Immediate"],
                                        ["standard (default)", "hostpath.csi.clusterviz.io", "Delete",
                                         "WaitForFirstConsumer"]]


async def test_describe_reads_like_kubectl_describe_pvc_pv_and_storageclass(sim, async_client):
    await KUBECTL.create(CLAIM)
    await KUBECTL.create(USER)
    await sim.engine.until_settled()
    volume = (await KUBECTL.get("persistentvolumeclaims", "data", "default"))["spec"]["volumeName"]
    html = await get(async_client, "/c/demo/describe/persistentvolumeclaims/data?namespace=default")
    assert re.search(r"StorageClass:\s+fast\nStatus:\s+Bound\nVolume:\s+" + volume, html)
    assert re.search(r"Capacity:\s+1Gi\nAccess Modes:\s+RWO\nVolumeMode:\s+Filesystem\nUsed By:\s+db", html)
    assert f"Successfully provisioned volume {volume}" in html
    html = await get(async_client, f"/c/demo/describe/persistentvolumes/{volume}")
    assert re.search(r"Claim:\s+default/data\nReclaim Policy:\s+Delete", html)
    assert re.search(r"Node Affinity:\s*\n\s+Required Terms:\s*\n\s+Term 0:\s+kubernetes.io/hostname in \[node0\d\]", html)
    assert re.search(r"Source:\n\s+Type:\s+CSI \(a Container Storage Interface \(CSI\) volume source\)\n"
                     r"\s+Driver:\s+hostpath.csi.clusterviz.io", html)
    html = await get(async_client, "/c/demo/describe/storageclasses/standard")
    assert re.search(r"IsDefaultClass:\s+Yes", html)
    assert re.search(r"VolumeBindingMode:\s+WaitForFirstConsumer", html)


async def test_the_tab_and_describe_have_no_english_left_in_chinese(sim, async_client):
    await KUBECTL.create(CLAIM)
    await sim.engine.until_settled()
    page = await chinese_page(async_client, "/c/demo/")
    assert "PersistentVolumeClaim（持久卷申领）" in page
    panel = await chinese_page(async_client, "/c/demo/objects?tab=storage&describe=persistentvolumeclaims/default/data")
    assert untranslated_english(panel, await names_in("demo") | {"data"}) == []


def test_a_claim_held_by_its_protection_describes_as_terminating():
    from clusterviz.api import clock
    from clusterviz.web.describe_storage import describe_persistent_volume_claim

    claim = {**CLAIM, "metadata": {**CLAIM["metadata"], "deletionTimestamp": clock.rfc3339(),
                                   "finalizers": ["kubernetes.io/pvc-protection"]}, "status": {"phase": "Bound"}}
    text = str(describe_persistent_volume_claim(claim, [USER]))
    assert re.search(r"Status:\s+Terminating \(lasts \d+s\)", text)
    assert re.search(r"Finalizers:\s+\[kubernetes.io/pvc-protection\]", text)
    assert re.search(r"Used By:\s+db", text)
