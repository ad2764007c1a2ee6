"""Fuzzing the API server and the YAML editor with random and mutated input (the "class of 100" issue).

Whatever arrives — valid-looking objects with odd field values, wrong types, huge numbers, strange
unicode, random bytes and text under any content type, random verbs and paths — the answer is never a
5xx; a refusal is a Kubernetes Status (Failure, a 4xx code, a message); and a refused write leaves the
store as it was. The YAML editor form holds the same promises and names the line of unparsable text.

Most examples go in-process through Django's ASGI handler (the same URL routing and view kubectl
reaches), with no simulation running so the cluster's revision must not move on a refusal; some go
through a running simulation's gate, and a few over real HTTP to a Daphne process. Every run draws the
same examples (``derandomize``), so a failure reproduces.
"""

from __future__ import annotations

import http.client
import json
import re
from typing import Any
from urllib.parse import quote

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from clusterviz.api.client import Client
from clusterviz.classroom import ratelimit
from clusterviz.store import kv
from clusterviz.store.models import StoredObject
from clusterviz.store.threads import in_thread
from clusterviz.web import yaml_form
from tests.livesim import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)

CLUSTER = "demo"
# Hypothesis' settings for the in-process properties: deterministic, no example database on disk, and no
# per-example deadline (the store's threads make timings vary on shared cores).
FUZZ = {
    "deadline": None,
    "derandomize": True,
    "database": None,
    # The Django test client is stateless between requests, so sharing it across examples is sound.
    "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
}


@pytest.fixture(autouse=True)
def unlimited_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """No per-address write limit: it would refuse examples by timing alone, and runs would differ."""
    monkeypatch.setattr(ratelimit, "writes", lambda: ratelimit.RateLimiter(0, 0))


# --- values ---------------------------------------------------------------------------------------

ODD_TEXT = [
    "",
    " ",
    "\u200b",
    "pod\u200b",
    "\u202eevil",
    "😀",
    "ℌello",
    "a\u0000b",
    "日本語",
    "İ",
    "ß",
    "\ufeff",
    "a" * 64,
    "a" * 300,
    "-bad-",
    "Bad_Name",
    "a.b",
    "1",
    "true",
    "null",
    "~",
    "0x1F",
    "1e400",
    "-0",
]
HUGE_NUMBERS = [2**31, -(2**31) - 1, 2**53 + 1, 2**63 - 1, 2**63, -(2**63) - 1, 10**30, 1e308, -1e-308, 0.5]
text = st.one_of(st.sampled_from(ODD_TEXT), st.text(max_size=20))
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.sampled_from(HUGE_NUMBERS),
    st.floats(allow_nan=True, allow_infinity=True),
    text,
)
# Any JSON-ish value, a few levels deep.
junk = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3), max_leaves=8
)


def mostly(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Usually a sensible value, sometimes anything at all."""
    return st.one_of(good, good, good, junk)


names = mostly(
    st.sampled_from(["web", "fuzz", "x-1", "node01", "default", "kube-system"])
    | st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True)
)
label_maps = mostly(
    st.dictionaries(st.sampled_from(["app", "tier", "a/b", "x.io/y", "bad key"]), text | st.just("web"), max_size=3)
)
ints = mostly(st.integers(-5, 70000))


@st.composite
def containers(draw: st.DrawFn) -> Any:
    container: dict[str, Any] = {"name": draw(names), "image": draw(mostly(st.just("nginx:1.27")))}
    if draw(st.booleans()):
        container["ports"] = draw(
            mostly(
                st.lists(
                    st.fixed_dictionaries(
                        {"containerPort": ints},
                        optional={"protocol": mostly(st.sampled_from(["TCP", "UDP", "HTTP"])), "hostPort": ints},
                    ),
                    max_size=2,
                )
            )
        )
    if draw(st.booleans()):
        quantity = mostly(st.sampled_from(["100m", "1", "1Gi", "-1", "1e3", "lots", "0.5"]))
        container["resources"] = draw(
            mostly(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "requests": st.fixed_dictionaries({}, optional={"cpu": quantity, "memory": quantity}),
                        "limits": st.fixed_dictionaries({}, optional={"cpu": quantity, "memory": quantity}),
                    },
                )
            )
        )
    return container


@st.composite
def pod_specs(draw: st.DrawFn) -> Any:
    spec: dict[str, Any] = {"containers": draw(mostly(st.lists(containers(), min_size=1, max_size=2)))}
    optional = {
        "restartPolicy": mostly(st.sampled_from(["Always", "Never", "OnFailure", "Sometimes"])),
        "nodeName": names,
        "nodeSelector": label_maps,
        "tolerations": mostly(
            st.lists(
                st.fixed_dictionaries(
                    {
                        "key": text,
                        "operator": st.sampled_from(["Exists", "Equal", "Like"]),
                        "effect": st.sampled_from(["NoSchedule", "NoExecute", "Sometimes"]),
                    }
                ),
                max_size=2,
            )
        ),
        "priority": ints,
        "terminationGracePeriodSeconds": ints,
    }
    for key, strategy in optional.items():
        if draw(st.integers(0, 3)) == 0:
            spec[key] = draw(strategy)
    return spec


def _meta(name: Any, labels: Any) -> dict[str, Any]:
    return {"name": name, "labels": labels}


@st.composite
def objects(draw: st.DrawFn) -> dict[str, Any]:
    """A valid-looking Pod, Deployment, ReplicaSet, Service, ConfigMap, Namespace or Node with random values."""
    kind = draw(st.sampled_from(["Pod", "Deployment", "ReplicaSet", "Service", "ConfigMap", "Namespace", "Node"]))
    meta = _meta(draw(names), draw(label_maps))
    if kind == "Pod":
        return {"apiVersion": "v1", "kind": kind, "metadata": meta, "spec": draw(pod_specs())}
    if kind in ("Deployment", "ReplicaSet"):
        labels = draw(label_maps)
        return {
            "apiVersion": "apps/v1",
            "kind": kind,
            "metadata": meta,
            "spec": {
                "replicas": draw(ints),
                "selector": draw(mostly(st.just({"matchLabels": labels}))),
                "template": {"metadata": {"labels": labels}, "spec": draw(pod_specs())},
            },
        }
    if kind == "Service":
        return {
            "apiVersion": "v1",
            "kind": kind,
            "metadata": meta,
            "spec": {
                "type": draw(mostly(st.sampled_from(["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"]))),
                "selector": draw(label_maps),
                "ports": draw(
                    mostly(
                        st.lists(
                            st.fixed_dictionaries(
                                {"port": ints},
                                optional={"targetPort": mostly(ints | text), "nodePort": ints, "name": names},
                            ),
                            max_size=2,
                        )
                    )
                ),
            },
        }
    if kind == "ConfigMap":
        return {
            "apiVersion": "v1",
            "kind": kind,
            "metadata": meta,
            "data": draw(mostly(st.dictionaries(text, text, max_size=3))),
        }
    if kind == "Namespace":
        return {"apiVersion": "v1", "kind": kind, "metadata": meta}
    return {
        "apiVersion": "v1",
        "kind": kind,
        "metadata": meta,
        "spec": draw(
            mostly(st.fixed_dictionaries({}, optional={"unschedulable": mostly(st.booleans()), "taints": junk}))
        ),
    }


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += _paths(item, (*prefix, index))
    return out


@st.composite
def mutated(draw: st.DrawFn, base: st.SearchStrategy[dict[str, Any]]) -> Any:
    """An object with one to three of its fields replaced, removed or wrapped in the wrong type."""
    obj = draw(base)
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(obj)
        path = draw(st.sampled_from(paths))
        how = draw(st.sampled_from(["replace", "delete", "wrap", "stringify"]))
        if not path:
            obj = draw(junk) if how == "replace" else obj
            continue
        parent = obj
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        if how == "delete":
            del parent[last]
        elif how == "wrap":
            parent[last] = [parent[last]]
        elif how == "stringify":
            parent[last] = json.dumps(parent[last])
        else:
            parent[last] = draw(junk)
        if not isinstance(obj, (dict, list)):
            break
    return obj


def _yaml(value: Any) -> str:
    return yaml.safe_dump(value, allow_unicode=True, sort_keys=False)


PATCH_TYPES = [
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/json-patch+json",
    "application/apply-patch+yaml",
]


@st.composite
def bodies(
    draw: st.DrawFn, values: st.SearchStrategy[Any], method: str = "POST", raw_bytes: bool = True
) -> tuple[bytes, str]:
    """(body, Content-Type): a value encoded as JSON or YAML, or (with ``raw_bytes``) random bytes or text,
    usually under a media type the verb accepts and sometimes under any other."""
    value = draw(values)
    encoding = draw(st.sampled_from(["json", "json", "yaml", "bytes", "text"] if raw_bytes else ["json", "yaml"]))
    if encoding == "json":
        raw = json.dumps(value, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
        kinds = PATCH_TYPES[:3] if method == "PATCH" else ["application/json", "application/json; charset=utf-8", ""]
    elif encoding == "yaml":
        raw = _yaml(value).encode("utf-8", "surrogatepass")
        kinds = PATCH_TYPES[3:] if method == "PATCH" else ["application/yaml", "text/yaml", "application/x-yaml"]
    elif encoding == "bytes":
        raw = draw(st.binary(max_size=64))
        kinds = ["application/vnd.kubernetes.protobuf", "application/json", "application/yaml", *PATCH_TYPES]
    else:
        raw = draw(st.text(max_size=64)).encode("utf-8", "surrogatepass")
        kinds = ["application/json", "application/yaml", *PATCH_TYPES]
    # Header values are ASCII on the wire (Django's test client refuses anything else).
    anything = st.sampled_from(["text/plain", "application/apply-patch+cbor", *PATCH_TYPES]) | st.text(
        st.characters(min_codepoint=32, max_codepoint=126), max_size=12
    )
    content_type = draw(st.one_of(st.sampled_from(kinds), st.sampled_from(kinds), st.sampled_from(kinds), anything))
    return raw, content_type


# --- requests ----------------------------------------------------------------------------------------

WRITE_TARGETS = [
    ("POST", "/api/v1/namespaces/default/pods"),
    ("POST", "/apis/apps/v1/namespaces/default/deployments"),
    ("POST", "/apis/apps/v1/namespaces/default/replicasets"),
    ("POST", "/api/v1/namespaces/default/services"),
    ("POST", "/api/v1/namespaces/default/configmaps"),
    ("POST", "/api/v1/namespaces"),
    ("POST", "/api/v1/nodes"),
    ("POST", "/api/v1/namespaces/default/pods/{name}/binding"),
    ("PUT", "/api/v1/nodes/node01"),
    ("PUT", "/api/v1/nodes/node01/status"),
    ("PUT", "/api/v1/namespaces/default/pods/{name}"),
    ("PATCH", "/api/v1/nodes/node01"),
    ("PATCH", "/api/v1/nodes/node02/status"),
    ("PATCH", "/api/v1/namespaces/default"),
    ("PATCH", "/apis/apps/v1/namespaces/default/deployments/{name}/scale"),
    ("PATCH", "/apis/clusterviz.io/v1/simulations/default"),
    ("DELETE", "/api/v1/namespaces/default/pods/{name}"),
    ("DELETE", "/api/v1/namespaces/default/configmaps"),
]
QUERY_KEYS = [
    "dryRun",
    "fieldManager",
    "force",
    "labelSelector",
    "fieldSelector",
    "resourceVersion",
    "limit",
    "continue",
    "propagationPolicy",
    "gracePeriodSeconds",
    "timeoutSeconds",
    "fieldValidation",
    "includeObject",
    "sinceSeq",
    "pretty",
]
ACCEPTS = [
    "application/json",
    "",
    "*/*",
    "application/json;as=Table;v=v1;g=meta.k8s.io",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
]
queries = st.dictionaries(
    st.sampled_from(QUERY_KEYS),
    st.sampled_from(["All", "true", "0", "-1", "abc", "app=web", "metadata.name=x", "Orphan"]) | text,
    max_size=3,
)
SEGMENTS = [
    "api",
    "apis",
    "v1",
    "apps",
    "namespaces",
    "default",
    "kube-system",
    "pods",
    "deployments",
    "nodes",
    "node01",
    "services",
    "configmaps",
    "status",
    "scale",
    "binding",
    "finalize",
    "clusterviz.io",
    "simulations",
    "flowmessages",
    "1",
    "schedulingdecisions",
    "openapi",
    "v3",
    "version",
    "healthz",
    "x",
]
# Under one of the API server's roots (anything else under /c/<cluster>/ is a dashboard page).
random_paths = st.builds(
    lambda root, parts: "/".join([root, *parts]),
    st.sampled_from(["api", "apis", "version", "openapi", "healthz", "livez", "readyz"]),
    st.lists(st.sampled_from(SEGMENTS) | text, max_size=6),
)
methods = st.sampled_from(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) | st.from_regex(
    r"[A-Z]{1,8}", fullmatch=True
)


@st.composite
def write_requests(
    draw: st.DrawFn, targets: list[tuple[str, str]] = WRITE_TARGETS
) -> tuple[str, str, dict[str, str], bytes, str]:
    """(method, path, query, body, Content-Type) aimed at a real write endpoint."""
    method, template = draw(st.sampled_from(targets))
    name = draw(st.sampled_from(["web", "fuzz", "ghost"]))
    body, content_type = draw(bodies(st.one_of(objects(), mutated(objects()), junk), method))
    return method, template.format(name=name), draw(queries), body, content_type


def quoted(path: str) -> str:
    return "/".join(quote(part, safe="") for part in path.split("/"))


# --- checks -------------------------------------------------------------------------------------------


def assert_refusal_is_a_status(status: int, body: bytes, content_type: str, method: str) -> None:
    event(f"HTTP {status}")  # --hypothesis-show-statistics shows how the examples were answered
    assert status < 500, f"{status}: {body[:500]!r}"
    if status < 400 or method == "HEAD":
        return  # HEAD replies carry no body
    assert content_type.startswith("application/json"), (status, content_type, body[:200])
    reply = json.loads(body)
    assert reply.get("kind") == "Status" and reply.get("status") == "Failure", reply
    assert reply.get("code") == status and 400 <= status < 500, reply
    assert isinstance(reply.get("message"), str) and reply["message"], reply


async def revision(cluster: str = CLUSTER) -> int:
    return await in_thread(kv.current_revision)(await in_thread(kv.cluster_id)(cluster))


# What the simulation keeps rewriting on its own: node status (heartbeats), leases, events, decisions.
NODES = "nodes"
SELF_WRITTEN = ("leases", "events", "schedulingdecisions")


def _snapshot(cluster: str) -> set[tuple[Any, ...]]:
    """Every stored object with its resourceVersion (only the labels of a node, whose status keeps changing)."""
    rows = StoredObject.objects.filter(cluster__name=cluster).values_list(
        "resource", "namespace", "name", "resource_version", "labels"
    )
    return {
        (r, ns, name, json.dumps(labels, sort_keys=True) if r == NODES else rv)
        for r, ns, name, rv, labels in rows
        if r.split(".", 1)[0] not in SELF_WRITTEN
    }


snapshot = in_thread(_snapshot)


async def send(
    async_client: Any,
    method: str,
    path: str,
    query: dict[str, str],
    body: bytes,
    content_type: str,
    accept: str = "application/json",
    cluster: str = CLUSTER,
) -> Any:
    return await async_client.generic(
        method,
        f"/c/{cluster}{quoted(path)}",
        data=body,
        content_type=content_type,
        QUERY_STRING="&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in query.items()),
        headers={"Accept": accept},
    )


# --- the API server, in-process -------------------------------------------------------------------------


@settings(max_examples=500, **FUZZ)
@given(request=write_requests())
async def test_random_writes_never_fail_with_5xx_and_a_refusal_writes_nothing(async_client, request):
    method, path, query, body, content_type = request
    before = await revision()
    resp = await send(async_client, method, path, query, body, content_type)
    assert_refusal_is_a_status(resp.status_code, resp.content, resp.get("Content-Type", ""), method)
    if resp.status_code >= 400 or query.get("dryRun"):
        assert await revision() == before, (resp.status_code, resp.content[:300])


@settings(max_examples=300, **FUZZ)
@given(
    method=methods,
    path=random_paths,
    query=queries,
    body=bodies(junk | objects()),
    accept=st.sampled_from(ACCEPTS),
    cluster=st.sampled_from([CLUSTER, CLUSTER, "nowhere"]),
)
async def test_random_verbs_and_paths_never_fail_with_5xx(async_client, method, path, query, body, accept, cluster):
    # A watch stays open until its timeout; it is started with the same checks as a list, which this covers.
    query.pop("watch", None)
    before = await revision()
    resp = await send(async_client, method, "/" + path, query, *body, accept=accept, cluster=cluster)
    assert_refusal_is_a_status(resp.status_code, resp.content, resp.get("Content-Type", ""), method)
    if resp.status_code >= 400:
        assert await revision() == before


# Not the simulation's own controls: a paused or stepped simulation would hold every later write.
SIMULATED_TARGETS = [(m, p) for m, p in WRITE_TARGETS if "simulations" not in p]


@settings(max_examples=60, **FUZZ)
@given(request=write_requests(SIMULATED_TARGETS))
async def test_refused_writes_through_a_running_simulation_write_nothing(async_client, sim, request):
    method, path, query, body, content_type = request
    await sim.engine.until_settled()
    before = await snapshot(CLUSTER)
    resp = await send(async_client, method, path, query, body, content_type)
    assert_refusal_is_a_status(resp.status_code, resp.content, resp.get("Content-Type", ""), method)
    # Whatever the simulation does about the request happens before the comparison (and the next example).
    await sim.engine.until_settled()
    if resp.status_code >= 400:
        assert await snapshot(CLUSTER) == before


# --- the YAML editor ------------------------------------------------------------------------------------

CORRUPTIONS = [
    ":",
    ": [",
    "\t",
    "&a",
    "*a",
    "!!python/object/apply:os.system ['true']",
    "{",
    "'",
    '"',
    "- ",
    "---",
    "--- x: 1",
    "...",
    "%YAML 1.1",
    "  ---",
    "? ",
    "|",
    "@",
    "\x00",
    "\ufeff",
    "<<: *a",
]


@st.composite
def editor_texts(draw: st.DrawFn) -> str:
    """What a student might leave in the editor: manifests, several of them, and broken ones."""
    documents = draw(st.lists(st.one_of(objects(), mutated(objects()), junk).map(_yaml), min_size=1, max_size=3))
    separator = draw(st.sampled_from(["---\n", "---\n", "--- \n", "\n---\n", "...\n---\n", "--- # next\n"]))
    text = separator.join(documents)
    lines = text.splitlines()
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(lines)))
        insert = draw(st.sampled_from(CORRUPTIONS) | st.text(max_size=10))
        if draw(st.booleans()) and at < len(lines):
            lines[at] = lines[at] + insert
        else:
            lines.insert(at, draw(st.sampled_from(["", "  ", "    "])) + insert)
    return "\n".join(lines)


def _unparsable(text: str) -> bool:
    """True when the text is not YAML at all (as opposed to YAML that is not a valid object)."""
    try:
        list(yaml.safe_load_all(text))
    except yaml.YAMLError:
        return True
    except RecursionError:
        return False
    return False


@settings(max_examples=200, **FUZZ)
@given(text=editor_texts() | st.text(max_size=200), action=st.sampled_from([*yaml_form.ACTIONS, "apply", "", "drop"]))
async def test_the_yaml_editor_never_fails_with_5xx_and_points_at_the_broken_line(async_client, text, action):
    before = await revision()
    resp = await async_client.post(f"/c/{CLUSTER}/yaml", {"action": action, "yaml": text})
    assert resp.status_code == 200, resp.content[:500]
    reply = resp.content.decode()
    event("some document went through" if 'class="flash ok"' in reply else "refused")
    if action in yaml_form.ACTIONS and _unparsable(text):
        event("not YAML")
        assert re.search(r'data-line="\d+"', reply), (text, reply)
    if 'class="flash ok"' not in reply or action == "dry-run":
        assert await revision() == before, reply


# --- regressions the fuzzing found ----------------------------------------------------------------------


async def test_editor_documents_are_split_where_yaml_splits_them(async_client):
    # A comment on the separator line, and a "---" inside a block scalar, used to crash the form (a 500).
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: one}\n--- # the second one\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: two}\ndata:\n  notes: |\n    above\n    ---\n    below\n"
    )
    resp = await async_client.post(f"/c/{CLUSTER}/yaml", {"action": "create", "yaml": text})
    assert resp.status_code == 200
    reply = resp.content.decode()
    assert "configmap/one created" in reply and "configmap/two created" in reply, reply
    stored = await Client(CLUSTER, "kubectl").get("configmaps", "two", "default")
    assert stored["data"]["notes"] == "above\n---\nbelow\n"


async def test_a_control_character_in_yaml_is_reported_at_its_line(async_client):
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \x1fbad\n"
    resp = await async_client.post(f"/c/{CLUSTER}/yaml", {"action": "apply", "yaml": text})
    assert 'data-line="4"' in resp.content.decode()
    resp = await send(
        async_client, "POST", "/api/v1/namespaces/default/configmaps", {}, text.encode(), "application/yaml"
    )
    assert resp.status_code == 400
    assert "line 4, column 9" in json.loads(resp.content)["message"]


async def test_a_syntax_error_is_shown_at_its_line_even_after_a_value_json_cannot_hold(async_client):
    # The first document's number overflows (reported by field path, no line); the second is not YAML.
    text = "apiVersion: v1\nkind: ConfigMap\ndata: {big: 9223372036854775808}\n---\nkind: [Pod\n"
    resp = await async_client.post(f"/c/{CLUSTER}/yaml", {"action": "apply", "yaml": text})
    assert re.search(r'data-line="[56]"', resp.content.decode()), resp.content.decode()


# --- over real HTTP -------------------------------------------------------------------------------------

LIVE_CLUSTER = "fuzzlive"


@pytest.fixture(scope="module")
def live_cluster(live: LiveServer) -> str:
    result = live.manage("createcluster", LIVE_CLUSTER, "--nodes", "1")
    assert result.returncode == 0, result.stderr
    return LIVE_CLUSTER


def _live_state(live: LiveServer) -> set[tuple[Any, ...]]:
    """Every object a refused write could have touched (labels only for the node, whose status the kubelet
    keeps renewing)."""
    conn = http.client.HTTPConnection("127.0.0.1", live.port, timeout=30)
    state: set[tuple[Any, ...]] = set()
    for path in (
        "/api/v1/pods",
        "/api/v1/services",
        "/api/v1/configmaps",
        "/api/v1/namespaces",
        "/apis/apps/v1/deployments",
        "/apis/apps/v1/replicasets",
        "/api/v1/nodes",
    ):
        conn.request("GET", f"/c/{LIVE_CLUSTER}{path}")
        for item in json.loads(conn.getresponse().read())["items"]:
            meta = item["metadata"]
            marker = (
                json.dumps(meta.get("labels"), sort_keys=True) if item["kind"] == "Node" else meta["resourceVersion"]
            )
            state.add((item["kind"], meta.get("namespace", ""), meta["name"], marker))
    conn.close()
    return state


LIVE_TARGETS = [(m, p) for m, p in SIMULATED_TARGETS if m != "DELETE"]


@st.composite
def refused_requests(draw: st.DrawFn) -> tuple[str, str, bytes, str]:
    """A write certain to be refused (an object with an invalid name, under any media type), so that no
    successful write's aftermath (scheduling, kubelets) can blur the before/after comparison."""
    method, template = draw(st.sampled_from(LIVE_TARGETS))
    obj = {**draw(objects()), "metadata": {"name": draw(st.sampled_from(["Not_Valid!", "a" * 300, "x\u200b"]))}}
    body, content_type = draw(bodies(st.just(obj), method, raw_bytes=False))
    return method, template.format(name="ghost"), body, content_type


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(request=refused_requests())
def test_refused_writes_over_http_get_a_status_and_write_nothing(live, live_cluster, request):
    method, path, body, content_type = request
    before = _live_state(live)
    conn = http.client.HTTPConnection("127.0.0.1", live.port, timeout=30)
    try:
        conn.putrequest(method, f"/c/{LIVE_CLUSTER}{path}")
        conn.putheader("Content-Type", content_type.encode("utf-8", "surrogatepass"))
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        resp = conn.getresponse()
        reply = resp.read()
    finally:
        conn.close()
    assert_refusal_is_a_status(resp.status, reply, resp.getheader("Content-Type", ""), method)
    assert resp.status >= 400
    assert _live_state(live) == before
