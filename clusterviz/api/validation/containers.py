"""Containers and init containers: ports, handlers, probes, volume mounts and the container itself."""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.field import (
    duplicate,
    forbidden,
    invalid,
    not_found,
    not_supported,
    required,
)

from .common import (
    BAD,
    SUPPORTED_PROTOCOLS,
    Errors,
    child,
    dict_items,
    dns1123_label,
    get_bool,
    get_dict,
    get_int,
    get_list,
    get_str,
    get_str_list,
    int_or_string,
    nonnegative,
    port_name_errors,
    port_num_errors,
)
from .env import _validate_env
from .resources import validate_resources

PULL_POLICIES: Final = ["Always", "IfNotPresent", "Never"]
TERMINATION_MESSAGE_POLICIES: Final = ["File", "FallbackToLogsOnError"]
URI_SCHEMES: Final = ["HTTP", "HTTPS"]


# --- ports, probes --------------------------------------------------------------


def port_num_or_name(value: Any, path: str, errs: Errors) -> None:
    port = int_or_string(value, path, errs)
    if port is BAD:
        return
    if isinstance(port, str):
        errs.extend(invalid(path, port, msg) for msg in port_name_errors(port))
    else:
        number = port or 0
        errs.extend(invalid(path, number, msg) for msg in port_num_errors(number))


def _validate_container_ports(ports: list[Any] | None, path: str) -> Errors:
    errs: Errors = []
    names: set[str] = set()
    for _, port_path, port in dict_items(ports, path, errs):
        name = get_str(port, "name", port_path, errs)
        if name:
            problems = port_name_errors(name)
            if problems:
                errs.extend(invalid(child(port_path, "name"), name, msg) for msg in problems)
            elif name in names:
                errs.append(duplicate(child(port_path, "name"), name))
            else:
                names.add(name)
        container_port = get_int(port, "containerPort", port_path, errs)
        if container_port in (None, 0):
            errs.append(required(child(port_path, "containerPort"), ""))
        elif isinstance(container_port, int):
            errs.extend(
                invalid(child(port_path, "containerPort"), container_port, msg)
                for msg in port_num_errors(container_port)
            )
        host_port = get_int(port, "hostPort", port_path, errs)
        if isinstance(host_port, int) and host_port != 0:
            errs.extend(invalid(child(port_path, "hostPort"), host_port, msg) for msg in port_num_errors(host_port))
        protocol = get_str(port, "protocol", port_path, errs)
        if protocol == "":
            errs.append(required(child(port_path, "protocol"), ""))
        elif isinstance(protocol, str) and protocol not in SUPPORTED_PROTOCOLS:
            errs.append(not_supported(child(port_path, "protocol"), protocol, SUPPORTED_PROTOCOLS))
        get_str(port, "hostIP", port_path, errs)
    return errs


def _validate_handler(handler: dict[str, Any], path: str, errs: Errors, kinds: tuple[str, ...]) -> None:
    count = 0
    for kind in kinds:
        action = get_dict(handler, kind, path, errs)
        if action is None:
            continue
        action_path = child(path, kind)
        if count > 0:
            errs.append(forbidden(action_path, "may not specify more than 1 handler type"))
            continue
        count += 1
        if kind == "exec":
            command = get_str_list(action, "command", action_path, errs)
            if not command:
                errs.append(required(child(action_path, "command"), ""))
        elif kind == "httpGet":
            if get_str(action, "path", action_path, errs) == "":
                errs.append(required(child(action_path, "path"), ""))
            port_num_or_name(action.get("port"), child(action_path, "port"), errs)
            scheme = get_str(action, "scheme", action_path, errs)
            if isinstance(scheme, str) and scheme not in URI_SCHEMES:
                errs.append(not_supported(child(action_path, "scheme"), scheme, URI_SCHEMES))
        elif kind == "tcpSocket":
            port_num_or_name(action.get("port"), child(action_path, "port"), errs)
        elif kind == "grpc":
            grpc_port = get_int(action, "port", action_path, errs)
            if grpc_port is not BAD:
                number = grpc_port or 0
                errs.extend(invalid(child(action_path, "port"), number, msg) for msg in port_num_errors(number))
    if count == 0:
        errs.append(required(path, "must specify a handler type"))


def _validate_probe(probe: dict[str, Any], path: str, errs: Errors, *, success_must_be_one: bool) -> None:
    _validate_handler(probe, path, errs, ("exec", "httpGet", "tcpSocket", "grpc"))
    for name in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"):
        errs.extend(nonnegative(get_int(probe, name, path, errs), child(path, name)))
    success = get_int(probe, "successThreshold", path, [])
    if success_must_be_one and isinstance(success, int) and success != 1:
        errs.append(invalid(child(path, "successThreshold"), success, "must be 1"))
    grace = get_int(probe, "terminationGracePeriodSeconds", path, errs, bits=64)
    if isinstance(grace, int) and grace <= 0:
        errs.append(invalid(child(path, "terminationGracePeriodSeconds"), grace, "must be greater than 0"))


def _validate_local_descending_path(value: str, path: str) -> Errors:
    errs: Errors = []
    if value.startswith("/"):
        errs.append(invalid(path, value, "must be a relative path"))
    if ".." in value.replace("\\", "/").split("/"):
        errs.append(invalid(path, value, "must not contain '..'"))
    return errs


def _validate_volume_mounts(mounts: list[Any] | None, volumes: set[str], path: str) -> Errors:
    errs: Errors = []
    mount_points: set[str] = set()
    for _, mount_path, mount in dict_items(mounts, path, errs):
        name = get_str(mount, "name", mount_path, errs)
        if name == "":
            errs.append(required(child(mount_path, "name"), ""))
        if isinstance(name, str) and name not in volumes:
            errs.append(not_found(child(mount_path, "name"), name))
        target = get_str(mount, "mountPath", mount_path, errs)
        if target == "":
            errs.append(required(child(mount_path, "mountPath"), ""))
        if isinstance(target, str):
            if target in mount_points:
                errs.append(invalid(child(mount_path, "mountPath"), target, "must be unique"))
            mount_points.add(target)
        get_bool(mount, "readOnly", mount_path, errs)
        sub_path = get_str(mount, "subPath", mount_path, errs)
        if sub_path:
            errs.extend(_validate_local_descending_path(sub_path, child(mount_path, "subPath")))
    return errs


# --- containers --------------------------------------------------------------------


def _validate_container(ctr: dict[str, Any], path: str, volumes: set[str], *, init: bool) -> Errors:
    errs: Errors = []
    name = get_str(ctr, "name", path, errs)
    if name == "":
        errs.append(required(child(path, "name"), ""))
    elif isinstance(name, str):
        errs.extend(dns1123_label(name, child(path, "name")))
    if get_str(ctr, "image", path, errs) == "":
        errs.append(required(child(path, "image"), ""))
    policy = get_str(ctr, "terminationMessagePolicy", path, errs)
    if policy == "":
        errs.append(required(child(path, "terminationMessagePolicy"), ""))
    elif isinstance(policy, str) and policy not in TERMINATION_MESSAGE_POLICIES:
        errs.append(not_supported(child(path, "terminationMessagePolicy"), policy, TERMINATION_MESSAGE_POLICIES))
    get_str(ctr, "terminationMessagePath", path, errs)
    get_str_list(ctr, "command", path, errs)
    get_str_list(ctr, "args", path, errs)
    get_str(ctr, "workingDir", path, errs)
    for flag in ("stdin", "stdinOnce", "tty"):
        get_bool(ctr, flag, path, errs)
    errs.extend(_validate_container_ports(get_list(ctr, "ports", path, errs), child(path, "ports")))
    errs.extend(_validate_env(get_list(ctr, "env", path, errs), child(path, "env")))
    get_list(ctr, "envFrom", path, errs)
    errs.extend(
        _validate_volume_mounts(get_list(ctr, "volumeMounts", path, errs), volumes, child(path, "volumeMounts"))
    )
    pull = get_str(ctr, "imagePullPolicy", path, errs)
    if pull == "":
        errs.append(required(child(path, "imagePullPolicy"), ""))
    elif isinstance(pull, str) and pull not in PULL_POLICIES:
        errs.append(not_supported(child(path, "imagePullPolicy"), pull, PULL_POLICIES))
    resources = get_dict(ctr, "resources", path, errs)
    if resources is not None:
        errs.extend(validate_resources(resources, child(path, "resources")))
    get_dict(ctr, "securityContext", path, errs)
    lifecycle = get_dict(ctr, "lifecycle", path, errs)
    for hook in ("postStart", "preStop"):
        handler = get_dict(lifecycle, hook, child(path, "lifecycle"), errs) if lifecycle else None
        if handler is not None:
            _validate_handler(handler, child(path, "lifecycle", hook), errs, ("exec", "httpGet", "tcpSocket", "sleep"))
    for probe_name in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe = get_dict(ctr, probe_name, path, errs)
        if probe is None:
            continue
        if init and ctr.get("restartPolicy") != "Always":
            errs.append(forbidden(child(path, probe_name), "may not be set for init containers"))
            continue
        _validate_probe(probe, child(path, probe_name), errs, success_must_be_one=probe_name != "readinessProbe")
        grace = probe.get("terminationGracePeriodSeconds")
        if probe_name == "readinessProbe" and grace is not None:
            # A readiness probe never kills, so a kill's grace period means nothing there.
            errs.append(invalid(child(path, probe_name, "terminationGracePeriodSeconds"), grace,
                                "must not be set for readinessProbes"))
    return errs


def _container_names(containers: list[Any] | None) -> set[str]:
    return {c["name"] for c in containers or [] if isinstance(c, dict) and isinstance(c.get("name"), str)}


def _validate_containers(containers: list[Any] | None, volumes: set[str], path: str) -> Errors:
    if not containers:
        return [required(path, "")]
    errs: Errors = []
    names: set[str] = set()
    for _, ctr_path, ctr in dict_items(containers, path, errs):
        errs.extend(_validate_container(ctr, ctr_path, volumes, init=False))
        name = ctr.get("name")
        if isinstance(name, str):
            if name in names:
                errs.append(duplicate(child(ctr_path, "name"), name))
            else:
                names.add(name)
    return errs


def _validate_init_containers(init: list[Any] | None, regular: set[str], volumes: set[str], path: str) -> Errors:
    errs: Errors = []
    names = set(regular)
    for _, ctr_path, ctr in dict_items(init, path, errs):
        errs.extend(_validate_container(ctr, ctr_path, volumes, init=True))
        name = ctr.get("name")
        if isinstance(name, str):
            if name in names:
                errs.append(duplicate(child(ctr_path, "name"), name))
            else:
                names.add(name)
        restart = get_str(ctr, "restartPolicy", ctr_path, errs)
        if restart and restart is not BAD and restart != "Always":
            errs.append(not_supported(child(ctr_path, "restartPolicy"), restart, ["Always"]))
    return errs
