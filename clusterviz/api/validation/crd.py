"""CustomResourceDefinitions (apiextensions.k8s.io/v1), as upstream's ValidateCustomResourceDefinition and its update.

Upstream judges the definition in its internal form, where what all versions
share (the same schema, subresources or printer columns) sits once at the top
of the spec. Errors about those therefore name ``spec.validation``,
``spec.subresources`` and ``spec.additionalPrinterColumns``, as kubectl shows
them, and name a version's own only where the versions differ.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlsplit

from clusterviz.apimachinery.field import duplicate, forbidden, invalid, not_supported, required, too_many
from clusterviz.apimachinery.names import is_dns1035_label, is_dns1123_subdomain
from clusterviz.apimachinery.unstructured import dict_or_empty

from .common import (
    Errors,
    as_str_list,
    child,
    dict_items,
    get_bool,
    get_dict,
    get_int,
    get_list,
    get_opt_str,
    get_str,
    get_str_list,
    index,
    port_num_errors,
)
from .crd_schema import Found, Rule, has_defaults, has_kubernetes_extensions, validate_schema
from .meta import immutable, name_is_dns_subdomain, validate_object_meta, validate_object_meta_update

SCOPES: Final = ["Cluster", "Namespaced"]
STRATEGIES: Final = ["None", "Webhook"]
COLUMN_TYPES: Final = ["boolean", "date", "integer", "number", "string"]
COLUMN_FORMATS: Final = ["byte", "date", "date-time", "double", "float", "int32", "int64", "password"]
CONVERSION_REVIEW_VERSIONS: Final = ["v1", "v1beta1"]
MAX_SELECTABLE_FIELDS: Final = 8
MAX_DEPRECATION_WARNING: Final = 256
APPROVAL_ANNOTATION: Final = "api-approved.kubernetes.io"
_APPROVAL_PR: Final = "see https://github.com/kubernetes/enhancements/pull/1111"
_WEBHOOK_URL_FORM: Final = "; desired format: https://host[/path]"


@dataclass
class _Options:
    """What an update may keep because the stored definition already had it (upstream never tightens)."""

    require_schema: bool = True
    require_review_version: bool = True
    immutable_names: bool = False
    kept: set[Rule] = field(default_factory=set)


@dataclass
class _Version:
    path: str
    node: dict[str, Any]
    name: str
    storage: bool
    served: bool
    # The version's own schema, subresources, columns and selectable fields; None where they sit at the top.
    schema: Any = None
    subresources: Any = None
    columns: Any = None
    selectable: Any = None


@dataclass
class _Spec:
    """The spec in upstream's internal form: what every version shares lifted to the top."""

    versions: list[_Version]
    schema: Any = None
    subresources: Any = None
    columns: Any = None
    selectable: Any = None


def _shared(values: list[Any]) -> bool:
    # Semantic equality: absent, null and empty lists are the same.
    return all((v or None) == (values[0] or None) for v in values)


def _internal(spec: dict[str, Any], errs: Errors) -> _Spec:
    versions: list[_Version] = []
    for _, path, node in dict_items(get_list(spec, "versions", "spec", errs), "spec.versions", errs):
        name = get_str(node, "name", path, errs)
        storage = get_bool(node, "storage", path, errs) is True
        served = get_bool(node, "served", path, errs) is True
        version = _Version(path, node, name if isinstance(name, str) else "", storage, served)
        version.schema = get_dict(node, "schema", path, errs)
        version.subresources = get_dict(node, "subresources", path, errs)
        version.columns = get_list(node, "additionalPrinterColumns", path, errs)
        version.selectable = get_list(node, "selectableFields", path, errs)
        versions.append(version)
    out = _Spec(versions)
    if not versions:
        return out
    lifted_schema = _shared([v.schema for v in versions])
    for attr in ("schema", "subresources", "columns", "selectable"):
        values = [getattr(v, attr) for v in versions]
        if _shared(values) and (attr != "selectable" or lifted_schema):
            setattr(out, attr, values[0])
            for v in versions:
                setattr(v, attr, None)
    return out


def _open_api_schema(wrapper: Any, path: str, errs: Errors) -> dict[str, Any] | None:
    return get_dict(wrapper, "openAPIV3Schema", path, errs) if isinstance(wrapper, dict) else None


def _status_enabled(subresources: Any) -> bool:
    return isinstance(subresources, dict) and subresources.get("status") is not None


# --- the entry point ---------------------------------------------------------------


def validate_custom_resource_definition(obj: dict[str, Any], old: dict[str, Any] | None = None) -> Errors:
    """The name is plural.group; group, names, scope and versions are sound; schemas are structural."""
    errs: Errors = []
    spec = get_dict(obj, "spec", "", errs) or {}
    names = get_dict(spec, "names", "spec", errs) or {}
    group = get_str(spec, "group", "spec", errs)
    plural = names.get("plural")  # its type is reported with the other names
    required_name = f"{plural if isinstance(plural, str) else ''}.{group or ''}"

    def name_check(name: str, prefix: bool) -> list[str]:
        problems = name_is_dns_subdomain(name, prefix)
        return problems + ([] if name == required_name else ['must be spec.names.plural+"."+spec.group'])

    _, meta_errs = validate_object_meta(obj, namespaced=False, name_fn=name_check)
    errs = meta_errs + errs
    old_spec = dict_or_empty(old.get("spec")) if old is not None else None
    opts = _options(old) if old is not None else _Options()
    if old is not None:
        errs.extend(validate_object_meta_update(obj, old))
    internal = _internal(spec, errs)
    errs.extend(_validate_spec(spec, names, group, internal, opts))
    if old_spec is not None:
        errs.extend(_validate_spec_update(spec, old_spec, opts))
    status = get_dict(obj, "status", "", errs) or {}
    accepted = get_dict(status, "acceptedNames", "status", errs) or {}
    errs.extend(_validate_names(accepted, "status.acceptedNames", errs))
    errs.extend(_validate_stored_versions(status, internal, errs))
    errs.extend(_validate_api_approval(obj, old, group))
    errs.extend(_validate_preserve_unknown_fields(spec, old_spec))
    return errs


def validate_custom_resource_definition_status(obj: dict[str, Any], old: dict[str, Any]) -> Errors:
    """A write to /status (upstream's ValidateUpdateCustomResourceDefinitionStatus): only the accepted names are
    judged, so a storage migration may rewrite storedVersions freely."""
    errs = validate_object_meta_update(obj, old)
    status = get_dict(obj, "status", "", errs) or {}
    accepted = get_dict(status, "acceptedNames", "status", errs) or {}
    errs.extend(_validate_names(accepted, "status.acceptedNames", errs))
    return errs


def _options(old: dict[str, Any]) -> _Options:
    """What the stored definition already breaks; found by judging it as a new one (its errors are dropped)."""
    scratch: Errors = []
    spec = dict_or_empty(old.get("spec"))
    internal = _internal(spec, scratch)
    opts = _Options()
    opts.require_schema = _open_api_schema(internal.schema, "", scratch) is not None or all(
        _open_api_schema(v.schema, "", scratch) is not None for v in internal.versions)
    review = dict_or_empty(dict_or_empty(spec.get("conversion")).get("webhook")).get("conversionReviewVersions")
    opts.require_review_version = not review or not isinstance(review, list) or any(
        v in CONVERSION_REVIEW_VERSIONS for v in review)
    conditions = dict_or_empty(old.get("status")).get("conditions")
    opts.immutable_names = any(
        isinstance(c, dict) and c.get("type") == "Established" and c.get("status") == "True"
        for c in (conditions if isinstance(conditions, list) else []))
    for found in _schema_findings(internal, structural=True, scratch=scratch):
        opts.kept.add(found[0])
    opts.kept.discard(Rule.ALWAYS)
    return opts


# --- the spec ------------------------------------------------------------------------


def _validate_spec(spec: dict[str, Any], names: dict[str, Any], group: Any, internal: _Spec, opts: _Options) -> Errors:
    errs: Errors = []
    if group == "":
        errs.append(required("spec.group", ""))
    elif isinstance(group, str):
        problems = is_dns1123_subdomain(group)
        if problems:
            errs.append(invalid("spec.group", group, ",".join(problems)))
        elif "." not in group:
            errs.append(invalid("spec.group", group, "should be a domain with at least one dot"))
    errs.extend(_enum(spec, "scope", "spec", SCOPES, errs))
    preserve = get_bool(spec, "preserveUnknownFields", "spec", errs) is True
    all_schemas = [s for s in [_open_api_schema(internal.schema, "", []),
                               *(_open_api_schema(v.schema, "", []) for v in internal.versions)] if s is not None]
    structural = Rule.STRUCTURAL not in opts.kept or not preserve
    if any(has_defaults(s) for s in all_schemas):
        structural = True
        if preserve:
            errs.append(invalid("spec.preserveUnknownFields", True, "must be false in order to use defaults in the "
                                                                    "schema"))
    if any(has_kubernetes_extensions(s) for s in all_schemas):
        structural = True
    errs.extend(_required_schemas(internal, opts, preserve))
    errs.extend(_validate_versions(internal, structural, opts))
    _check_names_present(names, errs)
    errs.extend(_validate_names(names, "spec.names", errs))
    errs.extend(_findings(_top_schema_findings(internal, structural, errs), opts))
    errs.extend(_validate_subresources(internal.subresources, "spec.subresources"))
    errs.extend(_validate_columns(internal.columns, "spec.additionalPrinterColumns"))
    if internal.selectable:
        errs.extend(_validate_selectable(internal.selectable, _open_api_schema(internal.schema, "", []),
                                         "spec.selectableFields", "validations.schema is included"))
    errs.extend(_validate_conversion(spec, preserve, opts))
    return errs


def _enum(obj: dict[str, Any], name: str, path: str, accepted: list[str], errs: Errors) -> Errors:
    value = get_str(obj, name, path, errs)
    if value == "":
        return [required(child(path, name), "")]
    if isinstance(value, str) and value not in accepted:
        return [not_supported(child(path, name), value, accepted)]
    return []


def _required_schemas(internal: _Spec, opts: _Options, preserve: bool) -> Errors:
    if _open_api_schema(internal.schema, "", []) is not None:
        return []
    errs: Errors = []
    for v in internal.versions:
        schema_path = child(v.path, "schema", "openAPIV3Schema")
        if _open_api_schema(v.schema, "", []) is not None:
            continue
        if opts.require_schema:
            errs.append(required(schema_path, "schemas are required"))
        elif not preserve and v.served:
            errs.append(required(schema_path, "because otherwise all fields are pruned"))
    return errs


def _validate_versions(internal: _Spec, structural: bool, opts: _Options) -> Errors:
    errs: Errors = []
    seen: set[str] = set()
    unique = True
    for v in internal.versions:
        if v.name in seen:
            unique = False
        seen.add(v.name)
        problems = is_dns1035_label(v.name)
        if problems:
            errs.append(invalid(child(v.path, "name"), v.name, ",".join(problems)))
        errs.extend(_validate_version(v, internal, structural, opts))
    raw = [v.node for v in internal.versions]
    if not unique:
        errs.append(invalid("spec.versions", raw, "must contain unique version names"))
    if sum(v.storage for v in internal.versions) != 1:
        errs.append(invalid("spec.versions", raw, "must have exactly one version marked as storage version"))
    # Upstream's internal form also has spec.version, the first version's name, and checks it again.
    if internal.versions and internal.versions[0].name:
        problems = is_dns1035_label(internal.versions[0].name)
        if problems:
            errs.append(invalid("spec.version", internal.versions[0].name, ",".join(problems)))
    return errs


def _validate_version(v: _Version, internal: _Spec, structural: bool, opts: _Options) -> Errors:
    errs: Errors = []
    deprecated = get_bool(v.node, "deprecated", v.path, errs) is True
    warning = get_opt_str(v.node, "deprecationWarning", v.path, errs)
    if isinstance(warning, str):
        errs.extend(invalid(child(v.path, "deprecationWarning"), warning, p)
                    for p in _deprecation_warning_errors(deprecated, warning))
    schema = _open_api_schema(v.schema, child(v.path, "schema"), errs)
    if schema is not None:
        subresources = v.subresources if internal.subresources is None else internal.subresources
        found = validate_schema(schema, child(v.path, "schema", "openAPIV3Schema"),
                                status_enabled=_status_enabled(subresources), structural=structural)
        errs.extend(_findings(found, opts))
    errs.extend(_validate_subresources(v.subresources, child(v.path, "subresources")))
    errs.extend(_validate_columns(v.columns, child(v.path, "additionalPrinterColumns")))
    if v.selectable:
        own = schema if schema is not None else _open_api_schema(internal.schema, "", [])
        errs.extend(_validate_selectable(v.selectable, own, child(v.path, "selectableFields"),
                                         "version.schema.openAPIV3Schema is not included"))
    return errs


def _deprecation_warning_errors(deprecated: bool, warning: str) -> list[str]:
    if not deprecated:
        return ["can only be set for deprecated versions"]
    problems = []
    if len(warning.encode()) > MAX_DEPRECATION_WARNING:
        problems.append("must be <= 256 characters long")
    if not warning:
        problems.append("must not be an empty string")
    for i, char in enumerate(warning):
        # Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
        if char != " " and unicodedata.category(char)[0] in "CZ":
            offset = len(warning[:i].encode())
            problems.append(f"must only contain printable UTF-8 characters; non-printable character found at index "
                            f"{offset}")
            break
    return problems


def _top_schema_findings(internal: _Spec, structural: bool, errs: Errors) -> Found:
    schema = _open_api_schema(internal.schema, "spec.validation", errs)
    if schema is None:
        return []
    any_status = _status_enabled(internal.subresources) or any(_status_enabled(v.subresources)
                                                               for v in internal.versions)
    return validate_schema(schema, "spec.validation.openAPIV3Schema", status_enabled=any_status,
                           structural=structural)


def _schema_findings(internal: _Spec, *, structural: bool, scratch: Errors) -> Found:
    found = _top_schema_findings(internal, structural, scratch)
    for v in internal.versions:
        schema = _open_api_schema(v.schema, "", scratch)
        if schema is not None:
            found.extend(validate_schema(schema, "", status_enabled=False, structural=structural))
    return found


def _findings(found: Found, opts: _Options) -> Errors:
    # Whether a schema must be structural is decided before judging it (preserveUnknownFields, defaults).
    kept = opts.kept - {Rule.STRUCTURAL}
    return [error for rule, error in found if rule not in kept]


# --- names ------------------------------------------------------------------------------


def _check_names_present(names: dict[str, Any], errs: Errors) -> None:
    for name in ("plural", "singular", "kind", "listKind"):
        if names.get(name) in (None, ""):
            errs.append(required(child("spec.names", name), ""))


def _validate_names(names: dict[str, Any], path: str, errs: Errors) -> Errors:
    """Plural and singular are DNS-1035 labels; kind and listKind are too, lowercased."""
    out: Errors = []
    values = {name: get_str(names, name, path, errs) for name in ("plural", "singular", "kind", "listKind")}
    for name in ("plural", "singular"):
        value = values[name]
        if value and isinstance(value, str):
            problems = is_dns1035_label(value)
            if problems:
                out.append(invalid(child(path, name), value, ",".join(problems)))
    for name in ("kind", "listKind"):
        value = values[name]
        if value and isinstance(value, str):
            problems = is_dns1035_label(value.lower())
            if problems:
                out.append(invalid(child(path, name), value, "may have mixed case, but should otherwise match: "
                                   + ",".join(problems)))
    for name in ("shortNames", "categories"):
        for i, value in enumerate(get_str_list(names, name, path, errs) or []):
            problems = is_dns1035_label(value)
            if problems:
                out.append(invalid(index(child(path, name), i), value, ",".join(problems)))
    kind = values["kind"]
    if kind and kind == values["listKind"]:
        out.append(invalid(child(path, "listKind"), kind, "kind and listKind may not be the same"))
    return out


# --- subresources, columns and selectable fields ----------------------------------------------


def _simple_json_path(value: str, path: str) -> Errors:
    if not value:
        return [invalid(path, value, "must not be empty")]
    if not value.startswith("."):
        return [invalid(path, value, "must be a simple json path starting with .")]
    return []


def _validate_subresources(subresources: Any, path: str) -> Errors:
    errs: Errors = []
    if not isinstance(subresources, dict):
        return errs
    get_dict(subresources, "status", path, errs)
    scale = get_dict(subresources, "scale", path, errs)
    if scale is None:
        return errs
    for name, prefixes, where in (("specReplicasPath", (".spec.",), ".spec"),
                                  ("statusReplicasPath", (".status.",), ".status")):
        value = get_str(scale, name, child(path, "scale"), errs)
        value_path = child(path, "scale", name)
        if value == "":
            errs.append(required(value_path, ""))
        elif isinstance(value, str):
            problems = _simple_json_path(value, value_path)
            if problems:
                errs.extend(problems)
            elif not value.startswith(prefixes):
                errs.append(invalid(value_path, value, f"should be a json path under {where}"))
    selector = get_opt_str(scale, "labelSelectorPath", child(path, "scale"), errs)
    if isinstance(selector, str) and selector:
        selector_path = child(path, "scale", "labelSelectorPath")
        problems = _simple_json_path(selector, selector_path)
        if problems:
            errs.extend(problems)
        elif not selector.startswith((".spec.", ".status.")):
            errs.append(invalid(selector_path, selector, "should be a json path under either .spec or .status"))
    return errs


def _validate_columns(columns: Any, path: str) -> Errors:
    errs: Errors = []
    for _, column_path, column in dict_items(columns if isinstance(columns, list) else None, path, errs):
        name = get_str(column, "name", column_path, errs)
        if name == "":
            errs.append(required(child(column_path, "name"), ""))
        column_type = get_str(column, "type", column_path, errs)
        types = f"must be one of {','.join(COLUMN_TYPES)}"
        if column_type == "":
            errs.append(required(child(column_path, "type"), types))
        elif isinstance(column_type, str) and column_type not in COLUMN_TYPES:
            errs.append(invalid(child(column_path, "type"), column_type, types))
        column_format = get_str(column, "format", column_path, errs)
        if column_format and column_format not in COLUMN_FORMATS:
            errs.append(invalid(child(column_path, "format"), column_format,
                                f"must be one of {','.join(COLUMN_FORMATS)}"))
        get_int(column, "priority", column_path, errs)
        get_str(column, "description", column_path, errs)
        json_path = get_str(column, "jsonPath", column_path, errs)
        # Upstream names the field after its Go name here.
        if json_path == "":
            errs.append(required(child(column_path, "JSONPath"), ""))
        elif isinstance(json_path, str):
            errs.extend(_simple_json_path(json_path, child(column_path, "JSONPath")))
    return errs


def _resolve_field(schema: dict[str, Any], json_path: str) -> tuple[list[str], dict[str, Any] | None]:
    """The field a selectable field's path names and its schema, as upstream's ValidFieldPath finds them
    (dots only, no array notation); ValueError says why the path names no field."""
    tokens = [t for t in re.split(r"([.\[\]])", json_path) if t]
    names: list[str] = []
    node: dict[str, Any] | None = schema
    at = 0
    while at < len(tokens):
        token = tokens[at]
        if token == "[":
            raise ValueError("array notation is not allowed")
        if token != ".":
            raise ValueError(f"expected [ or . but got: {token}")
        if at + 1 == len(tokens):
            raise ValueError("unexpected end of JSON path")
        name, at = tokens[at + 1], at + 2
        props = node.get("properties") if node is not None else None
        extra = node.get("additionalProperties") if node is not None else None
        if isinstance(props, dict):
            found = props.get(name)
            if not isinstance(found, dict):
                raise ValueError("does not refer to a valid field")
            node = found
        elif extra is not None:
            node = extra if isinstance(extra, dict) else None
        else:
            raise ValueError("does not refer to a valid field")
        names.append(name)
    return names, node


def _validate_selectable(fields: list[Any], schema: dict[str, Any] | None, path: str, missing: str) -> Errors:
    errs: Errors = []
    if schema is None:
        return [invalid(path, "", f"selectableFields may only be set when {missing}")]
    seen: set[str] = set()
    for _, item_path, item in dict_items(fields, path, errs):
        json_path = get_str(item, "jsonPath", item_path, errs)
        value_path = child(item_path, "jsonPath")
        if json_path == "":
            errs.append(required(value_path, ""))
            continue
        if not isinstance(json_path, str):
            continue
        try:
            names, target = _resolve_field(schema, json_path)
        except ValueError as problem:
            errs.append(invalid(value_path, json_path, f"is an invalid path: {problem}"))
            continue
        if names[:1] == ["metadata"]:
            errs.append(invalid(value_path, json_path, "must not point to fields in metadata"))
        if target is None or target.get("type") not in ("string", "boolean", "integer"):
            errs.append(invalid(value_path, json_path, "must point to a field of type string, boolean or integer. "
                                                       "Enum string fields and strings with formats are allowed."))
        canonical = ".".join(names)
        if canonical in seen:
            errs.append(duplicate(value_path, json_path))
        seen.add(canonical)
    if len(seen) > MAX_SELECTABLE_FIELDS:
        errs.append(too_many(path, len(seen), MAX_SELECTABLE_FIELDS))
    return errs


# --- conversion ----------------------------------------------------------------------------


def _validate_conversion(spec: dict[str, Any], preserve: bool, opts: _Options) -> Errors:
    errs: Errors = []
    conversion = get_dict(spec, "conversion", "spec", errs)
    if conversion is None:
        return errs
    path = "spec.conversion"
    strategy = conversion.get("strategy")
    if isinstance(strategy, str) and strategy != "None" and preserve:
        errs.append(invalid(child(path, "strategy"), strategy, "must be None if spec.preserveUnknownFields is true"))
    errs.extend(_enum(conversion, "strategy", path, STRATEGIES, errs))
    webhook = get_dict(conversion, "webhook", path, errs) or {}
    # Upstream's internal form keeps the webhook's two fields on the conversion itself.
    client = get_dict(webhook, "clientConfig", child(path, "webhook"), errs)
    review = get_str_list(webhook, "conversionReviewVersions", child(path, "webhook"), errs)
    if strategy == "Webhook":
        if client is None:
            errs.append(required(child(path, "webhookClientConfig"), "required when strategy is set to Webhook"))
        else:
            errs.extend(_validate_client_config(client, child(path, "webhookClientConfig")))
        errs.extend(_validate_review_versions(review, child(path, "conversionReviewVersions"), opts))
    else:
        if client is not None:
            errs.append(forbidden(child(path, "webhookClientConfig"), "should not be set when strategy is not set to "
                                                                      "Webhook"))
        if review:
            errs.append(forbidden(child(path, "conversionReviewVersions"), "should not be set when strategy is not "
                                                                           "set to Webhook"))
    return errs


def _validate_client_config(client: dict[str, Any], path: str) -> Errors:
    errs: Errors = []
    url = get_opt_str(client, "url", path, errs)
    service = get_dict(client, "service", path, errs)
    if (url is None) == (service is None):
        errs.append(required(path, "exactly one of url or service is required"))
    elif isinstance(url, str):
        errs.extend(_validate_webhook_url(url, child(path, "url")))
    elif service is not None:
        errs.extend(_validate_webhook_service(service, child(path, "service")))
    return errs


def _validate_webhook_url(url: str, path: str) -> Errors:
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        return [required(path, f"url must be a valid URL: {exc}{_WEBHOOK_URL_FORM}")]
    errs: Errors = []
    if parts.scheme != "https":
        errs.append(invalid(path, parts.scheme, "'https' is the only allowed URL scheme" + _WEBHOOK_URL_FORM))
    if not parts.hostname:
        errs.append(invalid(path, parts.hostname or "", "host must be specified" + _WEBHOOK_URL_FORM))
    if parts.username is not None:
        errs.append(invalid(path, parts.netloc.rpartition("@")[0], "user information is not permitted in the URL"))
    if parts.fragment:
        errs.append(invalid(path, parts.fragment, "fragments are not permitted in the URL"))
    if parts.query:
        errs.append(invalid(path, parts.query, "query parameters are not permitted in the URL"))
    return errs


def _validate_webhook_service(service: dict[str, Any], path: str) -> Errors:
    errs: Errors = []
    for name in ("name", "namespace"):
        if get_str(service, name, path, errs) == "":
            errs.append(required(child(path, name), ""))
    port = get_int(service, "port", path, errs)
    if isinstance(port, int):
        problems = port_num_errors(port)
        if problems:
            errs.append(invalid(child(path, "port"), port, "port is not valid: " + ", ".join(problems)))
    service_path = get_opt_str(service, "path", path, errs)
    if isinstance(service_path, str) and service_path not in ("", "/"):
        if service_path == "//":
            errs.append(invalid(child(path, "path"), service_path, "segment[0] may not be empty"))
        elif not service_path.startswith("/"):
            errs.append(invalid(child(path, "path"), service_path, "must start with a '/'"))
    return errs


def _validate_review_versions(versions: list[str] | None, path: str, opts: _Options) -> Errors:
    if not versions:
        return [required(path, "")]
    errs: Errors = []
    seen: set[str] = set()
    for i, version in enumerate(versions):
        if version in seen:
            errs.append(invalid(index(path, i), version, "duplicate version"))
            continue
        seen.add(version)
        errs.extend(invalid(index(path, i), version, p) for p in is_dns1035_label(version))
    if opts.require_review_version and not seen & set(CONVERSION_REVIEW_VERSIONS):
        errs.append(invalid(path, versions, f"must include at least one of {', '.join(CONVERSION_REVIEW_VERSIONS)}"))
    return errs


# --- update, status and the rest ---------------------------------------------------------------


def _validate_spec_update(spec: dict[str, Any], old_spec: dict[str, Any], opts: _Options) -> Errors:
    """Group and plural make the name and never change; scope and kind stay once the definition is Established."""
    errs: Errors = []
    names, old_names = dict_or_empty(spec.get("names")), dict_or_empty(old_spec.get("names"))
    if opts.immutable_names:
        errs.extend(immutable(spec.get("scope"), old_spec.get("scope"), "spec.scope"))
        errs.extend(immutable(names.get("kind"), old_names.get("kind"), "spec.names.kind"))
    errs.extend(immutable(spec.get("group"), old_spec.get("group"), "spec.group"))
    errs.extend(immutable(names.get("plural"), old_names.get("plural"), "spec.names.plural"))
    return errs


def _validate_stored_versions(status: dict[str, Any], internal: _Spec, errs: Errors) -> Errors:
    path = "status.storedVersions"
    stored = as_str_list(status.get("storedVersions"), path, errs) or []
    if not stored:
        return [invalid(path, stored, "must have at least one stored version")]
    out: Errors = []
    positions = {name: i for i, name in enumerate(stored)}
    for v in internal.versions:
        if v.storage and v.name not in positions:
            out.append(invalid(path, stored, "must have the storage version " + v.name))
        positions.pop(v.name, None)
    for name, i in sorted(positions.items(), key=lambda item: item[1]):
        out.append(invalid(index(path, i), name,
                           f"missing from spec.versions; {name} was previously a storage version, and must remain in "
                           f"spec.versions until a storage migration ensures no data remains persisted in {name} and "
                           f"removes {name} from status.storedVersions"))
    return out


def _is_protected_group(group: Any) -> bool:
    return isinstance(group, str) and (group in ("k8s.io", "kubernetes.io")
                                       or group.endswith((".k8s.io", ".kubernetes.io")))


def _approval(obj: dict[str, Any]) -> tuple[str, str]:
    """The state of the API approval annotation, and the reason upstream gives for it."""
    annotations = dict_or_empty(dict_or_empty(obj.get("metadata")).get("annotations"))
    value = annotations.get(APPROVAL_ANNOTATION)
    value = value if isinstance(value, str) else ""
    if not value:
        return "missing", f'protected groups must have approval annotation "{APPROVAL_ANNOTATION}", {_APPROVAL_PR}'
    if value.startswith("unapproved"):
        return "bypassed", ""
    parts = urlsplit(value)
    if parts.scheme and parts.netloc and " " not in value:
        return "approved", ""
    return "invalid", (f'protected groups must have approval annotation "{APPROVAL_ANNOTATION}" with either a URL or '
                       f'a reason starting with "unapproved", {_APPROVAL_PR}')


def _validate_api_approval(obj: dict[str, Any], old: dict[str, Any] | None, group: Any) -> Errors:
    """Groups under k8s.io and kubernetes.io need the approval annotation (unless it has not changed)."""
    if not _is_protected_group(group):
        return []
    state, reason = _approval(obj)
    if old is not None and _approval(old)[0] == state:
        return []
    path = f"metadata.annotations[{APPROVAL_ANNOTATION}]"
    if state == "missing":
        return [required(path, reason)]
    if state == "invalid":
        annotations = dict_or_empty(dict_or_empty(obj.get("metadata")).get("annotations"))
        return [invalid(path, annotations.get(APPROVAL_ANNOTATION), reason)]
    return []


def _validate_preserve_unknown_fields(spec: dict[str, Any], old_spec: dict[str, Any] | None) -> Errors:
    if old_spec is not None and old_spec.get("preserveUnknownFields") is True:
        return []
    if spec.get("preserveUnknownFields") is True:
        return [invalid("spec.preserveUnknownFields", True, "cannot set to true, set x-kubernetes-preserve-unknown-"
                                                            "fields to true in spec.versions[*].schema instead")]
    return []

