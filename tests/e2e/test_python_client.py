"""The official kubernetes Python client against our API server."""

from __future__ import annotations

import json
import threading
import time

import pytest
from kubernetes import client, watch
from kubernetes.client.rest import ApiException

from tests.livesim import LiveServer, wait_until


@pytest.fixture
def api(live: LiveServer) -> client.ApiClient:
    config = client.Configuration(host=live.cluster_url("demo"))
    with client.ApiClient(config) as api_client:
        yield api_client


def pod_body(name: str, app: str) -> client.V1Pod:
    return client.V1Pod(
        metadata=client.V1ObjectMeta(name=name, labels={"app": app}),
        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="soscscs/myapp:v1")]),
    )


def test_create_list_by_label_patch_and_delete(api: client.ApiClient):
    core = client.CoreV1Api(api)
    created = core.create_namespaced_pod("default", pod_body("py-a", "py"))
    assert created.metadata.uid and created.status.phase == "Pending"
    core.create_namespaced_pod("default", pod_body("py-b", "other"))
    listed = core.list_namespaced_pod("default", label_selector="app in (py)")
    assert [p.metadata.name for p in listed.items] == ["py-a"]
    patched = core.patch_namespaced_pod("py-a", "default", {"metadata": {"labels": {"tier": "web"}}})
    assert patched.metadata.labels == {"app": "py", "tier": "web"}
    # Bound Pods terminate gracefully; grace 0 removes them at once, as `kubectl delete --now` would.
    core.delete_namespaced_pod("py-a", "default", grace_period_seconds=0)
    core.delete_namespaced_pod("py-b", "default", grace_period_seconds=0)
    with pytest.raises(ApiException) as info:
        core.read_namespaced_pod("py-a", "default")
    assert info.value.status == 404


def test_nodes_deserialize_with_their_status(api: client.ApiClient):
    nodes = client.CoreV1Api(api).list_node().items
    assert [n.metadata.name for n in nodes] == ["node01", "node02", "node03"]
    assert nodes[0].status.allocatable["cpu"] == "4"
    assert nodes[0].status.node_info.kubelet_version.startswith("v1.")


def test_json_patch_on_a_node(api: client.ApiClient):
    core = client.CoreV1Api(api)
    node = core.patch_node("node03", [{"op": "add", "path": "/metadata/labels/zone", "value": "b"}])
    assert node.metadata.labels["zone"] == "b"
    core.patch_node("node03", [{"op": "remove", "path": "/metadata/labels/zone"}])


def test_apps_deployment_roundtrip(api: client.ApiClient):
    apps = client.AppsV1Api(api)
    body = client.V1Deployment(
        metadata=client.V1ObjectMeta(name="py-deploy"),
        spec=client.V1DeploymentSpec(
            replicas=2,
            selector=client.V1LabelSelector(match_labels={"app": "pyd"}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={"app": "pyd"}),
                spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx:1.27")]),
            ),
        ),
    )
    created = apps.create_namespaced_deployment("default", body)
    assert created.spec.strategy.type == "RollingUpdate"
    with pytest.raises(ApiException) as info:
        apps.create_namespaced_deployment("default", body)
    assert info.value.status == 409
    apps.delete_namespaced_deployment("py-deploy", "default")


def test_watch_streams_added_modified_deleted_in_order_and_resumes(api: client.ApiClient):
    core = client.CoreV1Api(api)
    start_rv = core.list_namespaced_pod("default").metadata.resource_version
    events: list[tuple[str, str, str]] = []
    done = threading.Event()

    def run() -> None:
        w = watch.Watch()
        for event in w.stream(core.list_namespaced_pod, namespace="default", label_selector="app=watchpy",
                              resource_version=start_rv, timeout_seconds=20):
            obj = event["object"]
            events.append((event["type"], obj.metadata.name, obj.metadata.resource_version))
            if event["type"] == "DELETED":
                w.stop()
        done.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    core.create_namespaced_pod("default", pod_body("py-watched", "watchpy"))
    core.patch_namespaced_pod("py-watched", "default", {"metadata": {"annotations": {"step": "2"}}})
    core.delete_namespaced_pod("py-watched", "default")
    assert done.wait(30)
    # The scheduler and the kubelet modify the Pod too; the order is what matters.
    types = [e[0] for e in events]
    assert types[0] == "ADDED" and types[-1] == "DELETED" and set(types[1:-1]) == {"MODIFIED"}
    revisions = [int(e[2]) for e in events]
    assert revisions == sorted(revisions) and len(set(revisions)) == len(revisions)
    assert revisions[0] > int(start_rv)

    # Resuming from the first event's revision replays exactly what followed it.
    resumed = [
        (e["type"], e["object"].metadata.resource_version)
        for e in watch.Watch().stream(core.list_namespaced_pod, namespace="default", label_selector="app=watchpy",
                                      resource_version=str(revisions[0]), timeout_seconds=2)
    ]
    assert resumed == [(t, str(r)) for t, _, r in events[1:]]


def test_watch_from_a_compacted_revision_is_gone(api: client.ApiClient, live: LiveServer):
    core = client.CoreV1Api(api)
    # The live server keeps 50 events; enough writes push revision 1 out of the log.
    for i in range(80):
        core.patch_node("node03", {"metadata": {"annotations": {"touch": str(i)}}})
    with pytest.raises(ApiException) as info:
        list(watch.Watch().stream(core.list_namespaced_pod, namespace="default", resource_version="1",
                                  timeout_seconds=5))
    assert info.value.status == 410


def test_an_informer_on_a_quiet_resource_stops_within_a_second(api: client.ApiClient):
    from kubernetes.informer import SharedInformer

    core = client.CoreV1Api(api)
    informer = SharedInformer(core.list_namespaced_config_map, namespace="default", label_selector="quiet=yes")
    informer.start()
    # The watch's response (its headers) exists although nothing has happened: stop can close it.
    assert wait_until(lambda: informer._watch is not None and getattr(informer._watch, "_resp", None) is not None, 10)
    began = time.monotonic()
    informer.stop()
    assert time.monotonic() - began < 1.0


def test_a_watch_that_allows_bookmarks_gets_one_before_its_timeout(api: client.ApiClient):
    core = client.CoreV1Api(api)
    listed = core.list_namespaced_config_map("default", label_selector="quiet=yes")
    events = list(
        watch.Watch().stream(
            core.list_namespaced_config_map, "default", label_selector="quiet=yes",
            resource_version=listed.metadata.resource_version, allow_watch_bookmarks=True, timeout_seconds=3,
        )
    )
    assert [e["type"] for e in events] == ["BOOKMARK"]
    bookmark = events[0]["raw_object"]
    assert bookmark["kind"] == "ConfigMap" and bookmark["apiVersion"] == "v1"
    assert int(bookmark["metadata"]["resourceVersion"]) >= int(listed.metadata.resource_version)


def test_a_409_body_is_the_real_servers_bytes(api: client.ApiClient):
    core, apps = client.CoreV1Api(api), client.AppsV1Api(api)
    body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="twice"), data={"a": "b"})
    core.create_namespaced_config_map("default", body)
    with pytest.raises(ApiException) as again:
        core.create_namespaced_config_map("default", body)
    assert again.value.status == 409
    assert again.value.body == (
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
        b'"message":"configmaps \\"twice\\" already exists","reason":"AlreadyExists",'
        b'"details":{"name":"twice","kind":"configmaps"},"code":409}\n'
    ).decode()
    with pytest.raises(ApiException) as missing:
        apps.read_namespaced_deployment("nowhere", "default")
    assert missing.value.body == (
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
        b'"message":"deployments.apps \\"nowhere\\" not found","reason":"NotFound",'
        b'"details":{"name":"nowhere","group":"apps","kind":"deployments"},"code":404}\n'
    ).decode()
    core.delete_namespaced_config_map("twice", "default")


def test_watch_list_sends_the_state_then_the_initial_events_end_bookmark(api: client.ApiClient):
    core = client.CoreV1Api(api)
    body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="listed", labels={"wl": "1"}), data={"a": "b"})
    created = core.create_namespaced_config_map("default", body)
    events = list(
        watch.Watch().stream(
            core.list_namespaced_config_map, "default", label_selector="wl=1", send_initial_events=True,
            resource_version_match="NotOlderThan", allow_watch_bookmarks=True,
            resource_version=created.metadata.resource_version, timeout_seconds=3,
        )
    )
    assert events[0]["type"] == "ADDED" and events[0]["object"].metadata.name == "listed"
    end = events[1]["raw_object"]
    assert events[1]["type"] == "BOOKMARK"
    assert end["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
    assert int(end["metadata"]["resourceVersion"]) >= int(created.metadata.resource_version)
    with pytest.raises(ApiException) as refused:
        core.list_namespaced_config_map("default", watch=True, send_initial_events=True, _preload_content=False)
    assert refused.value.status == 422
    assert json.loads(refused.value.body)["message"] == (
        'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires '
        "setting resourceVersionMatch to NotOlderThan, allowWatchBookmarks: Forbidden: sendInitialEvents "
        "requires setting allowWatchBookmarks to true]"
    )
    core.delete_namespaced_config_map("listed", "default")
