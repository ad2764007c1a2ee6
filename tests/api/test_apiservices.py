"""APIServices: upstream's validation messages, the availability verdicts, and the kubectl get columns."""

from __future__ import annotations

from typing import Any

import pytest

from clusterviz.api.apiservices import availability, local_api_services
from clusterviz.api.tables.apiregistration import api_service_available, api_service_backend
from clusterviz.api.validation import validate


def api_service(name: str = "v1alpha1.wardle.example.com", **spec: Any) -> dict[str, Any]:
    base = {"group": "wardle.example.com", "version": "v1alpha1", "groupPriorityMinimum": 1000, "versionPriority": 15,
            "service": {"namespace": "wardle", "name": "api"}}
    return {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": name},
            "spec": {k: v for k, v in {**base, **spec}.items() if v is not None}}


def messages(obj: dict[str, Any]) -> list[str]:
    return [str(e) for e in validate("APIService", obj)]


def test_a_sound_api_service_and_every_built_in_one_are_valid():
    assert messages(api_service()) == []
    for local in local_api_services():
        assert messages(local) == [], local["metadata"]["name"]


@pytest.mark.parametrize(("obj", "expected"), [
    (api_service("wardle"),
     'metadata.name: Invalid value: "wardle": must be `spec.version+"."+spec.group`: "v1alpha1.wardle.example.com"'),
    (api_service("v1alpha1.", group=""), "spec.group: Required value: only v1 may have an empty group and it better be "
                                         "legacy kube"),
    (api_service("v1alpha1.Wardle", group="Wardle"),
     "spec.group: Invalid value: \"Wardle\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
     "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
     "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
    (api_service(groupPriorityMinimum=20001), "spec.groupPriorityMinimum: Invalid value: 20001: must be positive and "
                                              "less than 20000"),
    (api_service(versionPriority=None), "spec.versionPriority: Invalid value: 0: must be positive and less than 1000"),
    (api_service(service=None, insecureSkipTLSVerify=True),
     "spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify"),
    (api_service(service=None, caBundle="AAAA"),
     'spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle'),
    (api_service(service={"name": "api"}), "spec.service.namespace: Required value"),
    (api_service(insecureSkipTLSVerify=True, caBundle="AAAA"),
     "spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present"),
])
def test_invalid_api_services_get_upstreams_messages(obj: dict[str, Any], expected: str):
    assert messages(obj) == [expected]


SERVICE = {"metadata": {"namespace": "wardle", "name": "api"},
           "spec": {"type": "ClusterIP", "clusterIP": "10.96.0.20", "ports": [{"name": "https", "port": 443}]}}


def endpoints(*ports: str, addresses: bool = True) -> dict[str, Any]:
    return {"subsets": [{"addresses": [{"ip": "10.244.1.5"}] if addresses else [],
                         "ports": [{"name": p, "port": 8443} for p in ports]}]}


@pytest.mark.parametrize(("service", "eps", "verdict"), [
    (None, None, ("ServiceNotFound", 'service/api in "wardle" is not present')),
    ({**SERVICE, "spec": {**SERVICE["spec"], "ports": [{"port": 8443}]}}, None,
     ("ServicePortError", 'service/api in "wardle" is not listening on port 443')),
    (SERVICE, None, ("EndpointsNotFound", 'cannot find endpoints for service/api in "wardle"')),
    (SERVICE, endpoints("https", addresses=False),
     ("MissingEndpoints", 'endpoints for service/api in "wardle" have no addresses with port name "https"')),
    (SERVICE, endpoints("metrics"),
     ("MissingEndpoints", 'endpoints for service/api in "wardle" have no addresses with port name "https"')),
    (SERVICE, endpoints("https"),
     ("FailedDiscoveryCheck", "failing or missing response from https://10.96.0.20:443/apis/wardle.example.com/v1alpha1: "
      'Get "https://10.96.0.20:443/apis/wardle.example.com/v1alpha1": dial tcp 10.96.0.20:443: connect: connection refused')),
])
def test_an_extension_servers_availability_follows_its_service_and_endpoints(service, eps, verdict):
    assert availability(api_service(), service, eps) == ("False", *verdict)


def test_a_local_api_service_is_always_available_and_printed_as_local():
    local = next(a for a in local_api_services() if a["metadata"]["name"] == "v1.apps")
    assert availability(local, None, None) == ("True", "Local", "Local APIServices are always available")
    assert api_service_backend(local) == "Local" and api_service_available(local) == "Unknown"
    judged = {**api_service(), "status": {"conditions": [{"type": "Available", "status": "False",
                                                          "reason": "ServiceNotFound"}]}}
    assert (api_service_backend(judged), api_service_available(judged)) == ("wardle/api", "False (ServiceNotFound)")
