"""The scheme's defaults of the RBAC bindings (SetDefaults_RoleBinding, _ClusterRoleBinding, _Subject).

A binding's roleRef and its User and Group subjects belong to rbac.authorization.k8s.io
unless they say otherwise; a ServiceAccount subject belongs to the core group ("").
"""

from __future__ import annotations

from typing import Any, Final

GROUP: Final = "rbac.authorization.k8s.io"


def default_binding(binding: dict[str, Any]) -> None:
    """roleRef.apiGroup, and each subject's apiGroup from its kind."""
    ref = binding.get("roleRef")
    if isinstance(ref, dict) and not ref.get("apiGroup"):
        ref["apiGroup"] = GROUP
    subjects = binding.get("subjects")
    for subject in subjects if isinstance(subjects, list) else []:
        if isinstance(subject, dict) and not subject.get("apiGroup") and subject.get("kind") in ("User", "Group"):
            subject["apiGroup"] = GROUP
