"""Printers for cluster-scoped objects: Nodes and Namespaces."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import dict_or_empty, list_or_empty, str_or_empty

from .common import NONE, UNKNOWN, Printed, _meta, _since


def _node_address(status: dict[str, Any], type_: str) -> str:
    for address in list_or_empty(status.get("addresses")):
        address = dict_or_empty(address)
        if address.get("type") == type_:
            return str_or_empty(address.get("address"))
    return NONE


def _node_roles(labels: Any) -> str:
    roles: set[str] = set()
    for key, value in dict_or_empty(labels).items():
        if not isinstance(key, str):
            continue
        if key.startswith("node-role.kubernetes.io/"):
            role = key[len("node-role.kubernetes.io/") :]
            if role:
                roles.add(role)
        elif key == "kubernetes.io/role" and isinstance(value, str) and value:
            roles.add(value)
    return ",".join(sorted(roles)) or NONE


def _print_node(node: dict[str, Any], now_ns: int) -> Printed:
    meta, spec, status = _meta(node), dict_or_empty(node.get("spec")), dict_or_empty(node.get("status"))
    by_type: dict[Any, dict[str, Any]] = {}
    for cond in list_or_empty(status.get("conditions")):
        cond = dict_or_empty(cond)
        type_ = cond.get("type")
        if isinstance(type_, str):
            by_type[type_] = cond
    states: list[str] = []
    if "Ready" in by_type:
        states.append("Ready" if by_type["Ready"].get("status") == "True" else "NotReady")
    else:
        states.append("Unknown")
    if spec.get("unschedulable") is True:
        states.append("SchedulingDisabled")
    info = dict_or_empty(status.get("nodeInfo"))
    cells = [
        str_or_empty(meta.get("name")),
        ",".join(states),
        _node_roles(meta.get("labels")),
        _since(meta.get("creationTimestamp"), now_ns),
        str_or_empty(info.get("kubeletVersion")),
        _node_address(status, "InternalIP"),
        _node_address(status, "ExternalIP"),
        str_or_empty(info.get("osImage")) or UNKNOWN,
        str_or_empty(info.get("kernelVersion")) or UNKNOWN,
        str_or_empty(info.get("containerRuntimeVersion")) or UNKNOWN,
    ]
    return cells, []


def _print_namespace(ns: dict[str, Any], now_ns: int) -> Printed:
    meta = _meta(ns)
    phase = str_or_empty(dict_or_empty(ns.get("status")).get("phase")) or "Active"
    return [str_or_empty(meta.get("name")), phase, _since(meta.get("creationTimestamp"), now_ns)], []
