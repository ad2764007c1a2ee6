"""PodDisruptionBudget validation, with the real API server's messages."""

from __future__ import annotations

from clusterviz.api.validation import validate


def budget(**spec: object) -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "b", "namespace": "default"}, "spec": spec}


def messages(obj: dict) -> list[str]:
    return [str(e) for e in validate("PodDisruptionBudget", obj)]


def test_a_budget_sets_min_available_or_max_unavailable_not_both():
    both = messages(budget(minAvailable=1, maxUnavailable=1))
    assert len(both) == 1 and both[0].startswith("spec: Invalid value: ")
    assert both[0].endswith("minAvailable and maxUnavailable cannot be both set")
    assert messages(budget(minAvailable=2, selector={"matchLabels": {"app": "x"}})) == []


def test_percentages_and_negatives_are_checked():
    assert messages(budget(maxUnavailable="150%")) == ['spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%']
    assert messages(budget(minAvailable=-1)) == [
        "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"
    ]
    assert messages(budget(minAvailable="half"))[0].startswith(
        "spec.minAvailable: Invalid value: \"half\": a valid percent string must be a numeric string followed by an ending '%'"
    )
    assert messages(budget(minAvailable=1, unhealthyPodEvictionPolicy="Never")) == [
        'spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"'
    ]
