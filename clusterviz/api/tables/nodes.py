"""Printers for cluster-scoped objects: Nodes and Namespaces."""

from __future__ import annotations

from typing import Any

from .common import NONE, UNKNOWN, Printed, _d, _l, _meta, _s, _since


def _node_address(status: dict[str, Any], type_: str) -> str:
    for address in _l(status.get("addresses")):
        address = _d(address)
        if address.get("type") == type_:
            return _s(address.get("address"))
    return NONE


def _node_roles(labels: Any) -> str:
    roles: set[str] = set()
    for key, value in _d(labels).items():
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
    meta, spec, status = _meta(node), _d(node.get("spec")), _d(node.get("status"))
    by_type: dict[Any, dict[str, Any]] = {}
    for cond in _l(status.get("conditions")):
        cond = _d(cond)
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
    info = _d(status.get("nodeInfo"))
    cells = [
        _s(meta.get("name")),
        ",".join(states),
        _node_roles(meta.get("labels")),
        _since(meta.get("creationTimestamp"), now_ns),
        _s(info.get("kubeletVersion")),
        _node_address(status, "InternalIP"),
        _node_address(status, "ExternalIP"),
        _s(info.get("osImage")) or UNKNOWN,
        _s(info.get("kernelVersion")) or UNKNOWN,
        _s(info.get("containerRuntimeVersion")) or UNKNOWN,
    ]
    return cells, []


def _print_namespace(ns: dict[str, Any], now_ns: int) -> Printed:
    meta = _meta(ns)
    phase = _s(_d(ns.get("status")).get("phase")) or "Active"
    return [_s(meta.get("name")), phase, _since(meta.get("creationTimestamp"), now_ns)], []
