"""PriorityClasses through the official kubernetes Python client: list the system classes, create, use, delete."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

from tests.livesim import LiveServer


@pytest.fixture
def api(live: LiveServer) -> Iterator[client.ApiClient]:
    with client.ApiClient(client.Configuration(host=live.cluster_url("demo"))) as api_client:
        yield api_client


def test_priority_classes_are_listed_created_used_and_deleted(api: client.ApiClient):
    scheduling, core = client.SchedulingV1Api(api), client.CoreV1Api(api)
    system = {pc.metadata.name: pc.value for pc in scheduling.list_priority_class().items}
    assert system["system-node-critical"] == 2000001000 and system["system-cluster-critical"] == 2000000000
    made = scheduling.create_priority_class(
        client.V1PriorityClass(metadata=client.V1ObjectMeta(name="py-batch"), value=300, description="reports")
    )
    assert (made.value, made.preemption_policy, made.global_default) == (300, "PreemptLowerPriority", None)
    container = client.V1Container(name="app", image="nginx:1.27")
    pod = core.create_namespaced_pod("default", client.V1Pod(
        metadata=client.V1ObjectMeta(name="py-report"),
        spec=client.V1PodSpec(priority_class_name="py-batch", containers=[container])))
    assert pod.spec.priority == 300
    with pytest.raises(ApiException) as refused:
        core.create_namespaced_pod("default", client.V1Pod(
            metadata=client.V1ObjectMeta(name="py-nope"),
            spec=client.V1PodSpec(priority_class_name="nope", containers=[container])))
    assert refused.value.status == 403
    assert json.loads(refused.value.body)["message"] == 'pods "py-nope" is forbidden: no PriorityClass with name nope was found'
    core.delete_namespaced_pod("py-report", "default", grace_period_seconds=0)
    scheduling.delete_priority_class("py-batch")
    assert "py-batch" not in {pc.metadata.name for pc in scheduling.list_priority_class().items}
