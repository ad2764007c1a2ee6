"""Services: ``ValidateService`` and the clusterIP rules of ``ValidateServiceUpdate``."""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.field import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from clusterviz.apimachinery.unstructured import dict_or_empty

from .common import (
    BAD,
    Errors,
    as_dict,
    child,
    dict_items,
    dns1123_label,
    dns1123_subdomain,
    get_int,
    get_list,
    get_opt_str,
    get_str,
    get_str_list,
    get_str_map,
    index,
    ip_errors,
    validate_app_protocol,
    validate_port_and_protocol,
)
from .meta import name_is_dns1035_label, validate_labels, validate_object_meta, validate_object_meta_update
from .pod import port_num_or_name

SERVICE_TYPES: Final = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]
SESSION_AFFINITIES: Final = ["ClientIP", "None"]
TRAFFIC_POLICIES: Final = ["Cluster", "Local"]
IP_FAMILIES: Final = ["IPv4", "IPv6"]
IP_FAMILY_POLICIES: Final = ["PreferDualStack", "RequireDualStack", "SingleStack"]
NODE_PORT_RANGE: Final = (30000, 32767)
KUBELET_PORT: Final = 10250


def _externally_accessible(spec: dict[str, Any]) -> bool:
    service_type = spec.get("type")
    return service_type in ("LoadBalancer", "NodePort") or (
        service_type == "ClusterIP" and bool(spec.get("externalIPs"))
    )


def _validate_port(
    port: dict[str, Any], path: str, *, require_name: bool, names: set[str], service_type: Any
) -> Errors:
    errs: Errors = []
    name = get_str(port, "name", path, errs)
    name_path = child(path, "name")
    if require_name and name == "":
        errs.append(required(name_path, ""))
    elif isinstance(name, str) and name:
        errs.extend(dns1123_label(name, name_path))
        if name in names:
            errs.append(duplicate(name_path, name))
        else:
            names.add(name)
    validate_port_and_protocol(port, path, errs)
    port_num_or_name(port.get("targetPort"), child(path, "targetPort"), errs)
    validate_app_protocol(port, path, errs)
    node_port = get_int(port, "nodePort", path, errs)
    if isinstance(node_port, int) and node_port != 0:
        node_port_path = child(path, "nodePort")
        if service_type == "ClusterIP":
            errs.append(forbidden(node_port_path, "may not be used when `type` is 'ClusterIP'"))
        elif not NODE_PORT_RANGE[0] <= node_port <= NODE_PORT_RANGE[1]:
            errs.append(
                invalid(
                    node_port_path,
                    node_port,
                    "provided port is not in the valid range. The range of valid ports is "
                    f"{NODE_PORT_RANGE[0]}-{NODE_PORT_RANGE[1]}",
                )
            )
    return errs


def _validate_cluster_ips(spec: dict[str, Any], errs: Errors) -> None:
    cluster_ip = get_str(spec, "clusterIP", "spec", errs)
    cluster_ips = get_str_list(spec, "clusterIPs", "spec", errs)
    if cluster_ip is BAD or cluster_ips is None and spec.get("clusterIPs") is not None:
        return
    ips = cluster_ips or []
    ips_path = "spec.clusterIPs"
    if cluster_ip:
        # Only checked when both are present: the API server fills clusterIPs from clusterIP.
        if ips and ips[0] != cluster_ip:
            errs.append(invalid(ips_path, ips, "first value must match `clusterIP`"))
    elif ips:
        errs.append(invalid(ips_path, ips, "must be empty when `clusterIP` is not specified"))
    candidates = ips or ([cluster_ip] if cluster_ip else [])
    for i, ip in enumerate(candidates):
        if i == 0 and ip == "None":
            if len(candidates) > 1:
                errs.append(invalid(ips_path, candidates, "'None' must be the first and only value"))
            continue
        path = index(ips_path, i) if ips else "spec.clusterIP"
        errs.extend(invalid(path, ip, msg) for msg in ip_errors(ip))
    if len(candidates) > 2:
        errs.append(invalid(ips_path, candidates, "may only hold up to 2 values"))
    families_path = "spec.ipFamilies"
    seen: set[str] = set()
    for i, family in enumerate(get_str_list(spec, "ipFamilies", "spec", errs) or []):
        if family not in IP_FAMILIES:
            errs.append(not_supported(index(families_path, i), family, IP_FAMILIES))
        if family in seen:
            errs.append(duplicate(index(families_path, i), family))
        seen.add(family)
    policy = get_opt_str(spec, "ipFamilyPolicy", "spec", errs)
    if isinstance(policy, str) and policy not in IP_FAMILY_POLICIES:
        errs.append(not_supported("spec.ipFamilyPolicy", policy, IP_FAMILY_POLICIES))


def validate_service(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns1035_label)
    spec = as_dict(obj.get("spec"), "spec", errs)
    if spec is None:
        if obj.get("spec") is not None:
            return errs
        spec = {}
    service_type = get_str(spec, "type", "spec", errs)
    ports = get_list(spec, "ports", "spec", errs)
    headless = spec.get("clusterIP") == "None"
    readable = ports is not None or spec.get("ports") is None
    if readable and not ports and not headless and service_type != "ExternalName":
        errs.append(required("spec.ports", ""))

    port_items = dict_items(ports, "spec.ports", errs)
    if service_type == "LoadBalancer":
        for _, port_path, port in port_items:
            if port.get("port") == KUBELET_PORT:
                errs.append(
                    invalid(
                        port_path,
                        KUBELET_PORT,
                        f"may not expose port {KUBELET_PORT} externally since it is used by kubelet",
                    )
                )
        if headless:
            errs.append(invalid("spec.clusterIPs[0]", "None", "may not be set to 'None' for LoadBalancer services"))
    elif service_type == "NodePort":
        if headless:
            errs.append(invalid("spec.clusterIPs[0]", "None", "may not be set to 'None' for NodePort services"))
    elif service_type == "ExternalName":
        if spec.get("clusterIP") or spec.get("clusterIPs"):
            errs.append(forbidden("spec.clusterIPs", "may not be set for ExternalName services"))
        if spec.get("ipFamilies"):
            errs.append(forbidden("spec.ipFamilies", "may not be set for ExternalName services"))
        if spec.get("ipFamilyPolicy"):
            errs.append(forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"))
        external_name = get_str(spec, "externalName", "spec", errs)
        if isinstance(external_name, str):
            cname = external_name.removesuffix(".")
            if cname:
                errs.extend(dns1123_subdomain(cname, "spec.externalName"))
            else:
                errs.append(required("spec.externalName", ""))

    names: set[str] = set()
    for _, port_path, port in port_items:
        errs.extend(
            _validate_port(port, port_path, require_name=len(port_items) > 1, names=names, service_type=service_type)
        )

    errs.extend(validate_labels(get_str_map(spec, "selector", "spec", errs), "spec.selector"))

    affinity = get_str(spec, "sessionAffinity", "spec", errs)
    if affinity == "":
        errs.append(required("spec.sessionAffinity", ""))
    elif isinstance(affinity, str) and affinity not in SESSION_AFFINITIES:
        errs.append(not_supported("spec.sessionAffinity", affinity, SESSION_AFFINITIES))

    if service_type != "ExternalName":
        _validate_cluster_ips(spec, errs)

    for i, ip in enumerate(get_str_list(spec, "externalIPs", "spec", errs) or []):
        errs.extend(invalid(index("spec.externalIPs", i), ip, msg) for msg in ip_errors(ip))

    if service_type == "":
        errs.append(required("spec.type", ""))
    elif isinstance(service_type, str) and service_type not in SERVICE_TYPES:
        errs.append(not_supported("spec.type", service_type, SERVICE_TYPES))

    # Duplicate (protocol, nodePort) and (protocol, port) pairs.
    node_ports: set[tuple[Any, Any]] = set()
    pairs: set[tuple[Any, Any]] = set()
    for _, port_path, port in port_items:
        protocol = port.get("protocol")
        node_port = port.get("nodePort")
        if not all(isinstance(v, (str, int, type(None))) for v in (protocol, node_port, port.get("port"))):
            continue
        if isinstance(node_port, int) and node_port and (protocol, node_port) in node_ports:
            errs.append(duplicate(child(port_path, "nodePort"), node_port))
        node_ports.add((protocol, node_port))
        pair = (protocol, port.get("port"))
        if pair in pairs:
            errs.append(duplicate(port_path, {"port": pair[1], "protocol": pair[0]}))
        pairs.add(pair)

    policy = get_str(spec, "externalTrafficPolicy", "spec", errs)
    if not _externally_accessible(spec):
        if policy:
            errs.append(
                invalid("spec.externalTrafficPolicy", policy, "may only be set for externally-accessible services")
            )
    elif policy == "":
        errs.append(required("spec.externalTrafficPolicy", ""))
    elif isinstance(policy, str) and policy not in TRAFFIC_POLICIES:
        errs.append(not_supported("spec.externalTrafficPolicy", policy, TRAFFIC_POLICIES))
    internal = get_opt_str(spec, "internalTrafficPolicy", "spec", errs)
    if internal is None and service_type in ("ClusterIP", "NodePort", "LoadBalancer"):
        errs.append(required("spec.internalTrafficPolicy", ""))
    elif isinstance(internal, str) and internal not in TRAFFIC_POLICIES:
        errs.append(not_supported("spec.internalTrafficPolicy", internal, TRAFFIC_POLICIES))

    as_dict(obj.get("status"), "status", errs)
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
        errs.extend(_validate_cluster_ip_update(spec, old))
    return errs


def _primary_ip(spec: dict[str, Any]) -> str:
    ips = spec.get("clusterIPs")
    if isinstance(ips, list) and ips and isinstance(ips[0], str):
        return ips[0]
    cluster_ip = spec.get("clusterIP")
    return cluster_ip if isinstance(cluster_ip, str) else ""


def _validate_cluster_ip_update(spec: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """The allocated clusterIP is fixed (an update that leaves it out keeps it)."""
    old_spec = dict_or_empty(old.get("spec"))
    if "ExternalName" in (spec.get("type"), old_spec.get("type")):
        return []
    new_ip, old_ip = _primary_ip(spec), _primary_ip(old_spec)
    if old_ip == "None" and new_ip == "None":
        return []
    if new_ip and old_ip and new_ip != old_ip:
        shown = spec.get("clusterIPs") if isinstance(spec.get("clusterIPs"), list) else [new_ip]
        return [invalid("spec.clusterIPs[0]", shown, "may not change once set")]
    return []
