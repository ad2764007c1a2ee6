"""The verbs: get, list, create, update, patch, delete, deletecollection, and subresources.

Each handler validates, defaults and checks before one store write, so a
refused request writes nothing. Store calls run in worker threads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clusterviz.apimachinery import fields, labels
from clusterviz.apimachinery.field import FieldError, invalid, required
from clusterviz.apimachinery.patch import PatchError, json_patch, merge_patch, strategic_merge_patch
from clusterviz.apimachinery.unstructured import deep_copy, dict_or_empty, resource_version
from clusterviz.store import batch, kv
from clusterviz.store.threads import in_thread

from . import (
    clock,
    codec,
    conversion,
    customresources,
    errors,
    field_validation,
    gate,
    managedfields,
    secret_data,
    strategy,
    tables,
    update_base,
    watchcache,
)
from .admission import (
    ingressclass,
    limitranger,
    priority,
    resourcequota,
    serviceaccount,
    storage_protection,
    storageclass,
)
from .defaulting import default_in_place
from .rbac_escalation import confirm_no_escalation
from .request import ApiRequest, ApiResponse, ResourcePath
from .resources import Resource
from .validation import validate
from .validation.custom_resource import prepare_custom_resource, validate_custom_resource

# What a custom kind may be patched with.
CUSTOM_PATCH_TYPES = ("application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml")
# How often a patch is retried when a concurrent write got in first (as the real server does).
PATCH_RETRIES = 8

PATCH_TYPES = {
    "application/json-patch+json": "json",
    "application/merge-patch+json": "merge",
    "application/strategic-merge-patch+json": "strategic",
    "application/apply-patch+yaml": "apply",
    "application/apply-patch+cbor": "unsupported",
}


_get = in_thread(kv.get)
_list = in_thread(kv.list_objects)
_objects_in = in_thread(kv.objects_in)
_create = batch.create
_update = batch.update
_delete = batch.delete
_cluster_id = in_thread(kv.cluster_id)


async def cluster_id(name: str) -> int:
    try:
        return await _cluster_id(name)
    except kv.ClusterNotFound:
        raise errors.StatusError(404, "NotFound", f'cluster "{name}" not found', {"name": name, "kind": "clusters"}) from None


async def cluster_of(req: ApiRequest) -> int:
    """The store id of the request's cluster: known to its gate when the engine runs here, else looked up."""
    if req.gate is not None:
        return req.gate.cid
    # Before the request's own gate is chosen (discovery, the simulator's controls): no store round trip
    # for a cluster this process simulates.
    running = await gate.for_cluster(req.cluster) if req.simulated else None
    return running.cid if running is not None else await cluster_id(req.cluster)


async def store_write(req: ApiRequest, rp: ResourcePath, verb: str, name: str, write: Any, *args: Any) -> Any:
    """One store write, with its apiserver -> etcd -> apiserver hops when a simulation runs."""
    try:
        if req.gate is None:
            return await write(*args)
        return await req.gate.write(req, rp, verb, name, lambda: write(*args))
    except kv.KeyNotFound:
        raise not_found(rp, name) from None


def store_key(rp: ResourcePath, name: str | None = None) -> kv.Key:
    """The store's key of the object ``rp`` names (or of ``name`` in its collection)."""
    return kv.Key(rp.resource.key, rp.namespace, name if name is not None else rp.name)


def not_found(rp: ResourcePath, name: str | None = None) -> errors.StatusError:
    return errors.not_found(rp.resource.plural, rp.resource.group, name or rp.name)


def ok(body: Any, status: int = 200) -> ApiResponse:
    return ApiResponse(status, body)


# --- reading -----------------------------------------------------------------------------------


def parse_selectors(req: ApiRequest, resource: Resource) -> tuple[labels.Selector | None, list[fields.Requirement]]:
    """The request's labelSelector and fieldSelector (400 on bad syntax or unknown fields)."""
    label_sel = None
    if req.query.get("labelSelector"):
        try:
            label_sel = labels.parse_selector(req.query["labelSelector"])
        except labels.SelectorError as exc:
            raise errors.bad_request(f"unable to parse requirement: {exc}") from None
    field_reqs: list[fields.Requirement] = []
    if req.query.get("fieldSelector"):
        try:
            field_reqs = fields.parse_field_selector(req.query["fieldSelector"])
        except labels.SelectorError as exc:
            raise errors.bad_request(f"invalid field selector: {exc}") from None
        for requirement in field_reqs:
            if requirement.field not in resource.all_field_selectors:
                raise errors.bad_request(f'field label not supported: {requirement.field}')
    return label_sel, field_reqs


def matches(obj: dict[str, Any], label_sel: labels.Selector | None, field_reqs: list[fields.Requirement]) -> bool:
    if label_sel is not None and not label_sel.matches((obj.get("metadata") or {}).get("labels") or {}):
        return False
    return not field_reqs or fields.matches(obj, field_reqs)


def _indexed(field_reqs: list[fields.Requirement]) -> dict[str, str]:
    """Equality requirements the store can answer from its indexed columns."""
    columns = {"metadata.name": "name", "spec.nodeName": "node_name", "status.phase": "phase"}
    out: dict[str, str] = {}
    for r in field_reqs:
        if r.field in columns and r.operator in ("=", "=="):
            out[columns[r.field]] = r.value
    return out


def with_type(resource: Resource, obj: dict[str, Any]) -> dict[str, Any]:
    """Every object sent out carries apiVersion and kind (kubectl needs them), in the version asked for."""
    obj = conversion.from_storage(resource, obj)
    if obj.get("kind") == resource.kind and obj.get("apiVersion") == resource.group_version:
        return obj
    return {"apiVersion": resource.group_version, "kind": resource.kind, **obj}


def render(req: ApiRequest, resource: Resource, items: list[dict[str, Any]], revision: int, single: bool) -> Any:
    """A List, a single object, or a Table when the client asked for one."""
    if req.wants_table:
        include = req.query.get("includeObject", "Metadata")
        columns = resource.custom.columns if resource.custom is not None else None
        return tables.build_table(resource.plural, items, clock.now(), include_object=include,
                                  resource_version=str(revision), custom_columns=columns)
    if single:
        return with_type(resource, items[0])
    return {
        "kind": resource.list_kind,
        "apiVersion": resource.group_version,
        "metadata": {"resourceVersion": str(revision)},
        "items": [with_type(resource, item) for item in items],
    }


async def get(req: ApiRequest, rp: ResourcePath) -> ApiResponse:
    cid = await cluster_of(req)
    obj = await _get(cid, store_key(rp))
    if obj is None:
        raise not_found(rp)
    if rp.sub == "scale":
        return ok(strategy.scale_of(rp.resource, obj, selector_string(obj)))
    rv = resource_version(obj)
    return ok(render(req, rp.resource, [obj], rv, single=True))


def selector_string(obj: dict[str, Any]) -> str:
    """The workload's selector in string form, as Scale.status.selector shows it."""
    selector = (obj.get("spec") or {}).get("selector")
    if not isinstance(selector, dict):
        return ""
    if "matchLabels" not in selector and "matchExpressions" not in selector:
        # ReplicationControllers keep a plain map.
        selector = {"matchLabels": selector}
    try:
        return str(labels.selector_from_label_selector(selector))
    except labels.SelectorError:
        return ""


# --- writing ------------------------------------------------------------------------------------


def check_type(resource: Resource, obj: dict[str, Any], expected_kind: str | None = None) -> dict[str, Any]:
    """Fill apiVersion/kind from the URL, or refuse a body of another type."""
    kind = expected_kind or resource.kind
    api_version = obj.get("apiVersion")
    body_kind = obj.get("kind")
    gv = "autoscaling/v1" if kind == "Scale" else resource.group_version
    if expected_kind is None and api_version == resource.stored_group_version != gv:
        return obj  # already converted to the stored version (a server-side apply that creates)
    if api_version not in (None, "") and api_version != gv:
        raise errors.bad_request(
            f"the API version in the data ({api_version}) does not match the expected API version ({gv})"
        )
    if body_kind not in (None, "") and body_kind != kind:
        raise errors.bad_request(f"the kind in the data ({body_kind}) does not match the expected kind ({kind})")
    meta = obj.get("metadata")
    if meta is not None and not isinstance(meta, dict):
        raise errors.bad_request(
            f"json: cannot unmarshal {type(meta).__name__} into Go struct field {kind}.metadata of type v1.ObjectMeta"
        )
    # A custom kind's schema says what its spec and status are (and says so in its own words).
    sections = () if resource.custom is not None or kind == "ConfigMap" else ("spec", "status")
    for section in sections:
        if section in obj and obj[section] is not None and not isinstance(obj[section], dict):
            raise errors.bad_request(
                f"json: cannot unmarshal {type(obj[section]).__name__} into Go struct field {kind}.{section}"
            )
    typed = {**obj, "apiVersion": gv, "kind": kind}
    return typed if expected_kind else conversion.to_storage(resource, typed)


def check_namespace(rp: ResourcePath, obj: dict[str, Any]) -> None:
    meta = obj.setdefault("metadata", {})
    if not rp.resource.namespaced:
        meta.pop("namespace", None)
        return
    body_ns = meta.get("namespace")
    if body_ns not in (None, "") and body_ns != rp.namespace:
        raise errors.bad_request(
            "the namespace of the provided object does not match the namespace sent on the request"
        )
    meta["namespace"] = rp.namespace


def _name_errors(obj: dict[str, Any]) -> list[FieldError]:
    name = (obj.get("metadata") or {}).get("name")
    if name in (None, ""):
        return [required("metadata.name", "name or generateName is required")]
    if not isinstance(name, str):
        return [invalid("metadata.name", name, "must be a string")]
    return []


def validated(
    resource: Resource, obj: dict[str, Any], old: dict[str, Any] | None = None, *, status: bool = False
) -> dict[str, Any]:
    """Apply defaults and validate (``status``: a write to the status subresource); 422 Invalid with every field
    error."""
    if resource.custom is not None:
        obj = prepare_custom_resource(resource.custom.schema, obj)
        problems = validate_custom_resource(resource.custom.schema, obj, old, namespaced=resource.namespaced)
        if problems:
            raise errors.invalid(resource.kind, resource.group, str(dict_or_empty(obj.get("metadata")).get("name") or ""),
                                 problems)
        return obj
    if resource.kind == "Secret" and (undecodable := secret_data.decoding_error(obj)) is not None:
        # Go's decoder refuses a Secret's bytes before any validation runs.
        raise errors.bad_request(f'Secret in version "v1" cannot be handled as a Secret: {undecodable}')
    # Every caller hands over an object of its own (a create's copy or decoded body, an update's prepared
    # copy), so it is defaulted as it is, not copied first.
    malformed: Exception | None = None
    try:
        obj = default_in_place(resource.kind, obj)
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        malformed = exc
    problems = _name_errors(obj)  # no defaulter touches the name
    if not problems and malformed is not None:
        # Validation would default the body again and meet the same malformed part.
        raise malformed
    # Validation judges the object as defaulted: one defaulted here need not be defaulted again.
    problems = problems or validate(resource.kind, obj, old, status=status, defaulted=True)
    if problems:
        name = (obj.get("metadata") or {}).get("name") or ""
        raise errors.invalid(resource.kind, resource.group, str(name), problems)
    return obj


async def ensure_namespace(cid: int, rp: ResourcePath, name: str) -> None:
    """NamespaceLifecycle admission: the namespace must exist and not be terminating."""
    if not rp.resource.namespaced:
        return
    # Only read: the watch cache's own object, not a copy of it.
    ns = await watchcache.get(cid, kv.Key("namespaces", "", rp.namespace), shared=True)
    if ns is None:
        raise errors.not_found("namespaces", "", rp.namespace)
    if (ns.get("metadata") or {}).get("deletionTimestamp"):
        raise errors.forbidden_resource(
            rp.resource.plural, rp.resource.group, name,
            f"unable to create new content in namespace {rp.namespace} because it is being terminated",
            [{"reason": errors.NAMESPACE_TERMINATING_CAUSE, "message": f"namespace {rp.namespace} is being terminated",
              "field": "metadata.namespace"}],
        )


async def _allocate(cid: int, rp: ResourcePath, obj: dict[str, Any]) -> None:
    """Service ClusterIP and NodePort allocation."""
    if rp.resource.kind != "Service":
        return
    spec = obj.setdefault("spec", {})
    if not isinstance(spec, dict) or spec.get("type") == "ExternalName":
        return
    services, _ = await _list(cid, "services", None)
    if spec.get("clusterIP") in (None, ""):
        used = {str((s.get("spec") or {}).get("clusterIP")) for s in services}
        ip = strategy.allocate_cluster_ip(used, f"{rp.namespace}/{obj['metadata'].get('name')}")
        spec["clusterIP"] = ip
        spec["clusterIPs"] = [ip]
    elif spec.get("clusterIP") != "None":
        spec.setdefault("clusterIPs", [spec["clusterIP"]])
    if spec.get("type") in ("NodePort", "LoadBalancer"):
        used_ports: set[int] = {
            p["nodePort"]
            for s in services
            for p in (s.get("spec") or {}).get("ports") or []
            if isinstance(p, dict) and isinstance(p.get("nodePort"), int)
        }
        for port in spec.get("ports") or []:
            if isinstance(port, dict) and not port.get("nodePort"):
                port["nodePort"] = strategy.allocate_node_port(used_ports, f"{obj['metadata'].get('name')}/{port.get('port')}")
                used_ports.add(port["nodePort"])


async def create_object(req: ApiRequest, rp: ResourcePath, obj: dict[str, Any]) -> ApiResponse:
    """Create from an already-decoded body."""
    resource = rp.resource
    obj = check_type(resource, obj)
    check_namespace(rp, obj)
    field_validation.check(req, resource, obj, None)
    cid = await cluster_of(req)
    await _admit_priority(cid, resource.kind, obj, None)
    await confirm_no_escalation(req, resource, obj)
    meta = obj["metadata"]
    if not meta.get("name") and isinstance(meta.get("generateName"), str) and meta["generateName"]:
        meta["name"] = meta["generateName"] + strategy.random_suffix()
    obj = strategy.prepare_for_create(resource, obj)
    if resource.kind == "PersistentVolumeClaim":
        obj = storageclass.admit_claim(obj, (await _list(cid, "storageclasses.storage.k8s.io", None))[0])
    obj = storage_protection.admit(resource.kind, obj)
    if resource.kind == "Ingress":
        ingressclass.admit_ingress(obj, (await _list(cid, "ingressclasses.networking.k8s.io", None))[0])
    ranges: list[dict[str, Any]] = []
    if resource.kind in ("Pod", "PersistentVolumeClaim"):
        ranges = await watchcache.objects(cid, "limitranges", rp.namespace)
    if resource.kind == "Pod":
        obj = limitranger.default_pod(obj, ranges)
    obj = validated(resource, obj)
    await ensure_namespace(cid, rp, str(obj["metadata"].get("name") or ""))
    _admit_limits(rp, obj, ranges)
    await _allocate(cid, rp, obj)
    if not _is_apply(req):
        obj = managedfields.track_update(
            None, obj, _manager(req), "", resource.group_version, clock.rfc3339(), has_status=resource.has_status
        )
    if resource.kind == "Pod":
        # The plugin copies what it takes from the account: it reads the watch cache's own object.
        account = await watchcache.get(
            cid, kv.Key("serviceaccounts", rp.namespace, serviceaccount.account_name(obj)), shared=True
        )
        obj = serviceaccount.admit_pod(obj, account, strategy.random_suffix())
    await _charge_quotas(cid, rp, obj, charge=not req.query.get("dryRun"))
    if req.query.get("dryRun"):
        return ok(with_type(resource, obj), 201)
    try:
        stored = await store_write(req, rp, "create", meta["name"], _create, cid, store_key(rp, meta["name"]), obj)
    except kv.KeyExists:
        raise errors.already_exists(resource.plural, resource.group, meta["name"]) from None
    return ok(with_type(resource, stored), 201)


def _admit_limits(rp: ResourcePath, obj: dict[str, Any], ranges: list[dict[str, Any]]) -> None:
    """LimitRanger's validating half on a create: a Pod's or a claim's bounds, from the namespace's ``ranges``."""
    resource = rp.resource
    if resource.kind not in ("Pod", "PersistentVolumeClaim"):
        return
    why = (limitranger.refusal if resource.kind == "Pod" else limitranger.claim_refusal)(obj, ranges)
    if why is not None:
        raise errors.forbidden_resource(resource.plural, resource.group, str(obj["metadata"].get("name") or ""), why)


async def _charge_quotas(
    cid: int, rp: ResourcePath, obj: dict[str, Any], *, charge: bool, old: dict[str, Any] | None = None
) -> None:
    """ResourceQuota admission, the last step before a create (or an update of ``old``) is stored.

    With ``charge`` (not a dry run) the quotas' ``status.used`` take the object in first; a create whose
    name is taken is not charged, as the store refuses it.
    """
    resource, name = rp.resource, str(obj["metadata"].get("name") or "")
    if not resource.namespaced:
        return
    for attempt in range(PATCH_RETRIES):
        # After a conflict, the quotas as stored: the copy that conflicted may be behind.
        if attempt == 0:
            quotas = await watchcache.objects(cid, "resourcequotas", rp.namespace)
        else:
            quotas = await _objects_in(cid, "resourcequotas", rp.namespace)
        if not any(resourcequota.tracked(q, resource.plural, resource.group) for q in quotas):
            return
        existing, _ = await _list(cid, resource.key, rp.namespace)
        if old is None and any(dict_or_empty(e.get("metadata")).get("name") == name for e in existing):
            return
        why, charged = resourcequota.admit(quotas, resource.plural, resource.group, obj, existing, old)
        if why is not None:
            raise errors.forbidden_resource(resource.plural, resource.group, name, why)
        try:
            for quota in charged if charge else []:
                key = kv.Key("resourcequotas", rp.namespace, quota["metadata"]["name"])
                await _update(cid, key, quota, resource_version(quota))
        except kv.RevisionConflict:
            continue  # another create charged the quota first: count again
        return


async def _admit_priority(cid: int, kind: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
    """The Priority admission plugin, for Pods and PriorityClasses (see admission/priority.py)."""
    if kind == "Pod" and old is not None:
        priority.admit_pod_update(obj, old)
    elif kind in ("Pod", "PriorityClass"):
        classes = await watchcache.objects(cid, "priorityclasses.scheduling.k8s.io", None)
        if kind == "Pod":
            priority.admit_pod(obj, classes)
        else:
            priority.validate_class(obj, classes, creating=old is None)


async def create(req: ApiRequest, rp: ResourcePath) -> ApiResponse:
    if isinstance(req.payload, dict):
        # The in-process caller keeps its dict (unless it handed it over); a body decoded here is the create's own.
        return await create_object(req, rp, req.payload if req.payload_handed_over else deep_copy(req.payload))
    return await create_object(req, rp, codec.decode_object(req.body, req.content_type))


async def _write_update(
    req: ApiRequest, rp: ResourcePath, cid: int, old: dict[str, Any], new: dict[str, Any], precondition: int | None,
    *, track: bool = True,
) -> dict[str, Any]:
    """Shared tail of update and patch: keep what may not change, validate, store."""
    resource = rp.resource
    field_validation.check(req, resource, new, old)
    if precondition is not None and precondition != resource_version(old):
        raise errors.conflict(resource.plural, resource.group, rp.name, errors.MODIFIED_CONFLICT)
    new.setdefault("metadata", {})
    if not isinstance(new["metadata"], dict):
        raise errors.bad_request("metadata must be an object")
    if new["metadata"].get("name") not in (None, rp.name):
        raise errors.bad_request(
            f"the name of the object ({new['metadata'].get('name')}) does not match the name on the URL ({rp.name})"
        )
    new["metadata"]["name"] = rp.name
    check_namespace(rp, new)
    if rp.sub == "status":
        new = strategy.prepare_for_status_update(old, new)
    elif rp.sub == "finalize":
        new = strategy.prepare_for_finalize(old, new)
    else:
        new = strategy.prepare_for_update(resource, old, new)
        await _admit_priority(cid, resource.kind, new, old)
        await confirm_no_escalation(req, resource, new)
    new = validated(resource, new, old, status=rp.sub == "status")
    strategy.follow_generation(resource, old, new)
    if resource.kind == "PersistentVolumeClaim" and rp.sub != "status":
        classes, _ = await _list(cid, "storageclasses.storage.k8s.io", None)
        refusal = storageclass.resize_refusal(new, old, classes)
        if refusal is not None:
            raise errors.forbidden_resource(resource.plural, resource.group, rp.name, refusal)
    if update_base.charges_quota(rp):
        await _charge_quotas(cid, rp, new, charge=not req.query.get("dryRun"), old=old)
    if req.query.get("dryRun"):
        new["metadata"]["resourceVersion"] = str(resource_version(old))
        return new
    if new == old:
        return old
    if track:
        new = managedfields.track_update(
            old, new, _manager(req), rp.sub, resource.group_version, clock.rfc3339(), has_status=resource.has_status
        )
    held = namespace_held(new) if resource.kind == "Namespace" else new["metadata"].get("finalizers")
    # A Pod still given time to terminate goes when its kubelet says so, not before.
    graceful = resource.kind == "Pod" and int(new["metadata"].get("deletionGracePeriodSeconds") or 0) > 0
    if new["metadata"].get("deletionTimestamp") and not held and not graceful:
        # The last finalizer is gone: the deletion that waited for it happens now.
        return await store_write(req, rp, "delete", rp.name, _delete, cid, store_key(rp), resource_version(old))
    verb = "update" if req.method == "PUT" else "patch"
    return await store_write(req, rp, verb, rp.name, _update, cid, store_key(rp), new, resource_version(old))


async def update(req: ApiRequest, rp: ResourcePath) -> ApiResponse:
    resource = rp.resource
    body = req.payload if isinstance(req.payload, dict) else codec.decode_object(req.body, req.content_type)
    cid = await cluster_of(req)
    if rp.sub == "scale":
        return await _update_scale(req, rp, cid, lambda scale: check_type(resource, body, "Scale"), body)
    obj = check_type(resource, update_base.own_metadata(body))
    precondition = update_base.precondition_resource_version(obj)
    remembered = await update_base.remembered_old(req, cid, rp, store_key(rp), precondition)
    old = remembered or await _get(cid, store_key(rp))
    if old is None:
        raise not_found(rp)
    try:
        stored = await _write_update(req, rp, cid, old, obj, precondition)
        if stored is remembered:
            # Nothing was written, so nothing checked that the copy is current: the store says, and its
            # read is the answer (the remembered object is the watch cache's own).
            current = await _get(cid, store_key(rp))
            if current is None:
                raise not_found(rp)
            if resource_version(current) != precondition:
                raise kv.RevisionConflict(store_key(rp))
            stored = current
    except kv.RevisionConflict:
        raise errors.conflict(resource.plural, resource.group, rp.name, errors.MODIFIED_CONFLICT) from None
    return ok(with_type(resource, stored))


def decode_patch(req: ApiRequest) -> tuple[str, Any]:
    kind = PATCH_TYPES.get(codec.media_type(req.content_type))
    if kind is None or kind == "unsupported":
        raise errors.unsupported_media_type(codec.media_type(req.content_type) or "<none>")
    if req.payload is not None:
        return kind, req.payload
    if kind == "apply":
        patch = codec.parse_yaml(req.body)
    else:
        patch = codec.parse_json(req.body)
    if kind == "json" and not isinstance(patch, list):
        raise errors.bad_request("json patch must be a list of operations")
    if kind != "json" and not isinstance(patch, dict):
        raise errors.bad_request("the patch must be a JSON object")
    return kind, patch


def _manager(req: ApiRequest) -> str:
    return managedfields.manager_of(req.query.get("fieldManager", ""), req.user_agent, req.client)


def _is_apply(req: ApiRequest) -> bool:
    return PATCH_TYPES.get(codec.media_type(req.content_type)) == "apply"


def _owned_by_applier(
    req: ApiRequest, resource: Resource, old: dict[str, Any], new: dict[str, Any], config: dict[str, Any]
) -> dict[str, Any]:
    """Server-side apply: refuse conflicts unless forced; drop what this manager applied before and applies
    no more (and nobody else owns); record what it applies."""
    manager = req.query.get("fieldManager", "")
    owned = managedfields.field_set(config)
    found = managedfields.conflicts(old, new, owned, manager)
    if found and not req.flag("force"):
        message, causes = managedfields.conflict_message(found, resource.group_version)
        raise errors.StatusError(409, "Conflict", message, {"causes": causes})
    new = managedfields.strip(new, set(found), manager)
    others = set(managedfields.owned_by_others(old, manager))
    new = managedfields.remove(new, managedfields.applied_by(old, manager) - owned - others)
    return managedfields.record(new, manager, owned, resource.group_version, clock.rfc3339())


def apply_patch(kind: str, current: dict[str, Any], patch: Any) -> dict[str, Any]:
    """``current`` (as stored: plain JSON) patched, as plain JSON.

    A merge of plain JSON into plain JSON is plain JSON, so only the patch (small) is checked; a JSON
    patch can copy subtrees over and over, so its result is checked whole.
    """
    try:
        if kind == "json":
            result = json_patch(current, patch)
        elif kind == "merge":
            result = merge_patch(current, codec.normalize(patch))
        else:
            result = strategic_merge_patch(current, codec.normalize(patch))
    except PatchError as exc:
        raise errors.StatusError(422 if kind == "json" else 400, "Invalid" if kind == "json" else "BadRequest", str(exc)) from None
    if not isinstance(result, dict):
        raise errors.bad_request("the patch did not produce an object")
    return codec.normalize(result) if kind == "json" else result


async def patch(req: ApiRequest, rp: ResourcePath) -> ApiResponse:
    resource = rp.resource
    kind, body = decode_patch(req)
    if kind == "strategic" and resource.custom is not None:
        # A custom kind has no patch strategies to follow (the CRD handler offers the other three).
        raise errors.unsupported_media_type("", CUSTOM_PATCH_TYPES)
    cid = await cluster_of(req)
    if rp.sub == "scale":
        return await _update_scale(req, rp, cid, lambda scale: apply_patch(kind, scale, body), None)
    for attempt in range(PATCH_RETRIES):
        cached = attempt == 0 and update_base.patches_cached_copy(req, kind, body)
        # The watch cache's object itself, not a copy: a patch only reads the object it starts from.
        old = await (watchcache.get(cid, store_key(rp), shared=True) if cached else _get(cid, store_key(rp)))
        if old is None:
            if kind == "apply" and not rp.sub:
                obj = check_type(resource, deep_copy(body))
                obj.setdefault("metadata", {})
                if isinstance(obj["metadata"], dict):
                    if obj["metadata"].get("name") not in (None, rp.name):
                        raise errors.bad_request(
                            f"the name of the object ({obj['metadata'].get('name')}) does not match the name on the URL ({rp.name})"
                        )
                    obj["metadata"]["name"] = rp.name
                    owned = managedfields.field_set(body)
                    manager = req.query.get("fieldManager", "")
                    obj = managedfields.record(obj, manager, owned, resource.group_version, clock.rfc3339())
                return await create_object(req, rp, obj)
            raise not_found(rp)
        if kind == "apply":
            check_type(resource, body)
        # A patch applies to the object as the client's version shows it. Every kind of patch leaves the
        # object and the patch as they are, and its result shares nothing with either: no copies here.
        new = apply_patch(kind, conversion.from_storage(resource, old), body)
        if kind == "apply":
            new = _owned_by_applier(req, resource, old, new, body)
        if new.get("kind") != resource.kind or new.get("apiVersion") != resource.stored_group_version:
            new = check_type(resource, new)
        precondition = update_base.precondition_resource_version(body)
        if precondition is not None and precondition == resource_version(old) and resource_version(new) != precondition:
            precondition = None
        if kind == "json" and resource_version(new) != resource_version(old):
            precondition = resource_version(new)
        try:
            stored = await _write_update(req, rp, cid, old, new, precondition, track=kind != "apply")
        except kv.RevisionConflict:
            if precondition is not None:
                raise errors.conflict(resource.plural, resource.group, rp.name, errors.MODIFIED_CONFLICT) from None
            continue
        if cached and stored is old:
            if not await update_base.still_stored(cid, store_key(rp), old):
                continue  # it changed nothing in a copy that is behind: patch what is stored
            stored = deep_copy(old)  # the answer is the caller's to change
        return ok(with_type(resource, stored))
    raise errors.conflict(resource.plural, resource.group, rp.name, errors.MODIFIED_CONFLICT)


async def _update_scale(
    req: ApiRequest, rp: ResourcePath, cid: int, change: Callable[[dict[str, Any]], dict[str, Any]], body: Any
) -> ApiResponse:
    """PUT or PATCH on /scale: change spec.replicas of the workload, reply with a Scale."""
    resource = rp.resource
    for _ in range(PATCH_RETRIES):
        old = await _get(cid, store_key(rp))
        if old is None:
            raise not_found(rp)
        scale = strategy.scale_of(resource, old, selector_string(old))
        new_scale = change(deep_copy(scale))
        replicas = (new_scale.get("spec") or {}).get("replicas") if isinstance(new_scale.get("spec"), dict) else None
        if isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 0:
            detail = "must be greater than or equal to 0" if isinstance(replicas, int) and not isinstance(replicas, bool) else "must be an integer"
            raise errors.invalid("Scale", "autoscaling", rp.name, [invalid("spec.replicas", replicas, detail)])
        precondition = update_base.precondition_resource_version(new_scale) if body is not None else None
        if precondition is not None and precondition != resource_version(old):
            raise errors.conflict(resource.plural, resource.group, rp.name, errors.MODIFIED_CONFLICT)
        new = deep_copy(old)
        if resource.custom is not None:
            customresources.set_path(new, customresources.scale_paths(resource)[0], replicas)
        else:
            new.setdefault("spec", {})["replicas"] = replicas
        try:
            stored = await _write_update(req, ResourcePath(resource, rp.namespace, rp.name, ""), cid, old, new, None)
        except kv.RevisionConflict:
            continue
        return ok(strategy.scale_of(resource, stored, selector_string(stored)))
    raise errors.conflict(resource.plural, resource.group, rp.name, errors.MODIFIED_CONFLICT)


def namespace_held(ns: dict[str, Any]) -> bool:
    """Whether a namespace's deletion waits (for the namespace controller or another finalizer)."""
    return bool(dict_or_empty(ns.get("spec")).get("finalizers") or (ns.get("metadata") or {}).get("finalizers"))
