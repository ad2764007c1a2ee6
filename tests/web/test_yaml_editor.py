"""The YAML editor's buttons go through the API, and errors point at their line."""

from pathlib import Path

import pytest

from clusterviz.api.client import Client
from clusterviz.web.yaml_form import field_line, split_documents

pytestmark = pytest.mark.django_db(transaction=True)

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: fromeditor
spec:
  replicas: 2
  selector:
    matchLabels: {app: fromeditor}
  template:
    metadata:
      labels: {app: fromeditor}
    spec:
      containers:
      - name: web
        image: nginx:1.27
"""


def test_a_field_path_is_found_at_its_line():
    assert field_line(DEPLOYMENT, "spec.replicas") == 6
    assert field_line(DEPLOYMENT, "spec.template.spec.containers[0].image") == 15
    assert [line for line, _ in split_documents("a: 1\n---\nb: 2\n")] == [1, 3]


async def test_apply_then_dry_run_then_delete(async_client):
    kubectl = Client("demo", "kubectl")
    reply = (await async_client.post("/c/demo/yaml", {"action": "apply", "yaml": DEPLOYMENT})).content.decode()
    assert "deployment.apps/fromeditor applied" in reply
    assert (await kubectl.get("deployments", "fromeditor", "default"))["spec"]["replicas"] == 2
    changed = DEPLOYMENT.replace("replicas: 2", "replicas: 4")
    reply = (await async_client.post("/c/demo/yaml", {"action": "dry-run", "yaml": changed})).content.decode()
    assert "would be applied" in reply
    assert (await kubectl.get("deployments", "fromeditor", "default"))["spec"]["replicas"] == 2
    reply = (await async_client.post("/c/demo/yaml", {"action": "delete", "yaml": DEPLOYMENT})).content.decode()
    assert 'deployment.apps &quot;fromeditor&quot; deleted' in reply
    assert await kubectl.get_or_none("deployments", "fromeditor", "default") is None


async def test_bad_yaml_is_shown_at_its_line_and_changes_nothing(async_client):
    broken = DEPLOYMENT.replace("  replicas: 2", "  replicas: [2")
    reply = (await async_client.post("/c/demo/yaml", {"action": "apply", "yaml": broken})).content.decode()
    assert 'data-line="7"' in reply or 'data-line="6"' in reply
    assert await Client("demo", "kubectl").get_or_none("deployments", "fromeditor", "default") is None


async def test_an_invalid_field_is_shown_at_its_line(async_client):
    invalid = DEPLOYMENT.replace("replicas: 2", "replicas: -1")
    reply = (await async_client.post("/c/demo/yaml", {"action": "create", "yaml": invalid})).content.decode()
    assert 'data-line="6"' in reply and "must be greater than or equal to 0" in reply


CRONTAB_CRD = (Path(__file__).parent.parent / "e2e" / "crd_yaml" / "crontab-crd.yaml").read_text()


async def test_a_definition_then_its_objects_from_the_editor_with_schema_errors_at_their_line(async_client):
    reply = (await async_client.post("/c/demo/yaml", {"action": "apply", "yaml": CRONTAB_CRD})).content.decode()
    assert "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com applied" in reply
    crontab = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: nightly\nspec:\n" \
              "  cronSpec: '0 3 * * *'\n  replicas: 3\n"
    reply = (await async_client.post("/c/demo/yaml", {"action": "apply", "yaml": crontab})).content.decode()
    assert "crontab.stable.example.com/nightly applied" in reply
    stored = await Client("demo", "kubectl").get("crontabs.stable.example.com", "nightly", "default")
    assert stored["spec"] == {"cronSpec": "0 3 * * *", "replicas": 3}
    reply = (await async_client.post("/c/demo/yaml", {"action": "apply",
                                                      "yaml": crontab.replace("replicas: 3", "replicas: 30")})).content.decode()
    assert 'data-line="7"' in reply and "spec.replicas in body should be less than or equal to 10" in reply
    reply = (await async_client.post("/c/demo/yaml", {"action": "delete", "yaml": crontab})).content.decode()
    assert 'crontab.stable.example.com &quot;nightly&quot; deleted' in reply
