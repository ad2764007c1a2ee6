"""The official Python client's own end-to-end checks of workloads, watches and informers (its
e2e_test/test_apps.py, test_batch.py, test_watch.py and test_informer.py), in their order, against a
cluster of this module's own."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from kubernetes import client, watch
from kubernetes.informer import ADDED, DELETED, MODIFIED, SharedInformer

from tests.e2e.test_client_e2e_core import api_client_for, own_cluster, short_uuid
from tests.livesim import LiveServer, wait_until

TIMEOUT = 30
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: %s
spec:
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.15.4
        ports:
        - containerPort: 80
"""


@pytest.fixture(scope="module")
def api(live: LiveServer) -> Iterator[client.ApiClient]:
    yield from api_client_for(live, own_cluster(live, "pyworkloads"))


# test_apps.py

def test_create_deployment(api: client.ApiClient):
    apps = client.AppsV1Api(api)
    name = "nginx-deployment-" + str(uuid.uuid4())
    apps.create_namespaced_deployment(body=yaml.safe_load(DEPLOYMENT % name), namespace="default")
    resp = apps.read_namespaced_deployment(name, "default")
    assert resp.metadata.name == name and resp.spec.replicas == 3
    assert resp.spec.selector.match_labels["app"] == "nginx"
    assert resp.spec.template.metadata.labels["app"] == "nginx"
    container = resp.spec.template.spec.containers[0]
    assert (container.name, container.image, container.ports[0].container_port) == ("nginx", "nginx:1.15.4", 80)
    apps.delete_namespaced_deployment(name, "default", body=client.V1DeleteOptions())


def test_create_daemonset(api: client.ApiClient):
    apps = client.AppsV1Api(api)
    name = "nginx-app-" + str(uuid.uuid4())
    body = {
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"labels": {"app": "nginx"}, "name": name},
        "spec": {
            "selector": {"matchLabels": {"app": "nginx"}},
            "template": {"metadata": {"labels": {"app": "nginx"}, "name": name},
                         "spec": {"containers": [{"name": "nginx-app", "image": "nginx:1.15.4"}]}},
            "updateStrategy": {"type": "RollingUpdate"},
        },
    }
    apps.create_namespaced_daemon_set("default", body=body)
    resp = apps.read_namespaced_daemon_set(name, "default")
    assert resp.metadata.name == name
    assert resp.spec.selector.match_labels["app"] == "nginx"
    assert resp.spec.template.metadata.labels["app"] == "nginx"
    assert (resp.spec.template.spec.containers[0].name, resp.spec.template.spec.containers[0].image) == (
        "nginx-app", "nginx:1.15.4")
    apps.delete_namespaced_daemon_set(name, "default", body=client.V1DeleteOptions())


# test_batch.py

def test_job_apis(api: client.ApiClient):
    batch = client.BatchV1Api(api)
    name = "test-job-" + str(uuid.uuid4())
    manifest = {
        "kind": "Job", "apiVersion": "batch/v1", "metadata": {"name": name},
        "spec": {"template": {
            "metadata": {"name": name},
            "spec": {"containers": [{"image": "busybox", "name": name, "command": ["sh", "-c", "sleep 5"]}],
                     "restartPolicy": "Never"},
        }},
    }
    assert batch.create_namespaced_job(body=manifest, namespace="default").metadata.name == name
    assert batch.read_namespaced_job(name=name, namespace="default").metadata.name == name
    batch.delete_namespaced_job(name=name, body={}, namespace="default")


# test_watch.py

def config_map_with_value(name: str, value: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
            "data": {"key": value, "config": "dummy"}}


def test_watch_configmaps(api: client.ApiClient):
    core = client.CoreV1Api(api)
    # A namespace of the test's own, so that deleting all its ConfigMaps touches nobody else's.
    namespace = "watch-" + short_uuid()
    core.create_namespace({"metadata": {"name": namespace}})
    name_a, name_b = "configmap-a-" + short_uuid(), "configmap-b-" + short_uuid()
    core.create_namespaced_config_map(body=config_map_with_value(name_a, "a"), namespace=namespace)
    # The root CA publisher puts its ConfigMap into every new namespace too.
    assert wait_until(lambda: len(core.list_namespaced_config_map(namespace).items) == 2, TIMEOUT)
    rv = core.list_namespaced_config_map(namespace).metadata.resource_version
    configmap_b = config_map_with_value(name_b, "b")
    core.create_namespaced_config_map(body=configmap_b, namespace=namespace)
    configmap_b["data"]["config"] = "{}"
    core.patch_namespaced_config_map(name=name_b, namespace=namespace, body=configmap_b)
    core.delete_collection_namespaced_config_map(namespace=namespace)

    # Everything after the list: b added and modified, then the three deleted in any order; the
    # publisher then puts its ConfigMap back.
    events = [(e["type"], e["object"].metadata.name)
              for e in watch.Watch().stream(core.list_namespaced_config_map, namespace=namespace,
                                            resource_version=rv, timeout_seconds=5)]
    assert events[:2] == [("ADDED", name_b), ("MODIFIED", name_b)]
    assert sorted(events[2:5]) == sorted([("DELETED", name_a), ("DELETED", name_b), ("DELETED", "kube-root-ca.crt")])
    assert events[5:] == [("ADDED", "kube-root-ca.crt")]
    core.delete_namespace(namespace)


# test_informer.py

def _cm(name: str, payload: dict[str, str] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "labels": {"inf-e2e": "1"}}, "data": payload or {"k": "v"}}


@pytest.fixture
def informer(api: client.ApiClient) -> Iterator[SharedInformer]:
    core = client.CoreV1Api(api)
    inf = SharedInformer(list_func=core.list_namespaced_config_map, namespace="default", label_selector="inf-e2e=1")
    yield inf
    inf.stop()


def _in_cache(inf: SharedInformer, name: str) -> bool:
    return inf.cache.get_by_key("default/" + name) is not None


def _on(inf: SharedInformer, kind: str, name: str) -> threading.Event:
    seen = threading.Event()
    inf.add_event_handler(kind, lambda obj: seen.set() if obj.metadata.name == name else None)
    return seen


def test_cache_populated_after_start(api: client.ApiClient, informer: SharedInformer):
    core = client.CoreV1Api(api)
    name = "inf-pre-" + short_uuid()
    core.create_namespaced_config_map(body=_cm(name), namespace="default")
    informer.start()
    assert wait_until(lambda: _in_cache(informer, name), TIMEOUT)
    cached = informer.cache.get_by_key("default/" + name)
    assert cached.metadata.name == name and cached.data["k"] == "v"
    core.delete_namespaced_config_map(name=name, namespace="default")


def test_added_event_and_cache_entry(api: client.ApiClient, informer: SharedInformer):
    core = client.CoreV1Api(api)
    name = "inf-add-" + short_uuid()
    seen = _on(informer, ADDED, name)
    informer.start()
    assert wait_until(lambda: informer._resource_version is not None, TIMEOUT)
    core.create_namespaced_config_map(body=_cm(name), namespace="default")
    assert seen.wait(TIMEOUT)
    assert _in_cache(informer, name)
    core.delete_namespaced_config_map(name=name, namespace="default")


def test_modified_event_and_cache_refresh(api: client.ApiClient, informer: SharedInformer):
    core = client.CoreV1Api(api)
    name = "inf-mod-" + short_uuid()
    seen = _on(informer, MODIFIED, name)
    informer.start()
    core.create_namespaced_config_map(body=_cm(name), namespace="default")
    assert wait_until(lambda: _in_cache(informer, name), TIMEOUT)
    core.patch_namespaced_config_map(name=name, namespace="default", body={"data": {"k": "updated"}})
    assert seen.wait(TIMEOUT)
    assert informer.cache.get_by_key("default/" + name).data["k"] == "updated"
    core.delete_namespaced_config_map(name=name, namespace="default")


def test_deleted_event_removes_from_cache(api: client.ApiClient, informer: SharedInformer):
    core = client.CoreV1Api(api)
    name = "inf-del-" + short_uuid()
    seen = _on(informer, DELETED, name)
    informer.start()
    core.create_namespaced_config_map(body=_cm(name), namespace="default")
    assert wait_until(lambda: _in_cache(informer, name), TIMEOUT)
    core.delete_namespaced_config_map(name=name, namespace="default")
    assert seen.wait(TIMEOUT)
    assert not _in_cache(informer, name)


def test_resource_version_advances(api: client.ApiClient, informer: SharedInformer):
    core = client.CoreV1Api(api)
    name = "inf-rv-" + short_uuid()
    seen = _on(informer, ADDED, name)
    informer.start()
    assert wait_until(lambda: informer._resource_version is not None, TIMEOUT)
    before = int(informer._resource_version)
    core.create_namespaced_config_map(body=_cm(name), namespace="default")
    assert seen.wait(TIMEOUT)
    assert int(informer._resource_version) > before
    core.delete_namespaced_config_map(name=name, namespace="default")


def test_resync_fires_modified_for_existing_objects(api: client.ApiClient):
    core = client.CoreV1Api(api)
    name = "inf-rsync-" + short_uuid()
    core.create_namespaced_config_map(body=_cm(name), namespace="default")
    # The resync period is the informer's own wall-clock timer, not the cluster's.
    inf = SharedInformer(list_func=core.list_namespaced_config_map, namespace="default", label_selector="inf-e2e=1",
                         resync_period=5)
    added, resynced = _on(inf, ADDED, name), _on(inf, MODIFIED, name)
    inf.start()
    try:
        assert added.wait(TIMEOUT)
        assert resynced.wait(15)
        assert inf.cache.get_by_key("default/" + name).data["k"] == "v"
    finally:
        inf.stop()
    core.delete_namespaced_config_map(name=name, namespace="default")
