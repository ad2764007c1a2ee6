"""The in-process client: what the controllers, scheduler, kubelets and dashboard call.

It builds the same ``ApiRequest`` an HTTP call would and hands it to the same
``dispatch``; only the JSON encoding step is skipped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

from . import errors, resources
from .request import ApiRequest, ApiResponse
from .server import dispatch

PATCH_CONTENT_TYPES = {
    "merge": "application/merge-patch+json",
    "strategic": "application/strategic-merge-patch+json",
    "json": "application/json-patch+json",
    "apply": "application/apply-patch+yaml",
}


def find_resource(plural: str, group: str | None = None) -> resources.Resource:
    """The resource called ``plural`` (optionally ``plural.group``)."""
    if group is None and "." in plural:
        plural, group = plural.split(".", 1)
    for r in resources.RESOURCES:
        if r.plural == plural and (group is None or r.group == group):
            return r
    raise KeyError(plural)


def resource_for(obj: dict[str, Any]) -> resources.Resource:
    """The resource an object belongs to, from its apiVersion and kind."""
    api_version = str(obj.get("apiVersion", ""))
    group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
    found = resources.by_kind(group, str(obj.get("kind", "")))
    if found is None:
        raise errors.bad_request(f'no matches for kind "{obj.get("kind")}" in version "{api_version}"')
    return found


def path_for(resource: resources.Resource, namespace: str = "", name: str = "", sub: str = "") -> str:
    base = f"/apis/{resource.group}/{resource.version}" if resource.group else f"/api/{resource.version}"
    if resource.namespaced and namespace:
        base += f"/namespaces/{namespace}"
    base += f"/{resource.plural}"
    if name:
        base += f"/{name}"
    if sub:
        base += f"/{sub}"
    return base


class Client:
    """An API client bound to one cluster and named after the component using it."""

    def __init__(self, cluster: str, component: str = "client", *, simulated: bool = True) -> None:
        self.cluster = cluster
        self.component = component
        self.simulated = simulated

    async def request(
        self, method: str, path: str, *, query: dict[str, str] | None = None, payload: Any = None,
        content_type: str = "application/json", accept: str = "application/json", handed_over: bool = False,
        reads_only: bool = False,
    ) -> ApiResponse:
        """Send one request; non-2xx replies raise ``StatusError``. With ``reads_only`` the caller promises to
        change nothing in the answer, which may then share the server's objects."""
        req = ApiRequest(
            cluster=self.cluster, method=method, path=path, query=query or {}, payload=payload,
            payload_handed_over=handed_over, reads_only=reads_only, content_type=content_type, accept=accept,
            client=self.component, simulated=self.simulated,
        )
        resp = await dispatch(req)
        if resp.status >= 400:
            body = resp.body if isinstance(resp.body, dict) else {}
            retry_after = resp.headers.get("Retry-After")
            raise errors.StatusError(
                resp.status, body.get("reason", ""), body.get("message", ""), body.get("details"),
                int(retry_after) if retry_after else None,
            )
        return resp

    async def get(self, plural: str, name: str, namespace: str = "", sub: str = "") -> dict[str, Any]:
        resp = await self.request("GET", path_for(await self.resource(plural), namespace, name, sub))
        return resp.body

    async def get_or_none(self, plural: str, name: str, namespace: str = "") -> dict[str, Any] | None:
        try:
            return await self.get(plural, name, namespace)
        except errors.StatusError as exc:
            if exc.code == 404:
                return None
            raise

    async def list(
        self, plural: str, namespace: str = "", *, label_selector: str = "", field_selector: str = "",
        reads_only: bool = False,
    ) -> dict[str, Any]:
        """The List of ``plural``; with ``reads_only`` (the caller changes none of its items) the items may be the
        watch cache's own objects, shared with every other reader."""
        query = {}
        if label_selector:
            query["labelSelector"] = label_selector
        if field_selector:
            query["fieldSelector"] = field_selector
        resp = await self.request("GET", path_for(await self.resource(plural), namespace), query=query,
                                  reads_only=reads_only)
        return resp.body

    async def create(
        self, obj: dict[str, Any], namespace: str = "", *, handed_over: bool = False, **query: str
    ) -> dict[str, Any]:
        """Create ``obj``; with ``handed_over`` the caller keeps no reference to it (a large body is not copied)."""
        resource = await self.resource_of(obj)
        ns = namespace or _meta(obj).get("namespace") or ("default" if resource.namespaced else "")
        resp = await self.request("POST", path_for(resource, ns), payload=obj, query=query, handed_over=handed_over)
        return resp.body

    async def update(self, obj: dict[str, Any], sub: str = "") -> dict[str, Any]:
        resource = await self.resource_of(obj)
        meta = _meta(obj)
        path = path_for(resource, meta.get("namespace", ""), meta.get("name", ""), sub)
        resp = await self.request("PUT", path, payload=obj)
        return resp.body

    async def patch(
        self, plural: str, name: str, patch: Any, namespace: str = "", *, patch_type: str = "merge", sub: str = "",
        **query: str,
    ) -> dict[str, Any]:
        path = path_for(await self.resource(plural), namespace, name, sub)
        resp = await self.request("PATCH", path, payload=patch, content_type=PATCH_CONTENT_TYPES[patch_type], query=query)
        return resp.body

    async def delete(self, plural: str, name: str, namespace: str = "", options: dict[str, Any] | None = None) -> dict[str, Any]:
        resp = await self.request("DELETE", path_for(await self.resource(plural), namespace, name), payload=options or {})
        return resp.body

    async def delete_collection(
        self, plural: str, namespace: str = "", options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """DELETE on the collection: every object of ``plural`` in ``namespace``."""
        resp = await self.request("DELETE", path_for(await self.resource(plural), namespace), payload=options or {})
        return resp.body

    async def resource(self, plural: str) -> resources.Resource:
        """The resource called ``plural`` (or ``plural.group``): a built-in one, or one the cluster's
        CustomResourceDefinitions add (KeyError when neither)."""
        try:
            return find_resource(plural)
        except KeyError:
            for resource in await self.custom_resources() if "." in plural else ():
                if f"{resource.plural}.{resource.group}" == plural:
                    return resource
            raise

    async def resource_of(self, obj: dict[str, Any]) -> resources.Resource:
        """The resource an object belongs to, by its apiVersion and kind, custom kinds included."""
        try:
            return resource_for(obj)
        except errors.StatusError:
            api_version = str(obj.get("apiVersion", ""))
            group, _, version = api_version.rpartition("/")
            for resource in await self.custom_resources() if group else ():
                if (resource.group, resource.kind) == (group, obj.get("kind")):
                    return dataclasses.replace(resource, version=version)
            raise

    async def custom_resources(self) -> tuple[resources.Resource, ...]:
        """The kinds the cluster's CustomResourceDefinitions add, each group in its preferred version, found
        through discovery as clients find every kind (built-in groups are skipped)."""
        built_in = resources.group_versions()
        found = []
        for group in (await self.request("GET", "/apis")).body.get("groups") or []:
            name, version = group["name"], group["preferredVersion"]["version"]
            if version in built_in.get(name, []):
                continue
            for entry in (await self.request("GET", f"/apis/{name}/{version}")).body.get("resources") or []:
                if "/" not in entry["name"]:
                    found.append(resources.Resource(name, version, entry["name"], entry["kind"], entry["namespaced"],
                                                    verbs=tuple(entry["verbs"])))
        return tuple(found)

    async def bind(self, pod_namespace: str, pod_name: str, node: str) -> None:
        binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": pod_name, "namespace": pod_namespace},
                   "target": {"apiVersion": "v1", "kind": "Node", "name": node}}
        await self.request("POST", path_for(find_resource("pods"), pod_namespace, pod_name, "binding"), payload=binding)

    async def watch(
        self, plural: str, namespace: str = "", *, resource_version: str = "", label_selector: str = "",
        field_selector: str = "", timeout_seconds: float | None = None, bookmarks: bool = False,
    ) -> AsyncIterator[dict[str, Any]]:
        """Events of a watch, as dicts with ``type`` and ``object``."""
        query = {"watch": "true"}
        if resource_version:
            query["resourceVersion"] = resource_version
        if label_selector:
            query["labelSelector"] = label_selector
        if field_selector:
            query["fieldSelector"] = field_selector
        if timeout_seconds is not None:
            query["timeoutSeconds"] = str(timeout_seconds)
        if bookmarks:
            query["allowWatchBookmarks"] = "true"
        resp = await self.request("GET", path_for(await self.resource(plural), namespace), query=query)
        assert resp.stream is not None
        async for event in resp.stream:
            yield event


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    """An object's metadata for finding its path; anything but a mapping is left for validation to refuse."""
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}
