"""Export a cluster as YAML, and bring it back into a fresh cluster through the editor's apply."""

import pytest

from clusterviz.api.bootstrap import create_cluster
from clusterviz.api.client import Client
from clusterviz.web import yaml_form

pytestmark = pytest.mark.django_db(transaction=True)


async def test_export_then_apply_elsewhere_recreates_the_lesson(async_client):
    teacher = Client("demo", "kubectl")
    await teacher.patch("nodes", "node01", {"metadata": {"labels": {"disktype": "ssd"}}})
    await teacher.create({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "lesson"},
                          "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "lesson"}},
                                   "template": {"metadata": {"labels": {"app": "lesson"}},
                                                "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}}})
    exported = (await async_client.get("/c/demo/export.yaml")).content.decode()
    assert "kind: Deployment" in exported and "disktype: ssd" in exported
    assert "resourceVersion" not in exported and "kind: Simulation" in exported

    await create_cluster("copy")
    outcomes = await yaml_form.run("copy", "apply", exported)
    assert all(o.ok for o in outcomes), [o.text for o in outcomes if not o.ok]
    student = Client("copy", "kubectl")
    assert (await student.get("deployments", "lesson", "default"))["spec"]["replicas"] == 2
    assert (await student.get("nodes", "node01"))["metadata"]["labels"]["disktype"] == "ssd"
