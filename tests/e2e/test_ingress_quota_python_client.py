"""Ingresses, ResourceQuotas and LimitRanges through the official kubernetes Python client, in a namespace of
their own: created, read back into the client's models, their status written, refusals with upstream's words."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

from tests.livesim import LiveServer, wait_until

NAMESPACE = "py-net"
QUOTA_NAMESPACE = "py-quota"


@pytest.fixture
def api(live: LiveServer) -> Iterator[client.ApiClient]:
    with client.ApiClient(client.Configuration(host=live.cluster_url("demo"))) as api_client:
        yield api_client


def test_an_ingress_is_created_read_and_its_load_balancer_reported(api: client.ApiClient):
    core, networking = client.CoreV1Api(api), client.NetworkingV1Api(api)
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=NAMESPACE)))
    backend = client.V1IngressBackend(service=client.V1IngressServiceBackend(
        name="web", port=client.V1ServiceBackendPort(number=80)))
    rule = client.V1IngressRule(host="shop.example.com", http=client.V1HTTPIngressRuleValue(paths=[
        client.V1HTTPIngressPath(path="/cart", path_type="Prefix", backend=backend)]))
    made = networking.create_namespaced_ingress(NAMESPACE, client.V1Ingress(
        metadata=client.V1ObjectMeta(name="shop"), spec=client.V1IngressSpec(rules=[rule])))
    assert made.spec.rules[0].http.paths[0].backend.service.port.number == 80
    assert made.status.load_balancer.ingress is None
    made.status = client.V1IngressStatus(load_balancer=client.V1IngressLoadBalancerStatus(
        ingress=[client.V1IngressLoadBalancerIngress(ip="192.0.2.7")]))
    reported = networking.replace_namespaced_ingress_status("shop", NAMESPACE, made)
    assert reported.status.load_balancer.ingress[0].ip == "192.0.2.7"
    with pytest.raises(ApiException) as refused:
        networking.create_namespaced_ingress(NAMESPACE, client.V1Ingress(
            metadata=client.V1ObjectMeta(name="empty"), spec=client.V1IngressSpec()))
    assert refused.value.status == 422
    assert json.loads(refused.value.body)["message"] == (
        'Ingress.networking.k8s.io "empty" is invalid: spec: Invalid value: null: '
        "either `defaultBackend` or `rules` must be specified"
    )
    assert [i.metadata.name for i in networking.list_namespaced_ingress(NAMESPACE).items] == ["shop"]
    core.delete_namespace(NAMESPACE)


def test_a_quota_and_a_limit_range_read_back_and_refuse(api: client.ApiClient):
    core = client.CoreV1Api(api)
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=QUOTA_NAMESPACE)))
    core.create_namespaced_limit_range(QUOTA_NAMESPACE, client.V1LimitRange(
        metadata=client.V1ObjectMeta(name="limits"), spec=client.V1LimitRangeSpec(limits=[
            client.V1LimitRangeItem(type="Container", max={"memory": "256Mi"})])))
    core.create_namespaced_resource_quota(QUOTA_NAMESPACE, client.V1ResourceQuota(
        metadata=client.V1ObjectMeta(name="q1"), spec=client.V1ResourceQuotaSpec(hard={"pods": "1"})))
    assert wait_until(
        lambda: (core.read_namespaced_resource_quota("q1", QUOTA_NAMESPACE).status.used or {}) == {"pods": "0"})
    container = client.V1Container(name="app", image="nginx:1.27")
    pod = core.create_namespaced_pod(QUOTA_NAMESPACE, client.V1Pod(
        metadata=client.V1ObjectMeta(name="first"), spec=client.V1PodSpec(containers=[container])))
    assert pod.spec.containers[0].resources.limits == {"memory": "256Mi"}
    with pytest.raises(ApiException) as refused:
        core.create_namespaced_pod(QUOTA_NAMESPACE, client.V1Pod(
            metadata=client.V1ObjectMeta(name="second"), spec=client.V1PodSpec(containers=[container])))
    assert refused.value.status == 403
    assert json.loads(refused.value.body)["message"] == (
        'pods "second" is forbidden: exceeded quota: q1, requested: pods=1, used: pods=1, limited: pods=1'
    )
    limits = core.read_namespaced_limit_range("limits", QUOTA_NAMESPACE)
    assert limits.spec.limits[0].default == {"memory": "256Mi"}
    core.delete_namespace(QUOTA_NAMESPACE)
