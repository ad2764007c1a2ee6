"""Export a cluster as YAML, and bring it back into a fresh cluster through the editor's apply."""

import pytest

from clusterviz.api.bootstrap import create_cluster
from clusterviz.api.client import Client
from clusterviz.web import yaml_form

pytestmark = pytest.mark.django_db(transaction=True)


async def test_export_then_apply_elsewhere_recreates_the_lesson(async_client):
    teacher = Client("demo", "kubectl")
    await teacher.patch("nodes", "node01", {"metadata": {"labels": {"disktype": "ssd"}}})
    await teacher.create(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "lesson"},
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"app": "lesson"}},
                "template": {
                    "metadata": {"labels": {"app": "lesson"}},
                    "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]},
                },
            },
        }
    )
    exported = (await async_client.get("/c/demo/export.yaml")).content.decode()
    assert "kind: Deployment" in exported and "disktype: ssd" in exported
    assert "resourceVersion" not in exported and "kind: Simulation" in exported

    await create_cluster("copy")
    outcomes = await yaml_form.run("copy", "apply", exported)
    assert all(o.ok for o in outcomes), [o.text for o in outcomes if not o.ok]
    student = Client("copy", "kubectl")
    assert (await student.get("deployments", "lesson", "default"))["spec"]["replicas"] == 2
    assert (await student.get("nodes", "node01"))["metadata"]["labels"]["disktype"] == "ssd"


async def test_a_lesson_file_uploaded_replaces_a_cluster_with_nodes_profile_and_settings(async_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from clusterviz.api.bootstrap import node_object

    teacher = Client("demo", "kubectl", simulated=False)
    big = node_object("node04", 4, cpu="16", memory="64Gi")
    big["metadata"]["labels"]["gpu"] = "true"
    await teacher.create(big)
    profile = (
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 100\n"
    )
    await teacher.create(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "kube-scheduler"},
            "data": {"config.yaml": profile},
        },
        "kube-system",
    )
    await teacher.patch("simulations", "default", {"spec": {"mode": "paused", "podEvictionTimeoutSeconds": 60}})
    exported = (await async_client.get("/c/demo/export.yaml")).content

    await create_cluster("copy", nodes=5)
    await Client("copy", "kubectl", simulated=False).create(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "leftover"}, "data": {}}, "default"
    )
    upload = SimpleUploadedFile("lesson.yaml", exported, content_type="application/yaml")
    reply = (await async_client.post("/c/copy/import", {"file": upload})).content.decode()
    assert "node/node04 applied" in reply and "simulation.clusterviz.io/default applied" in reply
    copy = Client("copy", "kubectl", simulated=False)
    nodes = {n["metadata"]["name"]: n for n in (await copy.list("nodes"))["items"]}
    assert sorted(nodes) == ["node01", "node02", "node03", "node04"]  # the file's nodes, not the 5 it had
    assert (
        nodes["node04"]["status"]["capacity"]["cpu"] == "16" and nodes["node04"]["metadata"]["labels"]["gpu"] == "true"
    )
    scheduler = await copy.get("configmaps", "kube-scheduler", "kube-system")
    assert "percentageOfNodesToScore: 100" in scheduler["data"]["config.yaml"]
    assert await copy.get_or_none("configmaps", "leftover", "default") is None
    spec = (await copy.get("simulations", "default"))["spec"]
    assert spec["mode"] == "paused" and spec["podEvictionTimeoutSeconds"] == 60


async def test_an_upload_that_is_not_text_changes_nothing(async_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("photo.yaml", b"\xff\xd8\xff\xe0 not yaml", content_type="application/yaml")
    reply = (await async_client.post("/c/demo/import", {"file": upload})).content.decode()
    assert "the file is not UTF-8 text" in reply
    assert len((await Client("demo", "kubectl").list("nodes"))["items"]) == 3
    missing = (await async_client.post("/c/demo/import", {})).content.decode()
    assert "choose a file exported from clusterviz" in missing


async def test_a_file_with_a_refused_document_changes_nothing(async_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fine}\ndata: {}\n---\n"
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: broken}\nspec: {replicas: -2}\n"
    )
    upload = SimpleUploadedFile("lesson.yaml", text.encode(), content_type="application/yaml")
    reply = (await async_client.post("/c/demo/import", {"file": upload})).content.decode()
    assert "spec.replicas: Invalid value: -2" in reply
    demo = Client("demo", "kubectl", simulated=False)
    assert len((await demo.list("nodes"))["items"]) == 3
    assert await demo.get_or_none("configmaps", "fine", "default") is None
    assert (await demo.get("simulations", "default"))["spec"]["mode"] != "fast-forward"


async def test_a_dry_run_of_the_simulation_changes_nothing():
    before = (await Client("demo", "kubectl").get("simulations", "default"))["spec"]["mode"]
    doc = "apiVersion: clusterviz.io/v1\nkind: Simulation\nmetadata: {name: default}\nspec: {mode: paused}\n"
    outcomes = await yaml_form.run("demo", "dry-run", doc)
    assert [o.text for o in outcomes] == ["simulation.clusterviz.io/default would be applied (server dry run)"]
    assert (await Client("demo", "kubectl").get("simulations", "default"))["spec"]["mode"] == before != "paused"


async def test_the_home_page_creates_a_cluster_from_a_lesson_file(async_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    await Client("demo", "kubectl", simulated=False).patch("nodes", "node02", {"metadata": {"labels": {"zone": "b"}}})
    exported = (await async_client.get("/c/demo/export.yaml")).content
    upload = SimpleUploadedFile("week3.yaml", exported, content_type="application/yaml")
    reply = (await async_client.post("/clusters/new", {"name": "week3", "nodes": "3", "file": upload})).content.decode()
    assert "cluster &quot;week3&quot; created from week3.yaml" in reply
    node02 = await Client("week3", "kubectl", simulated=False).get("nodes", "node02")
    assert node02["metadata"]["labels"]["zone"] == "b"
