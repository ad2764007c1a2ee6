"""OpenAPI v3 documents, just enough for kubectl apply's field validation.

kubectl 1.32 looks, per group-version-kind, for a PATCH operation that takes
a ``fieldValidation`` query parameter; finding one, it leaves validation to
the server (which does it) instead of downloading full schemas.
"""

from __future__ import annotations

from typing import Any

from . import resources


def root() -> dict[str, Any]:
    """GET /openapi/v3: one document per group-version."""
    paths = {}
    for group, versions in resources.group_versions().items():
        for version in versions:
            key = f"apis/{group}/{version}" if group else f"api/{version}"
            paths[key] = {"serverRelativeURL": f"/openapi/v3/{key}"}
    return {"paths": paths}


def document(gv_path: str) -> dict[str, Any] | None:
    """GET /openapi/v3/api/v1 or /openapi/v3/apis/<group>/<version>."""
    parts = gv_path.strip("/").split("/")
    if parts[:1] == ["api"] and len(parts) == 2:
        group, version, prefix = "", parts[1], f"/api/{parts[1]}"
    elif parts[:1] == ["apis"] and len(parts) == 3:
        group, version, prefix = parts[1], parts[2], f"/apis/{parts[1]}/{parts[2]}"
    else:
        return None
    served = resources.in_group_version(group, version)
    if not served:
        return None
    paths: dict[str, Any] = {}
    params = [
        {"name": "dryRun", "in": "query", "schema": {"type": "string"}},
        {"name": "fieldManager", "in": "query", "schema": {"type": "string"}},
        {"name": "fieldValidation", "in": "query", "schema": {"type": "string"}},
        {"name": "force", "in": "query", "schema": {"type": "boolean"}},
    ]
    for r in served:
        base = f"{prefix}/namespaces/{{namespace}}/{r.plural}" if r.namespaced else f"{prefix}/{r.plural}"
        gvk = {"group": group, "version": version, "kind": r.kind}
        paths[f"{base}/{{name}}"] = {
            "get": {"operationId": f"read{r.kind}", "x-kubernetes-group-version-kind": gvk},
            "patch": {
                "operationId": f"patch{r.kind}",
                "x-kubernetes-group-version-kind": gvk,
                "x-kubernetes-action": "patch",
                "parameters": params,
            },
        }
        paths[base] = {
            "post": {
                "operationId": f"create{r.kind}",
                "x-kubernetes-group-version-kind": gvk,
                "x-kubernetes-action": "post",
                "parameters": params[:3],
            }
        }
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.32.0"},
        "paths": paths,
    }
