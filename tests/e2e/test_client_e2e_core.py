"""The official Python client's own end-to-end checks of the core API (its e2e_test/test_client.py and
test_k8sclient.py), in their order, against a cluster of this module's own.

The Pods run no processes, so exec and port-forwarding cannot happen: where the client's tests stream
into a container, these tests check that the client gets a clear Status at once instead.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException
from kubernetes.stream import portforward, stream
from kubernetes.stream.ws_client import ERROR_CHANNEL

from tests.livesim import LiveServer, wait_until

EXEC_REFUSED = 'cannot exec into pod "{name}": its containers are simulated and run no processes'
FORWARD_REFUSED = 'cannot forward ports to pod "{name}": its containers are simulated and listen on no ports'


def own_cluster(live: LiveServer, name: str) -> str:
    """A fresh three-node cluster on the shared server (the client's tests write to ``default`` freely)."""
    created = live.manage("createcluster", name, "--nodes", "3")
    assert created.returncode == 0, created.stderr
    return name


def api_client_for(live: LiveServer, cluster: str) -> Iterator[client.ApiClient]:
    """An ApiClient with only the connection set up, as the client's e2e base configuration makes."""
    with client.ApiClient(client.Configuration(host=live.cluster_url(cluster))) as api_client:
        yield api_client


@pytest.fixture(scope="module")
def api(live: LiveServer) -> Iterator[client.ApiClient]:
    yield from api_client_for(live, own_cluster(live, "pycore"))


def short_uuid() -> str:
    return str(uuid.uuid4())[-12:]


def manifest_with_command(name: str, command: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"image": "busybox", "name": "sleep", "args": ["/bin/sh", "-c", command]}]},
    }


def wait_for_default_service_account(core: client.CoreV1Api) -> None:
    def created() -> bool:
        try:
            return core.read_namespaced_service_account(name="default", namespace="default").metadata.name == "default"
        except ApiException as exc:
            assert exc.status == 404, exc.body
            return False

    assert wait_until(created, 30)


def wait_for_phase(core: client.CoreV1Api, name: str, done: tuple[str, ...]) -> client.V1Pod:
    seen: list[client.V1Pod] = []

    def reached() -> bool:
        pod = core.read_namespaced_pod(name=name, namespace="default")
        assert pod.metadata.name == name and pod.status.phase
        seen.append(pod)
        return pod.status.phase in done

    assert wait_until(reached, 60), seen[-1].status.phase
    return seen[-1]


def assert_refused_on_the_error_channel(resp: Any, name: str) -> None:
    """The exec's websocket closes quickly, its error channel carrying the Status."""
    resp.run_forever(timeout=10)
    assert not resp.is_open()
    status = json.loads(resp.read_channel(ERROR_CHANNEL))
    assert (status["kind"], status["status"], status["reason"], status["code"]) == ("Status", "Failure", "BadRequest", 400)
    assert status["message"] == EXEC_REFUSED.format(name=name)


def test_pod_apis(api: client.ApiClient):
    core = client.CoreV1Api(api)
    name = "busybox-test-" + short_uuid()
    wait_for_default_service_account(core)
    resp = core.create_namespaced_pod(body=manifest_with_command(name, "while true;do date;sleep 5; done"),
                                      namespace="default")
    assert resp.metadata.name == name and resp.status.phase
    wait_for_phase(core, name, ("Running", "Succeeded", "Failed"))

    # Preloaded exec (text, then binary): the call returns at once with no output, never hangs.
    began = time.monotonic()
    out = stream(core.connect_get_namespaced_pod_exec, name, "default",
                 command=["/bin/sh", "-c", "for i in $(seq 1 3); do date; done"],
                 stderr=False, stdin=False, stdout=True, tty=False)
    assert out == ""
    binary = stream(core.connect_get_namespaced_pod_exec, name, "default",
                    command=["/bin/sh", "-c", 'echo -n "This is a test string" | gzip'],
                    stderr=False, stdin=False, stdout=True, tty=False, binary=True)
    assert binary == b""
    assert stream(core.connect_post_namespaced_pod_exec, name, "default", command=["uptime"],
                  stderr=False, stdin=False, stdout=True, tty=False) == ""
    assert time.monotonic() - began < 10

    # An interactive shell, text and binary: the Status is on the error channel and the socket closes.
    for binary_mode in (False, True):
        resp = stream(core.connect_post_namespaced_pod_exec, name, "default", command=["/bin/sh"],
                      stderr=True, stdin=True, stdout=True, tty=False, binary=binary_mode, _preload_content=False)
        resp.update(timeout=5)
        assert_refused_on_the_error_channel(resp, name)
        assert not resp.peek_stdout() and not resp.peek_stderr()

    assert len(core.list_pod_for_all_namespaces().items) > 0
    core.delete_namespaced_pod(name=name, body={}, namespace="default")


def test_pod_exec_close_channel(api: client.ApiClient):
    core = client.CoreV1Api(api)
    name = "busybox-test-" + short_uuid()
    resp = core.create_namespaced_pod(body=manifest_with_command(name, "while true;do date;sleep 5; done"),
                                      namespace="default")
    assert resp.metadata.name == name
    wait_for_phase(core, name, ("Running",))
    resp = stream(core.connect_post_namespaced_pod_exec, name, "default", command=["/bin/sh", "-c", "cat"],
                  stderr=True, stdin=True, stdout=True, tty=False, _preload_content=False)
    # The newest remote-command protocol is the one agreed, as with a real server.
    assert resp.subprotocol == "v5.channel.k8s.io"
    resp.close_channel(0)
    assert_refused_on_the_error_channel(resp, name)
    core.delete_namespaced_pod(name=name, body={}, namespace="default")


def test_exit_code(api: client.ApiClient):
    core = client.CoreV1Api(api)
    name = "busybox-test-" + short_uuid()
    wait_for_default_service_account(core)
    resp = core.create_namespaced_pod(body=manifest_with_command(name, "while true;do date;sleep 5; done"),
                                      namespace="default")
    assert resp.metadata.name == name and resp.status.phase
    wait_for_phase(core, name, ("Running",))
    for command in (["false"], ["/bin/sh", "-c", "sleep 1; exit 3"], ["true"], ["/bin/sh", "-c", "ls /"]):
        resp = stream(core.connect_get_namespaced_pod_exec, name, "default", command=command,
                      stderr=True, stdin=False, stdout=True, tty=False, _preload_content=False)
        # No command ran, so no exit code: the error channel says why instead.
        assert_refused_on_the_error_channel(resp, name)
    core.delete_namespaced_pod(name=name, body={}, namespace="default")


def test_portforward_raw(api: client.ApiClient):
    core = client.CoreV1Api(api)
    name = "portforward-raw-" + short_uuid()
    core.create_namespaced_config_map(
        body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
              "data": {"port-server.py": "# a server listening on the ports given\n"}},
        namespace="default",
    )
    resp = core.create_namespaced_pod(
        body={
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {
                "containers": [{
                    "name": "port-server", "image": "python",
                    "command": ["python", "-u", "/opt/port-server.py", "1234", "1235"],
                    "volumeMounts": [{"name": "port-server", "mountPath": "/opt", "readOnly": True}],
                    "startupProbe": {"tcpSocket": {"port": 1235}, "periodSeconds": 1, "failureThreshold": 30},
                }],
                "restartPolicy": "Never",
                "volumes": [{"name": "port-server", "configMap": {"name": name}}],
            },
        },
        namespace="default",
    )
    assert resp.metadata.name == name and resp.status.phase

    # A Pod meant to end (restartPolicy Never) whose command the simulation cannot read runs for a few
    # simulated seconds, which fast-forward may pass between two reads: Running or already Succeeded.
    wait_for_phase(core, name, ("Running", "Succeeded"))
    pf = portforward(core.connect_get_namespaced_pod_portforward, name, "default", ports="1234,1235,1236")
    for port in (1234, 1235, 1236):
        sock = pf.socket(port)
        sock.setblocking(True)
        sock.settimeout(10)
        # Every port's error channel says why, and its socket closes.
        assert sock.recv(1024) == b""
        assert pf.error(port) == FORWARD_REFUSED.format(name=name)
        sock.close()
    assert wait_until(lambda: not pf.connected, 10)
    core.delete_namespaced_pod(name=name, namespace="default")
    core.delete_namespaced_config_map(name=name, namespace="default")


def test_portforward_http(api: client.ApiClient):
    core = client.CoreV1Api(api)
    name = "portforward-http-" + short_uuid()
    resp = core.create_namespaced_pod(
        body={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
              "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}},
        namespace="default",
    )
    assert resp.metadata.name == name and resp.status.phase
    wait_for_phase(core, name, ("Running", "Succeeded", "Failed"))
    pf = portforward(core.connect_get_namespaced_pod_portforward, name, "default", ports="80")
    sock = pf.socket(80)
    sock.setblocking(True)
    sock.settimeout(10)
    assert sock.recv(1024) == b""
    assert pf.error(80) == FORWARD_REFUSED.format(name=name)
    sock.close()
    missing = portforward(core.connect_get_namespaced_pod_portforward, "nowhere", "default", ports="80")
    assert missing.socket(80).recv(1024) == b""
    assert missing.error(80) == 'pods "nowhere" not found'
    core.delete_namespaced_pod(name=name, body={}, namespace="default")


def test_service_apis(api: client.ApiClient):
    core = client.CoreV1Api(api)
    name = "frontend-" + short_uuid()
    manifest: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"labels": {"name": name}, "name": name},
        "spec": {"ports": [{"name": "port", "port": 80, "protocol": "TCP", "targetPort": 80}],
                 "selector": {"name": name}},
    }
    resp = core.create_namespaced_service(body=manifest, namespace="default")
    assert resp.metadata.name == name and resp.status
    resp = core.read_namespaced_service(name=name, namespace="default")
    assert resp.metadata.name == name and resp.status
    # A strategic merge patch: ports merge on their port number, so both are kept.
    manifest["spec"]["ports"] = [{"name": "new", "port": 8080, "protocol": "TCP", "targetPort": 8080}]
    resp = core.patch_namespaced_service(body=manifest, name=name, namespace="default")
    assert len(resp.spec.ports) == 2 and resp.status
    core.delete_namespaced_service(name=name, body={}, namespace="default")


def test_replication_controller_apis(api: client.ApiClient):
    core = client.CoreV1Api(api)
    name = "frontend-" + short_uuid()
    manifest = {
        "apiVersion": "v1", "kind": "ReplicationController",
        "metadata": {"labels": {"name": name}, "name": name},
        "spec": {"replicas": 2, "selector": {"name": name},
                 "template": {"metadata": {"labels": {"name": name}},
                              "spec": {"containers": [{"image": "nginx", "name": "nginx",
                                                       "ports": [{"containerPort": 80, "protocol": "TCP"}]}]}}},
    }
    resp = core.create_namespaced_replication_controller(body=manifest, namespace="default")
    assert resp.metadata.name == name and resp.spec.replicas == 2
    resp = core.read_namespaced_replication_controller(name=name, namespace="default")
    assert resp.metadata.name == name and resp.spec.replicas == 2
    core.delete_namespaced_replication_controller(name=name, namespace="default", propagation_policy="Background")


def test_configmap_apis(api: client.ApiClient):
    core = client.CoreV1Api(api)
    name = "test-configmap-" + short_uuid()
    body = {
        "kind": "ConfigMap", "apiVersion": "v1",
        "metadata": {"name": name, "labels": {"e2e-tests": "true"}},
        "data": {"config.json": '{"command":"/usr/bin/mysqld_safe"}',
                 "frontend.cnf": "[mysqld]\nbind-address = 10.0.0.3\nport = 3306\n"},
    }
    assert core.create_namespaced_config_map(body=body, namespace="default").metadata.name == name
    assert core.read_namespaced_config_map(name=name, namespace="default").metadata.name == name
    # A list body is sent as a JSON patch, a dict as a strategic merge patch.
    resp = core.patch_namespaced_config_map(
        name=name, namespace="default",
        body=[{"op": "replace", "path": "/data", "value": {"new_value": "json_patch_name"}}],
    )
    assert resp.data == {"new_value": "json_patch_name"}
    resp = core.patch_namespaced_config_map(name=name, namespace="default",
                                            body={"data": {"new_value": "merge_patch_name"}})
    assert resp.data == {"new_value": "merge_patch_name"}
    core.delete_namespaced_config_map(name=name, body={}, namespace="default")
    assert core.list_namespaced_config_map("default", label_selector="e2e-tests=true").items == []


def test_node_apis(api: client.ApiClient):
    core = client.CoreV1Api(api)
    for item in core.list_node().items:
        node = core.read_node(name=item.metadata.name)
        assert isinstance(node.metadata.labels, dict) and len(node.metadata.labels) > 0


# test_k8sclient.py: the same calls from an older generation of the client's tests.

def test_list_endpoints(api: client.ApiClient):
    # The kubernetes Service's Endpoints exist from the cluster's start.
    endpoints = client.CoreV1Api(api).list_endpoints_for_all_namespaces()
    assert len(endpoints.items) > 0


def post_as_written(api: client.ApiClient, path: str, manifest: dict[str, Any]) -> Any:
    """POST a manifest byte for byte: that generation of the client sent unknown fields, which today's
    models refuse before sending."""
    reply = api.call_api("POST", api.configuration.host + path, body=manifest,
                         header_params={"Content-Type": "application/json", "Accept": "application/json"})
    reply.read()
    return reply


def test_pod_with_an_unknown_metadata_field(api: client.ApiClient):
    core = client.CoreV1Api(api)
    name = "test-" + str(uuid.uuid4())
    manifest = {"apiVersion": "v1", "kind": "Pod", "metadata": {"color": "blue", "name": name},
                "spec": {"containers": [{"image": "dockerfile/redis", "name": "redis"}]}}
    # The unknown field is dropped with a warning (fieldValidation defaults to Warn).
    reply = post_as_written(api, "/api/v1/namespaces/default/pods", manifest)
    assert reply.status == 201 and json.loads(reply.data)["metadata"]["name"] == name
    assert reply.headers["Warning"] == '299 - "unknown field \\"metadata.color\\""'
    resp = core.read_namespaced_pod(name=name, namespace="default")
    assert resp.metadata.name == name and resp.status.phase
    assert len(core.list_pod_for_all_namespaces().items) > 0
    core.delete_namespaced_pod(name=name, body={}, namespace="default")


def test_service_with_a_fixed_name(api: client.ApiClient):
    core = client.CoreV1Api(api)
    manifest = {"apiVersion": "v1", "kind": "Service",
                "metadata": {"labels": {"name": "frontend"}, "name": "frontend", "resourceversion": "v1"},
                "spec": {"ports": [{"name": "port", "port": 80, "protocol": "TCP", "targetPort": 80}],
                         "selector": {"name": "frontend"}}}
    reply = post_as_written(api, "/api/v1/namespaces/default/services", manifest)
    assert reply.status == 201 and json.loads(reply.data)["metadata"]["name"] == "frontend"
    assert reply.headers["Warning"] == '299 - "unknown field \\"metadata.resourceversion\\""'
    resp = core.read_namespaced_service(name="frontend", namespace="default")
    assert resp.metadata.name == "frontend" and resp.status
    core.delete_namespaced_service(name="frontend", namespace="default")


def test_openapi_documents_answer_not_modified_to_the_etag_the_caller_holds(live: LiveServer, api: client.ApiClient):
    base = api.configuration.host
    for path in ("/openapi/v3", "/openapi/v3/api/v1", "/openapi/v2"):
        with urllib.request.urlopen(base + path, timeout=30) as first:
            etag = first.headers["ETag"]
        request = urllib.request.Request(base + path, headers={"If-None-Match": etag})
        with pytest.raises(urllib.error.HTTPError) as held:
            urllib.request.urlopen(request, timeout=30)
        assert (held.value.code, held.value.headers["ETag"], held.value.read()) == (304, etag, b""), path
        assert "Content-Type" not in held.value.headers
