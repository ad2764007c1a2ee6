"""A corpus of bad requests: each gets a 4xx Status with a helpful message, and nothing is written."""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass

import pytest

from tests.livesim import LiveServer

DEPLOY = "/apis/apps/v1/namespaces/default/deployments"
PODS = "/api/v1/namespaces/default/pods"
SVCS = "/api/v1/namespaces/default/services"
NODES = "/api/v1/nodes"


def deployment(**overrides: object) -> dict:
    body: dict = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "bad"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "bad"}},
            "template": {
                "metadata": {"labels": {"app": "bad"}},
                "spec": {"containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]}]},
            },
        },
    }
    for path, value in overrides.items():
        target = body
        keys = path.split("__")
        for key in keys[:-1]:
            target = target[int(key)] if isinstance(target, list) else target[key]
        last = keys[-1]
        if isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value
    return body


def pod(**spec: object) -> dict:
    base = {"containers": [{"name": "c", "image": "nginx"}]}
    base.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "badpod"}, "spec": base}


def container(**fields: object) -> dict:
    return pod(containers=[{"name": "c", "image": "nginx", **fields}])


@dataclass
class Bad:
    name: str
    method: str
    path: str
    body: bytes | str | dict | list | None
    content_type: str = "application/json"
    expect: str = ""  # a piece of the message
    code: int | None = None


def j(value: object) -> bytes:
    return json.dumps(value).encode()


CORPUS = [
    # Malformed documents
    Bad("truncated json", "POST", DEPLOY, b'{"apiVersion": "apps/v1", "kind": ', expect="line 1, column", code=400),
    Bad("json trailing garbage", "POST", DEPLOY, b'{"kind": "Deployment"} xx', expect="line 1", code=400),
    Bad("yaml bad indentation", "POST", DEPLOY, b"metadata:\n  name: x\n bad: [\n", "application/yaml", "line", 400),
    Bad("yaml tab", "POST", PODS, b"metadata:\n\tname: x\n", "application/yaml", "line 2", 400),
    Bad("yaml alias bomb", "POST", PODS,
        b"a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
        b"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
        b"g: [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n", "application/yaml", "too large", 400),
    Bad("yaml python tag", "POST", PODS, b"!!python/object/apply:os.system ['true']\n", "application/yaml", "yaml", 400),
    Bad("empty body", "POST", DEPLOY, b"", expect="empty", code=400),
    Bad("body is a list", "POST", DEPLOY, b"[1, 2]", expect="must be an object", code=400),
    Bad("body is a string", "POST", DEPLOY, b'"deployment"', expect="must be an object", code=400),
    Bad("body is null", "POST", DEPLOY, b"null", expect="must be an object", code=400),
    Bad("deep nesting", "POST", PODS, b"[" * 5000 + b"]" * 5000, expect="nested", code=400),
    Bad("invalid utf8", "POST", PODS, b'{"metadata": {"name": "\xff\xfe"}}', expect="UTF-8", code=400),
    Bad("lone surrogate", "POST", PODS, b'{"metadata": {"name": "\\ud800"}}', expect="UTF-8", code=400),
    Bad("NaN number", "POST", DEPLOY, b'{"spec": {"replicas": NaN}}', expect="", code=400),
    Bad("huge integer", "POST", DEPLOY, j(deployment(spec__replicas=10**30)), expect="", code=None),
    Bad("unknown content type", "POST", PODS, b"<pod/>", "application/xml", "unknown format", 415),
    Bad("garbage protobuf", "POST", DEPLOY, b"k8s\x00\x0a\xff\xff\xff", "application/vnd.kubernetes.protobuf", "protobuf", 400),
    # Wrong types and kinds
    Bad("wrong apiVersion", "POST", DEPLOY, j({**deployment(), "apiVersion": "apps/v2"}), expect="does not match", code=400),
    Bad("wrong kind for path", "POST", DEPLOY, j({**deployment(), "kind": "Pod"}), expect="does not match", code=400),
    Bad("metadata is a string", "POST", DEPLOY, j({**deployment(), "metadata": "bad"}), expect="metadata", code=400),
    Bad("spec is a list", "POST", DEPLOY, j({**deployment(), "spec": [1]}), expect="spec", code=400),
    Bad("replicas is a string", "POST", DEPLOY, j(deployment(spec__replicas="three")), expect="spec.replicas", code=422),
    Bad("replicas negative", "POST", DEPLOY, j(deployment(spec__replicas=-1)), expect="greater than or equal to 0", code=422),
    Bad("replicas float", "POST", DEPLOY, j(deployment(spec__replicas=1.5)), expect="spec.replicas", code=422),
    Bad("labels is a list", "POST", PODS, j({**pod(), "metadata": {"name": "x", "labels": ["a"]}}), expect="metadata.labels", code=422),
    Bad("containers is a dict", "POST", PODS, j(pod(containers={"name": "c"})), expect="spec.containers", code=422),
    Bad("containerPort is a string", "POST", PODS, j(container(ports=[{"containerPort": "eighty"}])), expect="containerPort", code=422),
    Bad("hostPort is a bool", "POST", PODS, j(container(ports=[{"containerPort": 80, "hostPort": True}])), expect="hostPort", code=422),
    # Missing fields
    Bad("no name", "POST", PODS, j({**pod(), "metadata": {}}), expect="metadata.name", code=422),
    Bad("no containers", "POST", PODS, j(pod(containers=[])), expect="spec.containers", code=422),
    Bad("no image", "POST", PODS, j(pod(containers=[{"name": "c"}])), expect="image", code=422),
    Bad("container without name", "POST", PODS, j(pod(containers=[{"image": "nginx"}])), expect="name", code=422),
    Bad("deployment without selector", "POST", DEPLOY, j(deployment(spec__selector=None)), expect="spec.selector", code=422),
    Bad("deployment without template", "POST", DEPLOY, j(deployment(spec__template=None)), expect="spec.template", code=422),
    Bad("service without ports", "POST", SVCS, j({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {}}), expect="spec.ports", code=422),
    # Bad names
    Bad("uppercase name", "POST", PODS, j({**pod(), "metadata": {"name": "MyPod"}}), expect="RFC 1123", code=422),
    Bad("underscore name", "POST", DEPLOY, j(deployment(metadata={"name": "my_app"})), expect="RFC 1123", code=422),
    Bad("name too long", "POST", PODS, j({**pod(), "metadata": {"name": "a" * 300}}), expect="253", code=422),
    Bad("service name with dot", "POST", SVCS, j({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a.b"},
        "spec": {"ports": [{"port": 80}]}}), expect="DNS-1035", code=422),
    Bad("bad label key", "POST", PODS, j({**pod(), "metadata": {"name": "x", "labels": {"bad key!": "v"}}}), expect="metadata.labels", code=422),
    Bad("bad label value", "POST", PODS, j({**pod(), "metadata": {"name": "x", "labels": {"a": "-bad-"}}}), expect="metadata.labels", code=422),
    Bad("label value too long", "POST", PODS, j({**pod(), "metadata": {"name": "x", "labels": {"a": "v" * 64}}}), expect="63", code=422),
    Bad("emoji name", "POST", PODS, j({**pod(), "metadata": {"name": "pod-😀"}}), expect="RFC 1123", code=422),
    Bad("zero width space name", "POST", PODS, j({**pod(), "metadata": {"name": "pod\u200b"}}), expect="RFC 1123", code=422),
    Bad("nul in name", "POST", PODS, j({**pod(), "metadata": {"name": "a\u0000b"}}), expect="NUL", code=400),
    Bad("namespace mismatch", "POST", PODS, j({**pod(), "metadata": {"name": "x", "namespace": "kube-system"}}), expect="does not match", code=400),
    Bad("missing namespace", "POST", "/api/v1/namespaces/nowhere/pods", j(pod()), expect='namespaces "nowhere" not found', code=404),
    # Unknown kinds and paths
    Bad("unknown resource", "POST", "/api/v1/namespaces/default/widgets", j({}), expect="could not find", code=404),
    Bad("unknown group", "POST", "/apis/example.com/v1/namespaces/default/things", j({}), expect="could not find", code=404),
    Bad("wrong version", "POST", "/apis/apps/v1beta1/namespaces/default/deployments", j(deployment()), expect="could not find", code=404),
    Bad("namespaced node path", "POST", "/api/v1/namespaces/default/nodes", j({}), expect="could not find", code=404),
    Bad("post to a name", "POST", PODS + "/x", j(pod()), expect="does not allow", code=405),
    # Bad selectors
    Bad("bad label selector", "GET", PODS + "?labelSelector=app%20in%20(", None, expect="unable to parse", code=400),
    Bad("bad label selector op", "GET", PODS + "?labelSelector=a%3D%3D%3Db", None, expect="", code=400),
    Bad("unknown field selector", "GET", PODS + "?fieldSelector=spec.foo%3Dbar", None, expect="field label not supported", code=400),
    Bad("bad watch rv", "GET", PODS + "?watch=true&resourceVersion=abc", None, expect="resource version", code=400),
    Bad("deployment selector mismatch", "POST", DEPLOY, j(deployment(spec__selector={"matchLabels": {"app": "other"}})),
        expect="`selector` does not match template `labels`", code=422),
    Bad("bad selector operator", "POST", DEPLOY, j(deployment(spec__selector={"matchExpressions": [{"key": "app", "operator": "Near", "values": ["bad"]}]})),
        expect="operator", code=422),
    # Bad quantities
    Bad("cpu not a quantity", "POST", PODS, j(container(resources={"requests": {"cpu": "lots"}})), expect="quantities must match", code=422),
    Bad("memory negative", "POST", PODS, j(container(resources={"requests": {"memory": "-1Gi"}})), expect="memory", code=422),
    Bad("requests above limits", "POST", PODS, j(container(resources={"requests": {"cpu": "2"}, "limits": {"cpu": "1"}})), expect="less than or equal to cpu limit", code=422),
    Bad("bad unit", "POST", PODS, j(container(resources={"requests": {"memory": "1Gb"}})), expect="quantities must match", code=422),
    # Ports and protocols
    Bad("port out of range", "POST", PODS, j(container(ports=[{"containerPort": 70000}])), expect="between 1 and 65535", code=422),
    Bad("bad protocol", "POST", PODS, j(container(ports=[{"containerPort": 80, "protocol": "HTTP"}])), expect="supported values", code=422),
    Bad("bad restartPolicy", "POST", PODS, j(pod(restartPolicy="Sometimes")), expect="supported values", code=422),
    Bad("duplicate container names", "POST", PODS, j(pod(containers=[{"name": "c", "image": "a"}, {"name": "c", "image": "b"}])),
        expect="Duplicate value", code=422),
    Bad("bad toleration effect", "POST", PODS, j(pod(tolerations=[{"key": "a", "operator": "Exists", "effect": "Sometimes"}])),
        expect="supported values", code=422),
    Bad("bad node affinity operator", "POST", PODS, j(pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Like", "values": ["x"]}]}]}}})), expect="operator", code=422),
    # Patches
    Bad("merge patch on missing", "PATCH", PODS + "/ghost", b"{}", "application/merge-patch+json", "not found", 404),
    Bad("json patch not a list", "PATCH", NODES + "/node01", b'{"op": "add"}', "application/json-patch+json", "list", 400),
    Bad("json patch bad path", "PATCH", NODES + "/node01", j([{"op": "remove", "path": "/metadata/nothing/here"}]),
        "application/json-patch+json", "", 422),
    Bad("json patch failing test", "PATCH", NODES + "/node01", j([{"op": "test", "path": "/metadata/name", "value": "other"}]),
        "application/json-patch+json", "", 422),
    Bad("patch with unknown type", "PATCH", NODES + "/node01", b"{}", "text/plain", "unknown format", 415),
    Bad("patch breaks the name", "PATCH", NODES + "/node01", j({"metadata": {"name": "other"}}), "application/merge-patch+json", "does not match", 400),
    Bad("stale resourceVersion patch", "PATCH", NODES + "/node01", j({"metadata": {"resourceVersion": "1", "labels": {"a": "b"}}}),
        "application/merge-patch+json", "the object has been modified", 409),
    Bad("scale negative", "PATCH", DEPLOY + "/ghost/scale", j({"spec": {"replicas": -3}}), "application/merge-patch+json", "not found", 404),
    Bad("huge body", "POST", PODS, b'{"metadata": {"name": "x", "annotations": {"a": "' + b"x" * (4 * 1024 * 1024) + b'"}}}',
        expect="too large", code=413),
]


CLUSTER = "corpus"


@pytest.fixture(scope="module")
def corpus_cluster(live: LiveServer) -> str:
    """A cluster of its own, so nothing but the kubelets' heartbeats writes while the corpus runs."""
    result = live.manage("createcluster", CLUSTER, "--nodes", "3")
    assert result.returncode == 0, result.stderr
    return CLUSTER


def request(live: LiveServer, bad: Bad) -> tuple[int, dict, str]:
    conn = http.client.HTTPConnection("127.0.0.1", live.port, timeout=30)
    body = bad.body if isinstance(bad.body, (bytes, type(None))) else json.dumps(bad.body).encode()
    headers = {"Content-Type": bad.content_type} if body is not None else {}
    conn.request(bad.method, f"/c/{CLUSTER}{bad.path}", body=body, headers=headers)
    resp = conn.getresponse()
    raw = resp.read().decode("utf-8", errors="replace")
    ctype = resp.getheader("Content-Type", "")
    conn.close()
    try:
        return resp.status, json.loads(raw.splitlines()[0] if raw else "{}"), ctype
    except json.JSONDecodeError:
        return resp.status, {"raw": raw}, ctype


def stored_state(live: LiveServer) -> set[tuple]:
    """Every object a bad request could have touched, with its resourceVersion (node labels for nodes,
    whose status the kubelets keep updating)."""
    conn = http.client.HTTPConnection("127.0.0.1", live.port, timeout=30)
    state: set[tuple] = set()
    for path in ("/api/v1/pods", "/api/v1/services", "/api/v1/configmaps", "/api/v1/namespaces",
                 "/apis/apps/v1/deployments", "/apis/apps/v1/replicasets", "/api/v1/nodes"):
        conn.request("GET", f"/c/{CLUSTER}{path}")
        for item in json.loads(conn.getresponse().read())["items"]:
            meta = item["metadata"]
            marker = json.dumps(meta.get("labels"), sort_keys=True) if item["kind"] == "Node" else meta["resourceVersion"]
            state.add((item["kind"], meta.get("namespace", ""), meta["name"], marker))
    conn.close()
    return state


def test_the_corpus_is_big_enough():
    assert len(CORPUS) >= 60
    assert len({b.name for b in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("bad", CORPUS, ids=[b.name for b in CORPUS])
def test_bad_input_gets_a_status_and_writes_nothing(live: LiveServer, corpus_cluster: str, bad: Bad):
    before = stored_state(live)
    status, body, ctype = request(live, bad)
    assert 400 <= status < 500, f"{status}: {body}"
    if bad.code is not None:
        assert status == bad.code, body
    assert ctype.startswith("application/json")
    assert body.get("kind") == "Status" and body.get("status") == "Failure", body
    assert body.get("code") == status
    assert body.get("message"), body
    assert bad.expect in body["message"] or any(bad.expect in c.get("message", "") + c.get("field", "")
                                                for c in body.get("details", {}).get("causes", [])), body
    assert stored_state(live) == before
