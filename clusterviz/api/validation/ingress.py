"""Ingresses and IngressClasses (networking.k8s.io/v1), as upstream's networking validation."""

from __future__ import annotations

import re
from typing import Any

from clusterviz.apimachinery.field import FieldError, forbidden, invalid, not_supported, required
from clusterviz.apimachinery.names import (
    DNS1123_SUBDOMAIN_FMT,
    DNS1123_SUBDOMAIN_MAX_LENGTH,
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    max_len_error,
    regex_error,
)

from .autoscaling import path_segment_errors
from .common import (
    BAD,
    IMMUTABLE_MSG,
    Errors,
    as_dict,
    check_int,
    child,
    dict_items,
    each_invalid,
    get_dict,
    get_list,
    get_opt_str,
    get_str,
    get_str_list,
    index,
    ip_errors,
    parse_ip,
    port_name_errors,
    port_num_errors,
)
from .meta import name_is_dns_subdomain, validate_object_meta, validate_object_meta_update

PATH_TYPES = ["Exact", "ImplementationSpecific", "Prefix"]
PARAMETER_SCOPES = ["Cluster", "Namespace"]
INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class"
_INVALID_PATH_SEQUENCES = ("//", "/./", "/../", "%2f", "%2F")
_INVALID_PATH_SUFFIXES = ("/..", "/.")
_CONTROLLER_MAX_LENGTH = 250

_WILDCARD_FMT = "\\*\\." + DNS1123_SUBDOMAIN_FMT
_WILDCARD_RE = re.compile(_WILDCARD_FMT)
_WILDCARD_MSG = (
    "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of "
    "lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character"
)
_HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+"
_HTTP_PATH_RE = re.compile(_HTTP_PATH_FMT)


def is_wildcard_dns1123_subdomain(value: str) -> list[str]:
    """A host such as ``*.example.com``: one leading wildcard label, then a DNS subdomain."""
    errors: list[str] = []
    if len(value.encode("utf-8")) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errors.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if _WILDCARD_RE.fullmatch(value) is None:
        errors.append(regex_error(_WILDCARD_MSG, _WILDCARD_FMT, "*.example.com"))
    return errors


def _host(value: str, path: str) -> Errors:
    """A DNS name, or a wildcard one when it holds a ``*``."""
    if "*" in value:
        return each_invalid(path, value, is_wildcard_dns1123_subdomain(value))
    return each_invalid(path, value, is_dns1123_subdomain(value))


def _service_backend(service: dict[str, Any], path: str, errs: Errors) -> None:
    name = get_str(service, "name", child(path, "service"), errs)
    if name == "":
        errs.append(required(child(path, "service", "name"), ""))
    elif isinstance(name, str):
        errs.extend(each_invalid(child(path, "service", "name"), name, is_dns1035_label(name)))
    port = get_dict(service, "port", child(path, "service"), errs) or {}
    port_path = child(path, "service", "port")
    port_name = get_str(port, "name", port_path, errs)
    number = check_int(port.get("number"), child(port_path, "number"), errs)
    if port_name is BAD or number is BAD:
        return
    if port_name and number:
        errs.append(invalid(path, "", "cannot set both port name & port number"))
    elif port_name:
        errs.extend(each_invalid(child(port_path, "name"), port_name, port_name_errors(port_name)))
    elif number:
        errs.extend(each_invalid(child(port_path, "number"), number, port_num_errors(number)))
    else:
        errs.append(required(path, "port name or number is required"))


def _typed_reference(ref: dict[str, Any], path: str, errs: Errors) -> None:
    """apiGroup a DNS subdomain; kind and name required, each a valid path segment."""
    group = get_opt_str(ref, "apiGroup", path, errs)
    if isinstance(group, str):
        errs.extend(each_invalid(child(path, "apiGroup"), group, is_dns1123_subdomain(group)))
    for field in ("kind", "name"):
        value = get_str(ref, field, path, errs)
        if value == "":
            errs.append(required(child(path, field), ""))
        elif isinstance(value, str):
            errs.extend(each_invalid(child(path, field), value, path_segment_errors(value)))


def _backend(value: Any, path: str, errs: Errors) -> None:
    """A Service with a port (by name or number) or a typed resource, never both."""
    backend = as_dict(value, path, errs)
    if backend is None:
        return
    resource = as_dict(backend.get("resource"), child(path, "resource"), errs)
    service = as_dict(backend.get("service"), child(path, "service"), errs)
    if resource is not None and service is not None:
        errs.append(invalid(path, "", "cannot set both resource and service backends"))
    elif resource is not None:
        _typed_reference(resource, child(path, "resource"), errs)
    elif service is not None:
        _service_backend(service, path, errs)
    else:
        errs.append(invalid(path, "", "resource or service backend is required"))


def _http_path(item: dict[str, Any], path: str, errs: Errors) -> None:
    path_type = get_opt_str(item, "pathType", path, errs)
    if path_type is None:
        errs.append(required(child(path, "pathType"), "pathType must be specified"))
        return
    value = get_str(item, "path", path, errs)
    if path_type is BAD or value is BAD:
        return
    where = child(path, "path")
    if path_type in ("Exact", "Prefix"):
        if not value.startswith("/"):
            errs.append(invalid(where, value, "must be an absolute path"))
        errs.extend(invalid(where, value, f"must not contain '{seq}'")
                    for seq in _INVALID_PATH_SEQUENCES if seq in value)
        errs.extend(invalid(where, value, f"cannot end with '{end}'") for end in _INVALID_PATH_SUFFIXES
                    if value.endswith(end))
    elif path_type == "ImplementationSpecific":
        if value and not value.startswith("/"):
            errs.append(invalid(where, value, "must be an absolute path"))
    else:
        errs.append(not_supported(child(path, "pathType"), path_type, PATH_TYPES))
    _backend(item.get("backend") or {}, child(path, "backend"), errs)


def _rules(rules: list[Any], path: str, errs: Errors) -> None:
    for _i, where, rule in dict_items(rules, path, errs):
        host = get_str(rule, "host", where, errs)
        if isinstance(host, str) and host:
            if parse_ip(host) is not None:
                errs.append(invalid(child(where, "host"), host, "must be a DNS name, not an IP address"))
            errs.extend(_host(host, child(where, "host")))
        http = get_dict(rule, "http", where, errs)
        if http is None:
            continue
        paths = get_list(http, "paths", child(where, "http"), errs)
        if not paths:
            errs.append(required(child(where, "http", "paths"), ""))
        for _j, path_where, item in dict_items(paths, child(where, "http", "paths"), errs):
            _http_path(item, path_where, errs)


def _tls(entries: list[Any], path: str, errs: Errors) -> None:
    for _i, where, entry in dict_items(entries, path, errs):
        for j, host in enumerate(get_str_list(entry, "hosts", where, errs) or []):
            errs.extend(_host(host, index(child(where, "hosts"), j)))
        secret = get_str(entry, "secretName", where, errs)
        if secret:
            errs.extend(each_invalid(child(where, "secretName"), secret, is_dns1123_subdomain(secret)))


def _ingress_spec(spec: dict[str, Any], errs: Errors) -> None:
    rules = get_list(spec, "rules", "spec", errs)
    if not rules and spec.get("defaultBackend") is None:
        errs.append(invalid("spec", rules, "either `defaultBackend` or `rules` must be specified"))
    if spec.get("defaultBackend") is not None:
        _backend(spec["defaultBackend"], "spec.defaultBackend", errs)
    if rules:
        _rules(rules, "spec.rules", errs)
    tls = get_list(spec, "tls", "spec", errs)
    if tls:
        _tls(tls, "spec.tls", errs)
    class_name = get_opt_str(spec, "ingressClassName", "spec", errs)
    if isinstance(class_name, str):
        errs.extend(each_invalid("spec.ingressClassName", class_name, is_dns1123_subdomain(class_name)))


def _load_balancer(status: dict[str, Any], errs: Errors) -> None:
    """Each ingress point's IP a valid address, its hostname a DNS name and not an IP."""
    path = "status.loadBalancer"
    balancer = get_dict(status, "loadBalancer", "status", errs) or {}
    for _i, where, point in dict_items(get_list(balancer, "ingress", path, errs), child(path, "ingress"), errs):
        ip = get_str(point, "ip", where, errs)
        if ip:
            errs.extend(each_invalid(child(where, "ip"), ip, ip_errors(ip)))
        hostname = get_str(point, "hostname", where, errs)
        if hostname:
            errs.extend(each_invalid(child(where, "hostname"), hostname, is_dns1123_subdomain(hostname)))
            if parse_ip(hostname) is not None:
                errs.append(invalid(child(where, "hostname"), hostname, "must be a DNS name, not an IP address"))


def validate_ingress(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """Metadata, then the spec: rules or a default backend, hosts, paths by their type, backends, TLS, the class.

    On create the deprecated ``kubernetes.io/ingress.class`` annotation must agree with ingressClassName.
    """
    meta, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"), "spec", errs)
    _ingress_spec(spec or {}, errs)
    _load_balancer(as_dict(obj.get("status"), "status", errs) or {}, errs)
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
        return errs
    annotation = (meta.get("annotations") or {}).get(INGRESS_CLASS_ANNOTATION) if isinstance(
        meta.get("annotations"), dict) else None
    class_name = (spec or {}).get("ingressClassName")
    if annotation is not None and isinstance(class_name, str) and annotation != class_name:
        errs.append(invalid(f"annotations.{INGRESS_CLASS_ANNOTATION}", annotation,
                            "must match `ingressClassName` when both are specified"))
    return errs


def _domain_prefixed_path(value: str, path: str) -> Errors:
    """``example.com/ingress-controller``: a DNS subdomain, a slash, then an HTTP path."""
    host, slash, rest = value.partition("/")
    if not slash or not host or not rest:
        return [invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    errs = each_invalid(path, host, is_dns1123_subdomain(host))
    if _HTTP_PATH_RE.fullmatch(rest) is None:
        errs.append(invalid(path, rest, regex_error("Invalid path", _HTTP_PATH_FMT)))
    return errs


def _parameters(params: dict[str, Any], path: str, errs: Errors) -> None:
    _typed_reference(params, path, errs)
    scope = get_opt_str(params, "scope", path, errs)
    if scope is None:
        errs.append(required(child(path, "scope"), ""))
        return
    if scope is BAD:
        return
    namespace = get_opt_str(params, "namespace", path, errs)
    if scope not in PARAMETER_SCOPES:
        errs.append(not_supported(child(path, "scope"), scope, PARAMETER_SCOPES))
    elif scope == "Namespace":
        if namespace is None:
            errs.append(required(child(path, "namespace"), "`parameters.scope` is set to 'Namespace'"))
        elif isinstance(namespace, str):
            errs.extend(each_invalid(child(path, "namespace"), namespace, is_dns1123_label(namespace)))
    elif namespace is not None:
        errs.append(forbidden(child(path, "namespace"), "`parameters.scope` is set to 'Cluster'"))


def validate_ingress_class(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """Metadata, the controller (required, domain-prefixed, at most 250 characters, immutable), the parameters."""
    _, errs = validate_object_meta(obj, namespaced=False, name_fn=name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"), "spec", errs) or {}
    controller = get_str(spec, "controller", "spec", errs)
    if controller == "":
        errs.append(required("spec.controller", ""))
    elif isinstance(controller, str):
        if len(controller.encode("utf-8")) > _CONTROLLER_MAX_LENGTH:
            errs.append(FieldError("FieldValueTooLong", "spec.controller",
                                   f"may not be more than {_CONTROLLER_MAX_LENGTH} bytes"))
        errs.extend(_domain_prefixed_path(controller, "spec.controller"))
    params = as_dict(spec.get("parameters"), "spec.parameters", errs)
    if params is not None:
        _parameters(params, "spec.parameters", errs)
    if old is not None:
        old_controller = (old.get("spec") or {}).get("controller") if isinstance(old.get("spec"), dict) else None
        if controller != (old_controller or ""):
            errs.insert(0, invalid("spec.controller", controller, IMMUTABLE_MSG))
        errs[:0] = validate_object_meta_update(obj, old)
    return errs
