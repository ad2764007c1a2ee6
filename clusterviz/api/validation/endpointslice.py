"""EndpointSlices (discovery.k8s.io/v1): an address type, endpoints with their addresses, and ports.

Upstream: ``pkg/apis/discovery/validation``. The address type is one of IPv4, IPv6, FQDN and may not
change; each endpoint has 1 to 100 addresses of that type; a slice holds at most 1000 endpoints and
100 ports.
"""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.field import invalid, not_supported, required, too_many

from .common import Errors, child, dict_items, get_list, get_opt_str, parse_ip, validate_port_and_protocol
from .meta import name_is_dns_subdomain, validate_object_meta, validate_object_meta_update

ADDRESS_TYPES = ["FQDN", "IPv4", "IPv6"]
MAX_ADDRESSES, MAX_ENDPOINTS, MAX_PORTS = 100, 1000, 100


def _validate_address(address: Any, address_type: str, path: str) -> Errors:
    if not isinstance(address, str):
        return [invalid(path, address, "must be a string")]
    if address_type in ("IPv4", "IPv6"):
        ip = parse_ip(address)
        if ip is None:
            return [invalid(path, address, "must be a valid IP address")]
        if ip.version != (4 if address_type == "IPv4" else 6):
            return [invalid(path, address, f"must be an {address_type} address")]
    return []


def validate_endpoint_slice(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """ValidateEndpointSliceCreate / Update."""
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    address_type = obj.get("addressType")
    if not address_type:
        errs.append(required("addressType"))
    elif address_type not in ADDRESS_TYPES:
        errs.append(not_supported("addressType", address_type, ADDRESS_TYPES))
    endpoints = get_list(obj, "endpoints", "", errs) or []
    if len(endpoints) > MAX_ENDPOINTS:
        errs.append(too_many("endpoints", len(endpoints), MAX_ENDPOINTS))
    for _, path, endpoint in dict_items(endpoints, "endpoints", errs):
        addresses = get_list(endpoint, "addresses", path, errs) or []
        addresses_path = child(path, "addresses")
        if not addresses:
            errs.append(required(addresses_path, "must contain at least 1 address"))
        elif len(addresses) > MAX_ADDRESSES:
            errs.append(too_many(addresses_path, len(addresses), MAX_ADDRESSES))
        for index, address in enumerate(addresses):
            errs.extend(_validate_address(address, str(address_type or ""), f"{addresses_path}[{index}]"))
        get_opt_str(endpoint, "nodeName", path, errs)
    ports = get_list(obj, "ports", "", errs) or []
    if len(ports) > MAX_PORTS:
        errs.append(too_many("ports", len(ports), MAX_PORTS))
    for _, path, port in dict_items(ports, "ports", errs):
        if port.get("port") is not None:
            validate_port_and_protocol(port, path, errs)
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
        if old.get("addressType") != address_type:
            errs.append(invalid("addressType", address_type, "field is immutable"))
    return errs
