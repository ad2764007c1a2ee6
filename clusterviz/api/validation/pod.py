"""Pods and pod templates: ``ValidatePodSpec`` and ``ValidatePodUpdate`` of core validation."""

from __future__ import annotations

import re
from typing import Any, Final

from clusterviz.apimachinery.field import (
    FieldError,
    duplicate,
    forbidden,
    format_value,
    invalid,
    not_found,
    not_supported,
    required,
)
from clusterviz.apimachinery.names import is_dns1123_subdomain, is_qualified_name, is_valid_label_value
from clusterviz.apimachinery.quantity import Quantity

from ..defaulting import VOLUME_SOURCES
from .common import (
    BAD,
    INT32_MAX,
    IS_NEGATIVE_MSG,
    IS_NOT_INTEGER_MSG,
    IS_NOT_POSITIVE_MSG,
    SUPPORTED_PROTOCOLS,
    Errors,
    as_dict,
    as_list,
    child,
    dict_items,
    dns1123_label,
    dns1123_subdomain,
    each_invalid,
    get_bool,
    get_dict,
    get_int,
    get_list,
    get_opt_str,
    get_str,
    get_str_list,
    get_str_map,
    inclusive_range_error,
    index,
    int_or_string,
    key,
    label_name,
    nonnegative,
    port_name_errors,
    port_num_errors,
    quantity_field,
    semantic,
)
from .meta import (
    name_is_dns_subdomain,
    validate_annotations,
    validate_label_selector,
    validate_labels,
    validate_object_meta,
    validate_object_meta_update,
    validate_selector_requirement,
)

RESTART_POLICIES: Final = ["Always", "OnFailure", "Never"]
DNS_POLICIES: Final = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]
PULL_POLICIES: Final = ["Always", "IfNotPresent", "Never"]
TERMINATION_MESSAGE_POLICIES: Final = ["File", "FallbackToLogsOnError"]
TAINT_EFFECTS: Final = ["NoSchedule", "PreferNoSchedule", "NoExecute"]
TOLERATION_OPERATORS: Final = ["Equal", "Exists"]
PREEMPTION_POLICIES: Final = ["PreemptLowerPriority", "Never"]
WHEN_UNSATISFIABLE: Final = ["DoNotSchedule", "ScheduleAnyway"]
NODE_INCLUSION_POLICIES: Final = ["Honor", "Ignore"]
HOST_PATH_TYPES: Final = [
    "",
    "BlockDevice",
    "CharDevice",
    "Directory",
    "DirectoryOrCreate",
    "File",
    "FileOrCreate",
    "Socket",
]
URI_SCHEMES: Final = ["HTTP", "HTTPS"]

# The fields a Pod update may change, in upstream's wording.
UPDATABLE_POD_SPEC_FIELDS: Final = ",".join(
    [
        "`spec.containers[*].image`",
        "`spec.initContainers[*].image`",
        "`spec.activeDeadlineSeconds`",
        "`spec.tolerations` (only additions to existing tolerations)",
        "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
    ]
)

_STANDARD_CONTAINER_RESOURCES: Final = frozenset({"cpu", "memory", "ephemeral-storage"})
_STANDARD_RESOURCES: Final = frozenset(
    {
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "services",
        "replicationcontrollers",
        "resourcequotas",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "storage",
        "requests.storage",
        "services.nodeports",
        "services.loadbalancers",
    }
)
_DOWNWARD_ENV_FIELD_PATHS: Final = [
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
]
_SUBSCRIPTED_FIELD_PATH = re.compile(r"(metadata\.(?:labels|annotations))\['(.*)'\]")
_CONFIG_KEY = re.compile(r"[-._a-zA-Z0-9]+")
_FILE_MODE_MSG: Final = "must be a number between 0 and 0777 (octal), both inclusive"


# --- resources -----------------------------------------------------------------


def is_hugepages(name: str) -> bool:
    return name.startswith("hugepages-")


def is_native_resource(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def is_extended_resource(name: str) -> bool:
    if is_native_resource(name) or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


def is_overcommit_allowed(name: str) -> bool:
    return is_native_resource(name) and not is_hugepages(name)


def container_resource_name_errors(name: str, path: str) -> Errors:
    errs = each_invalid(path, name, is_qualified_name(name))
    if not errs and "/" not in name and name not in _STANDARD_RESOURCES and not is_hugepages(name):
        errs.append(invalid(path, name, "must be a standard resource type or fully qualified"))
    if "/" not in name:
        if name not in _STANDARD_CONTAINER_RESOURCES and not is_hugepages(name):
            errs.append(invalid(path, name, "must be a standard resource for containers"))
    elif not is_native_resource(name) and not is_extended_resource(name):
        errs.append(invalid(path, name, "doesn't follow extended resource name standard"))
    return errs


def resource_quantity_value(name: str, quantity: Quantity, path: str) -> Errors:
    """Upstream's ``ValidateResourceQuantityValue``: not negative, whole for integer resources."""
    errs: Errors = []
    if quantity.sign() < 0:
        errs.append(invalid(path, quantity.canonical(), IS_NEGATIVE_MSG))
    if is_extended_resource(name) and quantity.milli_value() % 1000 != 0:
        errs.append(invalid(path, quantity.canonical(), IS_NOT_INTEGER_MSG))
    return errs


def _resource_list(value: Any, path: str, errs: Errors) -> dict[str, Quantity]:
    mapping = as_dict(value, path, errs)
    result: dict[str, Quantity] = {}
    for name, raw in (mapping or {}).items():
        quantity = quantity_field(raw, key(path, name), errs)
        if quantity is not None:
            result[name] = quantity
    return result


def validate_resources(resources: dict[str, Any], path: str) -> Errors:
    errs: Errors = []
    lim_path = child(path, "limits")
    req_path = child(path, "requests")
    limits = _resource_list(resources.get("limits"), lim_path, errs)
    requests = _resource_list(resources.get("requests"), req_path, errs)
    has_cpu_or_memory = False
    has_hugepages = False
    for name, quantity in limits.items():
        name_path = key(lim_path, name)
        errs.extend(container_resource_name_errors(name, name_path))
        errs.extend(resource_quantity_value(name, quantity, name_path))
        has_hugepages = has_hugepages or is_hugepages(name)
        has_cpu_or_memory = has_cpu_or_memory or name in ("cpu", "memory")
    for name, quantity in requests.items():
        name_path = key(req_path, name)
        errs.extend(container_resource_name_errors(name, name_path))
        errs.extend(resource_quantity_value(name, quantity, name_path))
        limit = limits.get(name)
        if limit is not None:
            if quantity != limit and not is_overcommit_allowed(name):
                errs.append(
                    invalid(req_path, quantity.canonical(), f"must be equal to {name} limit of {limit.canonical()}")
                )
            elif quantity > limit:
                errs.append(
                    invalid(
                        req_path,
                        quantity.canonical(),
                        f"must be less than or equal to {name} limit of {limit.canonical()}",
                    )
                )
        elif not is_overcommit_allowed(name):
            errs.append(required(lim_path, "Limit must be set for non overcommitable resources"))
        has_hugepages = has_hugepages or is_hugepages(name)
        has_cpu_or_memory = has_cpu_or_memory or name in ("cpu", "memory")
    if has_hugepages and not has_cpu_or_memory:
        errs.append(forbidden(path, "HugePages require cpu or memory"))
    return errs


# --- ports, env, probes ---------------------------------------------------------


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


def config_map_key_errors(value: str) -> list[str]:
    """Upstream's ``IsConfigMapKey``: keys of ConfigMap data and of key references."""
    errs: list[str] = []
    if len(value) > 253:
        errs.append("must be no more than 253 characters")
    if not _CONFIG_KEY.fullmatch(value):
        errs.append(
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  "
            "or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
        )
    if value == ".":
        errs.append("must not be '.'")
    elif value == "..":
        errs.append("must not be '..'")
    elif value.startswith(".."):
        errs.append("must not start with '..'")
    return errs


def env_var_name_errors(name: str) -> list[str]:
    """The relaxed environment variable rule: printable ASCII except ``=``."""
    if any(not (32 <= ord(c) <= 126) or c == "=" for c in name):
        return ["a valid environment variable name must consist only of printable ASCII characters other than '='"]
    return []


def _key_selector(ref: dict[str, Any], path: str, errs: Errors) -> None:
    name = get_str(ref, "name", path, errs)
    if name == "":
        errs.append(required(child(path, "name"), ""))
    ref_key = get_str(ref, "key", path, errs)
    if ref_key == "":
        errs.append(required(child(path, "key"), ""))
    elif isinstance(ref_key, str):
        errs.extend(invalid(child(path, "key"), ref_key, msg) for msg in config_map_key_errors(ref_key))
    get_bool(ref, "optional", path, errs)


def _field_ref(ref: dict[str, Any], path: str, errs: Errors) -> None:
    api_version = get_str(ref, "apiVersion", path, errs)
    if api_version == "":
        errs.append(required(child(path, "apiVersion"), ""))
    field_path = get_str(ref, "fieldPath", path, errs)
    fp_path = child(path, "fieldPath")
    if field_path == "":
        errs.append(required(fp_path, ""))
        return
    if not isinstance(field_path, str):
        return
    match = _SUBSCRIPTED_FIELD_PATH.fullmatch(field_path)
    if match:
        subscript = match.group(2)
        check = is_qualified_name(subscript.lower() if "annotations" in match.group(1) else subscript)
        errs.extend(invalid(fp_path, subscript, msg) for msg in check)
    elif field_path not in _DOWNWARD_ENV_FIELD_PATHS or field_path in ("metadata.labels", "metadata.annotations"):
        supported = [p for p in _DOWNWARD_ENV_FIELD_PATHS if p not in ("metadata.annotations", "metadata.labels")]
        errs.append(not_supported(fp_path, field_path, supported))


def _validate_env(env: list[Any] | None, path: str) -> Errors:
    errs: Errors = []
    for _, var_path, var in dict_items(env, path, errs):
        name = get_str(var, "name", var_path, errs)
        if name == "":
            errs.append(required(child(var_path, "name"), ""))
        elif isinstance(name, str):
            errs.extend(invalid(child(var_path, "name"), name, msg) for msg in env_var_name_errors(name))
        value = get_str(var, "value", var_path, errs)
        value_from = get_dict(var, "valueFrom", var_path, errs)
        if value_from is None:
            continue
        from_path = child(var_path, "valueFrom")
        sources = 0
        for source in ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef"):
            ref = get_dict(value_from, source, from_path, errs)
            if ref is None:
                continue
            sources += 1
            ref_path = child(from_path, source)
            if source == "fieldRef":
                _field_ref(ref, ref_path, errs)
            elif source == "resourceFieldRef":
                if get_str(ref, "resource", ref_path, errs) == "":
                    errs.append(required(child(ref_path, "resource"), ""))
            else:
                _key_selector(ref, ref_path, errs)
        if sources == 0:
            errs.append(
                invalid(
                    from_path,
                    "",
                    "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
                )
            )
        elif value:
            errs.append(invalid(from_path, "", "may not be specified when `value` is not empty"))
        elif sources > 1:
            errs.append(invalid(from_path, "", "may not have more than one field specified at a time"))
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


# --- volumes ----------------------------------------------------------------------


def _file_mode(source: dict[str, Any], path: str, errs: Errors) -> None:
    mode = get_int(source, "defaultMode", path, errs)
    if isinstance(mode, int) and not 0 <= mode <= 0o777:
        errs.append(invalid(child(path, "defaultMode"), mode, _FILE_MODE_MSG))


def _validate_volume_source(name: str, source: dict[str, Any], path: str, errs: Errors) -> None:
    if name == "emptyDir":
        medium = get_str(source, "medium", path, errs)
        if (
            isinstance(medium, str)
            and medium not in ("", "Memory", "HugePages")
            and not medium.startswith("HugePages-")
        ):
            errs.append(not_supported(child(path, "medium"), medium, ["", "HugePages", "Memory"]))
        size = quantity_field(source.get("sizeLimit"), child(path, "sizeLimit"), errs)
        if size is not None and size.sign() < 0:
            errs.append(forbidden(child(path, "sizeLimit"), "SizeLimit field must be a valid resource quantity"))
    elif name == "hostPath":
        if get_str(source, "path", path, errs) == "":
            errs.append(required(child(path, "path"), ""))
        host_type = get_opt_str(source, "type", path, errs)
        if isinstance(host_type, str) and host_type not in HOST_PATH_TYPES:
            errs.append(not_supported(child(path, "type"), host_type, HOST_PATH_TYPES))
    elif name == "secret":
        if get_str(source, "secretName", path, errs) == "":
            errs.append(required(child(path, "secretName"), ""))
        _file_mode(source, path, errs)
    elif name == "configMap":
        if get_str(source, "name", path, errs) == "":
            errs.append(required(child(path, "name"), ""))
        _file_mode(source, path, errs)
    elif name == "persistentVolumeClaim":
        if get_str(source, "claimName", path, errs) == "":
            errs.append(required(child(path, "claimName"), ""))
        get_bool(source, "readOnly", path, errs)
    elif name == "nfs":
        if get_str(source, "server", path, errs) == "":
            errs.append(required(child(path, "server"), ""))
        nfs_path = get_str(source, "path", path, errs)
        if nfs_path == "":
            errs.append(required(child(path, "path"), ""))
        elif isinstance(nfs_path, str) and not nfs_path.startswith("/"):
            errs.append(invalid(child(path, "path"), nfs_path, "must be an absolute path"))
    elif name in ("downwardAPI", "projected"):
        _file_mode(source, path, errs)


def validate_volumes(volumes: list[Any] | None, path: str, errs: Errors) -> set[str]:
    """Validate the volumes and return the names of the valid ones (what volumeMounts may use)."""
    names: set[str] = set()
    for _, vol_path, vol in dict_items(volumes, path, errs):
        vol_errs: Errors = []
        count = 0
        for source_name in VOLUME_SOURCES:
            raw = vol.get(source_name)
            if raw is None:
                continue
            source_path = child(vol_path, source_name)
            source = as_dict(raw, source_path, vol_errs)
            if source is None:
                continue
            if count > 0:
                vol_errs.append(forbidden(source_path, "may not specify more than 1 volume type"))
                continue
            count += 1
            _validate_volume_source(source_name, source, source_path, vol_errs)
        if count == 0 and not vol_errs:
            vol_errs.append(required(vol_path, "must specify a volume type"))
        name = get_str(vol, "name", vol_path, vol_errs)
        name_path = child(vol_path, "name")
        if name == "":
            vol_errs.append(required(name_path, ""))
        elif isinstance(name, str):
            vol_errs.extend(dns1123_label(name, name_path))
            if name in names:
                vol_errs.append(duplicate(name_path, name))
        if not vol_errs and isinstance(name, str):
            names.add(name)
        errs.extend(vol_errs)
    return names


# --- scheduling constraints ----------------------------------------------------------


def validate_node_selector_term(term: dict[str, Any], path: str) -> Errors:
    errs: Errors = []
    exprs_path = child(path, "matchExpressions")
    for _, expr_path, expr in dict_items(get_list(term, "matchExpressions", path, errs), exprs_path, errs):
        errs.extend(validate_selector_requirement(expr, expr_path, node_selector=True))
    fields_path = child(path, "matchFields")
    for _, req_path, req in dict_items(get_list(term, "matchFields", path, errs), fields_path, errs):
        operator = get_str(req, "operator", req_path, errs)
        values = get_str_list(req, "values", req_path, errs) or []
        if operator in ("In", "NotIn"):
            if len(values) != 1:
                errs.append(
                    required(
                        child(req_path, "values"),
                        "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                    )
                )
        elif operator is not BAD:
            errs.append(invalid(child(req_path, "operator"), operator, "not a valid selector operator"))
        field_key = get_str(req, "key", req_path, errs)
        if field_key != "metadata.name" and field_key is not BAD:
            errs.append(invalid(child(req_path, "key"), field_key, "not a valid field selector key"))
        elif field_key == "metadata.name":
            for i, value in enumerate(values):
                errs.extend(
                    invalid(index(child(req_path, "values"), i), value, msg) for msg in is_dns1123_subdomain(value)
                )
    return errs


def _weight(term: dict[str, Any], path: str, errs: Errors) -> None:
    weight = get_int(term, "weight", path, errs)
    if weight is None:
        weight = 0
    if isinstance(weight, int) and not 1 <= weight <= 100:
        errs.append(invalid(child(path, "weight"), weight, "must be in the range 1-100"))


def _validate_pod_affinity_term(term: dict[str, Any], path: str, errs: Errors) -> None:
    errs.extend(validate_label_selector(term.get("labelSelector"), child(path, "labelSelector")))
    errs.extend(validate_label_selector(term.get("namespaceSelector"), child(path, "namespaceSelector")))
    for namespace in get_str_list(term, "namespaces", path, errs) or []:
        errs.extend(dns1123_label(namespace, child(path, "namespace")))
    topology_key = get_str(term, "topologyKey", path, errs)
    if topology_key == "":
        errs.append(required(child(path, "topologyKey"), "can not be empty"))
    elif isinstance(topology_key, str):
        errs.extend(label_name(topology_key, child(path, "topologyKey")))


def _validate_pod_affinity(affinity: dict[str, Any], path: str, errs: Errors) -> None:
    req_path = child(path, "requiredDuringSchedulingIgnoredDuringExecution")
    for _, term_path, term in dict_items(
        get_list(affinity, "requiredDuringSchedulingIgnoredDuringExecution", path, errs), req_path, errs
    ):
        _validate_pod_affinity_term(term, term_path, errs)
    pref_path = child(path, "preferredDuringSchedulingIgnoredDuringExecution")
    for _, term_path, term in dict_items(
        get_list(affinity, "preferredDuringSchedulingIgnoredDuringExecution", path, errs), pref_path, errs
    ):
        _weight(term, term_path, errs)
        inner = get_dict(term, "podAffinityTerm", term_path, errs)
        _validate_pod_affinity_term(inner or {}, child(term_path, "podAffinityTerm"), errs)


def validate_affinity(affinity: dict[str, Any], path: str) -> Errors:
    errs: Errors = []
    node = get_dict(affinity, "nodeAffinity", path, errs)
    if node is not None:
        node_path = child(path, "nodeAffinity")
        selector = get_dict(node, "requiredDuringSchedulingIgnoredDuringExecution", node_path, errs)
        if selector is not None:
            sel_path = child(node_path, "requiredDuringSchedulingIgnoredDuringExecution")
            terms_path = child(sel_path, "nodeSelectorTerms")
            terms = get_list(selector, "nodeSelectorTerms", sel_path, errs)
            if not terms and (terms is not None or selector.get("nodeSelectorTerms") is None):
                errs.append(required(terms_path, "must have at least one node selector term"))
            for _, term_path, term in dict_items(terms, terms_path, errs):
                errs.extend(validate_node_selector_term(term, term_path))
        pref_path = child(node_path, "preferredDuringSchedulingIgnoredDuringExecution")
        for _, term_path, term in dict_items(
            get_list(node, "preferredDuringSchedulingIgnoredDuringExecution", node_path, errs), pref_path, errs
        ):
            _weight(term, term_path, errs)
            preference = get_dict(term, "preference", term_path, errs)
            errs.extend(validate_node_selector_term(preference or {}, child(term_path, "preference")))
    for kind in ("podAffinity", "podAntiAffinity"):
        section = get_dict(affinity, kind, path, errs)
        if section is not None:
            _validate_pod_affinity(section, child(path, kind), errs)
    return errs


def validate_taint_effect(effect: str, path: str, *, allow_empty: bool) -> Errors:
    if effect == "":
        return [] if allow_empty else [required(path, "")]
    if effect not in TAINT_EFFECTS:
        return [not_supported(path, effect, TAINT_EFFECTS)]
    return []


def validate_tolerations(tolerations: list[Any] | None, path: str) -> Errors:
    errs: Errors = []
    for _, tol_path, tol in dict_items(tolerations, path, errs):
        tol_key = get_str(tol, "key", tol_path, errs)
        operator = get_str(tol, "operator", tol_path, errs)
        value = get_str(tol, "value", tol_path, errs)
        effect = get_str(tol, "effect", tol_path, errs)
        seconds = get_int(tol, "tolerationSeconds", tol_path, errs, bits=64)
        if tol_key:
            errs.extend(label_name(tol_key, child(tol_path, "key")))
        if tol_key == "" and operator != "Exists" and operator is not BAD:
            errs.append(
                invalid(
                    child(tol_path, "operator"),
                    operator,
                    'operator must be Exists when `key` is empty, which means "match all values and all keys"',
                )
            )
        if seconds is not None and seconds is not BAD and effect != "NoExecute":
            errs.append(
                invalid(child(tol_path, "effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set")
            )
        if operator in ("Equal", ""):
            if isinstance(value, str):
                problems = is_valid_label_value(value)
                if problems:
                    errs.append(invalid(child(tol_path, "operator"), value, ";".join(problems)))
        elif operator == "Exists":
            if value:
                errs.append(
                    invalid(child(tol_path, "operator"), tol, "value must be empty when `operator` is 'Exists'")
                )
        elif operator is not BAD:
            errs.append(not_supported(child(tol_path, "operator"), operator, TOLERATION_OPERATORS))
        if isinstance(effect, str):
            errs.extend(validate_taint_effect(effect, child(tol_path, "effect"), allow_empty=True))
    return errs


def _validate_topology_spread(constraints: list[Any] | None, path: str) -> Errors:
    errs: Errors = []
    items = dict_items(constraints, path, errs)
    for i, item_path, item in items:
        max_skew = get_int(item, "maxSkew", item_path, errs)
        if max_skew is None or (isinstance(max_skew, int) and max_skew <= 0):
            errs.append(invalid(child(item_path, "maxSkew"), max_skew or 0, IS_NOT_POSITIVE_MSG))
        topology_key = get_str(item, "topologyKey", item_path, errs)
        if topology_key == "":
            errs.append(required(child(item_path, "topologyKey"), "can not be empty"))
        action = get_str(item, "whenUnsatisfiable", item_path, errs)
        if isinstance(action, str) and action not in WHEN_UNSATISFIABLE:
            errs.append(not_supported(child(item_path, "whenUnsatisfiable"), action, WHEN_UNSATISFIABLE))
        pair = (topology_key, action)
        later = [
            (other.get("topologyKey") or "", other.get("whenUnsatisfiable") or "") for _, _, other in items[i + 1 :]
        ]
        if pair in later:
            errs.append(
                duplicate(child(item_path, "{topologyKey, whenUnsatisfiable}"), f"{{{topology_key}, {action}}}")
            )
        min_domains = get_int(item, "minDomains", item_path, errs)
        if isinstance(min_domains, int):
            if min_domains <= 0:
                errs.append(invalid(child(item_path, "minDomains"), min_domains, IS_NOT_POSITIVE_MSG))
            if action != "DoNotSchedule":
                errs.append(
                    invalid(
                        child(item_path, "minDomains"),
                        min_domains,
                        f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}",
                    )
                )
        for policy_name in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = get_opt_str(item, policy_name, item_path, errs)
            if isinstance(policy, str) and policy not in NODE_INCLUSION_POLICIES:
                errs.append(not_supported(child(item_path, policy_name), policy, NODE_INCLUSION_POLICIES))
        errs.extend(validate_label_selector(item.get("labelSelector"), child(item_path, "labelSelector")))
    return errs


# --- the pod spec -----------------------------------------------------------------


def _enum(spec: dict[str, Any], name: str, path: str, allowed: list[str], errs: Errors) -> None:
    value = get_str(spec, name, path, errs)
    if value == "":
        errs.append(required(child(path, name), ""))
    elif isinstance(value, str) and value not in allowed:
        errs.append(not_supported(child(path, name), value, allowed))


def validate_pod_spec(spec: dict[str, Any], path: str) -> Errors:
    """Validate a (defaulted) PodSpec found at ``path``."""
    errs: Errors = []
    volumes = validate_volumes(get_list(spec, "volumes", path, errs), child(path, "volumes"), errs)
    containers = get_list(spec, "containers", path, errs)
    if containers is not None or spec.get("containers") is None:
        errs.extend(_validate_containers(containers, volumes, child(path, "containers")))
    errs.extend(
        _validate_init_containers(
            get_list(spec, "initContainers", path, errs),
            _container_names(containers),
            volumes,
            child(path, "initContainers"),
        )
    )
    _enum(spec, "restartPolicy", path, RESTART_POLICIES, errs)
    _enum(spec, "dnsPolicy", path, DNS_POLICIES, errs)
    errs.extend(validate_labels(get_str_map(spec, "nodeSelector", path, errs), child(path, "nodeSelector")))
    get_dict(spec, "securityContext", path, errs)
    secrets_path = child(path, "imagePullSecrets")
    for _, secret_path, secret in dict_items(get_list(spec, "imagePullSecrets", path, errs), secrets_path, errs):
        get_str(secret, "name", secret_path, errs)
    affinity = get_dict(spec, "affinity", path, errs)
    if affinity is not None:
        errs.extend(validate_affinity(affinity, child(path, "affinity")))
    errs.extend(
        _validate_topology_spread(
            get_list(spec, "topologySpreadConstraints", path, errs), child(path, "topologySpreadConstraints")
        )
    )
    get_str(spec, "serviceAccount", path, errs)
    for name in ("serviceAccountName", "nodeName", "priorityClassName"):
        value = get_str(spec, name, path, errs)
        if value:
            errs.extend(dns1123_subdomain(value, child(path, name)))
    deadline = get_int(spec, "activeDeadlineSeconds", path, errs, bits=64)
    if isinstance(deadline, int) and not 1 <= deadline <= INT32_MAX:
        errs.append(invalid(child(path, "activeDeadlineSeconds"), deadline, inclusive_range_error(1, INT32_MAX)))
    for name in ("hostname", "subdomain"):
        value = get_str(spec, name, path, errs)
        if value:
            errs.extend(dns1123_label(value, child(path, name)))
    errs.extend(validate_tolerations(get_list(spec, "tolerations", path, errs), child(path, "tolerations")))
    preemption = get_opt_str(spec, "preemptionPolicy", path, errs)
    if isinstance(preemption, str) and preemption not in PREEMPTION_POLICIES:
        errs.append(not_supported(child(path, "preemptionPolicy"), preemption, PREEMPTION_POLICIES))
    get_int(spec, "terminationGracePeriodSeconds", path, errs, bits=64)
    get_int(spec, "priority", path, errs)
    get_str(spec, "schedulerName", path, errs)
    for flag in ("hostNetwork", "hostPID", "hostIPC", "enableServiceLinks", "automountServiceAccountToken"):
        get_bool(spec, flag, path, errs)
    return errs


def validate_pod_template(template: dict[str, Any], path: str) -> Errors:
    """A PodTemplateSpec: labels and annotations of its metadata, then the pod spec.

    Upstream reports template label problems at ``<path>.labels`` (not
    ``<path>.metadata.labels``); that is kept.
    """
    errs: Errors = []
    meta = get_dict(template, "metadata", path, errs) or {}
    meta_path = child(path, "metadata")
    errs.extend(validate_labels(get_str_map(meta, "labels", meta_path, errs), child(path, "labels")))
    errs.extend(validate_annotations(get_str_map(meta, "annotations", meta_path, errs), child(path, "annotations")))
    spec = get_dict(template, "spec", path, errs)
    errs.extend(validate_pod_spec(spec or {}, child(path, "spec")))
    if spec and spec.get("ephemeralContainers"):
        errs.append(
            forbidden(child(path, "spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template")
        )
    return errs


# --- updates ----------------------------------------------------------------------


def _toleration_key(tol: Any) -> Any:
    if not isinstance(tol, dict):
        return tol
    return (tol.get("key") or "", tol.get("operator") or "", tol.get("value") or "", tol.get("effect") or "")


def _diff(old: Any, new: Any, path: str, out: list[str]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for k in list(old) + [k for k in new if k not in old]:
            _diff(old.get(k), new.get(k), child(path, k), out)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            _diff(a, b, index(path, i), out)
    elif old != new:
        out.append(f"  {path}: {_show(old)} -> {_show(new)}")


def _show(value: Any) -> str:
    return "<unset>" if value is None else format_value(value)


def validate_pod_update(new: dict[str, Any], old: dict[str, Any]) -> Errors:
    """What a Pod update may change: images, a shorter activeDeadlineSeconds, added tolerations.

    ``spec.nodeName`` may go from unset to set (that is a binding); once set it
    is fixed like the rest of the spec.
    """
    errs: Errors = []
    new_spec = new.get("spec") if isinstance(new.get("spec"), dict) else {}
    old_spec = old.get("spec") if isinstance(old.get("spec"), dict) else {}
    spec_path = "spec"

    new_containers = new_spec.get("containers") if isinstance(new_spec.get("containers"), list) else []
    old_containers = old_spec.get("containers") if isinstance(old_spec.get("containers"), list) else []
    if len(new_containers) != len(old_containers):
        return [forbidden(child(spec_path, "containers"), "pod updates may not add or remove containers")]
    new_init = new_spec.get("initContainers") if isinstance(new_spec.get("initContainers"), list) else []
    old_init = old_spec.get("initContainers") if isinstance(old_spec.get("initContainers"), list) else []
    if len(new_init) != len(old_init):
        return [forbidden(child(spec_path, "initContainers"), "pod updates may not add or remove containers")]

    new_deadline = new_spec.get("activeDeadlineSeconds")
    old_deadline = old_spec.get("activeDeadlineSeconds")
    deadline_path = child(spec_path, "activeDeadlineSeconds")
    if isinstance(new_deadline, int) and not isinstance(new_deadline, bool):
        if isinstance(old_deadline, int) and old_deadline < new_deadline:
            errs.append(invalid(deadline_path, new_deadline, "must be less than or equal to previous value"))
    elif new_deadline is None and old_deadline is not None:
        errs.append(invalid(deadline_path, None, "must not update from a positive integer to nil value"))

    new_tolerations = new_spec.get("tolerations") if isinstance(new_spec.get("tolerations"), list) else []
    old_tolerations = old_spec.get("tolerations") if isinstance(old_spec.get("tolerations"), list) else []
    new_keys = [_toleration_key(t) for t in new_tolerations]
    if any(_toleration_key(t) not in new_keys for t in old_tolerations):
        errs.append(
            forbidden(
                child(spec_path, "tolerations"), "existing toleration can not be modified except its tolerationSeconds"
            )
        )

    munged = dict(new_spec)
    munged["containers"] = [
        {**c, "image": o.get("image")} if isinstance(c, dict) and isinstance(o, dict) else c
        for c, o in zip(new_containers, old_containers, strict=True)
    ]
    if new_init or old_init:
        munged["initContainers"] = [
            {**c, "image": o.get("image")} if isinstance(c, dict) and isinstance(o, dict) else c
            for c, o in zip(new_init, old_init, strict=True)
        ]
    for name in ("activeDeadlineSeconds", "tolerations", "schedulingGates"):
        munged[name] = old_spec.get(name)
    old_grace = old_spec.get("terminationGracePeriodSeconds")
    if isinstance(old_grace, int) and old_grace < 0 and munged.get("terminationGracePeriodSeconds") == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    if not old_spec.get("nodeName"):
        munged["nodeName"] = old_spec.get("nodeName")

    before, after = semantic(old_spec), semantic(munged)
    if before != after:
        changes: list[str] = []
        _diff(before, after, spec_path, changes)
        detail = f"pod updates may not change fields other than {UPDATABLE_POD_SPEC_FIELDS}"
        if changes:
            detail += "\n" + "\n".join(changes)
        errs.append(FieldError("FieldValueForbidden", spec_path, detail))
    return errs


def validate_pod(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    _, errs = validate_object_meta(obj, namespaced=True, name_fn=name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"), "spec", errs)
    if spec is not None or obj.get("spec") is None:
        errs.extend(validate_pod_spec(spec or {}, "spec"))
    status = as_dict(obj.get("status"), "status", errs)
    if status is not None:
        get_str(status, "phase", "status", errs)
        as_list(status.get("conditions"), "status.conditions", errs)
        as_list(status.get("containerStatuses"), "status.containerStatuses", errs)
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
        errs.extend(validate_pod_update(obj, old))
    return errs
