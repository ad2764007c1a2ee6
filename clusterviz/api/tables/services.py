"""Printers for Services and Endpoints."""

from __future__ import annotations

from typing import Any

from .common import NONE, UNKNOWN, Printed, _d, _i, _l, _meta, _s, _since
from .labels import format_labels


def _service_external_ip(spec: dict[str, Any], status: dict[str, Any], svc_type: str) -> str:
    external = [ip for ip in _l(spec.get("externalIPs")) if isinstance(ip, str)]
    if svc_type in ("ClusterIP", "NodePort"):
        return ",".join(external) if external else NONE
    if svc_type == "LoadBalancer":
        found: set[str] = set()
        for ingress in _l(_d(status.get("loadBalancer")).get("ingress")):
            ingress = _d(ingress)
            if _s(ingress.get("ip")):
                found.add(_s(ingress.get("ip")))
            elif _s(ingress.get("hostname")):
                found.add(_s(ingress.get("hostname")))
        lb = ",".join(sorted(found))
        if external:
            return ",".join((lb.split(",") if lb else []) + external)
        return lb or "<pending>"
    if svc_type == "ExternalName":
        return _s(spec.get("externalName"))
    return UNKNOWN


def _service_ports(ports: Any) -> str:
    pieces = []
    for port in _l(ports):
        port = _d(port)
        protocol = _s(port.get("protocol")) or "TCP"
        number, node_port = _i(port.get("port")), _i(port.get("nodePort"))
        pieces.append(f"{number}:{node_port}/{protocol}" if node_port > 0 else f"{number}/{protocol}")
    return ",".join(pieces) or NONE


def _print_service(svc: dict[str, Any], now_ns: int) -> Printed:
    meta, spec, status = _meta(svc), _d(svc.get("spec")), _d(svc.get("status"))
    svc_type = _s(spec.get("type")) or "ClusterIP"
    cluster_ips = _l(spec.get("clusterIPs"))
    if cluster_ips:
        cluster_ip = _s(cluster_ips[0])
    else:
        cluster_ip = _s(spec.get("clusterIP")) or NONE
    cells = [
        _s(meta.get("name")),
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
    subsets = _l(subsets)
    if not subsets:
        return NONE
    limit = 3
    shown: list[str] = []
    more = False
    count = 0
    for subset in subsets:
        subset = _d(subset)
        addresses = [_d(a) for a in _l(subset.get("addresses"))]
        ports = _l(subset.get("ports"))
        if not ports:
            # Headless services may have addresses without ports.
            count += len(addresses)
            for address in addresses:
                if len(shown) == limit:
                    more = True
                    break
                shown.append(_s(address.get("ip")))
            continue
        for port in ports:
            count += len(addresses)
            for address in addresses:
                if len(shown) == limit:
                    more = True
                    break
                shown.append(_join_host_port(_s(address.get("ip")), _i(_d(port).get("port"))))
    text = ",".join(shown)
    if more:
        return f"{text} + {count - limit} more..."
    return text


def _print_endpoints(ep: dict[str, Any], now_ns: int) -> Printed:
    meta = _meta(ep)
    return [
        _s(meta.get("name")),
        _format_endpoints(ep.get("subsets")),
        _since(meta.get("creationTimestamp"), now_ns),
    ], []
