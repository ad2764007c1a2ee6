"""POST pods/<name>/eviction: a deletion that asks the Pod's disruption budget first.

As the real API server's eviction subresource: a Pod that is not running
(or already terminating) is deleted at once; otherwise the one
PodDisruptionBudget selecting it must allow a disruption. The budget's
``disruptionsAllowed`` is decremented and the Pod recorded in its
``disruptedPods`` in the same breath (so two evictions cannot both take the
last allowance), the Pod gets the ``DisruptionTarget`` condition, and only
then is it deleted, gracefully. A budget that allows nothing answers
429 TooManyRequests, which kubectl drain retries every five seconds.
"""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery import labels
from clusterviz.apimachinery.unstructured import deep_copy, dict_or_empty, resource_version
from clusterviz.store import kv

from . import clock, codec, errors
from .deletion import delete_object
from .handlers import PATCH_RETRIES, _get, _list, _write_update, cluster_of, not_found, ok, store_key
from .request import ApiRequest, ApiResponse, ResourcePath
from .resources import lookup

EVICTION_REFUSED = "Cannot evict pod as it would violate the pod's disruption budget."
# kube-apiserver's MaxDisruptedPodSize: a budget recording more evictions than this refuses more.
MAX_DISRUPTED_PODS = 2000


async def evict(req: ApiRequest, rp: ResourcePath) -> ApiResponse:
    """Create an Eviction for the Pod ``rp.name``."""
    body = req.payload if isinstance(req.payload, dict) else codec.decode_object(req.body, req.content_type)
    name = dict_or_empty(body.get("metadata")).get("name")
    if name not in (None, "", rp.name):
        raise errors.bad_request("name in URL does not match name in Eviction object")
    options = dict_or_empty(body.get("deleteOptions"))
    pod_path = ResourcePath(rp.resource, rp.namespace, rp.name, "")
    cid = await cluster_of(req)
    for _ in range(PATCH_RETRIES):
        pod = await _get(cid, store_key(pod_path))
        if pod is None:
            raise not_found(pod_path)
        if not _protected(pod):
            break
        budgets = await _budgets_of(cid, pod)
        if len(budgets) > 1:
            raise errors.internal(
                "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
            )
        if not budgets or _unhealthy_pod_may_go(pod, budgets[0]):
            break
        if req.query.get("dryRun") or options.get("dryRun"):
            _check_allowance(budgets[0])
            return _success()
        try:
            await _take_allowance(req, cid, budgets[0], rp.name)
        except _Raced:
            continue  # the budget changed meanwhile: look again, as the real server retries
        break
    else:
        raise errors.StatusError(429, "TooManyRequests", "Too many requests: please try again later.")
    if req.query.get("dryRun") or options.get("dryRun"):
        return _success()
    await _mark_disruption_target(req, cid, pod_path)
    await delete_object(req, pod_path, cid, options)
    return _success()


class _Raced(Exception):
    """The budget's status was written by someone else between read and write."""


def _success() -> ApiResponse:
    return ok({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}, 201)


def _protected(pod: dict[str, Any]) -> bool:
    """canIgnorePDB's opposite: a running Pod not yet being deleted needs its budget's consent."""
    terminating = bool(dict_or_empty(pod.get("metadata")).get("deletionTimestamp"))
    phase = dict_or_empty(pod.get("status")).get("phase")
    return not terminating and phase not in ("Succeeded", "Failed", "Pending")


async def _budgets_of(cid: int, pod: dict[str, Any]) -> list[dict[str, Any]]:
    """The namespace's PodDisruptionBudgets whose selector selects the Pod (policy/v1: {} selects all)."""
    resource = lookup("policy", "v1", "poddisruptionbudgets")
    if resource is None:
        return []
    namespace = dict_or_empty(pod.get("metadata")).get("namespace", "")
    items, _ = await _list(cid, resource.key, namespace)
    pod_labels = dict_or_empty(dict_or_empty(pod.get("metadata")).get("labels"))
    chosen = []
    for pdb in items:
        try:
            selector = labels.selector_from_label_selector(dict_or_empty(pdb.get("spec")).get("selector"))
        except labels.SelectorError:
            continue
        if selector.matches(pod_labels):
            chosen.append(pdb)
    return chosen


def _is_ready(pod: dict[str, Any]) -> bool:
    conditions = dict_or_empty(pod.get("status")).get("conditions") or []
    return any(isinstance(c, dict) and c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def _unhealthy_pod_may_go(pod: dict[str, Any], pdb: dict[str, Any]) -> bool:
    """A Pod that is not Ready does not count towards the budget: AlwaysAllow, or IfHealthyBudget when it holds."""
    if _is_ready(pod):
        return False
    status = dict_or_empty(pdb.get("status"))
    if dict_or_empty(pdb.get("spec")).get("unhealthyPodEvictionPolicy") == "AlwaysAllow":
        return True
    return int(status.get("currentHealthy") or 0) >= int(status.get("desiredHealthy") or 0)


def _refused(cause: str) -> errors.StatusError:
    return errors.StatusError(
        429, "TooManyRequests", EVICTION_REFUSED, {"causes": [{"reason": "DisruptionBudget", "message": cause}]}
    )


def _check_allowance(pdb: dict[str, Any]) -> None:
    """checkAndDecrement's checks: a budget the controller has seen, with a disruption to spare."""
    meta, status = dict_or_empty(pdb.get("metadata")), dict_or_empty(pdb.get("status"))
    name = meta.get("name", "")
    if int(status.get("observedGeneration") or 0) < int(meta.get("generation") or 0):
        raise _refused(f"The disruption budget {name} is still being processed by the server.")
    allowed = int(status.get("disruptionsAllowed") or 0)
    if allowed < 0:
        raise errors.forbidden("pdb disruptions allowed is negative")
    if len(dict_or_empty(status.get("disruptedPods"))) > MAX_DISRUPTED_PODS:
        raise errors.forbidden("DisruptedPods map too big - too many evictions not confirmed by PDB controller")
    if allowed == 0:
        raise _refused(
            f"The disruption budget {name} needs {int(status.get('desiredHealthy') or 0)} healthy pods "
            f"and has {int(status.get('currentHealthy') or 0)} currently"
        )


async def _take_allowance(req: ApiRequest, cid: int, pdb: dict[str, Any], pod_name: str) -> None:
    """Decrement the budget and record the Pod as disrupted, in one status write guarded by its resourceVersion."""
    _check_allowance(pdb)
    resource = lookup("policy", "v1", "poddisruptionbudgets")
    assert resource is not None
    meta = dict_or_empty(pdb.get("metadata"))
    new = deep_copy(pdb)
    status = new.setdefault("status", {})
    status["disruptionsAllowed"] = int(status.get("disruptionsAllowed") or 0) - 1
    status.setdefault("disruptedPods", {})[pod_name] = clock.rfc3339()
    if status["disruptionsAllowed"] == 0:
        for condition in status.get("conditions") or []:
            if isinstance(condition, dict) and condition.get("type") == "DisruptionAllowed":
                if condition.get("status") != "False":
                    condition["lastTransitionTime"] = clock.rfc3339()
                condition.update(status="False", reason="InsufficientPods")
    rp = ResourcePath(resource, meta.get("namespace", ""), meta.get("name", ""), "status")
    try:
        await _write_update(req, rp, cid, pdb, new, resource_version(pdb))
    except kv.RevisionConflict:
        raise _Raced from None


async def _mark_disruption_target(req: ApiRequest, cid: int, pod_path: ResourcePath) -> None:
    """The DisruptionTarget condition, so the Pod's owner and the class see why it goes."""
    for _ in range(PATCH_RETRIES):
        pod = await _get(cid, store_key(pod_path))
        if pod is None:
            return
        new = deep_copy(pod)
        conditions = [
            c for c in dict_or_empty(new.get("status")).get("conditions") or []
            if isinstance(c, dict) and c.get("type") != "DisruptionTarget"
        ]
        conditions.append({
            "type": "DisruptionTarget", "status": "True", "lastProbeTime": None,
            "lastTransitionTime": clock.rfc3339(), "reason": "EvictionByEvictionAPI", "message": "Eviction API: evicting",
        })
        new.setdefault("status", {})["conditions"] = conditions
        try:
            await _write_update(
                req, ResourcePath(pod_path.resource, pod_path.namespace, pod_path.name, "status"), cid, pod, new,
                resource_version(pod),
            )
            return
        except kv.RevisionConflict:
            continue  # the kubelet wrote status meanwhile
