"""exec, attach and port-forward: a clear Status on every path a client tries, never a hang or a 500."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from kubernetes import client
from kubernetes.stream import stream

from tests.conftest import Kubectl
from tests.e2e.test_kubectl import ok
from tests.livesim import LiveServer

EXEC_REFUSED = 'cannot exec into pod "streamed": its containers are simulated and run no processes'


@pytest.fixture(scope="module")
def pod(live: LiveServer, kubectl_binary: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    kubectl = Kubectl(kubectl_binary, live.cluster_url("demo"), tmp_path_factory.mktemp("streams"))
    ok(kubectl("run", "streamed", "--image=nginx"))
    ok(kubectl("wait", "--for=condition=Ready", "pod/streamed", "--timeout=60s"))
    yield "streamed"
    kubectl("delete", "pod", "streamed", "--wait=false")


def test_kubectl_exec_and_attach_print_the_status_from_the_error_channel(kubectl: Kubectl, pod: str):
    # kubectl 1.32 speaks websockets (v5.channel.k8s.io) first: the Status arrives on channel 3.
    result = kubectl("exec", pod, "--", "ls", "/")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.strip() == f"error: {EXEC_REFUSED}"
    attached = kubectl("attach", pod)
    assert attached.returncode == 1
    assert attached.stderr.strip().endswith(
        'error: cannot attach to pod "streamed": its containers are simulated and run no processes'
    )
    missing = kubectl("exec", "nowhere", "--", "ls")
    assert missing.stderr.strip() == 'Error from server (NotFound): pods "nowhere" not found'


def test_kubectl_port_forward_falls_back_to_spdy_and_gets_the_status(kubectl: Kubectl, pod: str):
    result = kubectl("port-forward", f"pod/{pod}", "0:80", timeout=30)
    assert result.returncode == 1
    assert result.stderr.strip() == (
        'error: error upgrading connection: cannot forward ports to pod "streamed": '
        "its containers are simulated and listen on no ports"
    )


def test_discovery_lists_the_stream_subresources(live: LiveServer):
    with urllib.request.urlopen(f"{live.cluster_url('demo')}/api/v1", timeout=10) as reply:
        listed = json.loads(reply.read())
    subs = {r["name"]: r for r in listed["resources"] if r["name"].startswith("pods/")}
    assert subs["pods/exec"]["kind"] == "PodExecOptions" and subs["pods/exec"]["verbs"] == ["create", "get"]
    assert {"pods/attach", "pods/portforward"} <= set(subs)


def test_python_client_reads_the_status_on_the_error_channel(live: LiveServer, pod: str):
    config = client.Configuration(host=live.cluster_url("demo"))
    with client.ApiClient(config) as api_client:
        core = client.CoreV1Api(api_client)
        resp = stream(
            core.connect_get_namespaced_pod_exec, pod, "default", command=["ls"],
            stderr=True, stdin=False, stdout=True, tty=False, _preload_content=False,
        )
        resp.run_forever(timeout=10)
        status = json.loads(resp.read_channel(3))
        assert not resp.is_open()
    assert (status["kind"], status["status"], status["reason"], status["code"]) == ("Status", "Failure", "BadRequest", 400)
    assert status["message"] == EXEC_REFUSED


def test_an_spdy_or_plain_request_gets_the_status_as_its_response(live: LiveServer, pod: str):
    url = f"{live.cluster_url('demo')}/api/v1/namespaces/default/pods/{pod}/exec?command=ls&stdout=true"
    request = urllib.request.Request(url, method="POST", headers={"Connection": "Upgrade", "Upgrade": "SPDY/3.1"})
    with pytest.raises(urllib.error.HTTPError) as answered:
        urllib.request.urlopen(request, timeout=10)
    assert answered.value.code == 400
    assert json.loads(answered.value.read())["message"] == EXEC_REFUSED


def test_a_websocket_to_a_path_with_no_route_is_refused_not_an_error(live: LiveServer):
    import http.client
    from urllib.parse import urlsplit

    where = urlsplit(live.url)
    for path in ("/ws/nowhere/", "/c/demo/api/v1/namespaces/default/pods/x/log"):
        conn = http.client.HTTPConnection(where.hostname, where.port, timeout=10)
        conn.request("GET", path, headers={
            "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Origin": live.url,
        })
        assert conn.getresponse().status == 403, path
        conn.close()
