"""APIServices: the aggregator's record of where each group version is served, and whether it can be reached.

Every group version this server serves has a Local APIService, made when the
cluster starts (kube-apiserver's autoregister controller); an APIService that
names a Service belongs to an extension API server, which the aggregator's
availability check judges from the Service and its Endpoints, as upstream's
AvailableConditionController does.
"""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.unstructured import dict_or_empty, list_or_empty

from . import resources

GROUP: Final = "apiregistration.k8s.io"
AUTOMANAGED_LABEL: Final = "kube-aggregator.kubernetes.io/automanaged"
DEFAULT_PORT: Final = 443
LOCAL_MESSAGE: Final = "Local APIServices are always available"

# (group, version) -> (groupPriorityMinimum, versionPriority), kube-apiserver's table for what this server serves.
PRIORITIES: Final[dict[tuple[str, str], tuple[int, int]]] = {
    ("", "v1"): (18000, 1),
    (GROUP, "v1"): (18000, 15),
    ("apps", "v1"): (17800, 15),
    ("authentication.k8s.io", "v1"): (17700, 15),
    ("authorization.k8s.io", "v1"): (17600, 15),
    ("autoscaling", "v1"): (17500, 15),
    ("autoscaling", "v2"): (17500, 30),
    ("batch", "v1"): (17400, 15),
    ("networking.k8s.io", "v1"): (17200, 15),
    ("policy", "v1"): (17100, 15),
    ("rbac.authorization.k8s.io", "v1"): (17000, 15),
    ("apiextensions.k8s.io", "v1"): (16700, 15),
    ("storage.k8s.io", "v1"): (16800, 15),
    ("scheduling.k8s.io", "v1"): (16600, 15),
    ("coordination.k8s.io", "v1"): (16500, 15),
    ("discovery.k8s.io", "v1"): (16200, 15),
    # metrics-server registers its group this low; here the API server serves it itself.
    ("metrics.k8s.io", "v1beta1"): (100, 100),
}
# A group the table does not list (the simulator's own) ranks as a platform's would.
OTHER_PRIORITY: Final = (2000, 15)


def name_of(group: str, version: str) -> str:
    """An APIService's name: ``version.group`` (``v1.`` for the core group)."""
    return f"{version}.{group}"


def condition(status: str, reason: str, message: str, now: str) -> dict[str, Any]:
    """The Available condition."""
    return {"type": "Available", "status": status, "lastTransitionTime": now, "reason": reason, "message": message}


def local_api_services() -> list[dict[str, Any]]:
    """An APIService for every group version this server serves."""
    served = resources.group_versions()
    served.setdefault(GROUP, ["v1"])
    out = []
    for group, versions in served.items():
        for version in versions:
            group_priority, version_priority = PRIORITIES.get((group, version), OTHER_PRIORITY)
            out.append({
                "apiVersion": f"{GROUP}/v1",
                "kind": "APIService",
                "metadata": {"name": name_of(group, version), "labels": {AUTOMANAGED_LABEL: "onstart"}},
                "spec": {"group": group, "version": version,
                         "groupPriorityMinimum": group_priority, "versionPriority": version_priority},
            })
    return out


def status_on_create(api_service: dict[str, Any], now: str) -> dict[str, Any]:
    """A new APIService's status: a Local one is Available at once (the check needs nothing), others wait for it."""
    return {"conditions": [condition("True", "Local", LOCAL_MESSAGE, now)]} if is_local(api_service) else {}


def is_local(api_service: dict[str, Any]) -> bool:
    """Whether this API server serves the group version itself (no Service named)."""
    return not isinstance(dict_or_empty(api_service.get("spec")).get("service"), dict)


def availability(api_service: dict[str, Any], service: dict[str, Any] | None,
                 endpoints: dict[str, Any] | None) -> tuple[str, str, str]:
    """(status, reason, message) of the Available condition, judged from the named Service and its Endpoints.

    The simulator runs no extension server, so a Service with ready endpoints still fails the discovery
    check, with the error the aggregator's proxy would meet.
    """
    spec = dict_or_empty(api_service.get("spec"))
    if is_local(api_service):
        return "True", "Local", LOCAL_MESSAGE
    ref = dict_or_empty(spec.get("service"))
    name, namespace = str(ref.get("name", "")), str(ref.get("namespace", ""))
    port = ref.get("port") if isinstance(ref.get("port"), int) else DEFAULT_PORT
    if service is None:
        return "False", "ServiceNotFound", f'service/{name} in "{namespace}" is not present'
    service_spec = dict_or_empty(service.get("spec"))
    if service_spec.get("type") == "ExternalName":
        target = f"{service_spec.get('externalName', '')}:{port}"
    else:
        matching = [p for p in list_or_empty(service_spec.get("ports")) if isinstance(p, dict) and p.get("port") == port]
        if not matching:
            return "False", "ServicePortError", f'service/{name} in "{namespace}" is not listening on port {port}'
        if endpoints is None:
            return "False", "EndpointsNotFound", f'cannot find endpoints for service/{name} in "{namespace}"'
        port_name = str(matching[0].get("name", ""))
        if not _has_address_on(endpoints, port_name):
            return ("False", "MissingEndpoints",
                    f'endpoints for service/{name} in "{namespace}" have no addresses with port name "{port_name}"')
        target = f"{service_spec.get('clusterIP', '')}:{port}"
    url = f"https://{target}/apis/{spec.get('group', '')}/{spec.get('version', '')}"
    return ("False", "FailedDiscoveryCheck",
            f'failing or missing response from {url}: Get "{url}": dial tcp {target}: connect: connection refused')


def _has_address_on(endpoints: dict[str, Any], port_name: str) -> bool:
    for subset in list_or_empty(endpoints.get("subsets")):
        if not isinstance(subset, dict) or not list_or_empty(subset.get("addresses")):
            continue
        if any(isinstance(p, dict) and str(p.get("name", "")) == port_name for p in list_or_empty(subset.get("ports"))):
            return True
    return False


def default_api_service(api_service: dict[str, Any]) -> None:
    """A Service reference that names no port means 443 (SetDefaults_ServiceReference)."""
    ref = dict_or_empty(api_service.get("spec")).get("service")
    if isinstance(ref, dict) and ref.get("port") is None:
        ref["port"] = DEFAULT_PORT
