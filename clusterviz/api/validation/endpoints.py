"""Endpoints: subsets of addresses (real, non-special IPs) and ports."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.field import invalid, required

from .common import (
    Errors,
    child,
    dict_items,
    dns1123_label,
    dns1123_subdomain,
    get_list,
    get_opt_str,
    get_str,
    parse_ip,
    validate_app_protocol,
    validate_port_and_protocol,
)
from .meta import name_is_dns_subdomain, validate_object_meta, validate_object_meta_update


def _non_special_ip(ip: str, path: str) -> Errors:
    address = parse_ip(ip)
    if address is None:
        return [invalid(path, ip, "must be a valid IP address")]
    errs: Errors = []
    if address.is_unspecified:
        errs.append(invalid(path, ip, f"may not be unspecified ({ip})"))
    if address.is_loopback:
        errs.append(invalid(path, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
    if address.is_link_local:
        errs.append(invalid(path, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
    if address.is_multicast and (
        (address.version == 4 and str(address).startswith("224.0.0."))
        or (address.version == 6 and str(address).startswith("ff02:"))
    ):
        errs.append(invalid(path, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
    return errs


def _validate_address(address: dict[str, Any], path: str, errs: Errors) -> None:
    ip = get_str(address, "ip", path, errs)
    if isinstance(ip, str):
        ip_path = child(path, "ip")
        if parse_ip(ip) is None:
            errs.append(invalid(ip_path, ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"))
        errs.extend(_non_special_ip(ip, ip_path))
    hostname = get_str(address, "hostname", path, errs)
    if hostname:
        errs.extend(dns1123_label(hostname, child(path, "hostname")))
    node_name = get_opt_str(address, "nodeName", path, errs)
    if isinstance(node_name, str):
        errs.extend(dns1123_subdomain(node_name, child(path, "nodeName")))


def _validate_port(port: dict[str, Any], path: str, require_name: bool, errs: Errors) -> None:
    name = get_str(port, "name", path, errs)
    if require_name and name == "":
        errs.append(required(child(path, "name"), ""))
    elif name:
        errs.extend(dns1123_label(name, child(path, "name")))
    validate_port_and_protocol(port, path, errs)
    validate_app_protocol(port, path, errs)


def validate_endpoints(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    for _, subset_path, subset in dict_items(get_list(obj, "subsets", "", errs), "subsets", errs):
        addresses = get_list(subset, "addresses", subset_path, errs)
        not_ready = get_list(subset, "notReadyAddresses", subset_path, errs)
        if not addresses and not not_ready:
            errs.append(required(subset_path, "must specify `addresses` or `notReadyAddresses`"))
        for field_name, items in (("addresses", addresses), ("notReadyAddresses", not_ready)):
            for _, address_path, address in dict_items(items, child(subset_path, field_name), errs):
                _validate_address(address, address_path, errs)
        ports = get_list(subset, "ports", subset_path, errs)
        port_items = dict_items(ports, child(subset_path, "ports"), errs)
        for _, port_path, port in port_items:
            _validate_port(port, port_path, len(port_items) > 1, errs)
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
    return errs
