"""The self-reviews: ``kubectl auth whoami`` (SelfSubjectReview) and ``kubectl auth can-i`` (SelfSubjectAccessReview).

They answer from what the access check in front of the API found for the
caller (``ApiRequest.user``, ``groups`` and ``granted``): the classroom's
rules, in Kubernetes' terms. Reading (get, list, watch) needs read access to
the cluster, every other verb write access. Nothing is stored: as upstream,
the review comes back with its status filled in, 201 Created.
"""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.field import required
from clusterviz.apimachinery.unstructured import dict_or_empty

from . import codec, errors, resources
from .handlers import ok
from .request import ApiRequest, ApiResponse, ResourcePath

ACCESS_REVIEWS = resources.Resource(
    "authorization.k8s.io", "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", False, (), (), ("create",)
)
SELF_REVIEWS = resources.Resource(
    "authentication.k8s.io", "v1", "selfsubjectreviews", "SelfSubjectReview", False, (), (), ("create",)
)
READ_VERBS = ("get", "list", "watch")


def register() -> None:
    """Serve the two review kinds."""
    for resource in (ACCESS_REVIEWS, SELF_REVIEWS):
        resources.register(resource)


def handles(rp: ResourcePath) -> bool:
    return rp.resource in (ACCESS_REVIEWS, SELF_REVIEWS)


async def review(req: ApiRequest, rp: ResourcePath) -> ApiResponse:
    """POST a review; get it back answered."""
    if req.method != "POST" or rp.name:
        raise errors.method_not_allowed(req.method.lower(), rp.resource.plural, rp.resource.group)
    body = req.payload if isinstance(req.payload, dict) else codec.decode_object(req.body, req.content_type)
    user, groups = req.user or "system:anonymous", list(req.groups or ("system:unauthenticated",))
    if rp.resource is SELF_REVIEWS:
        status: dict[str, Any] = {"userInfo": {"username": user, "groups": groups}}
        return ok(_answer(rp.resource, body, status), 201)
    spec = dict_or_empty(body.get("spec"))
    attributes = dict_or_empty(spec.get("resourceAttributes")) or dict_or_empty(spec.get("nonResourceAttributes"))
    verb = str(attributes.get("verb") or "")
    if not verb:
        raise errors.invalid(rp.resource.kind, rp.resource.group, "", [required("spec.resourceAttributes.verb", "")])
    needed = "read" if verb in READ_VERBS else "write"
    allowed = req.granted == "write" or (req.granted == "read" and needed == "read")
    status = {"allowed": allowed}
    if allowed:
        status["reason"] = f"the classroom grants {req.granted} access to this cluster to {user}"
    return ok(_answer(rp.resource, {**body, "spec": spec}, status), 201)


def _answer(resource: resources.Resource, body: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": resource.kind,
        "apiVersion": resource.group_version,
        "metadata": {"creationTimestamp": None},
        **({"spec": body["spec"]} if "spec" in body else {}),
        "status": status,
    }
