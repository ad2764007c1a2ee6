"""The RBAC kinds kubectl sends as protobuf (``kubectl create role``, ``create rolebinding`` ...), and its rules review.

Field numbers of k8s.io/api/rbac/v1/generated.proto; JSON presence as the Go
types' tags say (a role reference and a subject's kind and name are always written).
"""

from __future__ import annotations

from .protobuf import _KINDS, _LABEL_SELECTOR, _OBJECT_META, ALWAYS, KEEP, _f, _Message

_API_VERSION = "rbac.authorization.k8s.io/v1"

_POLICY_RULE = _Message(
    _f(1, "verbs", "string", repeated=True),
    _f(2, "apiGroups", "string", repeated=True),
    _f(3, "resources", "string", repeated=True),
    _f(4, "resourceNames", "string", repeated=True),
    _f(5, "nonResourceURLs", "string", repeated=True),
)
_SUBJECT = _Message(
    _f(1, "kind", "string", presence=ALWAYS),
    _f(2, "apiGroup", "string"),
    _f(3, "name", "string", presence=ALWAYS),
    _f(4, "namespace", "string"),
)
_ROLE_REF = _Message(
    _f(1, "apiGroup", "string", presence=ALWAYS),
    _f(2, "kind", "string", presence=ALWAYS),
    _f(3, "name", "string", presence=ALWAYS),
)
_BINDING = _Message(
    _f(1, "metadata", _OBJECT_META),
    _f(2, "subjects", _SUBJECT, repeated=True),
    _f(3, "roleRef", _ROLE_REF, presence=ALWAYS),
)

_KINDS[(_API_VERSION, "Role")] = _Message(_f(1, "metadata", _OBJECT_META), _f(2, "rules", _POLICY_RULE, repeated=True))
_KINDS[(_API_VERSION, "ClusterRole")] = _Message(
    _f(1, "metadata", _OBJECT_META),
    _f(2, "rules", _POLICY_RULE, repeated=True),
    _f(3, "aggregationRule", _Message(_f(1, "clusterRoleSelectors", _LABEL_SELECTOR, repeated=True)), presence=KEEP),
)
_KINDS[(_API_VERSION, "RoleBinding")] = _BINDING
_KINDS[(_API_VERSION, "ClusterRoleBinding")] = _BINDING

# The rules review ``kubectl auth can-i --list`` sends: the namespace it asks about.
_KINDS[("authorization.k8s.io/v1", "SelfSubjectRulesReview")] = _Message(
    _f(1, "metadata", _OBJECT_META), _f(2, "spec", _Message(_f(1, "namespace", "string")))
)
