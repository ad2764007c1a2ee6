"""RBAC's escalation check: nobody grants through a Role or a binding more than they hold themselves.

As upstream's RBAC storage: writing a Role or ClusterRole needs every right it
lists (or the ``escalate`` verb on it), writing a binding needs every right of
the role it names (or the ``bind`` verb on that role). The rights held are what
the cluster's bindings give the caller; the classroom's write access (teachers,
a sandbox's student, the cluster's own components) holds them all. The refusal
is upstream's 403 with the missing rights, broken down to single verbs on single
resources and compacted again by resource.
"""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.unstructured import dict_or_empty, str_or_empty

from . import errors
from .request import ApiRequest
from .resources import Resource

GROUP: Final = "rbac.authorization.k8s.io"
ROLE_KINDS: Final = ("Role", "ClusterRole")
BINDING_KINDS: Final = ("RoleBinding", "ClusterRoleBinding")


def _strings(rule: dict[str, Any], name: str) -> list[str]:
    value = rule.get(name)
    return [str(v) for v in value] if isinstance(value, list) else []


def breakdown(rule: dict[str, Any]) -> list[dict[str, Any]]:
    """BreakdownRule: one rule per verb on one resource of one group (and one name), or per verb on one URL."""
    out: list[dict[str, Any]] = []
    verbs = _strings(rule, "verbs")
    for group in _strings(rule, "apiGroups"):
        for resource in _strings(rule, "resources"):
            for verb in verbs:
                names = _strings(rule, "resourceNames")
                out += [{"apiGroups": [group], "resources": [resource], "resourceNames": [n], "verbs": [verb]}
                        for n in names] or [{"apiGroups": [group], "resources": [resource], "verbs": [verb]}]
    for url in _strings(rule, "nonResourceURLs"):
        out += [{"nonResourceURLs": [url], "verbs": [verb]} for verb in verbs]
    return out


def _resource_covered(owned: list[str], wanted: str) -> bool:
    if "*" in owned or wanted in owned:
        return True
    return "/" in wanted and "*/" + wanted.split("/", 1)[1] in owned


def covers(owner: dict[str, Any], atomic: dict[str, Any]) -> bool:
    """ruleCovers: whether one held rule includes one broken-down rule."""
    verbs = _strings(owner, "verbs")
    if "*" not in verbs and atomic["verbs"][0] not in verbs:
        return False
    if "nonResourceURLs" in atomic:
        url = atomic["nonResourceURLs"][0]
        return any(u == "*" or u == url or u.endswith("*") and url.startswith(u[:-1])
                   for u in _strings(owner, "nonResourceURLs"))
    groups = _strings(owner, "apiGroups")
    if "*" not in groups and atomic["apiGroups"][0] not in groups:
        return False
    if not _resource_covered(_strings(owner, "resources"), atomic["resources"][0]):
        return False
    names = _strings(owner, "resourceNames")
    return not names or all(n in names for n in atomic.get("resourceNames", []))


def missing_rights(held: list[dict[str, Any]], wanted: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Covers: the broken-down rules of ``wanted`` that no held rule includes."""
    return [a for rule in wanted for a in breakdown(rule) if not any(covers(h, a) for h in held)]


def _quoted(values: list[str]) -> str:
    """Go's %q of a []string: ["a" "b"]."""
    return "[" + " ".join(f'"{v}"' for v in values) + "]"


def compact_string(rule: dict[str, Any]) -> str:
    """CompactString: the rule's non-empty parts, in upstream's order and quoting."""
    parts = [f"{title}:{_quoted(rule[key])}" for key, title in (
        ("apiGroups", "APIGroups"), ("resources", "Resources"), ("nonResourceURLs", "NonResourceURLs"),
        ("resourceNames", "ResourceNames"), ("verbs", "Verbs"),
    ) if rule.get(key)]
    return "{" + ", ".join(parts) + "}"


def compact(rules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """CompactRules: single-resource rules that differ only by their verbs become one."""
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    out: list[dict[str, Any]] = []
    for rule in rules:
        if set(rule) == {"apiGroups", "resources", "verbs"}:
            key = (rule["apiGroups"][0], rule["resources"][0])
            if key in merged:
                merged[key]["verbs"] = [*merged[key]["verbs"], *rule["verbs"]]
                continue
            merged[key] = {**rule, "verbs": list(rule["verbs"])}
            out.append(merged[key])
        else:
            out.append(rule)
    return out


async def _bound_rules(req: ApiRequest, obj: dict[str, Any], namespace: str) -> list[dict[str, Any]]:
    from .client import Client  # the client imports the server, whose handlers import this module

    ref = dict_or_empty(obj.get("roleRef"))
    plural = "clusterroles" if ref.get("kind") == "ClusterRole" else "roles"
    role = await Client(req.cluster, "kube-apiserver", simulated=False).get_or_none(
        plural, str_or_empty(ref.get("name")), "" if plural == "clusterroles" else namespace)
    rules = (role or {}).get("rules")
    return [dict_or_empty(r) for r in rules] if isinstance(rules, list) else []


async def confirm_no_escalation(req: ApiRequest, resource: Resource, obj: dict[str, Any]) -> None:
    """Refuse (403) a Role or binding write that grants rights the caller does not hold."""
    if resource.group != GROUP or resource.kind not in ROLE_KINDS + BINDING_KINDS or req.granted == "write":
        return
    from . import authorizer  # it reads through the client, which imports the server, whose handlers import this

    meta = dict_or_empty(obj.get("metadata"))
    name, namespace = str_or_empty(meta.get("name")), str_or_empty(meta.get("namespace"))
    user, groups = req.user or "system:anonymous", tuple(req.groups)
    if resource.kind in ROLE_KINDS:
        rules = obj.get("rules")
        wanted = [dict_or_empty(r) for r in rules] if isinstance(rules, list) else []
        waiver = authorizer.Attributes("escalate", resource.plural, GROUP, namespace, name)
    else:
        ref = dict_or_empty(obj.get("roleRef"))
        wanted = await _bound_rules(req, obj, namespace)
        role_plural = "clusterroles" if ref.get("kind") == "ClusterRole" else "roles"
        waiver = authorizer.Attributes("bind", role_plural, GROUP, namespace, str_or_empty(ref.get("name")))
    if await authorizer.authorize(req.cluster, user, groups, waiver) is not None:
        return
    held = [g.rule for g in await authorizer.grants(req.cluster, user, groups, namespace)]
    missing = missing_rights(held, wanted)
    if missing:
        described = "\n".join(sorted({compact_string(r) for r in compact(missing)}))
        raise errors.forbidden_resource(resource.plural, resource.group, name, (
            f"user {_quoted([user])[1:-1]} (groups={_quoted(list(groups))}) is attempting to grant RBAC permissions "
            f"not currently held:\n{described}"
        ))
