"""Defaults of networking.k8s.io/v1 objects, as upstream's SetDefaults_IngressClass."""

from __future__ import annotations

from typing import Any


def default_ingress_class(ingress_class: dict[str, Any]) -> None:
    """A parameters reference that names no scope refers to a cluster-scoped object."""
    spec = ingress_class.get("spec")
    params = spec.get("parameters") if isinstance(spec, dict) else None
    if isinstance(params, dict) and params.get("scope") is None:
        params["scope"] = "Cluster"
