"""The official Python client's own end-to-end checks of ``kubernetes.utils`` (its e2e_test/test_utils.py):
create_from_yaml / create_from_dict / create_from_directory over the YAML in client_yaml/, in their order,
against a cluster of this module's own."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from kubernetes import client, utils
from kubernetes.client.rest import ApiException

from tests.e2e.test_client_e2e_core import api_client_for, own_cluster
from tests.livesim import LiveServer, wait_until

YAML = Path(__file__).parent / "client_yaml"
TEST_NAMESPACE = "e2e-test-utils"


def conflict(message: str, name: str, kind: str, group: str = "") -> str:
    """What FailToCreateError prints for one 409: the Status body exactly as the server sent it."""
    details = {"name": name, **({"group": group} if group else {}), "kind": kind}
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": "AlreadyExists", "details": details, "code": 409}
    return f"Error from server (Conflict): {json.dumps(body, separators=(',', ':'))}\n"


@pytest.fixture(scope="module")
def api(live: LiveServer) -> Iterator[client.ApiClient]:
    for api_client in api_client_for(live, own_cluster(live, "pyutils")):
        core = client.CoreV1Api(api_client)
        core.create_namespace(body=client.V1Namespace(metadata=client.V1ObjectMeta(name=TEST_NAMESPACE)))
        yield api_client
        core.delete_namespace(name=TEST_NAMESPACE)


def create(api: client.ApiClient, name: str, **kwargs: object) -> object:
    return utils.create_from_yaml(api, str(YAML / name), **kwargs)


def assert_nginx_app(dep: client.V1Deployment, name: str = "nginx-app") -> None:
    container = dep.spec.template.spec.containers[0]
    assert dep.metadata.name == name
    assert (container.image, container.ports[0].container_port, container.name) == ("nginx:1.15.4", 80, "nginx")
    assert dep.spec.template.metadata.labels["app"] == "nginx" and dep.spec.replicas == 3


def test_create_apps_deployment_from_yaml(api: client.ApiClient):
    create(api, "apps-deployment.yaml")
    apps = client.AppsV1Api(api)
    assert_nginx_app(apps.read_namespaced_deployment(name="nginx-app", namespace="default"))
    apps.delete_namespaced_deployment(name="nginx-app", namespace="default", body={})


def test_create_apps_deployment_from_yaml_with_apply_is_idempotent(api: client.ApiClient):
    apps = client.AppsV1Api(api)
    create(api, "apps-deployment.yaml")
    assert_nginx_app(apps.read_namespaced_deployment(name="nginx-app", namespace="default"))
    # Server-side apply through the dynamic client (discovery, then PATCH application/apply-patch+yaml).
    create(api, "apps-deployment.yaml", apply=True)
    assert_nginx_app(apps.read_namespaced_deployment(name="nginx-app", namespace="default"))
    apps.delete_namespaced_deployment(name="nginx-app", namespace="default", body={})


def test_create_apps_deployment_from_yaml_object(api: client.ApiClient):
    with (YAML / "apps-deployment.yaml").open() as f:
        utils.create_from_yaml(api, yaml_objects=yaml.safe_load_all(f))
    apps = client.AppsV1Api(api)
    assert_nginx_app(apps.read_namespaced_deployment(name="nginx-app", namespace="default"))
    apps.delete_namespaced_deployment(name="nginx-app", namespace="default", body={})


def test_create_apps_deployment_from_yaml_obj(api: client.ApiClient):
    obj = yaml.safe_load((YAML / "apps-deployment.yaml").read_text())
    obj["metadata"]["name"] = "nginx-app-3"
    utils.create_from_dict(api, obj)
    apps = client.AppsV1Api(api)
    assert_nginx_app(apps.read_namespaced_deployment(name="nginx-app-3", namespace="default"), "nginx-app-3")
    apps.delete_namespaced_deployment(name="nginx-app-3", namespace="default", body={})


def test_create_pod_from_yaml(api: client.ApiClient):
    create(api, "core-pod.yaml")
    core = client.CoreV1Api(api)
    pod = core.read_namespaced_pod(name="myapp-pod", namespace="default")
    assert (pod.metadata.name, pod.spec.containers[0].image, pod.spec.containers[0].name) == (
        "myapp-pod", "busybox", "myapp-container")
    core.delete_namespaced_pod(name="myapp-pod", namespace="default", body={})


def test_create_service_from_yaml(api: client.ApiClient):
    create(api, "core-service.yaml")
    core = client.CoreV1Api(api)
    svc = core.read_namespaced_service(name="my-service", namespace="default")
    assert svc.metadata.name == "my-service" and svc.spec.selector["app"] == "MyApp"
    core.delete_namespaced_service(name="my-service", namespace="default", body={})


def test_create_namespace_from_yaml(api: client.ApiClient):
    create(api, "core-namespace.yaml")
    core = client.CoreV1Api(api)
    assert core.read_namespace(name="development").metadata.name == "development"
    core.delete_namespace(name="development", body={})


@pytest.mark.parametrize("verbose", [False, True])
def test_create_rbac_role_from_yaml(api: client.ApiClient, verbose: bool):
    create(api, "rbac-role.yaml", verbose=verbose)
    rbac = client.RbacAuthorizationV1Api(api)
    role = rbac.read_namespaced_role(name="pod-reader", namespace="default")
    assert role.metadata.name == "pod-reader" and role.rules[0].resources[0] == "pods"
    rbac.delete_namespaced_role(name="pod-reader", namespace="default", body={})


def test_create_deployment_non_default_namespace_from_yaml(api: client.ApiClient):
    create(api, "dep-namespace.yaml")
    create(api, "dep-deployment.yaml")
    core, apps = client.CoreV1Api(api), client.AppsV1Api(api)
    assert core.read_namespace(name="dep").metadata.name == "dep"
    assert apps.read_namespaced_deployment(name="nginx-deployment", namespace="dep") is not None
    apps.delete_namespaced_deployment(name="nginx-deployment", namespace="dep", body={})
    core.delete_namespace(name="dep", body={})


def test_create_apiservice_from_yaml_with_conflict(api: client.ApiClient):
    create(api, "api-service.yaml")
    registration = client.ApiregistrationV1Api(api)
    svc = registration.read_api_service(name="v1alpha1.wardle.k8s.io")
    assert (svc.metadata.name, svc.spec.group, svc.spec.version) == ("v1alpha1.wardle.k8s.io", "wardle.k8s.io", "v1alpha1")
    with pytest.raises(utils.FailToCreateError) as failed:
        create(api, "api-service.yaml")
    assert str(failed.value) == conflict('apiservices.apiregistration.k8s.io "v1alpha1.wardle.k8s.io" already exists',
                                         "v1alpha1.wardle.k8s.io", "apiservices", "apiregistration.k8s.io")
    registration.delete_api_service(name="v1alpha1.wardle.k8s.io", body={})


def test_create_custom_resource_definition_from_yaml_with_conflict(api: client.ApiClient):
    # The client's test YAML holds the documentation's CronTab definition (crd/crontab-crd.yml); not one of its
    # tests, but create_from_yaml handles the kind, and a second create is the same 409 as for any other kind.
    create(api, "../crd_yaml/crontab-crd.yaml")
    crds = client.ApiextensionsV1Api(api)
    crd = crds.read_custom_resource_definition("crontabs.stable.example.com")
    assert (crd.spec.names.kind, crd.spec.scope, crd.status.stored_versions) == ("CronTab", "Namespaced", ["v1"])
    with pytest.raises(utils.FailToCreateError) as failed:
        create(api, "../crd_yaml/crontab-crd.yaml")
    assert str(failed.value) == conflict(
        'customresourcedefinitions.apiextensions.k8s.io "crontabs.stable.example.com" already exists',
        "crontabs.stable.example.com", "customresourcedefinitions", "apiextensions.k8s.io")
    crds.delete_custom_resource_definition("crontabs.stable.example.com")
    with pytest.raises(ApiException) as missing:
        crds.read_custom_resource_definition("crontabs.stable.example.com")
    assert missing.value.status == 404


def test_create_general_list_from_yaml(api: client.ApiClient):
    create(api, "list.yaml")
    core, apps = client.CoreV1Api(api), client.AppsV1Api(api)
    svc = core.read_namespaced_service(name="list-service-test", namespace="default")
    assert svc.metadata.name == "list-service-test" and svc.spec.selector["app"] == "list-deployment-test"
    dep = apps.read_namespaced_deployment(name="list-deployment-test", namespace="default")
    assert dep.metadata.name == "list-deployment-test"
    assert dep.spec.template.spec.containers[0].image == "nginx:1.15.4" and dep.spec.replicas == 1
    core.delete_namespaced_service(name="list-service-test", namespace="default", body={})
    apps.delete_namespaced_deployment(name="list-deployment-test", namespace="default", body={})


def test_create_namespace_list_from_yaml(api: client.ApiClient):
    create(api, "namespace-list.yaml")
    core = client.CoreV1Api(api)
    for name in ("mock-1", "mock-2"):
        namespace = core.read_namespace(name=name)
        assert namespace.metadata.name == name and namespace.metadata.labels["name"] == name
    core.delete_namespace(name="mock-1", body={})
    core.delete_namespace(name="mock-2", body={})


def test_create_implicit_service_list_from_yaml_with_conflict(api: client.ApiClient):
    with pytest.raises(utils.FailToCreateError) as failed:
        create(api, "implicit-svclist.json")
    assert str(failed.value) == conflict('services "mock-3" already exists', "mock-3", "services")
    core = client.CoreV1Api(api)
    for name in ("mock-3", "mock-4"):
        svc = core.read_namespaced_service(name=name, namespace="default")
        assert svc.metadata.name == name and svc.metadata.labels["app"] == name
    core.delete_namespaced_service(name="mock-3", namespace="default", body={})
    core.delete_namespaced_service(name="mock-4", namespace="default", body={})


def assert_mock_service_and_controller(core: client.CoreV1Api) -> None:
    svc = core.read_namespaced_service(name="mock", namespace="default")
    assert (svc.metadata.name, svc.metadata.labels["app"], svc.spec.selector["app"]) == ("mock", "mock", "mock")
    ctr = core.read_namespaced_replication_controller(name="mock", namespace="default")
    assert (ctr.metadata.name, ctr.spec.template.metadata.labels["app"], ctr.spec.selector["app"]) == (
        "mock", "mock", "mock")
    assert ctr.spec.replicas == 1
    container = ctr.spec.template.spec.containers[0]
    assert (container.image, container.name) == ("k8s.gcr.io/pause:2.0", "mock-container")
    core.delete_namespaced_replication_controller(name="mock", namespace="default", propagation_policy="Background")
    core.delete_namespaced_service(name="mock", namespace="default", body={})


def test_create_multi_resource_from_directory(api: client.ApiClient):
    utils.create_from_directory(api, str(YAML / "multi-resource"))
    assert_mock_service_and_controller(client.CoreV1Api(api))


def test_create_from_multi_resource_yaml(api: client.ApiClient):
    create(api, "multi-resource.yaml")
    assert_mock_service_and_controller(client.CoreV1Api(api))


def _assert_pods_and_deployment(api: client.ApiClient, namespace: str) -> None:
    core, apps = client.CoreV1Api(api), client.AppsV1Api(api)
    for name in ("mock-pod-0", "mock-pod-1"):
        pod = core.read_namespaced_pod(name=name, namespace=namespace)
        assert (pod.metadata.name, pod.metadata.labels["app"], pod.spec.containers[0].name) == (name, name, name)
        assert pod.spec.containers[0].image == "busybox"
    dep = apps.read_namespaced_deployment(name="mock", namespace=namespace)
    assert (dep.metadata.name, dep.spec.template.metadata.labels["app"], dep.spec.replicas) == ("mock", "mock", 3)
    core.delete_namespaced_pod(name="mock-pod-0", namespace=namespace, body={})
    core.delete_namespaced_pod(name="mock-pod-1", namespace=namespace, body={})
    apps.delete_namespaced_deployment(name="mock", namespace=namespace, body={})


def test_create_from_list_in_multi_resource_yaml(api: client.ApiClient):
    create(api, "multi-resource-with-list.yaml")
    _assert_pods_and_deployment(api, "default")


def test_create_from_multi_resource_yaml_with_conflict(api: client.ApiClient):
    create(api, "yaml-conflict-first.yaml")
    core = client.CoreV1Api(api)
    svc = core.read_namespaced_service(name="mock-2", namespace="default")
    assert (svc.metadata.name, svc.metadata.labels["app"], svc.spec.selector["app"]) == ("mock-2", "mock-2", "mock-2")
    assert svc.spec.ports[0].port == 99
    with pytest.raises(utils.FailToCreateError) as failed:
        create(api, "yaml-conflict-multi.yaml")
    assert str(failed.value) == conflict('services "mock-2" already exists', "mock-2", "services")
    assert core.read_namespaced_replication_controller(name="mock-2", namespace="default") is not None
    core.delete_namespaced_replication_controller(name="mock-2", namespace="default", propagation_policy="Background")
    core.delete_namespaced_service(name="mock-2", namespace="default", body={})


def test_create_from_multi_resource_yaml_with_multi_conflicts(api: client.ApiClient):
    with pytest.raises(utils.FailToCreateError) as failed:
        create(api, "triple-nginx.yaml")
    once = conflict('deployments.apps "triple-nginx" already exists', "triple-nginx", "deployments", "apps")
    assert str(failed.value) == once + once
    apps = client.AppsV1Api(api)
    assert apps.read_namespaced_deployment(name="triple-nginx", namespace="default") is not None
    apps.delete_namespaced_deployment(name="triple-nginx", namespace="default", body={})


def test_create_namespaced_apps_deployment_from_yaml(api: client.ApiClient):
    create(api, "apps-deployment.yaml", namespace=TEST_NAMESPACE)
    apps = client.AppsV1Api(api)
    assert apps.read_namespaced_deployment(name="nginx-app", namespace=TEST_NAMESPACE) is not None
    apps.delete_namespaced_deployment(name="nginx-app", namespace=TEST_NAMESPACE, body={})


def test_create_from_list_in_multi_resource_yaml_namespaced(api: client.ApiClient):
    create(api, "multi-resource-with-list.yaml", namespace=TEST_NAMESPACE)
    _assert_pods_and_deployment(api, TEST_NAMESPACE)


def test_metrics_utilities_integration(api: client.ApiClient):
    create(api, "core-pod.yaml", namespace=TEST_NAMESPACE)
    core = client.CoreV1Api(api)
    assert wait_until(
        lambda: core.read_namespaced_pod("myapp-pod", TEST_NAMESPACE).status.phase == "Running", 60)
    # metrics.k8s.io answers once the Pod runs (the simulated metrics-server scrapes on the cluster's clock).
    assert wait_until(lambda: any(
        item["metadata"]["name"] == "myapp-pod" for item in utils.get_pods_metrics(api, TEST_NAMESPACE)["items"]), 60)
    nodes = utils.get_nodes_metrics(api)
    assert len(nodes["items"]) > 0 and "usage" in nodes["items"][0]
    labelled = utils.get_pods_metrics(api, TEST_NAMESPACE, "app=myapp")
    assert [item["metadata"]["name"] for item in labelled["items"]] == ["myapp-pod"]
    both = utils.get_pods_metrics_in_all_namespaces(api, [TEST_NAMESPACE, "default"])
    assert TEST_NAMESPACE in both and "error" not in both[TEST_NAMESPACE]
    core.delete_namespaced_pod("myapp-pod", TEST_NAMESPACE, body={})
