"""NodeAffinity: ``nodeSelector`` and required node affinity filter; preferred terms score.

Upstream: ``pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go`` with the
matching rules of ``component-helpers/scheduling/corev1/nodeaffinity``. Node
selector terms have operators label selectors lack (Gt, Lt) and ``matchFields``,
so the matching lives here rather than in apimachinery.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clusterviz.apimachinery import labels as lbl
from clusterviz.scheduler.framework import (
    ActionType,
    BasePlugin,
    ClusterEvent,
    ClusterEventWithHint,
    CycleState,
    EventResource,
    PreFilterResult,
    QueueingHint,
    Status,
    default_normalize_score,
)
from clusterviz.scheduler.nodeinfo import NodeInfo, PodInfo

NAME = "NodeAffinity"
LEGACY_FILTER_NAME = "MatchNodeSelector"
LEGACY_SCORE_NAME = "NodeAffinityPriority"

REASON_POD = "node(s) didn't match Pod's node affinity/selector"
REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
REASON_CONFLICT = "pod affinity terms conflict"

EXPLANATION_EN = (
    "The node must carry every nodeSelector label and match one required affinity term; "
    "each preferred term the node matches adds its weight to the score."
)
EXPLANATION_ZH = (
    "节点必须带有 nodeSelector 的全部标签并满足硬策略中的至少一条规则；每满足一条软策略规则，就加上该规则的权重。"
)

OBJECT_NAME_FIELD = "metadata.name"
_LABEL_OPERATORS = {
    "In": lbl.IN,
    "NotIn": lbl.NOT_IN,
    "Exists": lbl.EXISTS,
    "DoesNotExist": lbl.DOES_NOT_EXIST,
    "Gt": lbl.GREATER_THAN,
    "Lt": lbl.LESS_THAN,
}
_SPEC_OPERATORS = {label: spec for spec, label in _LABEL_OPERATORS.items()}


def as_written(requirement: lbl.Requirement) -> str:
    """A requirement as the Pod's spec writes it (``disktype NotIn [hdd]``), so a class recognises its YAML."""
    operator = _SPEC_OPERATORS.get(requirement.operator, requirement.operator)
    return f"{requirement.key} {operator} [{', '.join(requirement.values)}]" if requirement.values else (
        f"{requirement.key} {operator}"
    )


@dataclass(frozen=True)
class NodeSelectorTerm:
    """A parsed NodeSelectorTerm: expressions and fields are ANDed; a parse error matches nothing."""

    expressions: lbl.Selector | None
    fields: tuple[tuple[str, str, str], ...] | None
    errors: tuple[str, ...] = ()

    def matches(self, node_name: str, node_labels: Mapping[str, str]) -> bool:
        """Upstream's ``nodeSelectorTerm.match``; matchFields are ignored for a node without a name."""
        if self.errors:
            return False
        if self.expressions is not None and not self.expressions.matches(node_labels):
            return False
        if self.fields is not None and node_name:
            node_fields = {OBJECT_NAME_FIELD: node_name}
            for key, operator, value in self.fields:
                actual = node_fields.get(key, "")
                if (operator == "In") != (actual == value):
                    return False
        return True

    def explain(self, node_name: str, node_labels: Mapping[str, str]) -> dict[str, Any]:
        """Each expression and field of the term with the node's value and whether it holds, for the record."""
        checks: list[dict[str, Any]] = []
        for requirement in self.expressions.requirements if self.expressions is not None else ():
            checks.append(
                {
                    "expression": as_written(requirement),
                    "key": requirement.key,
                    "nodeValue": node_labels.get(requirement.key),
                    "matched": requirement.matches(node_labels),
                }
            )
        for key, operator, value in self.fields or ():
            actual = node_name if key == OBJECT_NAME_FIELD else ""
            checks.append(
                {
                    "expression": f"{key} {operator} ({value})",
                    "key": key,
                    "nodeValue": actual,
                    "matched": (operator == "In") == (actual == value),
                }
            )
        return {"expressions": checks, "errors": list(self.errors), "matched": self.matches(node_name, node_labels)}


def parse_node_selector_term(term: Mapping[str, Any], path: str = "") -> NodeSelectorTerm | None:
    """Parse a term; None for an empty term (no expressions and no fields), which matches nothing.

    Errors name their field below ``path`` (for example ``[0].matchExpressions[1].key``).
    """
    expressions = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not expressions and not fields:
        return None
    errors: list[str] = []
    selector: lbl.Selector | None = None
    if expressions:
        requirements = []
        for j, expr in enumerate(expressions):
            where = f"{path}matchExpressions[{j}]."
            operator = _LABEL_OPERATORS.get(expr.get("operator") or "")
            if operator is None:
                errors.append(f"{where}operator: Unsupported value: {expr.get('operator')!r}")
                continue
            try:
                requirements.append(lbl.Requirement.new(expr.get("key") or "", operator, expr.get("values") or []))
            except lbl.SelectorError as err:
                errors.append(f"{where}{err}")
        selector = lbl.Selector(requirements)
    parsed_fields: tuple[tuple[str, str, str], ...] | None = None
    if fields:
        out = []
        for j, expr in enumerate(fields):
            where = f"{path}matchFields[{j}]."
            operator, values = expr.get("operator"), expr.get("values") or []
            if operator not in ("In", "NotIn"):
                errors.append(f"{where}operator: Unsupported value: {operator!r}")
            elif len(values) != 1:
                errors.append(f"{where}values: Invalid value: must have one element")
            else:
                out.append((expr.get("key") or "", operator, values[0]))
        parsed_fields = tuple(out)
    return NodeSelectorTerm(selector, parsed_fields, tuple(errors))


def parse_node_selector(node_selector: Mapping[str, Any]) -> tuple[NodeSelectorTerm, ...]:
    """Parse a NodeSelector; empty terms are dropped (they select nothing)."""
    terms = (parse_node_selector_term(t) for t in node_selector.get("nodeSelectorTerms") or [])
    return tuple(t for t in terms if t is not None)


@dataclass(frozen=True)
class RequiredNodeAffinity:
    """``nodeSelector`` AND (one of the required terms), as ``GetRequiredNodeAffinity``."""

    node_selector: Mapping[str, str]
    terms: tuple[NodeSelectorTerm, ...] | None

    def matches(self, node_name: str, node_labels: Mapping[str, str]) -> bool:
        """True when the node satisfies both parts (a required block with no terms matches nothing)."""
        for key, value in self.node_selector.items():
            if node_labels.get(key) != value:
                return False
        if self.terms is None:
            return True
        return any(term.matches(node_name, node_labels) for term in self.terms)

    def explain(self, node_name: str, node_labels: Mapping[str, str]) -> dict[str, Any]:
        """Each nodeSelector pair with the node's value, then each required term (None without a required block)."""
        return {
            "nodeSelector": [
                {
                    "key": key,
                    "value": value,
                    "nodeValue": node_labels.get(key),
                    "matched": node_labels.get(key) == value,
                }
                for key, value in self.node_selector.items()
            ],
            "requiredTerms": (
                None if self.terms is None else [term.explain(node_name, node_labels) for term in self.terms]
            ),
        }


def required_node_affinity(pod_spec: Mapping[str, Any]) -> RequiredNodeAffinity:
    """Build the hard part of a Pod's placement rules from its spec."""
    required = ((pod_spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    terms = parse_node_selector(required) if required is not None else None
    return RequiredNodeAffinity(dict(pod_spec.get("nodeSelector") or {}), terms)


def node_matches_pod(pod_spec: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    """Convenience: does a Node object satisfy the Pod's nodeSelector and required affinity?"""
    meta = node.get("metadata") or {}
    return required_node_affinity(pod_spec).matches(meta.get("name") or "", meta.get("labels") or {})


@dataclass(frozen=True)
class PreferredTerms:
    """Weighted preferred terms; a term with weight 0 or an empty preference is ignored."""

    terms: tuple[tuple[int, NodeSelectorTerm], ...]

    @classmethod
    def parse(cls, raw_terms: Sequence[Mapping[str, Any]]) -> PreferredTerms:
        """Parse ``preferredDuringSchedulingIgnoredDuringExecution``; raises ValueError when invalid."""
        out: list[tuple[int, NodeSelectorTerm]] = []
        errors: list[str] = []
        for i, raw in enumerate(raw_terms):
            weight = int(raw.get("weight") or 0)
            term = parse_node_selector_term(raw.get("preference") or {}, f"[{i}].")
            if weight == 0 or term is None:
                continue
            errors.extend(term.errors)
            out.append((weight, term))
        if errors:
            raise ValueError(lbl.aggregate(errors))
        return cls(tuple(out))

    def score(self, node_name: str, node_labels: Mapping[str, str]) -> int:
        """Sum of the weights of the matching terms."""
        return sum(weight for weight, term in self.terms if term.matches(node_name, node_labels))

    def explain(self, node_name: str, node_labels: Mapping[str, str]) -> list[dict[str, Any]]:
        """Each term with its weight and whether the node matches it (the score sums the matched weights)."""
        return [{"weight": weight, **term.explain(node_name, node_labels)} for weight, term in self.terms]


def prefilter_node_names(terms: Sequence[Mapping[str, Any]]) -> frozenset[str] | None:
    """Names pinned by ``matchFields: metadata.name In`` in every required term, or None.

    Within a term the pins intersect, across terms they unite. An empty result
    means the pins contradict each other (``pod affinity terms conflict``).
    """
    names: set[str] | None = None
    for term in terms:
        term_names: set[str] | None = None
        for expr in term.get("matchFields") or []:
            if expr.get("key") == OBJECT_NAME_FIELD and expr.get("operator") == "In":
                values = set(expr.get("values") or [])
                term_names = values if term_names is None else term_names & values
        if term_names is None:
            return None  # this term does not pin names, so any node may match it
        names = term_names if names is None else names | term_names
    return None if names is None else frozenset(names)


class NodeAffinity(BasePlugin):
    """PreFilter, Filter, PreScore, Score and NormalizeScore of NodeAffinity.

    ``added_affinity`` is the profile's ``NodeAffinityArgs.addedAffinity``.
    """

    name = NAME
    legacy_names = {"filter": LEGACY_FILTER_NAME, "score": LEGACY_SCORE_NAME}
    explanation = {"en": EXPLANATION_EN, "zh": EXPLANATION_ZH}

    def __init__(self, added_affinity: Mapping[str, Any] | None = None) -> None:
        added = added_affinity or {}
        required = added.get("requiredDuringSchedulingIgnoredDuringExecution")
        self.added_required = parse_node_selector(required) if required is not None else None
        self.added_preferred = PreferredTerms.parse(added.get("preferredDuringSchedulingIgnoredDuringExecution") or [])

    def pre_filter(self, state: CycleState, pod: PodInfo) -> tuple[Status, PreFilterResult | None]:
        """Skip when nothing constrains the node; narrow to pinned node names when every term pins them."""
        spec = pod.spec
        required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution"
        )
        if required is None and self.added_required is None and spec.get("nodeSelector") is None:
            return Status.skip(), None
        state.write(NAME, required_node_affinity(spec))
        terms = (required or {}).get("nodeSelectorTerms") or []
        if not terms:
            return Status(), None
        names = prefilter_node_names(terms)
        if names is not None and not names:
            return Status.unresolvable(REASON_CONFLICT), None
        return Status(), PreFilterResult(names) if names else None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        """The profile's added affinity first, then the Pod's nodeSelector and required terms."""
        if self.added_required is not None and not any(t.matches(node.name, node.labels) for t in self.added_required):
            return Status.unresolvable(REASON_ENFORCED)
        required = state.get(NAME) or required_node_affinity(pod.spec)
        if not required.matches(node.name, node.labels):
            return Status.unresolvable(REASON_POD)
        return Status()

    def explain_filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any]:
        """The profile's added terms (when set) and :meth:`RequiredNodeAffinity.explain` on this node."""
        required = state.get(NAME) or required_node_affinity(pod.spec)
        added = None
        if self.added_required is not None:
            added = [term.explain(node.name, node.labels) for term in self.added_required]
        return {"addedAffinity": added, **required.explain(node.name, node.labels)}

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status:
        """Skip when neither the Pod nor the profile has preferred terms."""
        raw = ((pod.spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
            "preferredDuringSchedulingIgnoredDuringExecution"
        )
        if raw is None and not self.added_preferred.terms:
            return Status.skip()
        try:
            preferred = PreferredTerms.parse(raw or [])
        except ValueError as err:
            return Status.error(str(err))
        state.write(NAME + "/preferred", preferred)
        return Status()

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        """Sum of weights of matched preferred terms (Pod's and the profile's)."""
        preferred: PreferredTerms = state.get(NAME + "/preferred") or PreferredTerms(())
        return preferred.score(node.name, node.labels) + self.added_preferred.score(node.name, node.labels)

    def explain_score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, Any]:
        """The preferred terms (the Pod's, then the profile's) with their weights and whether this node matches."""
        preferred: PreferredTerms = state.get(NAME + "/preferred") or PreferredTerms(())
        return {
            "terms": preferred.explain(node.name, node.labels),
            "addedTerms": self.added_preferred.explain(node.name, node.labels),
        }

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: Mapping[str, int]) -> dict[str, int]:
        """DefaultNormalizeScore: ``100 * raw / max raw``."""
        return default_normalize_score(scores)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A node added or relabelled may now match."""
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL), self.hint_node_change
            )
        ]

    def hint_node_change(self, pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
        """Queue when the new node matches and the old one (if any) did not."""

        def matches(node: Any) -> bool:
            if not node:
                return False
            meta = node.get("metadata") or {}
            name, labels = meta.get("name") or "", meta.get("labels") or {}
            if self.added_required is not None and not any(t.matches(name, labels) for t in self.added_required):
                return False
            return required_node_affinity(pod.get("spec") or {}).matches(name, labels)

        if matches(new) and (old is None or not matches(old)):
            return QueueingHint.QUEUE
        return QueueingHint.SKIP
