"""The RBAC authorizer: what a cluster's Roles, ClusterRoles and bindings allow a user.

The classroom's rules decide first (classroom.access, the way a cluster's own
authorizers run before RBAC); what they refuse, the cluster's RBAC objects may
still allow, so a teacher can grant a student more with a RoleBinding. The
matching follows upstream's RBAC authorizer: a binding applies to a user by name,
to any of their groups, or to a ServiceAccount's ``system:serviceaccount:<ns>:<name>``;
a rule matches by verb, API group, resource (``*``, ``resource/subresource``,
``*/subresource``) and resource name, or by non-resource URL (a trailing ``*``
matches any suffix).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from clusterviz.apimachinery.unstructured import dict_or_empty, str_or_empty

from . import errors
from .client import Client


@dataclass(frozen=True)
class Attributes:
    """One action: a verb on a resource (in a namespace, maybe one object) or on a URL path."""

    verb: str
    resource: str = ""
    group: str = ""
    namespace: str = ""
    name: str = ""
    subresource: str = ""
    path: str = ""

    @property
    def is_resource(self) -> bool:
        return not self.path


@dataclass(frozen=True)
class Grant:
    """A rule and the binding it came through."""

    rule: dict[str, Any]
    binding_kind: str
    binding: str
    role_kind: str
    role: str
    subject: str

    def reason(self) -> str:
        """What upstream's authorizer says when this grant allows a request."""
        return (f'RBAC: allowed by {self.binding_kind} "{self.binding}" of {self.role_kind} "{self.role}" '
                f"to {self.subject}")


def _strings(rule: dict[str, Any], name: str) -> list[str]:
    value = rule.get(name)
    return [str(v) for v in value] if isinstance(value, list) else []


def rule_allows(rule: dict[str, Any], attrs: Attributes) -> bool:
    """RuleAllows / NonResourceURLMatches for one PolicyRule."""
    verbs = _strings(rule, "verbs")
    if "*" not in verbs and attrs.verb not in verbs:
        return False
    if not attrs.is_resource:
        return any(url == "*" or url == attrs.path or url.endswith("*") and attrs.path.startswith(url[:-1])
                   for url in _strings(rule, "nonResourceURLs"))
    groups = _strings(rule, "apiGroups")
    if "*" not in groups and attrs.group not in groups:
        return False
    wanted = f"{attrs.resource}/{attrs.subresource}" if attrs.subresource else attrs.resource
    resources = _strings(rule, "resources")
    if not any(r in ("*", wanted) or attrs.subresource and r == f"*/{attrs.subresource}" for r in resources):
        return False
    names = _strings(rule, "resourceNames")
    return not names or attrs.name in names


def _subject_matches(subject: dict[str, Any], user: str, groups: tuple[str, ...], binding_namespace: str) -> str:
    """How ``subject`` names the user (for the reason), or "" when it does not."""
    kind, name = str_or_empty(subject.get("kind")), str_or_empty(subject.get("name"))
    if kind == "User" and name == user:
        return f'User "{name}"'
    if kind == "Group" and name in groups:
        return f'Group "{name}"'
    if kind == "ServiceAccount":
        namespace = str_or_empty(subject.get("namespace")) or binding_namespace
        if user == f"system:serviceaccount:{namespace}:{name}":
            return f'ServiceAccount "{name}/{namespace}"'
    return ""


async def _role_rules(client: Client, ref: dict[str, Any], namespace: str) -> list[dict[str, Any]]:
    plural = "clusterroles" if ref.get("kind") == "ClusterRole" else "roles"
    try:
        role = await client.get(plural, str_or_empty(ref.get("name")), "" if plural == "clusterroles" else namespace)
    except errors.StatusError as exc:
        if exc.code == 404:
            return []  # a binding to a role that does not exist grants nothing
        raise
    rules = role.get("rules")
    return [dict_or_empty(r) for r in rules] if isinstance(rules, list) else []


async def grants(cluster: str, user: str, groups: tuple[str, ...], namespace: str) -> list[Grant]:
    """Every rule the cluster's bindings give the user: cluster-wide ones, then those of ``namespace``."""
    client = Client(cluster, "kube-apiserver", simulated=False)
    found: list[Grant] = []
    bindings = [("ClusterRoleBinding", b) for b in (await client.list("clusterrolebindings"))["items"]]
    if namespace:
        bindings += [("RoleBinding", b) for b in (await client.list("rolebindings", namespace))["items"]]
    for binding_kind, binding in bindings:
        meta = dict_or_empty(binding.get("metadata"))
        subjects = binding.get("subjects")
        matches = [_subject_matches(dict_or_empty(s), user, groups, str_or_empty(meta.get("namespace")))
                   for s in (subjects if isinstance(subjects, list) else [])]
        matched = next((m for m in matches if m), "")
        if not matched:
            continue
        ref = dict_or_empty(binding.get("roleRef"))
        name, binding_namespace = str_or_empty(meta.get("name")), str_or_empty(meta.get("namespace"))
        # Upstream names a RoleBinding "name/namespace" in its reasons.
        shown = f"{name}/{binding_namespace}" if binding_kind == "RoleBinding" else name
        for rule in await _role_rules(client, ref, binding_namespace):
            found.append(Grant(rule, binding_kind, shown, str_or_empty(ref.get("kind")), str_or_empty(ref.get("name")),
                               matched))
    return found


async def authorize(cluster: str, user: str, groups: tuple[str, ...], attrs: Attributes) -> Grant | None:
    """The grant that allows ``attrs``, or None when the cluster's RBAC objects allow nothing of the kind."""
    for grant in await grants(cluster, user, groups, attrs.namespace):
        if rule_allows(grant.rule, attrs):
            return grant
    return None
