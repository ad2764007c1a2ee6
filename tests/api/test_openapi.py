"""OpenAPI v3 and v2 documents: every served kind described, references that resolve, caching by hash."""

from __future__ import annotations

import ast
import json
import pathlib
import re
from typing import Any

import pytest

import clusterviz.api.validation as validation
from clusterviz.api import openapi, resources, schema
from clusterviz.api.defaulting import apply_defaults
from clusterviz.api.request import ApiRequest
from clusterviz.api.schema.model import DEFINITIONS
from clusterviz.api.schema.unknown import unknown_fields
from clusterviz.api.server import dispatch
from clusterviz.apimachinery.protobuf import _iter_fields


def v3(group: str, version: str) -> dict[str, Any]:
    built = openapi.document(f"apis/{group}/{version}" if group else f"api/{version}")
    assert built is not None
    return json.loads(built[0])


def refs(value: Any) -> list[str]:
    if isinstance(value, dict):
        own = [value["$ref"]] if "$ref" in value else []
        return own + [r for v in value.values() for r in refs(v)]
    if isinstance(value, list):
        return [r for v in value for r in refs(v)]
    return []


def test_every_served_kind_is_described_in_its_group_versions_document():
    for r in resources.RESOURCES:
        doc = v3(r.group, r.version)
        gvk = {"group": r.group, "kind": r.kind, "version": r.version}
        found = [s for s in doc["components"]["schemas"].values() if gvk in s.get("x-kubernetes-group-version-kind", [])]
        assert len(found) == 1, r.kind
        assert {"apiVersion", "kind", "metadata"} <= set(found[0]["properties"]), r.kind


def test_kinds_are_described_to_their_fields_not_left_open():
    # Only the simulator's own records are free-form; every Kubernetes kind lists its fields.
    open_kinds = {
        r.kind for r in resources.RESOURCES if schema.for_kind(r.group, r.version, r.kind).open
    }
    assert open_kinds <= {"FlowMessage", "SchedulingDecision"}


def test_definitions_carry_upstream_names_types_and_required_fields():
    schemas = v3("", "v1")["components"]["schemas"]
    pod = schemas["io.k8s.api.core.v1.Pod"]
    assert pod["properties"]["spec"]["allOf"] == [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodSpec"}]
    spec = schemas["io.k8s.api.core.v1.PodSpec"]
    assert spec["required"] == ["containers"]
    containers = spec["properties"]["containers"]
    assert containers["type"] == "array" and containers["x-kubernetes-list-map-keys"] == ["name"]
    assert containers["x-kubernetes-patch-merge-key"] == "name" and containers["x-kubernetes-patch-strategy"] == "merge"
    assert spec["properties"]["terminationGracePeriodSeconds"] == {
        "description": spec["properties"]["terminationGracePeriodSeconds"]["description"], "type": "integer", "format": "int64",
    }
    limits = schemas["io.k8s.api.core.v1.ResourceRequirements"]["properties"]["limits"]
    assert limits["additionalProperties"] == {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"}]}
    assert schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"]["labels"]["additionalProperties"] == {"type": "string"}
    assert schemas["io.k8s.api.core.v1.Affinity"]["x-kubernetes-preserve-unknown-fields"] is True


@pytest.mark.parametrize("gv", [("", "v1"), ("apps", "v1"), ("batch", "v1"), ("clusterviz.io", "v1")])
def test_every_reference_resolves_within_its_document(gv: tuple[str, str]):
    doc = v3(*gv)
    names = set(doc["components"]["schemas"])
    for ref in refs(doc):
        assert ref.removeprefix("#/components/schemas/") in names, ref


def test_the_patch_operation_offers_field_validation_as_kubectl_looks_for_it():
    paths = v3("apps", "v1")["paths"]
    patch = paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]
    assert patch["x-kubernetes-group-version-kind"] == {"group": "apps", "kind": "Deployment", "version": "v1"}
    assert {"name": "fieldValidation", "in": "query", "schema": {"type": "string", "uniqueItems": True}} in patch["parameters"]


async def get(path: str, accept: str = "application/json", **query: str):
    return await dispatch(ApiRequest("demo", "GET", path, query=query, accept=accept, simulated=False))


@pytest.mark.django_db
async def test_the_root_names_each_document_by_its_hash_and_a_hashed_url_is_cached_for_good():
    root = json.loads((await get("/openapi/v3")).body)
    url = root["paths"]["apis/apps/v1"]["serverRelativeURL"]
    path, _, asked = url.partition("?hash=")
    assert path == "/openapi/v3/apis/apps/v1" and len(asked) == 128 and asked == asked.upper()
    hashed = await get(path, hash=asked)
    assert hashed.headers["ETag"] == f'"{asked}"' and hashed.headers["Cache-Control"] == "public, immutable"
    assert json.loads(hashed.body)["openapi"] == "3.0.0"
    plain = await get(path)
    assert plain.headers["ETag"] == f'"{asked}"' and "Cache-Control" not in plain.headers
    # An old hash is sent on to the current one, for good (301), as kube-openapi does.
    stale = await get(path, hash="0" * 128)
    assert stale.status == 301 and "Cache-Control" not in stale.headers
    assert stale.headers["Location"] == f"/c/demo{path}?hash={asked}"
    assert (await get("/openapi/v3/apis/nosuch.group/v1")).status == 404


async def get_if_none_match(path: str, tags: str, accept: str = "application/json") -> object:
    return await dispatch(ApiRequest("demo", "GET", path, accept=accept, if_none_match=tags, simulated=False))


@pytest.mark.django_db
async def test_a_document_the_caller_holds_is_not_sent_again():
    for path, accept in (("/openapi/v3", "application/json"), ("/openapi/v3/apis/apps/v1", "application/json"),
                         ("/openapi/v2", "application/json"), ("/openapi/v2", openapi.V2_PROTOBUF)):
        first = await get(path, accept=accept)
        etag = first.headers["ETag"]
        assert first.status == 200 and len(etag) == 130
        held = await get_if_none_match(path, f'"other", {etag}', accept)
        assert (held.status, held.body, held.headers["ETag"]) == (304, b"", etag), path
        assert (await get_if_none_match(path, "W/" + etag, accept)).status == 304
        assert (await get_if_none_match(path, '"other"', accept)).status == 200
    # v2's ETag is the JSON document's whichever encoding is asked for.
    assert (await get("/openapi/v2")).headers["ETag"] == (await get("/openapi/v2", accept=openapi.V2_PROTOBUF)).headers["ETag"]


@pytest.mark.django_db
async def test_v2_is_swagger_as_json_and_as_kubectls_protobuf():
    swagger = json.loads((await get("/openapi/v2")).body)
    assert swagger["swagger"] == "2.0"
    pod = swagger["definitions"]["io.k8s.api.core.v1.Pod"]
    assert pod["properties"]["spec"]["$ref"] == "#/definitions/io.k8s.api.core.v1.PodSpec"
    assert pod["x-kubernetes-group-version-kind"] == [{"group": "", "kind": "Pod", "version": "v1"}]
    assert swagger["definitions"]["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]["format"] == "int-or-string"
    proto = await get("/openapi/v2", accept="application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
    assert proto.content_type == "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
    fields = {number: value for number, _, value in _iter_fields(proto.body)}
    assert fields[1] == b"2.0"
    names = []
    for number, _, named in _iter_fields(fields[9]):
        assert number == 1 and isinstance(named, bytes)
        names.append(dict((n, v) for n, _, v in _iter_fields(named))[1].decode())
    assert names == list(swagger["definitions"])


POD_SPEC = {
    "containers": [{
        "name": "web", "image": "nginx",
        "ports": [{"containerPort": 80}],
        "env": [{"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
        "resources": {"requests": {"cpu": "0.5"}},
        "livenessProbe": {"httpGet": {"port": 80}},
        "readinessProbe": {"exec": {"command": ["true"]}},
        "volumeMounts": [{"name": "cfg", "mountPath": "/etc/cfg"}],
    }],
    "initContainers": [{"name": "init", "image": "busybox"}],
    "volumes": [{"name": "cfg", "configMap": {"name": "cfg"}}, {"name": "s", "secret": {"secretName": "s"}},
                {"name": "e", "emptyDir": {}}, {"name": "h", "hostPath": {"path": "/tmp"}}],
}
TEMPLATE = {"metadata": {"labels": {"app": "a"}}, "spec": POD_SPEC}
SELECTOR = {"matchLabels": {"app": "a"}}
SAMPLES: dict[str, dict[str, Any]] = {
    "Pod": {"spec": POD_SPEC},
    "Deployment": {"spec": {"selector": SELECTOR, "template": TEMPLATE}},
    "ReplicaSet": {"spec": {"selector": SELECTOR, "template": TEMPLATE}},
    "ReplicationController": {"spec": {"template": TEMPLATE}},
    "DaemonSet": {"spec": {"selector": SELECTOR, "template": TEMPLATE}},
    "StatefulSet": {"spec": {"selector": SELECTOR, "template": TEMPLATE, "serviceName": "a", "volumeClaimTemplates": [
        {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
    ]}},
    "Job": {"spec": {"template": {**TEMPLATE, "spec": {**POD_SPEC, "restartPolicy": "Never"}}}},
    "CronJob": {"spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": TEMPLATE}}}},
    "Service": {"spec": {"selector": {"app": "a"}, "ports": [{"port": 80}], "type": "NodePort"}},
    "Namespace": {},
    "Node": {"spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]}},
    "ConfigMap": {"data": {"a": "b"}},
    "Secret": {"stringData": {"a": "b"}},
    "ServiceAccount": {},
    "Endpoints": {"subsets": [{"addresses": [{"ip": "10.0.0.1"}], "ports": [{"port": 80}]}]},
    "EndpointSlice": {"addressType": "IPv4", "endpoints": [{"addresses": ["10.0.0.1"]}], "ports": [{"port": 80}]},
    "Event": {"involvedObject": {"kind": "Pod", "name": "p"}, "reason": "R", "message": "m"},
    "Lease": {"spec": {"holderIdentity": "n"}},
    "PodDisruptionBudget": {"spec": {"minAvailable": 1, "selector": SELECTOR}},
    "HorizontalPodAutoscaler": {"spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                                         "maxReplicas": 3, "behavior": {}}},
    "PriorityClass": {"value": 1000, "description": "batch work"},
    "Ingress": {"spec": {"tls": [{"hosts": ["a.com"], "secretName": "cert"}], "rules": [{"host": "a.com", "http": {
        "paths": [{"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "a", "port": {"number": 80}}}}]}}]}},
    "IngressClass": {"spec": {"controller": "k8s.io/ingress-nginx", "parameters": {"kind": "P", "name": "p"}}},
    "CustomResourceDefinition": {"spec": {"group": "stable.example.com", "scope": "Namespaced",
                                          "names": {"plural": "crontabs", "kind": "CronTab"},
                                          "versions": [{"name": "v1", "served": True, "storage": True,
                                                        "schema": {"openAPIV3Schema": {"type": "object"}}}]}},
    "APIService": {"spec": {"group": "wardle.example.com", "version": "v1alpha1", "groupPriorityMinimum": 1000,
                            "versionPriority": 15, "service": {"namespace": "wardle", "name": "api"}}},
    "ResourceQuota": {"spec": {"hard": {"pods": "2", "requests.cpu": "1"}, "scopes": ["NotBestEffort"]}},
    "LimitRange": {"spec": {"limits": [{"type": "Container", "max": {"cpu": "1"}, "min": {"memory": "1Mi"}}]}},
    "PersistentVolume": {"spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                                  "hostPath": {"path": "/data"}}},
    "PersistentVolumeClaim": {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
    "StorageClass": {"provisioner": "hostpath.csi.clusterviz.io"},
    "CSINode": {"spec": {"drivers": [{"name": "hostpath.csi.clusterviz.io", "nodeID": "n", "allocatable": {"count": 1}}]}},
    "ControllerRevision": {"revision": 1, "data": {}},
    "NodeMetrics": {"window": "30s", "usage": {"cpu": "1m", "memory": "1Ki"}},
    "PodMetrics": {"window": "30s", "containers": [{"name": "c", "usage": {"cpu": "1m", "memory": "1Ki"}}]},
    "SelfSubjectAccessReview": {"spec": {"resourceAttributes": {"verb": "get", "resource": "pods"}}},
    "SelfSubjectReview": {},
    "SelfSubjectRulesReview": {"spec": {"namespace": "default"}},
    "Role": {"rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]},
    "ClusterRole": {"aggregationRule": {"clusterRoleSelectors": [SELECTOR]}, "rules": []},
    "RoleBinding": {"roleRef": {"kind": "Role", "name": "r"}, "subjects": [{"kind": "User", "name": "u"}]},
    "ClusterRoleBinding": {"roleRef": {"kind": "ClusterRole", "name": "r"},
                           "subjects": [{"kind": "ServiceAccount", "name": "s", "namespace": "default"}]},
}


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_defaulting_fills_in_only_fields_the_description_knows(kind: str):
    # The description is what the defaults are checked against, so the two cannot drift apart.
    r = next(r for r in resources.RESOURCES if r.kind == kind)
    obj = {"apiVersion": r.group_version, "kind": kind, "metadata": {"name": "x", "namespace": "default"}, **SAMPLES[kind]}
    defaulted = apply_defaults(kind, obj)
    assert unknown_fields(schema.for_kind(r.group, r.version, kind), defaulted) == []


def test_every_served_kind_has_a_defaulting_sample():
    assert {r.kind for r in resources.RESOURCES if r.group != "clusterviz.io"} == set(SAMPLES)


def _resolves(definition: Any, segments: list[str]) -> bool:
    """Whether a dotted field path leads through the description (lists and maps are stepped through)."""
    for i, segment in enumerate(segments):
        if definition.open:
            return True
        found = definition.fields.get(segment)
        if found is None:
            return False
        t = found.type
        while t.kind in ("array", "map") and t.item is not None:
            t = t.item
        if i == len(segments) - 1:
            return True
        if t.kind != "ref" or t.ref not in DEFINITIONS:
            return t.kind == "object"
        definition = DEFINITIONS[t.ref]
    return True


def test_every_field_path_validation_names_is_in_a_description():
    # Validation reports these paths; a description that lacked one would let the field be called unknown.
    pattern = re.compile(r"^(spec|status|metadata|involvedObject)(\.[a-zA-Z]+)+$")
    quirks = {"metadata.taints"}  # upstream reports a node's taints under this path
    kinds = [schema.for_kind(r.group, r.version, r.kind) for r in resources.RESOURCES]
    paths = {
        node.value
        for source in pathlib.Path(validation.__file__).parent.glob("*.py")
        for node in ast.walk(ast.parse(source.read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and pattern.match(node.value)
    } - quirks
    assert len(paths) > 40
    missing = [p for p in sorted(paths) if not any(_resolves(k, p.split(".")) for k in kinds)]
    assert missing == []
