"""What the fuzz tests draw (objects, mutations, bodies, requests) and what every answer must pass."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import yaml
from hypothesis import HealthCheck, event
from hypothesis import strategies as st

from clusterviz.store import kv
from clusterviz.store.models import StoredObject
from clusterviz.store.threads import in_thread

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


def to_yaml(value: Any) -> str:
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
        raw = to_yaml(value).encode("utf-8", "surrogatepass")
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
    ("POST", "/api/v1/namespaces/default/persistentvolumeclaims"),
    ("POST", "/api/v1/persistentvolumes"),
    ("POST", "/apis/storage.k8s.io/v1/storageclasses"),
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
