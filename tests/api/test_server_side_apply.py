"""Server-side apply removes what an applier stops applying, and only that (managedFields)."""

from __future__ import annotations

import pytest

from clusterviz.api.client import Client
from clusterviz.api.managedfields import field_set, from_fields_v1, to_fields_v1
from clusterviz.web import yaml_form

pytestmark = pytest.mark.django_db(transaction=True)


def deployment(*, selector: bool, sidecar: bool) -> str:
    text = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: lesson
  labels: {team: blue}
spec:
  replicas: 2
  selector: {matchLabels: {app: lesson}}
  template:
    metadata: {labels: {app: lesson}}
    spec:
"""
    if selector:
        text += "      nodeSelector: {disktype: ssd}\n"
    text += "      containers:\n      - {name: web, image: 'nginx:1.27'}\n"
    if sidecar:
        text += "      - {name: log, image: 'busybox:1.37'}\n"
    return text


async def apply(text: str) -> None:
    outcomes = await yaml_form.run("demo", "apply", text)
    assert all(o.ok for o in outcomes), [o.text for o in outcomes]


async def test_fields_left_out_of_the_next_apply_are_removed():
    client = Client("demo", "kubectl", simulated=False)
    await apply(deployment(selector=True, sidecar=True))
    # Someone else's change is not the applier's to remove.
    await client.patch("deployments", "lesson", {"metadata": {"labels": {"owner": "kubectl-label"}}}, "default")
    await apply(deployment(selector=False, sidecar=False))
    obj = await client.get("deployments", "lesson", "default")
    pod_spec = obj["spec"]["template"]["spec"]
    assert "nodeSelector" not in pod_spec
    assert [c["name"] for c in pod_spec["containers"]] == ["web"]
    assert obj["metadata"]["labels"] == {"team": "blue", "owner": "kubectl-label"}
    managed = [e for e in obj["metadata"]["managedFields"] if e["manager"] == "clusterviz-dashboard"]
    assert managed[0]["operation"] == "Apply" and managed[0]["fieldsType"] == "FieldsV1"
    containers = managed[0]["fieldsV1"]["f:spec"]["f:template"]["f:spec"]["f:containers"]
    assert list(containers) == ['k:{"name":"web"}'] and "." in containers['k:{"name":"web"}']


def test_field_sets_round_trip_through_fields_v1():
    config = {"metadata": {"name": "x", "labels": {"a": "1"}, "finalizers": ["f1"]}, "spec": {"ports": [{"port": 80}]}}
    paths = field_set(config)
    assert ("f:metadata", "f:finalizers", 'v:"f1"') in paths and ("f:metadata", "f:name") not in paths
    assert ("f:spec", "f:ports", 'k:{"port":80}', ".") in paths
    assert from_fields_v1(to_fields_v1(paths)) == paths
