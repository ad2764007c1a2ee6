"""Builders shared by the InterPodAffinity cases ported from upstream's filtering_test.go and scoring_test.go.

upstream's Pods have no names and an empty namespace; here every placed Pod gets a unique name (the
snapshot keys Pods by namespace/name) and the empty namespace reads as ``default``."""

from __future__ import annotations

import itertools

from clusterviz.scheduler.framework import Code
from tests.scheduler.helpers import make_node, make_pod

AFFINITY_NOT_MATCH = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) didn't match pod affinity rules",))
ANTI_NOT_MATCH = (Code.UNSCHEDULABLE, ("node(s) didn't match pod anti-affinity rules",))
EXISTING_ANTI_NOT_MATCH = (Code.UNSCHEDULABLE, ("node(s) didn't satisfy existing pods anti-affinity rules",))

# filtering_test.go's and scoring_test.go's namespaces: namespaceSelector terms match on these labels.
NAMESPACES = [
    {"metadata": {"name": name, "labels": {"team": team}}}
    for name, team in (
        ("subteam1.team1", "team1"),
        ("subteam2.team1", "team1"),
        ("subteam1.team2", "team2"),
        ("subteam2.team2", "team2"),
    )
]

_names = itertools.count()


def term(key: str, operator: str, *values: str, topology: str, **extra) -> dict:
    """A PodAffinityTerm whose label selector has one expression (upstream's ``PodAffinityIn`` & co.)."""
    requirement: dict = {"key": key, "operator": operator}
    if values:
        requirement["values"] = list(values)
    return {"labelSelector": {"matchExpressions": [requirement]}, "topologyKey": topology, **extra}


def selector_term(*requirements: tuple, topology: str, **extra) -> dict:
    """A PodAffinityTerm with several (key, operator, values...) expressions, ANDed."""
    expressions = [{"key": k, "operator": op, **({"values": list(v)} if v else {})} for k, op, *v in requirements]
    return {"labelSelector": {"matchExpressions": expressions}, "topologyKey": topology, **extra}


def weighted(weight: int, pod_term: dict) -> dict:
    return {"weight": weight, "podAffinityTerm": pod_term}


def pod(
    labels: dict | None = None,
    *,
    node: str | None = None,
    namespace: str = "default",
    affinity: tuple = (),
    anti: tuple = (),
    preferred: tuple = (),
    preferred_anti: tuple = (),
) -> dict:
    """A Pod with required and preferred (anti-)affinity terms; a placed one gets a unique name."""
    spec: dict = {}
    if affinity or preferred:
        spec.setdefault("affinity", {})["podAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": list(affinity),
            "preferredDuringSchedulingIgnoredDuringExecution": list(preferred),
        }
    if anti or preferred_anti:
        spec.setdefault("affinity", {})["podAntiAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": list(anti),
            "preferredDuringSchedulingIgnoredDuringExecution": list(preferred_anti),
        }
    return make_pod(f"pod-{next(_names)}", namespace, labels=labels, node=node, **spec)


def nodes_with(*labelled: tuple[str, dict]) -> list[dict]:
    """Nodes carrying exactly the given labels (upstream's nodes have no hostname label)."""
    return [make_node(name, labels=labels, hostname_label=False) for name, labels in labelled]


# Namespaces of team1, and the regions and zones the cases' nodes are in.
TEAM1 = {"namespaceSelector": {"matchExpressions": [{"key": "team", "operator": "In", "values": ["team1"]}]}}
CHINA, CHINA_AZ1, INDIA = {"region": "China"}, {"region": "China", "az": "az1"}, {"region": "India"}
