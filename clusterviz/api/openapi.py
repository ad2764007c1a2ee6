"""OpenAPI v3 (one document per group-version) and v2 (swagger 2.0), made from the kinds' descriptions.

kubectl reads them for ``explain``, for strategic-merge patch metadata, and
to learn that the server checks fields itself (a PATCH operation taking a
``fieldValidation`` query parameter). Documents are built once per process.
"""

from __future__ import annotations

import functools
import hashlib
import json
import time
from collections.abc import Sequence
from email.utils import formatdate
from typing import Any

from . import openapi_proto, resources, schema
from .schema.model import DEFINITIONS, META, Definition, Type

V3_REF = "#/components/schemas/"
V2_REF = "#/definitions/"
INFO = {"title": "Kubernetes", "version": "v1.32.0"}
# kubectl matches these by name and location to decide the server validates fields itself.
_WRITE_PARAMS = ("dryRun", "fieldManager", "fieldValidation")


def _gv_key(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"


def _type_schema(t: Type, prefix: str, v3: bool) -> dict[str, Any]:
    """The schema of a type as a field or list item uses it."""
    if t.kind == "ref":
        # v3 wraps a reference so a description can sit beside it, as upstream's documents do.
        return {"allOf": [{"$ref": prefix + t.ref}]} if v3 else {"$ref": prefix + t.ref}
    if t.kind == "array" and t.item is not None:
        out: dict[str, Any] = {"type": "array", "items": _type_schema(t.item, prefix, v3)}
        if t.item.kind == "ref" and v3:
            out["items"]["default"] = {}
        if t.list_type:
            out["x-kubernetes-list-type"] = t.list_type
        if t.map_keys:
            out["x-kubernetes-list-map-keys"] = list(t.map_keys)
            out["x-kubernetes-patch-merge-key"] = t.map_keys[0]
            out["x-kubernetes-patch-strategy"] = "merge"
        elif t.list_type == "set":
            out["x-kubernetes-patch-strategy"] = "merge"
        return out
    if t.kind == "map" and t.item is not None:
        return {"type": "object", "additionalProperties": _type_schema(t.item, prefix, v3)}
    if t.kind == "object":
        return {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    out = {"type": t.kind}
    if t.format:
        out["format"] = t.format
    if t.enum:
        out["enum"] = list(t.enum)
    return out


def _definition_schema(d: Definition, prefix: str, v3: bool) -> dict[str, Any]:
    if d.scalar_v3 is not None:
        return {"description": d.description, **(d.scalar_v3 if v3 else d.scalar_v2 or {})}
    out: dict[str, Any] = {"description": d.description, "type": "object"}
    props = {}
    for name, f in d.fields.items():
        props[name] = {"description": f.description, **_type_schema(f.type, prefix, v3)}
    if props:
        out["properties"] = props
    if d.required:
        out["required"] = list(d.required)
    if d.gvk:
        group, version, kind_name = d.gvk
        out["x-kubernetes-group-version-kind"] = [{"group": group, "kind": kind_name, "version": version}]
    if d.open:
        out["x-kubernetes-preserve-unknown-fields"] = True
    return out


def _refs(t: Type) -> list[str]:
    if t.kind == "ref":
        return [t.ref]
    return _refs(t.item) if t.item is not None else []


def _closure(names: list[str]) -> list[str]:
    """The named definitions and every definition they reach, sorted as upstream lists them."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen or name not in DEFINITIONS:
            continue
        seen.add(name)
        for f in DEFINITIONS[name].fields.values():
            todo.extend(_refs(f.type))
    return sorted(seen)


def _kind_definitions(served: list[resources.Resource]) -> list[str]:
    return [schema.for_kind(r.group, r.version, r.kind).name for r in served]


def _operations(r: resources.Resource, base: str, v3: bool) -> dict[str, Any]:
    """The GET/PATCH/POST operations of one resource, each naming its kind."""
    gvk = {"group": r.group, "kind": r.kind, "version": r.version}
    name = schema.for_kind(r.group, r.version, r.kind).name
    ref = {"$ref": (V3_REF if v3 else V2_REF) + name}
    if v3:
        def param(n: str, t: str) -> dict[str, Any]:
            return {"name": n, "in": "query", "schema": {"type": t, "uniqueItems": True}}
        body = {"requestBody": {"content": {"*/*": {"schema": ref}}, "required": True}}
        ok = {"200": {"description": "OK", "content": {"application/json": {"schema": ref}}}}
    else:
        def param(n: str, t: str) -> dict[str, Any]:
            return {"name": n, "in": "query", "type": t, "uniqueItems": True}
        body = {}
        ok = {"200": {"description": "OK", "schema": ref}}
    writes = [param(n, "string") for n in _WRITE_PARAMS]
    op = {"x-kubernetes-group-version-kind": gvk, "responses": ok}
    return {
        f"{base}/{{name}}": {
            "get": {"operationId": f"read{r.kind}", "x-kubernetes-action": "get", **op},
            "patch": {"operationId": f"patch{r.kind}", "x-kubernetes-action": "patch",
                      "parameters": [*writes, param("force", "boolean")], **op},
        },
        base: {
            "post": {"operationId": f"create{r.kind}", "x-kubernetes-action": "post", "parameters": writes, **body, **op},
        },
    }


def _paths(served: list[resources.Resource], v3: bool) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for r in served:
        prefix = f"/{_gv_key(r.group, r.version)}"
        base = f"{prefix}/namespaces/{{namespace}}/{r.plural}" if r.namespaced else f"{prefix}/{r.plural}"
        paths.update(_operations(r, base, v3))
    return paths


@functools.cache
def _v3(group: str, version: str) -> tuple[bytes, str] | None:
    served = resources.in_group_version(group, version)
    if not served:
        return None
    doc = {
        "openapi": "3.0.0",
        "info": INFO,
        "paths": _paths(served, True),
        "components": {"schemas": {
            n: _definition_schema(DEFINITIONS[n], V3_REF, True) for n in _closure(_kind_definitions(served))
        }},
    }
    raw = json.dumps(doc, separators=(",", ":")).encode()
    return raw, etag_of(raw)


def _parse_gv(gv_path: str) -> tuple[str, str] | None:
    parts = gv_path.strip("/").split("/")
    if parts[:1] == ["api"] and len(parts) == 2:
        return "", parts[1]
    if parts[:1] == ["apis"] and len(parts) == 3:
        return parts[1], parts[2]
    return None


def root(custom: Sequence[resources.Resource] = ()) -> dict[str, Any]:
    """GET /openapi/v3: each group-version's document, its URL carrying the document's hash."""
    paths = {}
    for group, versions in resources.group_versions().items():
        for version in versions:
            built = _v3(group, version)
            if built is not None:
                key = _gv_key(group, version)
                paths[key] = {"serverRelativeURL": f"/openapi/v3/{key}?hash={built[1]}"}
    for group, version in dict.fromkeys((r.group, r.version) for r in custom):
        if _gv_key(group, version) not in paths and (built := _custom_v3(group, version, custom)) is not None:
            key = _gv_key(group, version)
            paths[key] = {"serverRelativeURL": f"/openapi/v3/{key}?hash={built[1]}"}
    return {"paths": paths}


def document(gv_path: str, custom: Sequence[resources.Resource] = ()) -> tuple[bytes, str] | None:
    """GET /openapi/v3/api/v1 or /openapi/v3/apis/<group>/<version>: the JSON bytes and their hash (the ETag)."""
    gv = _parse_gv(gv_path)
    if gv is None:
        return None
    return _v3(*gv) or _custom_v3(*gv, custom)


def _custom_v3(group: str, version: str, custom: Sequence[resources.Resource]) -> tuple[bytes, str] | None:
    """The document of a group version the cluster's CustomResourceDefinitions serve: each kind's schema as its
    definition wrote it, with the object's type fields and metadata, as the CRD handler publishes it."""
    served = [r for r in custom if (r.group, r.version) == (group, version)]
    if not served:
        return None
    meta = [META + "ObjectMeta", META + "ListMeta"]
    schemas = {n: _definition_schema(DEFINITIONS[n], V3_REF, True) for n in _closure(meta)}
    for r in served:
        name = schema.for_kind(r.group, r.version, r.kind).name
        schemas[name] = _custom_kind_schema(r, name)
        schemas[name + "List"] = _custom_list_schema(r, name)
    doc = {"openapi": "3.0.0", "info": INFO, "paths": _paths(served, True), "components": {"schemas": schemas}}
    raw = json.dumps(doc, separators=(",", ":")).encode()
    return raw, etag_of(raw)


def _type_meta(r: resources.Resource, list_kind: bool = False) -> dict[str, Any]:
    kind = r.list_kind if list_kind else r.kind
    return {
        "apiVersion": {"type": "string", "description": "APIVersion defines the versioned schema of this "
                       "representation of an object."},
        "kind": {"type": "string", "description": f"Kind is a string value representing the REST resource this "
                 f"object represents ({kind})."},
    }


def _custom_kind_schema(r: resources.Resource, name: str) -> dict[str, Any]:
    """A custom kind's schema: the definition's own, with apiVersion, kind and metadata as every kind has them."""
    out = json.loads(json.dumps(r.custom.schema)) if r.custom is not None else {}
    out.setdefault("type", "object")
    properties = out.setdefault("properties", {})
    if isinstance(properties, dict):
        properties.update(_type_meta(r))
        properties["metadata"] = {"allOf": [{"$ref": V3_REF + META + "ObjectMeta"}],
                                  "description": "Standard object's metadata."}
    out["x-kubernetes-group-version-kind"] = [{"group": r.group, "kind": r.kind, "version": r.version}]
    return out


def _custom_list_schema(r: resources.Resource, name: str) -> dict[str, Any]:
    return {
        "description": f"{r.list_kind} is a list of {r.kind}",
        "type": "object",
        "required": ["items"],
        "properties": {
            **_type_meta(r, list_kind=True),
            "items": {"type": "array", "items": {"$ref": V3_REF + name},
                      "description": f"List of {r.plural}. More info: https://kubernetes.io/docs/reference/"
                                     "kubernetes-api/common-definitions/object-meta/"},
            "metadata": {"allOf": [{"$ref": V3_REF + META + "ListMeta"}], "description": "Standard list metadata."},
        },
        "x-kubernetes-group-version-kind": [{"group": r.group, "kind": r.list_kind, "version": r.version}],
    }


def etag_of(raw: bytes) -> str:
    """A document's ETag: the upper-case hex SHA-512 of its bytes."""
    return hashlib.sha512(raw).hexdigest().upper()


def none_match_holds(if_none_match: str, etag: str) -> bool:
    """Whether an If-None-Match header names ``etag`` (or is ``*``); weak tags compare by their value."""
    for tag in (t.strip() for t in if_none_match.split(",")):
        if tag == "*" or tag.removeprefix("W/") == f'"{etag}"':
            return True
    return False


def cache_headers(etag: str, asked_hash: str) -> dict[str, str]:
    """As the real server: an ETag always; a URL naming the current hash may be cached for good."""
    headers = {"ETag": f'"{etag}"', "Vary": "Accept"}
    if asked_hash == etag:
        headers["Cache-Control"] = "public, immutable"
        headers["Expires"] = formatdate(time.time() + 365 * 24 * 3600, usegmt=True)
    return headers


@functools.cache
def swagger() -> dict[str, Any]:
    """GET /openapi/v2: every served kind in one swagger 2.0 document."""
    served = list(resources.RESOURCES)
    return {
        "swagger": "2.0",
        "info": INFO,
        "paths": _paths(served, False),
        "definitions": {
            n: _definition_schema(DEFINITIONS[n], V2_REF, False) for n in _closure(_kind_definitions(served))
        },
    }


# What the real server answers to kubectl's Accept (a Go MIME parser refuses the "@" kubectl sends).
V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"


@functools.cache
def swagger_json() -> bytes:
    """GET /openapi/v2 as JSON, encoded once."""
    return json.dumps(swagger(), separators=(",", ":")).encode()


@functools.cache
def swagger_etag() -> str:
    """GET /openapi/v2's ETag, whichever encoding is asked for."""
    return etag_of(swagger_json())


@functools.cache
def swagger_protobuf() -> bytes:
    """GET /openapi/v2 as kubectl asks for it: the same document as protobuf."""
    return openapi_proto.document(swagger())
