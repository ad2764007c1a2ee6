"""The ClusterRoles and ClusterRoleBindings every cluster starts with.

Upstream's bootstrap policy, for the resources this server serves: cluster-admin,
the user-facing admin, edit and view (aggregated from their ``system:aggregate-to-*``
parts), and what any caller may do (system:basic-user, system:discovery,
system:public-info-viewer). The classroom's rules are stated the same way: teachers
(the ``clusterviz:teachers`` group) are cluster-admin everywhere, and a student is
cluster-admin of their own sandbox (``sandbox_owner_binding``), and a class's students
(all callers, for a public class) may read its demo (``class_readers_binding``, with
``clusterviz:reader``: get, list and watch on everything). Nothing here decides a
request: ``classroom.access`` does, and these objects say what it decides.
"""

from __future__ import annotations

from typing import Any, Final

from clusterviz.classroom.access import TEACHERS_GROUP

GROUP: Final = "rbac.authorization.k8s.io"
API_VERSION: Final = f"{GROUP}/v1"
# What upstream marks its bootstrap objects with: kubectl users recognise them by these.
BOOTSTRAP_LABELS: Final = {"kubernetes.io/bootstrapping": "rbac-defaults"}
AUTOUPDATE: Final = {"rbac.authorization.kubernetes.io/autoupdate": "true"}
READ: Final = ["get", "list", "watch"]
READER: Final = "clusterviz:reader"
CLASS_READERS: Final = "clusterviz:class-readers"
WRITE: Final = ["create", "delete", "deletecollection", "patch", "update"]


def _rule(groups: list[str], resources: list[str], verbs: list[str]) -> dict[str, Any]:
    return {"apiGroups": groups, "resources": resources, "verbs": verbs}


_TO_VIEW: Final = [
    _rule([""], ["configmaps", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "pods",
                 "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services",
                 "services/status"], READ),
    _rule([""], ["limitranges", "resourcequotas", "resourcequotas/status"], READ),
    _rule([""], ["events", "namespaces/status", "pods/log", "pods/status", "replicationcontrollers/status"], READ),
    _rule([""], ["namespaces"], READ),
    _rule(["apps"], ["controllerrevisions", "daemonsets", "daemonsets/status", "deployments", "deployments/scale",
                     "deployments/status", "replicasets", "replicasets/scale", "replicasets/status", "statefulsets",
                     "statefulsets/scale", "statefulsets/status"], READ),
    _rule(["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"], READ),
    _rule(["batch"], ["cronjobs", "cronjobs/status", "jobs", "jobs/status"], READ),
    _rule(["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"], READ),
    _rule(["networking.k8s.io"], ["ingresses", "ingresses/status"], READ),
]
_TO_EDIT: Final = [
    _rule([""], ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"], READ),
    _rule([""], ["serviceaccounts"], ["impersonate"]),
    _rule([""], ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"], WRITE),
    _rule([""], ["pods/eviction"], ["create"]),
    _rule([""], ["configmaps", "events", "persistentvolumeclaims", "replicationcontrollers",
                 "replicationcontrollers/scale", "secrets", "serviceaccounts", "services", "services/proxy"], WRITE),
    _rule([""], ["serviceaccounts/token"], ["create"]),
    _rule(["apps"], ["daemonsets", "deployments", "deployments/rollback", "deployments/scale", "replicasets",
                     "replicasets/scale", "statefulsets", "statefulsets/scale"], WRITE),
    _rule(["autoscaling"], ["horizontalpodautoscalers"], WRITE),
    _rule(["batch"], ["cronjobs", "jobs"], WRITE),
    _rule(["policy"], ["poddisruptionbudgets"], WRITE),
    _rule(["networking.k8s.io"], ["ingresses"], WRITE),
]
_TO_ADMIN: Final = [
    _rule(["authorization.k8s.io"], ["localsubjectaccessreviews"], ["create"]),
    _rule([GROUP], ["rolebindings", "roles"], [*WRITE[:3], "get", "list", "patch", "update", "watch"]),
]


def _cluster_role(name: str, rules: list[dict[str, Any]], labels: dict[str, str] | None = None,
                  aggregate_from: str = "") -> dict[str, Any]:
    role: dict[str, Any] = {
        "apiVersion": API_VERSION, "kind": "ClusterRole",
        "metadata": {"name": name, "labels": {**BOOTSTRAP_LABELS, **(labels or {})}, "annotations": dict(AUTOUPDATE)},
        "rules": rules,
    }
    if aggregate_from:
        selector = {"matchLabels": {f"{GROUP}/aggregate-to-{aggregate_from}": "true"}}
        role["aggregationRule"] = {"clusterRoleSelectors": [selector]}
    return role


def _subject(kind: str, name: str) -> dict[str, Any]:
    return {"apiGroup": GROUP, "kind": kind, "name": name}


def cluster_role_binding(name: str, role: str, subjects: list[dict[str, Any]], builtin: bool = True) -> dict[str, Any]:
    """A ClusterRoleBinding of ``role`` to ``subjects`` (with upstream's bootstrap marks when ``builtin``)."""
    meta: dict[str, Any] = {"name": name}
    if builtin:
        meta.update(labels=dict(BOOTSTRAP_LABELS), annotations=dict(AUTOUPDATE))
    return {"apiVersion": API_VERSION, "kind": "ClusterRoleBinding", "metadata": meta,
            "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": role}, "subjects": subjects}


def _aggregate(label: str) -> dict[str, str]:
    return {f"{GROUP}/aggregate-to-{label}": "true"}


def builtin_objects() -> list[dict[str, Any]]:
    """The bootstrap ClusterRoles, then their bindings, in the order they are created."""
    discovery_urls = ["/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*",
                      "/readyz", "/version", "/version/"]
    public_urls = ["/healthz", "/livez", "/readyz", "/version", "/version/"]
    authenticated, unauthenticated = _subject("Group", "system:authenticated"), _subject("Group", "system:unauthenticated")
    return [
        _cluster_role("cluster-admin", [_rule(["*"], ["*"], ["*"]), {"nonResourceURLs": ["*"], "verbs": ["*"]}]),
        # The aggregated roles carry their parts' rules, as the aggregation controller writes them: the parts in
        # name order (admin's are edit, then system:aggregate-to-admin), each rule once.
        _cluster_role("admin", _TO_EDIT + _TO_VIEW + _TO_ADMIN, aggregate_from="admin"),
        _cluster_role("edit", _TO_EDIT + _TO_VIEW, _aggregate("admin"), aggregate_from="edit"),
        _cluster_role("view", list(_TO_VIEW), _aggregate("edit"), aggregate_from="view"),
        _cluster_role("system:aggregate-to-admin", _TO_ADMIN, _aggregate("admin")),
        _cluster_role("system:aggregate-to-edit", _TO_EDIT, _aggregate("edit")),
        _cluster_role("system:aggregate-to-view", _TO_VIEW, _aggregate("view")),
        _cluster_role("system:basic-user", [
            _rule(["authorization.k8s.io"], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"], ["create"]),
            _rule(["authentication.k8s.io"], ["selfsubjectreviews"], ["create"]),
        ]),
        _cluster_role("system:discovery", [{"nonResourceURLs": discovery_urls, "verbs": ["get"]}]),
        _cluster_role("system:public-info-viewer", [{"nonResourceURLs": public_urls, "verbs": ["get"]}]),
        cluster_role_binding("cluster-admin", "cluster-admin", [_subject("Group", "system:masters")]),
        cluster_role_binding("system:basic-user", "system:basic-user", [authenticated]),
        cluster_role_binding("system:discovery", "system:discovery", [authenticated]),
        cluster_role_binding("system:public-info-viewer", "system:public-info-viewer", [authenticated, unauthenticated]),
        # The classroom's first rule: a teacher may write every cluster.
        cluster_role_binding(TEACHERS_GROUP, "cluster-admin", [_subject("Group", TEACHERS_GROUP)], builtin=False),
        {"apiVersion": API_VERSION, "kind": "ClusterRole", "metadata": {"name": READER},
         "rules": [_rule(["*"], ["*"], READ)]},
    ]


def class_readers_binding(public: bool) -> dict[str, Any]:
    """The classroom's rule for a class's demo: its students read it (each added as they join), anybody if public."""
    everybody = [_subject("Group", "system:authenticated"), _subject("Group", "system:unauthenticated")]
    return cluster_role_binding(CLASS_READERS, READER, everybody if public else [], builtin=False)


def reader_subject(username: str) -> dict[str, Any]:
    """A student, as the demo's readers binding names them."""
    return _subject("User", username)


def sandbox_owner_binding(username: str) -> dict[str, Any]:
    """The classroom's rule for a sandbox: its student may write it (and nobody else, teachers aside)."""
    return cluster_role_binding("clusterviz:sandbox-owner", "cluster-admin", [_subject("User", username)], builtin=False)
