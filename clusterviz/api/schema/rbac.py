"""The rbac.authorization.k8s.io group (v1): Roles and ClusterRoles say what may be done, bindings grant them."""

from __future__ import annotations

from .model import SELECTOR, STRING, STRINGS, array, define, kind, ref

_RBAC = "io.k8s.api.rbac.v1."

define(_RBAC + "PolicyRule", "Verbs allowed on resources (or non-resource URLs).", {
    "apiGroups": (STRINGS, 'The API groups of the resources; "" is the core group, "*" every group.'),
    "nonResourceURLs": (STRINGS, "URL paths (a trailing * matches any suffix); only in ClusterRoles."),
    "resourceNames": (STRINGS, "The names of the objects the rule covers; empty for all of them."),
    "resources": (STRINGS, 'Resources (and resource/subresource); "*" for all of them.'),
    "verbs": (STRINGS, 'The verbs allowed: get, list, watch, create, update, patch, delete, ... or "*".'),
}, required=("verbs",))
define(_RBAC + "AggregationRule", "Which ClusterRoles' rules make up this one.", {
    "clusterRoleSelectors": (array(SELECTOR), "ClusterRoles whose labels match any of these are aggregated."),
})
define(_RBAC + "RoleRef", "The role a binding grants.", {
    "apiGroup": (STRING, "The group of the role: rbac.authorization.k8s.io."),
    "kind": (STRING, "Role or ClusterRole."),
    "name": (STRING, "The role's name."),
}, required=("apiGroup", "kind", "name"))
define(_RBAC + "Subject", "Who a binding grants the role to: a user, a group or a ServiceAccount.", {
    "apiGroup": (STRING, 'rbac.authorization.k8s.io for users and groups, "" for ServiceAccounts.'),
    "kind": (STRING, "User, Group or ServiceAccount."),
    "name": (STRING, "The subject's name."),
    "namespace": (STRING, "The ServiceAccount's namespace."),
}, required=("kind", "name"))

_RULES = (array(ref(_RBAC + "PolicyRule")), "The rules of the role.")
_SUBJECTS = (array(ref(_RBAC + "Subject")), "Who the role is granted to.")
_ROLE_REF = (ref(_RBAC + "RoleRef"), "The role granted; it cannot change once the binding exists.")

kind("rbac.authorization.k8s.io", "v1", "Role", _RBAC + "Role",
     "Rules that grant access to resources in one namespace.", extra={"rules": _RULES})
kind("rbac.authorization.k8s.io", "v1", "ClusterRole", _RBAC + "ClusterRole",
     "Rules that grant access to resources in every namespace, cluster-scoped resources or URLs.", extra={
         "aggregationRule": (ref(_RBAC + "AggregationRule"), "When set, the rules are those of the selected ClusterRoles."),
         "rules": _RULES,
     })
kind("rbac.authorization.k8s.io", "v1", "RoleBinding", _RBAC + "RoleBinding",
     "Grants a Role or ClusterRole to subjects in one namespace.",
     extra={"roleRef": _ROLE_REF, "subjects": _SUBJECTS}, required=("roleRef",))
kind("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", _RBAC + "ClusterRoleBinding",
     "Grants a ClusterRole to subjects across the whole cluster.",
     extra={"roleRef": _ROLE_REF, "subjects": _SUBJECTS}, required=("roleRef",))
