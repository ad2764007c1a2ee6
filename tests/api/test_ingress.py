"""Ingresses and IngressClasses (networking.k8s.io/v1): validation with upstream's messages, defaults,
the status subresource, kubectl get's columns and the protobuf body of kubectl create ingress."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from clusterviz.api import errors
from clusterviz.api.client import Client
from clusterviz.api.tables import build_table
from clusterviz.api.validation import validate
from clusterviz.apimachinery.protobuf import decode_object
from tests.apimachinery.test_protobuf import envelope, object_meta, v_int, v_msg, v_str

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def client() -> Client:
    return Client("demo", "kubectl", simulated=False)


def ingress(name: str = "web", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def rule(host: str = "foo.com", path: str = "/bar", path_type: str | None = "Prefix",
         backend: dict[str, Any] | None = None) -> dict[str, Any]:
    item: dict[str, Any] = {"path": path, "backend": service("svc1", 8080) if backend is None else backend}
    if path_type is not None:
        item["pathType"] = path_type
    return {"host": host, "http": {"paths": [item]}}


def service(name: str, port: int | str) -> dict[str, Any]:
    key = "number" if isinstance(port, int) else "name"
    return {"service": {"name": name, "port": {key: port}}}


def ingress_class(name: str = "nginx", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", "metadata": {"name": name}, "spec": spec}


def messages(obj: dict[str, Any], old: dict[str, Any] | None = None) -> list[str]:
    return [str(e) for e in validate(obj["kind"], obj, old)]


def test_rules_or_a_default_backend_is_needed():
    assert messages(ingress()) == ["spec: Invalid value: null: either `defaultBackend` or `rules` must be specified"]
    assert messages(ingress(defaultBackend=service("web", 80))) == []
    assert messages(ingress(rules=[rule()])) == []


def test_paths_follow_their_type():
    assert messages(ingress(rules=[rule(path_type=None)])) == [
        "spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified"
    ]
    assert messages(ingress(rules=[rule(path="bar", path_type="Exact")])) == [
        'spec.rules[0].http.paths[0].path: Invalid value: "bar": must be an absolute path'
    ]
    assert messages(ingress(rules=[rule(path="/a//b/..")])) == [
        "spec.rules[0].http.paths[0].path: Invalid value: \"/a//b/..\": must not contain '//'",
        "spec.rules[0].http.paths[0].path: Invalid value: \"/a//b/..\": cannot end with '/..'",
    ]
    assert messages(ingress(rules=[rule(path="", path_type="ImplementationSpecific")])) == []
    assert messages(ingress(rules=[rule(path_type="Regex")])) == [
        'spec.rules[0].http.paths[0].pathType: Unsupported value: "Regex": supported values: '
        '"Exact", "ImplementationSpecific", "Prefix"'
    ]
    assert messages(ingress(rules=[{"host": "foo.com", "http": {"paths": []}}])) == [
        "spec.rules[0].http.paths: Required value"
    ]


def test_hosts_are_dns_names_with_at_most_a_leading_wildcard():
    assert messages(ingress(rules=[rule(host="*.foo.com")])) == []
    assert messages(ingress(rules=[rule(host="*")])) == [
        "spec.rules[0].host: Invalid value: \"*\": a wildcard DNS-1123 subdomain must start with '*.', followed by a "
        "valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an "
        "alphanumeric character (e.g. '*.example.com', regex used for validation is "
        "'\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
    ]
    ip = messages(ingress(rules=[rule(host="10.0.0.1")]))
    assert ip == ['spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address']
    assert messages(ingress(rules=[rule(host="Foo.com")]))[0].startswith(
        'spec.rules[0].host: Invalid value: "Foo.com": a lowercase RFC 1123 subdomain must consist of'
    )


def test_backends_name_a_service_and_one_port():
    path = "spec.rules[0].http.paths[0].backend"
    assert messages(ingress(rules=[rule(backend={"service": {"name": "svc1", "port": {}}})])) == [
        f"{path}: Required value: port name or number is required"
    ]
    both = {"service": {"name": "svc1", "port": {"name": "http", "number": 80}}}
    assert messages(ingress(rules=[rule(backend=both)])) == [
        f'{path}: Invalid value: "": cannot set both port name & port number'
    ]
    assert messages(ingress(rules=[rule(backend=service("svc1", 70000))])) == [
        f"{path}.service.port.number: Invalid value: 70000: must be between 1 and 65535, inclusive"
    ]
    assert messages(ingress(rules=[rule(backend=service("1svc", "http"))]))[0].startswith(
        f'{path}.service.name: Invalid value: "1svc": a DNS-1035 label must consist of'
    )
    assert messages(ingress(rules=[rule(backend={})])) == [
        f'{path}: Invalid value: "": resource or service backend is required'
    ]
    resource = {"resource": {"kind": "StorageBucket", "name": "static"}, **service("svc1", 80)}
    assert messages(ingress(defaultBackend=resource)) == [
        'spec.defaultBackend: Invalid value: "": cannot set both resource and service backends'
    ]


def test_the_class_annotation_must_agree_with_the_class_name_on_create():
    obj = ingress(ingressClassName="nginx", defaultBackend=service("web", 80))
    obj["metadata"]["annotations"] = {"kubernetes.io/ingress.class": "traefik"}
    assert messages(obj) == [
        'annotations.kubernetes.io/ingress.class: Invalid value: "traefik": '
        "must match `ingressClassName` when both are specified"
    ]


def test_ingress_classes_need_a_domain_prefixed_controller_that_never_changes():
    assert messages(ingress_class()) == ["spec.controller: Required value"]
    assert messages(ingress_class(controller="nginx")) == [
        'spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")'
    ]
    old = ingress_class(controller="k8s.io/ingress-nginx")
    assert messages(old) == []
    assert messages(ingress_class(controller="example.com/other"), old) == [
        'spec.controller: Invalid value: "example.com/other": field is immutable'
    ]
    namespaced = ingress_class(controller="k8s.io/ingress-nginx",
                               parameters={"kind": "Params", "name": "p", "scope": "Namespace"})
    assert messages(namespaced) == [
        "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'"
    ]


@pytest.mark.django_db(transaction=True)
async def test_an_ingress_is_stored_with_an_empty_status_that_only_the_status_subresource_changes():
    kubectl = client()
    created = await kubectl.create(ingress("front", rules=[rule()]))
    assert created["status"] == {"loadBalancer": {}}
    assert created["metadata"]["generation"] == 1
    created["status"] = {"loadBalancer": {"ingress": [{"ip": "192.0.2.10"}]}}
    updated = await kubectl.update(created)
    assert updated["status"] == {"loadBalancer": {}}
    updated["status"] = {"loadBalancer": {"ingress": [{"ip": "192.0.2.10"}]}}
    reported = await kubectl.update(updated, sub="status")
    assert reported["status"]["loadBalancer"]["ingress"] == [{"ip": "192.0.2.10"}]
    with pytest.raises(errors.StatusError) as refused:
        await kubectl.create(ingress("broken"))
    assert refused.value.code == 422
    assert 'Ingress.networking.k8s.io "broken" is invalid' in refused.value.message
    assert await kubectl.get_or_none("ingresses", "broken", "default") is None


@pytest.mark.django_db(transaction=True)
async def test_no_ingress_class_is_built_in_and_a_new_ones_parameters_default_to_cluster_scope():
    kubectl = client()
    assert (await kubectl.list("ingressclasses"))["items"] == []
    created = await kubectl.create(ingress_class(controller="k8s.io/ingress-nginx",
                                                 parameters={"kind": "Params", "name": "p"}))
    assert created["spec"]["parameters"]["scope"] == "Cluster"


def test_kubectl_get_columns():
    obj = ingress(ingressClassName="nginx", tls=[{"hosts": ["a.com"]}],
                  rules=[rule("a.com"), rule(""), rule("b.com"), rule("c.com"), rule("d.com")])
    obj["status"] = {"loadBalancer": {"ingress": [{"ip": "192.0.2.2"}, {"hostname": "lb.example.com"}]}}
    obj["metadata"]["creationTimestamp"] = "2025-12-31T23:00:00Z"
    table = build_table("ing", [obj], NOW)
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Class", "Hosts", "Address", "Ports", "Age"]
    assert table["rows"][0]["cells"] == [
        "web", "nginx", "a.com,b.com,c.com + 2 more...", "192.0.2.2,lb.example.com", "80, 443", "60m",
    ]
    assert build_table("ingresses", [ingress(defaultBackend=service("web", 80))], NOW)["rows"][0]["cells"][1:5] == [
        "<none>", "*", "", "80",
    ]
    classes = build_table("ingressclasses", [
        ingress_class(controller="k8s.io/ingress-nginx", parameters={"apiGroup": "k8s.example.com",
                                                                    "kind": "Params", "name": "p"}),
    ], NOW)
    assert [c["name"] for c in classes["columnDefinitions"]] == ["Name", "Controller", "Parameters", "Age"]
    assert classes["rows"][0]["cells"][:3] == ["nginx", "k8s.io/ingress-nginx", "Params.k8s.example.com/p"]


def test_the_protobuf_body_of_kubectl_create_ingress():
    # kubectl create ingress simple --rule="foo.com/bar=svc1:8080": gogo writes every non-pointer field.
    port = v_msg(2, v_str(1, ""), v_int(2, 8080))
    backend = v_msg(2, v_msg(4, v_str(1, "svc1"), port))
    path = v_msg(1, v_str(1, "/bar"), backend, v_str(3, "Exact"))
    rule_raw = v_msg(3, v_str(1, "foo.com"), v_msg(2, v_msg(1, path)))
    raw = object_meta(1, "simple") + v_msg(2, rule_raw) + v_msg(3, v_msg(1))
    assert decode_object(envelope("networking.k8s.io/v1", "Ingress", raw)) == {
        "apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "simple"},
        "spec": {"rules": [{"host": "foo.com", "http": {"paths": [{
            "path": "/bar", "pathType": "Exact",
            "backend": {"service": {"name": "svc1", "port": {"number": 8080}}},
        }]}}]},
    }


@pytest.mark.django_db(transaction=True)
async def test_an_ingress_naming_no_class_gets_the_default_one():
    kubectl = client()
    assert "ingressClassName" not in (await kubectl.create(ingress("before", rules=[rule()])))["spec"]
    default = ingress_class("nginx", controller="k8s.io/ingress-nginx")
    default["metadata"]["annotations"] = {"ingressclass.kubernetes.io/is-default-class": "true"}
    await kubectl.create(default)
    await kubectl.create(ingress_class("other", controller="example.com/ingress"))
    assert (await kubectl.create(ingress("after", rules=[rule()])))["spec"]["ingressClassName"] == "nginx"
    named = await kubectl.create(ingress("named", ingressClassName="other", rules=[rule()]))
    assert named["spec"]["ingressClassName"] == "other"
    annotated = ingress("annotated", rules=[rule()])
    annotated["metadata"]["annotations"] = {"kubernetes.io/ingress.class": "traefik"}
    assert "ingressClassName" not in (await kubectl.create(annotated))["spec"]


def test_the_load_balancers_addresses_are_ips_and_dns_names():
    obj = ingress(defaultBackend=service("web", 80))
    obj["status"] = {"loadBalancer": {"ingress": [{"ip": "192.0.2.300"}, {"hostname": "10.0.0.1"}]}}
    assert messages(obj) == [
        'status.loadBalancer.ingress[0].ip: Invalid value: "192.0.2.300": must be a valid IP address, '
        "(e.g. 10.9.8.7 or 2001:db8::ffff)",
        'status.loadBalancer.ingress[1].hostname: Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
    ]
