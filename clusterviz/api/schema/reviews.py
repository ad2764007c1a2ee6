"""authorization.k8s.io and authentication.k8s.io (v1): the self-reviews behind kubectl auth can-i and whoami."""

from __future__ import annotations

from .model import BOOL, STRING, STRINGS, array, define, kind, ref

_AUTHZ = "io.k8s.api.authorization.v1."
_AUTHN = "io.k8s.api.authentication.v1."

kind("authorization.k8s.io", "v1", "SelfSubjectAccessReview", _AUTHZ + "SelfSubjectAccessReview",
     "Asks whether the caller may do something; the answer comes back in status.",
     _AUTHZ + "SelfSubjectAccessReviewSpec", _AUTHZ + "SubjectAccessReviewStatus")
define(_AUTHZ + "SelfSubjectAccessReviewSpec", "What the caller asks about: an action on a resource, or on a path.", {
    "resourceAttributes": (ref(_AUTHZ + "ResourceAttributes"), "The action on a resource."),
    "nonResourceAttributes": (ref(_AUTHZ + "NonResourceAttributes"), "The action on a non-resource path."),
})
define(_AUTHZ + "ResourceAttributes", "An action on a resource.", {
    "namespace": (STRING, "The namespace of the action; empty for all namespaces or cluster-scoped resources."),
    "verb": (STRING, "The verb: get, list, watch, create, update, patch, delete, ..."),
    "group": (STRING, "The API group of the resource."),
    "version": (STRING, "The API version of the resource."),
    "resource": (STRING, "The resource, by its plural name."),
    "subresource": (STRING, "The subresource, if any."),
    "name": (STRING, "The object's name; empty for all of them."),
})
define(_AUTHZ + "NonResourceAttributes", "An action on a non-resource path.", {
    "path": (STRING, "The URL path."),
    "verb": (STRING, "The HTTP verb, in lower case."),
})
define(_AUTHZ + "SubjectAccessReviewStatus", "The answer.", {
    "allowed": (BOOL, "Whether the action is allowed."),
    "denied": (BOOL, "Whether the action is explicitly denied."),
    "reason": (STRING, "Why, in words."),
    "evaluationError": (STRING, "What went wrong while deciding, if anything."),
}, required=("allowed",))
kind("authentication.k8s.io", "v1", "SelfSubjectReview", _AUTHN + "SelfSubjectReview",
     "Asks who the caller is; the answer comes back in status.", None, _AUTHN + "SelfSubjectReviewStatus")
define(_AUTHN + "SelfSubjectReviewStatus", "Who the caller is.", {
    "userInfo": (ref(_AUTHN + "UserInfo"), "The caller, as the server authenticated them."),
})
define(_AUTHN + "UserInfo", "A user the server authenticated.", {
    "username": (STRING, "The user's name."),
    "uid": (STRING, "A unique identifier of the user."),
    "groups": (STRINGS, "The groups the user belongs to."),
})
kind("authorization.k8s.io", "v1", "SelfSubjectRulesReview", _AUTHZ + "SelfSubjectRulesReview",
     "Asks what the caller may do in a namespace; the answer comes back in status.",
     _AUTHZ + "SelfSubjectRulesReviewSpec", _AUTHZ + "SubjectRulesReviewStatus")
define(_AUTHZ + "SelfSubjectRulesReviewSpec", "Where the caller asks about.", {
    "namespace": (STRING, "The namespace to list the rules of."),
})
define(_AUTHZ + "SubjectRulesReviewStatus", "The answer: what the caller may do, as rules.", {
    "resourceRules": (array(ref(_AUTHZ + "ResourceRule")), "The verbs allowed on resources."),
    "nonResourceRules": (array(ref(_AUTHZ + "NonResourceRule")), "The verbs allowed on non-resource paths."),
    "incomplete": (BOOL, "Whether the list may miss rules (an authorizer that cannot list them)."),
    "evaluationError": (STRING, "What went wrong while listing, if anything."),
}, required=("resourceRules", "nonResourceRules", "incomplete"))
define(_AUTHZ + "ResourceRule", "Verbs allowed on resources.", {
    "verbs": (STRINGS, 'The verbs; "*" for all of them.'),
    "apiGroups": (STRINGS, 'The API groups; "*" for all of them.'),
    "resources": (STRINGS, 'The resources; "*" for all of them.'),
    "resourceNames": (STRINGS, "The objects' names; empty for all of them."),
}, required=("verbs",))
define(_AUTHZ + "NonResourceRule", "Verbs allowed on non-resource paths.", {
    "verbs": (STRINGS, 'The HTTP verbs, in lower case; "*" for all of them.'),
    "nonResourceURLs": (STRINGS, "The paths (a trailing * matches any suffix)."),
}, required=("verbs",))
