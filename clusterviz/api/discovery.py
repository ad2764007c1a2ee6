"""Discovery documents: /version, /api, /apis, and each group-version's resource list.

/api and /apis also come aggregated (``apidiscovery.k8s.io``), as kube-apiserver serves them to a
client that asks for them in its Accept header: every resource of every group version in one
document, so that kubectl learns the API in two requests instead of one per group version.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import resources

# The machine's kubectl dispatcher picks its binary from "minor"; 32 selects the embedded v1.32.
VERSION_INFO = {
    "major": "1",
    "minor": "32",
    "gitVersion": "v1.32.0",
    "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean",
    "buildDate": "2025-01-01T00:00:00Z",
    "goVersion": "go1.23.4",
    "compiler": "gc",
    "platform": "linux/amd64",
}


def _server_address(host: str) -> list[dict[str, str]]:
    return [{"clientCIDR": "0.0.0.0/0", "serverAddress": host}]


def core_versions(host: str) -> dict[str, Any]:
    """GET /api."""
    return {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": _server_address(host)}


def _versions(custom: Sequence[resources.Resource]) -> dict[str, list[str]]:
    """Every group with its versions: the built-in ones, then the cluster's custom resources' groups."""
    out = resources.group_versions()
    for r in custom:
        versions = out.setdefault(r.group, [])
        if r.version not in versions:
            versions.append(r.version)
    return out


def group_list(custom: Sequence[resources.Resource] = ()) -> dict[str, Any]:
    """GET /apis."""
    groups = []
    for group, versions in _versions(custom).items():
        if not group:
            continue
        groups.append(_group(group, versions))
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def _group(group: str, versions: list[str]) -> dict[str, Any]:
    gvs = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {"name": group, "versions": gvs, "preferredVersion": gvs[0]}


def group(name: str, custom: Sequence[resources.Resource] = ()) -> dict[str, Any] | None:
    """GET /apis/<group>."""
    versions = _versions(custom).get(name)
    if not versions or not name:
        return None
    return {"kind": "APIGroup", "apiVersion": "v1", **_group(name, versions)}


def _served(group: str, version: str, custom: Sequence[resources.Resource]) -> list[resources.Resource]:
    """The resources of one group version: the built-in ones, then the cluster's custom ones."""
    return resources.in_group_version(group, version) + [r for r in custom if (r.group, r.version) == (group, version)]


def _names(r: resources.Resource) -> dict[str, list[str]]:
    """A resource's short names and categories, where it has them (both documents leave empty ones out)."""
    out = {}
    if r.short_names:
        out["shortNames"] = list(r.short_names)
    if r.categories:
        out["categories"] = list(r.categories)
    return out


def resource_list(group: str, version: str, custom: Sequence[resources.Resource] = ()) -> dict[str, Any] | None:
    """GET /api/v1 or /apis/<group>/<version>: an APIResourceList."""
    served = _served(group, version, custom)
    if not served:
        return None
    entries: list[dict[str, Any]] = []
    for r in served:
        entry: dict[str, Any] = {
            "name": r.plural,
            "singularName": r.singular,
            "namespaced": r.namespaced,
            "kind": r.kind,
            "verbs": list(r.verbs),
            **_names(r),
        }
        entries.append(entry)
        for sub in r.subresources:
            entries.append(_subresource(r, sub))
    gv = f"{group}/{version}" if group else version
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": entries}


def _subresource(r: resources.Resource, sub: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": f"{r.plural}/{sub}", "singularName": "", "namespaced": r.namespaced}
    if sub == "scale":
        entry.update(group="autoscaling", version="v1", kind="Scale", verbs=["get", "patch", "update"])
    elif sub == "binding":
        entry.update(kind="Binding", verbs=["create"])
    elif sub == "eviction":
        entry.update(group="policy", version="v1", kind="Eviction", verbs=["create"])
    elif sub == "finalize":
        entry.update(kind=r.kind, verbs=["update"])
    elif sub == "log":
        entry.update(kind="Pod", verbs=["get"])
    elif sub in ("exec", "attach", "portforward"):
        kind = {"exec": "PodExecOptions", "attach": "PodAttachOptions", "portforward": "PodPortForwardOptions"}[sub]
        entry.update(kind=kind, verbs=["create", "get"])
    else:
        entry.update(kind=r.kind, verbs=["get", "patch", "update"])
    return entry


AGGREGATED_VERSIONS = ("v2", "v2beta1")


def aggregated_version(accept: str) -> str | None:
    """The ``apidiscovery.k8s.io`` version an Accept header prefers (v2 or v2beta1); None for the plain documents."""
    for media_range in accept.split(","):
        media, *parameters = (part.strip() for part in media_range.split(";"))
        params = dict(part.split("=", 1) for part in parameters if "=" in part)
        if (params.get("g"), params.get("as")) == ("apidiscovery.k8s.io", "APIGroupDiscoveryList"):
            if media == "application/json" and params.get("v") in AGGREGATED_VERSIONS:
                return params["v"]
        elif media in ("application/json", "*/*", "application/*"):
            return None
    return None


def aggregated_content_type(version: str) -> str:
    return f"application/json;g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList"


def _response_kind(group: str, version: str, kind: str) -> dict[str, str]:
    return {"group": group, "version": version, "kind": kind}


def _resource_discovery(r: resources.Resource) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "resource": r.plural,
        # The resource's own kind, in its own group version, is named by kind alone.
        "responseKind": _response_kind("", "", r.kind),
        "scope": "Namespaced" if r.namespaced else "Cluster",
        "singularResource": r.singular,
        "verbs": list(r.verbs),
        **_names(r),
    }
    subresources = []
    for sub in r.subresources:
        plain = _subresource(r, sub)
        subresources.append({
            "subresource": sub,
            "responseKind": _response_kind(plain.get("group", ""), plain.get("version", ""), plain["kind"]),
            "verbs": plain["verbs"],
        })
    if subresources:
        entry["subresources"] = subresources
    return entry


def _group_discovery(group: str, versions: list[str], custom: Sequence[resources.Resource]) -> dict[str, Any]:
    listed = []
    for version in versions:
        served = _served(group, version, custom)
        listed.append({"version": version, "resources": [_resource_discovery(r) for r in served],
                       "freshness": "Current"})
    meta: dict[str, Any] = {"name": group, "creationTimestamp": None} if group else {"creationTimestamp": None}
    return {"metadata": meta, "versions": listed}


def aggregated(version: str, core: bool, custom: Sequence[resources.Resource] = ()) -> dict[str, Any]:
    """GET /api (``core``) or /apis as an APIGroupDiscoveryList."""
    groups = {"": ["v1"]} if core else {g: v for g, v in _versions(custom).items() if g}
    return {
        "kind": "APIGroupDiscoveryList",
        "apiVersion": f"apidiscovery.k8s.io/{version}",
        "metadata": {},
        "items": [_group_discovery(group, versions, () if core else custom) for group, versions in groups.items()],
    }
