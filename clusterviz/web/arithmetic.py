"""Each cell of the scoring panel as arithmetic, from the inputs the plugins put in the decision record.

A decision record's filter and score entries carry ``inputs`` (see
``DecisionRecord.to_dict``): the numbers the plugin compared or scored with on
that node. This module writes them out as the short lines a teacher reads
aloud, in the page's language: ``CPU 800m+200m / 4 = 25%``,
``std 0.19 → (1 − 0.19) × 100 = 81``. It only formats; every number comes
from the record, so the panel cannot disagree with the scheduler.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _

from clusterviz.apimachinery.quantity import format_bytes, format_cpu_millis
from clusterviz.scheduler.nodeinfo import CPU, DEFAULT_BIND_ALL_HOST_IP, EPHEMERAL_STORAGE, MEMORY
from clusterviz.scheduler.plugins import (
    image_locality,
    inter_pod_affinity,
    node_affinity,
    node_name,
    node_ports,
    node_resources_balanced_allocation,
    node_resources_fit,
    node_unschedulable,
    node_volume_limits,
    pod_topology_spread,
    taint_toleration,
    volume_binding,
    volume_restrictions,
    volume_zone,
)
from clusterviz.scheduler.plugins.node_resources_fit import LEAST_ALLOCATED, MOST_ALLOCATED, NON_ZERO_DEFAULTS

MIB = 1024 * 1024
# Upstream's names for the values scoring assumes when a container sets no request.
DEFAULT_CONSTANTS = {CPU: "DefaultMilliCPURequest", MEMORY: "DefaultMemoryRequest"}


def resource_label(name: str) -> str:
    """A resource's name as the panel prints it (CPU and memory translated)."""
    return {CPU: _("CPU"), MEMORY: _("memory")}.get(name, name)


def amount(resource: str, value: int) -> str:
    """An amount of ``resource`` the API server's way: ``800m`` and ``4`` for CPU, ``4915Mi`` for bytes."""
    if resource == CPU:
        return format_cpu_millis(value)
    if resource in (MEMORY, EPHEMERAL_STORAGE) or resource.startswith("hugepages-"):
        return format_bytes(value)
    return str(value)


def percent(fraction: float) -> str:
    """A fraction as a whole percentage, halves up as a class would round (0.2 -> ``20%``, 0.125 -> ``13%``)."""
    return f"{math.floor(fraction * 100 + 0.5)}%"


def mebibytes(count: int) -> str:
    """A byte count in MiB, as ImageLocality's thresholds are stated (``23Mi``, ``166.7Mi``)."""
    text = f"{count / MIB:.1f}".removesuffix(".0")
    return f"{text}Mi"


def _taint(taint: Mapping[str, str]) -> str:
    value = f"={taint['value']}" if taint.get("value") else ""
    return f"{taint.get('key', '')}{value}:{taint.get('effect', '')}"


def _mark(matched: bool) -> str:
    return "✓" if matched else "✗"


def _node_value(key: str, value: str | None) -> str:
    return (
        _("node: %(key)s=%(value)s") % {"key": key, "value": value}
        if value is not None
        else _("node has no %(key)s label") % {"key": key}
    )


# --- filters --------------------------------------------------------------------------


def _fit_filter(inputs: Mapping[str, Any]) -> list[str]:
    pods = inputs["pods"]
    lines = []
    if pods["used"] + 1 > pods["allocatable"]:
        lines.append(_("Pods: %(used)d running, room for %(allocatable)d") % pods)
    for r in inputs["resources"]:
        name = r["name"]
        lines.append(
            _("needs %(request)s %(resource)s, %(free)s free (%(allocatable)s − %(used)s)")
            % {
                "request": amount(name, r["request"]),
                "resource": resource_label(name),
                "free": amount(name, r["allocatable"] - r["used"]),
                "allocatable": amount(name, r["allocatable"]),
                "used": amount(name, r["used"]),
            }
        )
    if not inputs["resources"]:
        lines.append(_("requests no resources: it needs only a Pod slot (%(used)d of %(allocatable)d used)") % pods)
    return lines


def _taint_filter(inputs: Mapping[str, Any]) -> list[str]:
    taint = inputs["untoleratedTaint"]
    if taint is not None:
        return [_("untolerated taint %(taint)s") % {"taint": _taint(taint)}]
    if not inputs["taints"]:
        return [_("no taints")]
    return [_("every NoSchedule/NoExecute taint is tolerated")]


def _term_lines(term: Mapping[str, Any], label: str) -> list[str]:
    lines = [
        f"{_mark(check['matched'])} {label}: {check['expression']} ({_node_value(check['key'], check['nodeValue'])})"
        for check in term["expressions"]
    ]
    lines += [f"✗ {label}: {error}" for error in term["errors"]]
    return lines


def _affinity_filter(inputs: Mapping[str, Any]) -> list[str]:
    lines = []
    for i, term in enumerate(inputs.get("addedAffinity") or [], start=1):
        lines += _term_lines(term, _("scheduler-enforced term %(n)d") % {"n": i})
    for pair in inputs["nodeSelector"]:
        lines.append(
            f"{_mark(pair['matched'])} nodeSelector {pair['key']}={pair['value']} "
            f"({_node_value(pair['key'], pair['nodeValue'])})"
        )
    for i, term in enumerate(inputs["requiredTerms"] or [], start=1):
        lines += _term_lines(term, _("required term %(n)d") % {"n": i})
    return lines


def _port(port: Mapping[str, Any]) -> str:
    where = f"{port['ip']}:" if port["ip"] != DEFAULT_BIND_ALL_HOST_IP else ""
    return f"{where}{port['port']}/{port['protocol']}"


def _ports_filter(inputs: Mapping[str, Any]) -> list[str]:
    return [
        _("host port %(port)s already taken by %(pod)s") % {"port": _port(p), "pod": p["heldBy"]}
        if p["heldBy"]
        else _("host port %(port)s free") % {"port": _port(p)}
        for p in inputs["ports"]
    ]


def _volume_filter(inputs: Mapping[str, Any]) -> list[str]:
    lines = []
    conflict = inputs["conflict"]
    if conflict is not None:
        lines.append(
            _("volume %(volume)s (%(source)s) is already mounted by %(pod)s")
            % {"volume": conflict["volume"], "source": conflict["source"], "pod": conflict["heldBy"]}
        )
    if inputs["readWriteOncePodUsers"]:
        lines.append(
            _("a ReadWriteOncePod claim of this Pod is already used by %(count)d Pod(s)")
            % {"count": inputs["readWriteOncePodUsers"]}
        )
    return lines or [_("no conflicting volume")]


def _bound_claim(claim: Mapping[str, Any]) -> str:
    if not claim["volumeFound"]:
        return _("claim %(claim)s is bound to volume %(volume)s, which does not exist") % claim
    if not claim["nodeAffinity"]:
        return _("claim %(claim)s is bound to volume %(volume)s, which every node can reach") % claim
    return _("claim %(claim)s is bound to volume %(volume)s, node affinity %(nodeAffinity)s") % claim


def _waiting_claim(claim: Mapping[str, Any]) -> str:
    if claim["volume"]:
        return _("claim %(claim)s (class %(storageClass)s) would bind Available volume %(volume)s") % claim
    if claim["provision"]:
        return _("claim %(claim)s (class %(storageClass)s): a volume would be provisioned for this node") % claim
    if claim["selectedNode"]:
        return _("claim %(claim)s (class %(storageClass)s) is being provisioned for node %(selectedNode)s") % claim
    return (
        _("claim %(claim)s (class %(storageClass)s): no Available volume fits here and the class cannot provision one")
        % claim
    )


def _binding_filter(inputs: Mapping[str, Any]) -> list[str]:
    return [
        f"{_mark(c['matched'])} {_bound_claim(c) if c['state'] == 'bound' else _waiting_claim(c)}"
        for c in inputs["claims"]
    ]


def _zone_filter(inputs: Mapping[str, Any]) -> list[str]:
    conflict = inputs["conflict"]
    if conflict is None:
        return [_("the node is in the zone and region of every volume of the Pod")]
    return [
        "✗ "
        + _("volume %(volume)s is in %(key)s=%(values)s (%(node)s)")
        % {
            "volume": conflict["volume"],
            "key": conflict["key"],
            "values": " | ".join(conflict["values"]),
            "node": _node_value(conflict["key"], conflict["nodeValue"]),
        }
    ]


def _limits_filter(inputs: Mapping[str, Any]) -> list[str]:
    if not inputs["limits"]:
        return [_("no attach limit applies to the Pod's volumes on this node")]
    return [
        f"{_mark(limit['fits'])} "
        + _("%(driver)s: %(attached)d attached + %(new)d new = %(total)d, limit %(limit)d")
        % {
            "driver": limit["key"].removeprefix(node_volume_limits.ATTACH_LIMIT_PREFIX),
            "attached": limit["attached"],
            "new": limit["new"],
            "total": limit["attached"] + limit["new"],
            "limit": limit["limit"],
        }
        for limit in inputs["limits"]
    ]


def _spread_filter(inputs: Mapping[str, Any]) -> list[str]:
    lines = []
    for c in inputs["constraints"]:
        if c["domain"] is None:
            lines.append(_("node has no %(key)s label") % {"key": c["topologyKey"]})
            continue
        lines.append(
            _(
                "%(key)s=%(domain)s: %(matching)d matching Pods + %(self)d − minimum %(min)d = skew %(skew)d "
                "(maxSkew %(max)d)"
            )
            % {
                "key": c["topologyKey"],
                "domain": c["domain"],
                "matching": c["matching"],
                "self": c["selfMatch"],
                "min": c["globalMin"],
                "skew": c["skew"],
                "max": c["maxSkew"],
            }
        )
    return lines


def _inter_pod_filter(inputs: Mapping[str, Any]) -> list[str]:
    lines = []
    for label, terms in ((_("affinity"), inputs["affinity"]), (_("anti-affinity"), inputs["antiAffinity"])):
        for t in terms:
            if t["domain"] is None:
                lines.append(_("%(kind)s %(selector)s: node has no %(key)s label") % {"kind": label, **_term(t)})
            else:
                lines.append(
                    _("%(kind)s %(selector)s: %(pods)d matching Pods in %(key)s=%(domain)s")
                    % {"kind": label, **_term(t), "pods": t["pods"]}
                )
    for pair in inputs["existingAntiAffinity"]:
        lines.append(
            _("anti-affinity of %(pods)d placed Pods covers %(key)s=%(domain)s")
            % {"pods": pair["pods"], "key": pair["topologyKey"], "domain": pair["domain"]}
        )
    if inputs["firstOfGroup"]:
        lines.append(_("no Pod matches anywhere yet and the Pod matches its own terms: it may start the group"))
    return lines


def _term(t: Mapping[str, Any]) -> dict[str, Any]:
    return {"selector": t["selector"], "key": t["topologyKey"], "domain": t["domain"]}


def _unschedulable_filter(inputs: Mapping[str, Any]) -> list[str]:
    if inputs["tolerated"]:
        return [_("node is cordoned, and the Pod tolerates that")]
    return [_("node is cordoned (spec.unschedulable)")]


def _node_name_filter(inputs: Mapping[str, Any]) -> list[str]:
    return [_("the Pod asks for node %(name)s") % {"name": inputs["nodeName"]}]


FILTERS: dict[str, Callable[[Mapping[str, Any]], list[str]]] = {
    node_resources_fit.NAME: _fit_filter,
    taint_toleration.NAME: _taint_filter,
    node_affinity.NAME: _affinity_filter,
    node_ports.NAME: _ports_filter,
    volume_restrictions.NAME: _volume_filter,
    volume_binding.NAME: _binding_filter,
    volume_zone.NAME: _zone_filter,
    node_volume_limits.NAME: _limits_filter,
    pod_topology_spread.NAME: _spread_filter,
    inter_pod_affinity.NAME: _inter_pod_filter,
    node_unschedulable.NAME: _unschedulable_filter,
    node_name.NAME: _node_name_filter,
}


def filter_lines(entry: Mapping[str, Any]) -> list[str]:
    """The arithmetic behind one filter entry of a record ([] when it carries no inputs)."""
    inputs, render = entry.get("inputs"), FILTERS.get(entry["plugin"])
    return render(inputs) if inputs is not None and render is not None else []


# --- scores ---------------------------------------------------------------------------


def _mean(scores: Sequence[tuple[int, int]], result: int, rounded: bool) -> str:
    same = len({w for _, w in scores}) <= 1
    terms = " + ".join(str(s) if same else f"{s} × {w}" for s, w in scores)
    divisor = len(scores) if same else sum(w for _, w in scores)
    text = f"({terms}) / {divisor}"
    return f"round({text}) = {result}" if rounded else f"{text} = {result}"


def _fit_score(inputs: Mapping[str, Any], raw: int) -> list[str]:
    lines = []
    for r in inputs["resources"]:
        name = r["name"]
        values = {
            "resource": resource_label(name),
            "alloc": amount(name, r["allocatable"]),
            "used": amount(name, r["nodeRequested"]),
            "pod": amount(name, r["podRequest"]),
            "score": r["score"],
        }
        over = r["nodeRequested"] + r["podRequest"] > r["allocatable"]
        if inputs["strategy"] == LEAST_ALLOCATED and over:
            lines.append(_("%(resource)s %(used)s+%(pod)s > %(alloc)s → %(score)d") % values)
        elif inputs["strategy"] == LEAST_ALLOCATED:
            lines.append(_("%(resource)s (%(alloc)s − %(used)s − %(pod)s) × 100 / %(alloc)s = %(score)d") % values)
        elif inputs["strategy"] == MOST_ALLOCATED:
            lines.append(_("%(resource)s (%(used)s+%(pod)s) × 100 / %(alloc)s = %(score)d") % values)
        else:
            lines.append(_("%(resource)s (%(used)s+%(pod)s) × 100 / %(alloc)s → shape score %(score)d") % values)
        if "nodeRequestedActual" in r:
            lines.append(
                _(
                    "(the node's Pods request %(actual)s; those without a %(resource)s request count %(default)s "
                    "each: %(used)s)"
                )
                % {
                    **values,
                    "actual": amount(name, r["nodeRequestedActual"]),
                    "default": amount(name, NON_ZERO_DEFAULTS[name]),
                }
            )
    scored = [(r["score"], r["weight"]) for r in inputs["resources"]]
    if inputs["strategy"] not in (LEAST_ALLOCATED, MOST_ALLOCATED):
        # RequestedToCapacityRatio averages only the resources with a positive shape score, and rounds.
        scored = [(s, w) for s, w in scored if s > 0]
    if len(scored) > 1:
        lines.append(_mean(scored, raw, rounded=inputs["strategy"] not in (LEAST_ALLOCATED, MOST_ALLOCATED)))
    return lines


def default_notes(inputs: Mapping[str, Any]) -> list[str]:
    """The non-zero defaults NodeResourcesFit's scoring applied to the Pod, stated (cpu 100m, memory 200Mi)."""
    notes = []
    for r in inputs.get("resources") or []:
        if "nonZeroDefault" not in r:
            continue
        values = {
            "resource": resource_label(r["name"]),
            "default": amount(r["name"], r["nonZeroDefault"]),
            "constant": DEFAULT_CONSTANTS[r["name"]],
        }
        if r["podRequestActual"] == 0:
            notes.append(
                _(
                    "The Pod requests no %(resource)s: scoring counts it as %(default)s (upstream's %(constant)s); "
                    "the filter counts 0."
                )
                % values
            )
        else:
            notes.append(
                _(
                    "Scoring counts each container without a %(resource)s request as %(default)s (upstream's %(constant)s)."
                )
                % values
            )
    return notes


def _balanced_score(inputs: Mapping[str, Any], raw: int) -> list[str]:
    lines = [
        _("%(resource)s %(used)s+%(pod)s / %(alloc)s = %(fraction)s (%(before)s before the Pod)")
        % {
            "resource": resource_label(r["name"]),
            "used": amount(r["name"], r["nodeRequested"]),
            "pod": amount(r["name"], r["podRequest"]),
            "alloc": amount(r["name"], r["allocatable"]),
            "fraction": percent(r["fraction"]),
            "before": percent(r["fractionBefore"]),
        }
        for r in inputs["resources"]
    ]
    std = f"{inputs['std']:.2f}"
    lines.append(_("std %(std)s → (1 − %(std)s) × 100 = %(raw)d") % {"std": std, "raw": raw})
    return lines


def _taint_score(inputs: Mapping[str, Any], raw: int) -> list[str]:
    taints = inputs["intolerableTaints"]
    if not taints:
        return [_("0 intolerable PreferNoSchedule taints")]
    return [
        _("%(count)d intolerable PreferNoSchedule taint(s): %(taints)s")
        % {"count": len(taints), "taints": ", ".join(_taint(t) for t in taints)}
    ]


def _affinity_score(inputs: Mapping[str, Any], raw: int) -> list[str]:
    lines = []
    for label, terms in ((_("preferred"), inputs["terms"]), (_("scheduler-added"), inputs["addedTerms"])):
        for term in terms:
            expressions = ", ".join(check["expression"] for check in term["expressions"])
            lines.append(
                _("%(mark)s %(kind)s weight %(weight)d: %(expressions)s")
                % {"mark": _mark(term["matched"]), "kind": label, "weight": term["weight"], "expressions": expressions}
            )
    matched = [str(t["weight"]) for t in [*inputs["terms"], *inputs["addedTerms"]] if t["matched"]]
    lines.append(_("sum of matched weights: %(sum)s = %(raw)d") % {"sum": " + ".join(matched) or "0", "raw": raw})
    return lines


def _image_score(inputs: Mapping[str, Any], raw: int) -> list[str]:
    lines = []
    for image in inputs["images"]:
        if not image["present"]:
            lines.append(_("%(image)s is not on this node") % {"image": image["name"]})
            continue
        lines.append(
            _("%(image)s %(size)s × %(nodes)d/%(total)d nodes = %(scaled)s")
            % {
                "image": image["name"],
                "size": mebibytes(image["size"]),
                "nodes": image["numNodes"],
                "total": inputs["totalNodes"],
                "scaled": mebibytes(image["scaled"]),
            }
        )
    low, high = inputs["minThreshold"], inputs["maxThreshold"]
    if inputs["sum"] <= low:
        lines.append(
            _("sum %(sum)s, not above the %(min)s threshold → %(raw)d")
            % {"sum": mebibytes(inputs["sum"]), "min": mebibytes(low), "raw": raw}
        )
        return lines
    clamped = min(inputs["sum"], high)
    lines.append(
        _("sum %(sum)s, clamped to [%(min)s, %(max)s]: 100 × (%(clamped)s − %(min)s) / (%(max)s − %(min)s) = %(raw)d")
        % {
            "sum": mebibytes(inputs["sum"]),
            "min": mebibytes(low),
            "max": mebibytes(high),
            "clamped": mebibytes(clamped),
            "raw": raw,
        }
    )
    return lines


def _spread_score(inputs: Mapping[str, Any], raw: int) -> list[str]:
    if inputs["ignored"]:
        return [_("the node lacks a topology key of the constraints: ignored, scores 0")]
    lines = []
    constraints = inputs["constraints"]
    if inputs.get("defaulted") and constraints:
        lines.append(
            _(
                "no topologySpreadConstraints of its own: the default ones (ScheduleAnyway), counting Pods "
                "that match %(selector)s, from the Services selecting the Pod and the controller owning it"
            )
            % {"selector": constraints[0]["selector"]}
        )
    for c in constraints:
        lines.append(
            _("%(key)s=%(domain)s: %(matching)d matching Pods × %(weight).2f + (%(max)d − 1)")
            % {
                "key": c["topologyKey"],
                "domain": c["domain"],
                "matching": c["matching"],
                "weight": c["weight"],
                "max": c["maxSkew"],
            }
        )
        if "skew" in c:
            lines.append(
                _(
                    "weight ln(%(domains)d domains + 2); skew here %(matching)d − fewest %(minimum)d "
                    "= %(skew)d (maxSkew %(max)d)"
                )
                % {
                    "domains": c["domains"],
                    "matching": c["matching"],
                    "minimum": c["minimum"],
                    "skew": c["skew"],
                    "max": c["maxSkew"],
                }  # fmt: skip
            )
    lines.append(_("rounded: %(raw)d (fewer matching Pods score higher once normalised)") % {"raw": raw})
    return lines


def _inter_pod_score(inputs: Mapping[str, Any], raw: int) -> list[str]:
    kinds = {"affinity": _("affinity"), "antiAffinity": _("anti-affinity"), "hard": _("required affinity")}
    lines = []
    for t in inputs["terms"]:
        values = {
            "kind": kinds.get(t["kind"], t["kind"]),
            **_term(t),
            "pods": t["pods"],
            "weight": f"{t['weight']:+d}",
            "value": t["pods"] * t["weight"],
        }
        if t["incoming"]:
            text = _("preferred %(kind)s %(selector)s: %(pods)d Pods in %(key)s=%(domain)s × %(weight)s = %(value)d")
        else:
            text = _(
                "placed Pods' %(kind)s terms %(selector)s matching this Pod: %(pods)d in %(key)s=%(domain)s "
                "× %(weight)s = %(value)d"
            )
        lines.append(text % values)
    lines.append(_("sum: %(raw)d") % {"raw": raw})
    return lines


SCORES: dict[str, Callable[[Mapping[str, Any], int], list[str]]] = {
    node_resources_fit.NAME: _fit_score,
    node_resources_balanced_allocation.NAME: _balanced_score,
    taint_toleration.NAME: _taint_score,
    node_affinity.NAME: _affinity_score,
    image_locality.NAME: _image_score,
    pod_topology_spread.NAME: _spread_score,
    inter_pod_affinity.NAME: _inter_pod_score,
}


def score_lines(entry: Mapping[str, Any]) -> list[str]:
    """The arithmetic behind one score entry's raw score ([] when it carries no inputs or skipped)."""
    inputs, render = entry.get("inputs"), SCORES.get(entry["plugin"])
    if inputs is None or render is None or entry.get("raw") is None:
        return []
    return render(inputs, int(entry["raw"]))
