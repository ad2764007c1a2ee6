"""The RBAC printers: what kubectl get roles, clusterroles, rolebindings and clusterrolebindings show."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import dict_or_empty, str_or_empty

from .common import Printed, _meta, _rfc3339, _since, parse_timestamp_ns


def _print_role(role: dict[str, Any], now_ns: int) -> Printed:
    """printRole / printClusterRole: the name and when it was created (RFC 3339, not an age)."""
    meta = _meta(role)
    return [str_or_empty(meta.get("name")), _rfc3339(parse_timestamp_ns(meta.get("creationTimestamp")))], []


def _subjects(binding: dict[str, Any]) -> tuple[str, str, str]:
    """SubjectsStrings: users, groups and ServiceAccounts (namespace/name), each joined by ", "."""
    users: list[str] = []
    groups: list[str] = []
    accounts: list[str] = []
    subjects = binding.get("subjects")
    for subject in subjects if isinstance(subjects, list) else []:
        subject = dict_or_empty(subject)
        name = str_or_empty(subject.get("name"))
        if subject.get("kind") == "User":
            users.append(name)
        elif subject.get("kind") == "Group":
            groups.append(name)
        elif subject.get("kind") == "ServiceAccount":
            accounts.append(f"{str_or_empty(subject.get('namespace'))}/{name}")
    return ", ".join(users), ", ".join(groups), ", ".join(accounts)


def _print_role_binding(binding: dict[str, Any], now_ns: int) -> Printed:
    """printRoleBinding / printClusterRoleBinding: name, Kind/name of the role, age; subjects with -o wide."""
    meta, ref = _meta(binding), dict_or_empty(binding.get("roleRef"))
    return [
        str_or_empty(meta.get("name")),
        f"{str_or_empty(ref.get('kind'))}/{str_or_empty(ref.get('name'))}",
        _since(meta.get("creationTimestamp"), now_ns),
        *_subjects(binding),
    ], []
