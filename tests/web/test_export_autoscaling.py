"""A lesson file carries the cluster's HorizontalPodAutoscalers and PodDisruptionBudgets, after what they name."""

import pytest

from clusterviz.api.bootstrap import create_cluster
from clusterviz.api.client import Client
from clusterviz.web import yaml_form
from tests.web.test_actions import deployment

pytestmark = pytest.mark.django_db(transaction=True)


async def test_an_exported_autoscaler_and_budget_apply_elsewhere(async_client):
    teacher = Client("demo", "kubectl")
    await teacher.create(deployment())
    await teacher.create({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                          "metadata": {"name": "web", "namespace": "default"},
                          "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}})
    await teacher.create({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                          "metadata": {"name": "web", "namespace": "default"},
                          "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                                   "maxReplicas": 4}})
    exported = (await async_client.get("/c/demo/export.yaml")).content.decode()
    assert exported.index("kind: Deployment") < exported.index("kind: PodDisruptionBudget")
    assert exported.index("kind: Deployment") < exported.index("kind: HorizontalPodAutoscaler")

    await create_cluster("copy")
    outcomes = await yaml_form.run("copy", "apply", exported)
    assert all(o.ok for o in outcomes), [o.text for o in outcomes if not o.ok]
    student = Client("copy", "kubectl")
    assert (await student.get("horizontalpodautoscalers", "web", "default"))["spec"]["maxReplicas"] == 4
    assert (await student.get("poddisruptionbudgets", "web", "default"))["spec"]["minAvailable"] == 1
