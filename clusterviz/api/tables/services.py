"""Printers for Services and Endpoints."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import dict_or_empty, list_or_empty, str_or_empty

from .common import NONE, UNKNOWN, Printed, _i, _meta, _since
from .labels import format_labels


def _service_external_ip(spec: dict[str, Any], status: dict[str, Any], svc_type: str) -> str:
    external = [ip for ip in list_or_empty(spec.get("externalIPs")) if isinstance(ip, str)]
    if svc_type in ("ClusterIP", "NodePort"):
        return ",".join(external) if external else NONE
    if svc_type == "LoadBalancer":
        found: set[str] = set()
        for ingress in list_or_empty(dict_or_empty(status.get("loadBalancer")).get("ingress")):
            ingress = dict_or_empty(ingress)
            if str_or_empty(ingress.get("ip")):
                found.add(str_or_empty(ingress.get("ip")))
            elif str_or_empty(ingress.get("hostname")):
                found.add(str_or_empty(ingress.get("hostname")))
        lb = ",".join(sorted(found))
        if external:
            return ",".join((lb.split(",") if lb else []) + external)
        return lb or "<pending>"
    if svc_type == "ExternalName":
        return str_or_empty(spec.get("externalName"))
    return UNKNOWN


def _service_ports(ports: Any) -> str:
    pieces = []
    for port in list_or_empty(ports):
        port = dict_or_empty(port)
        protocol = str_or_empty(port.get("protocol")) or "TCP"
        number, node_port = _i(port.get("port")), _i(port.get("nodePort"))
        pieces.append(f"{number}:{node_port}/{protocol}" if node_port > 0 else f"{number}/{protocol}")
    return ",".join(pieces) or NONE


def _print_service(svc: dict[str, Any], now_ns: int) -> Printed:
    meta, spec, status = _meta(svc), dict_or_empty(svc.get("spec")), dict_or_empty(svc.get("status"))
    svc_type = str_or_empty(spec.get("type")) or "ClusterIP"
    cluster_ips = list_or_empty(spec.get("clusterIPs"))
    if cluster_ips:
        cluster_ip = str_or_empty(cluster_ips[0])
    else:
        cluster_ip = str_or_empty(spec.get("clusterIP")) or NONE
    cells = [
        str_or_empty(meta.get("name")),
        svc_type,
        cluster_ip,
        _service_external_ip(spec, status, svc_type),
        _service_ports(spec.get("ports")),
        _since(meta.get("creationTimestamp"), now_ns),
        format_labels(spec.get("selector")),
    ]
    return cells, []


def _join_host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _format_endpoints(subsets: Any) -> str:
    """formatEndpoints: at most three ``ip:port`` entries, then ``+ N more...``."""
    subsets = list_or_empty(subsets)
    if not subsets:
        return NONE
    limit = 3
    shown: list[str] = []
    more = False
    count = 0
    for subset in subsets:
        subset = dict_or_empty(subset)
        addresses = [dict_or_empty(a) for a in list_or_empty(subset.get("addresses"))]
        ports = list_or_empty(subset.get("ports"))
        if not ports:
            # Headless services may have addresses without ports.
            count += len(addresses)
            for address in addresses:
                if len(shown) == limit:
                    more = True
                    break
                shown.append(str_or_empty(address.get("ip")))
            continue
        for port in ports:
            count += len(addresses)
            for address in addresses:
                if len(shown) == limit:
                    more = True
                    break
                shown.append(_join_host_port(str_or_empty(address.get("ip")), _i(dict_or_empty(port).get("port"))))
    text = ",".join(shown)
    if more:
        return f"{text} + {count - limit} more..."
    return text


def _print_endpoints(ep: dict[str, Any], now_ns: int) -> Printed:
    meta = _meta(ep)
    return [
        str_or_empty(meta.get("name")),
        _format_endpoints(ep.get("subsets")),
        _since(meta.get("creationTimestamp"), now_ns),
    ], []


def _print_endpoint_slice(slice_: dict[str, Any], now_ns: int) -> Printed:
    """printEndpointSlice: the address type, the port numbers, at most three addresses then ``+ N more...``."""
    meta = _meta(slice_)
    ports = [dict_or_empty(p) for p in list_or_empty(slice_.get("ports"))]
    numbers = [str(p["port"]) for p in ports if p.get("port") is not None]
    port_text = ",".join(numbers) if numbers else "<unset>"
    addresses = [str(a) for e in list_or_empty(slice_.get("endpoints"))
                 for a in list_or_empty(dict_or_empty(e).get("addresses"))]
    shown = ",".join(addresses[:3]) if addresses else "<unset>"
    if len(addresses) > 3:
        shown += f" + {len(addresses) - 3} more..."
    return [
        str_or_empty(meta.get("name")),
        str_or_empty(slice_.get("addressType")),
        port_text,
        shown,
        _since(meta.get("creationTimestamp"), now_ns),
    ], []
