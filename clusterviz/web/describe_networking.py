"""``kubectl describe`` for Ingresses and IngressClasses, as kubectl's describers print them."""

from __future__ import annotations

from typing import Any

from clusterviz.api.tables.networking import ingress_addresses
from clusterviz.apimachinery.unstructured import dict_or_empty, list_or_empty, str_or_empty

from .describe import LAST_APPLIED, Text
from .describe_batch import _labels_and_annotations

# Endpoints listed beside a backend before the rest are counted.
_ENDPOINTS_SHOWN = 3


def _service_port(service_backend: dict[str, Any]) -> tuple[str, Any]:
    """The backend's port as kubectl names it: its name when it has one, else its number."""
    port = dict_or_empty(service_backend.get("port"))
    return ("name", port["name"]) if port.get("name") else ("number", port.get("number") or 0)


def _endpoints_of(endpoints: dict[str, Any] | None, port_name: str) -> str:
    """``ip:port`` of each ready address serving the named port, three at most, then a count of the rest."""
    found: list[str] = []
    for subset in list_or_empty(dict_or_empty(endpoints).get("subsets")):
        subset = dict_or_empty(subset)
        ports = [dict_or_empty(p) for p in list_or_empty(subset.get("ports"))]
        for address in list_or_empty(subset.get("addresses")):
            found.extend(f"{dict_or_empty(address).get('ip', '')}:{p.get('port', '')}" for p in ports
                         if str_or_empty(p.get("name")) == port_name)
    if not found:
        return "<none>"
    shown = ",".join(found[:_ENDPOINTS_SHOWN])
    return f"{shown} + {len(found) - _ENDPOINTS_SHOWN} more..." if len(found) > _ENDPOINTS_SHOWN else shown


def _backend(backend: Any, services: dict[str, dict[str, Any]], endpoints: dict[str, dict[str, Any]]) -> str:
    """``svc:port (endpoints)``, the lookup's error when the Service is missing, or a resource's reference."""
    backend = dict_or_empty(backend)
    service_backend = backend.get("service")
    if isinstance(service_backend, dict):
        name = str_or_empty(service_backend.get("name"))
        by, port = _service_port(service_backend)
        described = f"{name}:{port}"
        service = services.get(name)
        if service is None:
            return f'{described} (<error: services "{name}" not found>)'
        port_name = ""
        for service_port in list_or_empty(dict_or_empty(service.get("spec")).get("ports")):
            service_port = dict_or_empty(service_port)
            if (by == "number" and port and service_port.get("port") == port) or (
                    by == "name" and service_port.get("name") == port):
                port_name = str_or_empty(service_port.get("name"))
        return f"{described} ({_endpoints_of(endpoints.get(name), port_name)})"
    resource = backend.get("resource")
    if isinstance(resource, dict):
        group = resource.get("apiGroup") if isinstance(resource.get("apiGroup"), str) else "<none>"
        return f"APIGroup: {group}, Kind: {resource.get('kind', '')}, Name: {resource.get('name', '')}"
    return ""


def describe_ingress(ingress: dict[str, Any], services: list[dict[str, Any]], endpoints: list[dict[str, Any]]) -> Text:
    """Name, address, class, default backend, TLS, then each rule's host with its paths and their backends.

    ``services`` and ``endpoints`` are the namespace's, for what each backend reaches.
    """
    meta, spec = dict_or_empty(ingress.get("metadata")), dict_or_empty(ingress.get("spec"))
    by_name = {str_or_empty(dict_or_empty(s.get("metadata")).get("name")): s for s in services}
    ready = {str_or_empty(dict_or_empty(e.get("metadata")).get("name")): e for e in endpoints}
    text = Text()
    text.add(0, "Name", meta.get("name", ""))
    text.mapping(0, "Labels", meta.get("labels"))
    text.add(0, "Namespace", meta.get("namespace", ""))
    text.write(0, f"Address:\t{ingress_addresses(dict_or_empty(ingress.get('status')))}")
    class_name = spec.get("ingressClassName")
    text.add(0, "Ingress Class", class_name if isinstance(class_name, str) else "<none>")
    default = _backend(spec["defaultBackend"], by_name, ready) if spec.get("defaultBackend") else "<default>"
    text.add(0, "Default backend", default)
    tls = [dict_or_empty(t) for t in list_or_empty(spec.get("tls"))]
    if tls:
        text.add(0, "TLS")
        for entry in tls:
            hosts = ",".join(str(h) for h in list_or_empty(entry.get("hosts")))
            secret = entry.get("secretName")
            text.raw(1, f"{secret} terminates {hosts}" if secret else f"SNI routes {hosts}")
    text.write(0, "Rules:")
    text.write(1, "Host\tPath\tBackends")
    text.write(1, "----\t----\t--------")
    described = 0
    for rule in list_or_empty(spec.get("rules")):
        http = dict_or_empty(rule).get("http")
        if not isinstance(http, dict):
            continue
        described += 1
        text.write(1, f"{dict_or_empty(rule).get('host') or '*'}\t")
        for path in list_or_empty(http.get("paths")):
            path = dict_or_empty(path)
            text.write(2, f"\t{path.get('path', '')} \t{_backend(path.get('backend'), by_name, ready)}")
    if not described:
        text.write(1, f"*\t*\t{default}")
    _annotations_only(text, dict_or_empty(meta.get("annotations")))
    return text


def _annotations_only(text: Text, annotations: dict[str, Any]) -> None:
    """Annotations as ``key: value``, after the rules (the Ingress describer prints labels near the top)."""
    lines = [f"{k}: {v}" for k, v in sorted(annotations.items()) if k != LAST_APPLIED]
    text.add(0, "Annotations", lines[0] if lines else "<none>")
    for line in lines[1:]:
        text.more(0, line)


def describe_ingress_class(ingress_class: dict[str, Any]) -> Text:
    """Name, labels and annotations, the controller, and the parameters' group, kind and name."""
    meta, spec = dict_or_empty(ingress_class.get("metadata")), dict_or_empty(ingress_class.get("spec"))
    text = Text()
    text.add(0, "Name", meta.get("name", ""))
    _labels_and_annotations(text, meta)
    text.add(0, "Controller", spec.get("controller", ""))
    params = spec.get("parameters")
    if isinstance(params, dict):
        text.add(0, "Parameters")
        if isinstance(params.get("apiGroup"), str):
            text.add(1, "APIGroup", params["apiGroup"])
        text.add(1, "Kind", params.get("kind", ""))
        text.add(1, "Name", params.get("name", ""))
    return text
