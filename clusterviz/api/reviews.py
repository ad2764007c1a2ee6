"""The self-reviews: ``kubectl auth whoami`` (SelfSubjectReview), ``kubectl auth can-i`` (SelfSubjectAccessReview)
and ``kubectl auth can-i --list`` (SelfSubjectRulesReview).

They answer from what the access check in front of the API found for the
caller (``ApiRequest.user``, ``groups`` and ``granted``): the classroom's
rules, in Kubernetes' terms. Reading (get, list, watch) needs read access to
the cluster, every other verb write access. What those refuse, the cluster's
RBAC objects may still allow (api/authorizer.py). Nothing is stored: as
upstream, the review comes back with its status filled in, 201 Created.
"""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.field import required
from clusterviz.apimachinery.unstructured import dict_or_empty

from . import authorizer, codec, errors, resources
from .handlers import ok
from .request import ApiRequest, ApiResponse, ResourcePath

ACCESS_REVIEWS = resources.Resource(
    "authorization.k8s.io", "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", False, (), (), ("create",)
)
SELF_REVIEWS = resources.Resource(
    "authentication.k8s.io", "v1", "selfsubjectreviews", "SelfSubjectReview", False, (), (), ("create",)
)
RULES_REVIEWS = resources.Resource(
    "authorization.k8s.io", "v1", "selfsubjectrulesreviews", "SelfSubjectRulesReview", False, (), (), ("create",)
)
READ_VERBS = ("get", "list", "watch")
# What every caller may do whatever the classroom grants (system:basic-user and system:discovery).
_EVERYBODY_RESOURCE_RULES = [
    {"verbs": ["create"], "apiGroups": ["authorization.k8s.io"],
     "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]},
    {"verbs": ["create"], "apiGroups": ["authentication.k8s.io"], "resources": ["selfsubjectreviews"]},
]
_EVERYBODY_URL_RULES = [
    {"verbs": ["get"], "nonResourceURLs": ["/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi",
                                           "/openapi/*", "/readyz", "/version", "/version/"]},
]


def register() -> None:
    """Serve the two review kinds."""
    for resource in (ACCESS_REVIEWS, RULES_REVIEWS, SELF_REVIEWS):
        resources.register(resource)


def handles(rp: ResourcePath) -> bool:
    return rp.resource in (ACCESS_REVIEWS, RULES_REVIEWS, SELF_REVIEWS)


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
    if rp.resource is RULES_REVIEWS:
        return ok(_answer(rp.resource, {**body, "spec": spec}, await _rules(req, user, tuple(groups), spec)), 201)
    attributes = dict_or_empty(spec.get("resourceAttributes")) or dict_or_empty(spec.get("nonResourceAttributes"))
    verb = str(attributes.get("verb") or "")
    if not verb:
        raise errors.invalid(rp.resource.kind, rp.resource.group, "", [required("spec.resourceAttributes.verb", "")])
    needed = "read" if verb in READ_VERBS else "write"
    allowed = req.granted == "write" or (req.granted == "read" and needed == "read")
    status = {"allowed": allowed}
    if allowed:
        status["reason"] = f"the classroom grants {req.granted} access to this cluster to {user}"
    else:
        grant = await authorizer.authorize(req.cluster, user, tuple(groups), _attributes(attributes, verb))
        if grant is not None:
            status = {"allowed": True, "reason": grant.reason()}
    return ok(_answer(rp.resource, {**body, "spec": spec}, status), 201)


def _attributes(attributes: dict[str, Any], verb: str) -> authorizer.Attributes:
    """A review's resourceAttributes or nonResourceAttributes, as the authorizer takes them."""
    if "path" in attributes:
        return authorizer.Attributes(verb=verb, path=str(attributes.get("path") or ""))
    return authorizer.Attributes(
        verb, *(str(attributes.get(k) or "") for k in ("resource", "group", "namespace", "name", "subresource"))
    )


async def _rules(req: ApiRequest, user: str, groups: tuple[str, ...], spec: dict[str, Any]) -> dict[str, Any]:
    """What the caller may do in ``spec.namespace``: the classroom's grant, what everybody may, then RBAC's."""
    resource_rules: list[dict[str, Any]] = []
    url_rules: list[dict[str, Any]] = []
    if req.granted == "write":
        resource_rules.append({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]})
        url_rules.append({"verbs": ["*"], "nonResourceURLs": ["*"]})
    elif req.granted == "read":
        resource_rules.append({"verbs": list(READ_VERBS), "apiGroups": ["*"], "resources": ["*"]})
    resource_rules += _EVERYBODY_RESOURCE_RULES
    url_rules += _EVERYBODY_URL_RULES
    for grant in await authorizer.grants(req.cluster, user, groups, str(spec.get("namespace") or "")):
        rule = grant.rule
        if rule.get("nonResourceURLs"):
            url_rules.append({"verbs": rule.get("verbs") or [], "nonResourceURLs": rule["nonResourceURLs"]})
        else:
            keys = ("verbs", "apiGroups", "resources", "resourceNames")
            resource_rules.append({k: rule[k] for k in keys if rule.get(k) or k == "verbs"})
    return {"resourceRules": _unique(resource_rules), "nonResourceRules": _unique(url_rules), "incomplete": False}


def _unique(rules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for rule in rules:
        if rule not in out:
            out.append(rule)
    return out


def _answer(resource: resources.Resource, body: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": resource.kind,
        "apiVersion": resource.group_version,
        "metadata": {"creationTimestamp": None},
        **({"spec": body["spec"]} if "spec" in body else {}),
        "status": status,
    }
