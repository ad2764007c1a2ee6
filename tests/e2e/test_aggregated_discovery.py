"""Aggregated discovery: kubectl learns the whole API from /api and /apis, as from kube-apiserver."""

import json
import re
import urllib.request

from tests.conftest import Kubectl
from tests.livesim import LiveServer

# What kubectl 1.32 sends for /api and /apis.
KUBECTL_ACCEPT = (
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
)


def fetch(live: LiveServer, path: str, accept: str = "application/json") -> tuple[str, str, dict]:
    request = urllib.request.Request(f"{live.cluster_url()}{path}", headers={"Accept": accept})
    with urllib.request.urlopen(request, timeout=30) as reply:
        return reply.headers["Content-Type"], reply.headers.get("Vary", ""), json.loads(reply.read())


def test_kubectl_reads_the_api_from_two_documents(kubectl: Kubectl):
    done = kubectl("get", "deployments", "-v=6")
    assert done.returncode == 0, done.stderr
    asked = re.findall(r"GET http://\S+?/c/demo(/\S*?)(?:\?\S*)? 200", done.stderr)
    assert "/api" in asked and "/apis" in asked
    # No group version's own document: /api/v1, /apis/apps/v1 and the rest come in the aggregated ones.
    assert [path for path in asked if re.fullmatch(r"/api/v1|/apis/[^/]+/[^/]+", path)] == []
    assert "/apis/apps/v1/namespaces/default/deployments" in asked


def test_the_aggregated_documents_say_what_the_group_version_documents_say(live: LiveServer):
    content_type, vary, apis = fetch(live, "/apis", KUBECTL_ACCEPT)
    assert content_type == "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    assert "Accept" in [word.strip() for word in vary.split(",")]
    assert apis["kind"] == "APIGroupDiscoveryList" and apis["apiVersion"] == "apidiscovery.k8s.io/v2"
    _, _, core = fetch(live, "/api", KUBECTL_ACCEPT)
    assert [item["metadata"] for item in core["items"]] == [{"creationTimestamp": None}]

    _, _, legacy_groups = fetch(live, "/apis")
    assert [item["metadata"]["name"] for item in apis["items"]] == [g["name"] for g in legacy_groups["groups"]]
    for group, item in [("", core["items"][0]), *((i["metadata"]["name"], i) for i in apis["items"])]:
        for version in item["versions"]:
            assert version["freshness"] == "Current"
            path = f"/apis/{group}/{version['version']}" if group else f"/api/{version['version']}"
            _, _, legacy = fetch(live, path)
            expected = []
            for entry in legacy["resources"]:
                plural, _, sub = entry["name"].partition("/")
                kind = {"group": entry.get("group", ""), "version": entry.get("version", ""), "kind": entry["kind"]}
                expected.append((plural, sub, kind, entry["verbs"], entry.get("shortNames"), entry.get("categories"),
                                 entry["namespaced"] if not sub else None, entry["singularName"] if not sub else None))
            aggregated = []
            for resource in version["resources"]:
                aggregated.append((resource["resource"], "", resource["responseKind"], resource["verbs"],
                                   resource.get("shortNames"), resource.get("categories"),
                                   resource["scope"] == "Namespaced", resource["singularResource"]))
                for sub in resource.get("subresources", []):
                    aggregated.append((resource["resource"], sub["subresource"], sub["responseKind"], sub["verbs"],
                                       None, None, None, None))
            assert aggregated == expected, path


def test_a_client_asking_for_v2beta1_or_plain_json_gets_that(live: LiveServer):
    content_type, _, beta = fetch(live, "/apis", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList")
    assert content_type.endswith("v=v2beta1;as=APIGroupDiscoveryList")
    assert beta["apiVersion"] == "apidiscovery.k8s.io/v2beta1"
    # JSON first in the list: the plain documents, as the Python client asks.
    content_type, _, plain = fetch(live, "/apis", "application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
    assert content_type == "application/json" and plain["kind"] == "APIGroupList"
    _, _, versions = fetch(live, "/api", "application/json")
    assert versions["kind"] == "APIVersions"


def test_api_resources_lists_what_the_plain_documents_list(kubectl: Kubectl, live: LiveServer):
    listed = set(kubectl("api-resources", "-o", "name").stdout.split())
    expected = set()
    _, _, core = fetch(live, "/api/v1")
    expected |= {r["name"] for r in core["resources"] if "/" not in r["name"]}
    _, _, groups = fetch(live, "/apis")
    for group in groups["groups"]:
        _, _, legacy = fetch(live, f"/apis/{group['preferredVersion']['groupVersion']}")
        expected |= {f"{r['name']}.{group['name']}" for r in legacy["resources"] if "/" not in r["name"]}
    assert listed == expected
