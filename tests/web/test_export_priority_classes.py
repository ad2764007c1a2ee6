"""A lesson file carries the cluster's own PriorityClasses (not the system ones), ahead of the Pods naming them."""

import pytest

from clusterviz.api.bootstrap import create_cluster
from clusterviz.api.client import Client
from clusterviz.web import yaml_form

pytestmark = pytest.mark.django_db(transaction=True)


async def test_an_exported_class_comes_before_its_pods_and_applies_elsewhere(async_client):
    teacher = Client("demo", "kubectl")
    await teacher.create({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                          "metadata": {"name": "batch"}, "value": 100})
    await teacher.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "report", "namespace": "default"},
                          "spec": {"priorityClassName": "batch",
                                   "containers": [{"name": "c", "image": "nginx:1.27"}]}})
    exported = (await async_client.get("/c/demo/export.yaml")).content.decode()
    assert "name: batch" in exported and "system-node-critical" not in exported
    assert exported.index("kind: PriorityClass") < exported.index("kind: Pod\n")

    await create_cluster("copy")
    outcomes = await yaml_form.run("copy", "apply", exported)
    assert all(o.ok for o in outcomes), [o.text for o in outcomes if not o.ok]
    student = Client("copy", "kubectl")
    assert (await student.get("pods", "report", "default"))["spec"]["priority"] == 100
