"""``kubectl describe`` for ResourceQuotas and LimitRanges, as kubectl's describers print them."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import dict_or_empty, list_or_empty

from .describe import Text

# helpTextForResourceQuotaScope: what each scope means, under the Scopes line.
_SCOPE_HELP = {
    "Terminating": "Matches all pods that have an active deadline. These pods have a limited lifespan on a node "
                   "before being actively terminated by the system.",
    "NotTerminating": "Matches all pods that do not have an active deadline. These pods usually include long "
                      "running pods whose container command is not expected to terminate.",
    "BestEffort": "Matches all pods that do not have resource requirements set. These pods have a best effort "
                  "quality of service.",
    "NotBestEffort": "Matches all pods that have at least one resource requirement set. These pods have a "
                     "burstable or guaranteed quality of service.",
}
_LIMIT_FIELDS = ("min", "max", "defaultRequest", "default", "maxLimitRequestRatio")


def describe_resource_quota(quota: dict[str, Any]) -> Text:
    """Name, namespace, the scopes with what they mean, then each resource's used and hard."""
    meta, spec, status = (dict_or_empty(quota.get(k)) for k in ("metadata", "spec", "status"))
    text = Text()
    text.add(0, "Name", meta.get("name", ""))
    text.add(0, "Namespace", meta.get("namespace", ""))
    scopes = sorted(str(s) for s in list_or_empty(spec.get("scopes")))
    if scopes:
        text.add(0, "Scopes", ", ".join(scopes))
        for scope in scopes:
            if scope in _SCOPE_HELP:
                text.raw(0, f" * {_SCOPE_HELP[scope]}")
    text.write(0, "Resource\tUsed\tHard")
    text.write(0, "--------\t----\t----")
    hard, used = dict_or_empty(status.get("hard")), dict_or_empty(status.get("used"))
    for name in sorted(hard):
        text.write(0, f"{name}\t{used.get(name, '0')}\t{hard[name]}")
    return text


def describe_limit_range(limit_range: dict[str, Any]) -> Text:
    """Name, namespace, then a row per item and resource: min, max, default request and limit, ratio."""
    meta, spec = dict_or_empty(limit_range.get("metadata")), dict_or_empty(limit_range.get("spec"))
    text = Text()
    text.add(0, "Name", meta.get("name", ""))
    text.add(0, "Namespace", meta.get("namespace", ""))
    text.write(0, "Type\tResource\tMin\tMax\tDefault Request\tDefault Limit\tMax Limit/Request Ratio")
    text.write(0, "----\t--------\t---\t---\t---------------\t-------------\t-----------------------")
    for item in list_or_empty(spec.get("limits")):
        item = dict_or_empty(item)
        values = [dict_or_empty(item.get(field)) for field in _LIMIT_FIELDS]
        for name in sorted({n for found in values for n in found}):
            cells = [str(found.get(name, "-")) for found in values]
            text.write(0, "\t".join([str(item.get("type", "")), name, *cells]))
    return text
