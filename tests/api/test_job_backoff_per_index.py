"""backoffLimitPerIndex and maxFailedIndexes in the API server, and the Job fields that may not change."""

from __future__ import annotations

import copy

from clusterviz.api.defaulting import apply_defaults
from tests.api.test_batch import job, messages


def test_per_index_limits_need_an_indexed_job():
    assert messages("Job", apply_defaults("Job", job(backoffLimitPerIndex=1, maxFailedIndexes=1))) == [
        "spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode",
        "spec.maxFailedIndexes: Invalid value: 1: requires indexed completion mode",
    ]


def test_per_index_limits_are_checked_as_upstream_words_it():
    indexed = {"completionMode": "Indexed", "completions": 3}
    assert messages("Job", apply_defaults("Job", job(backoffLimitPerIndex=1, maxFailedIndexes=3, **indexed))) == []
    assert messages("Job", apply_defaults("Job", job(backoffLimitPerIndex=-1, maxFailedIndexes=4, **indexed))) == [
        "spec.backoffLimitPerIndex: Invalid value: -1: must be greater than or equal to 0",
        "spec.maxFailedIndexes: Invalid value: 4: must be less than or equal to completions",
    ]
    assert messages("Job", apply_defaults("Job", job(maxFailedIndexes=1, **indexed))) == [
        "spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified",
    ]


def test_the_policies_and_the_per_index_limit_may_not_change():
    rule = {"action": "Count", "onExitCodes": {"operator": "In", "values": [1]}}
    old = apply_defaults("Job", job(completionMode="Indexed", completions=2, backoffLimitPerIndex=1,
                                    podFailurePolicy={"rules": [rule]}, successPolicy={"rules": [{"succeededCount": 1}]}))
    old["metadata"]["resourceVersion"] = "1"
    new = copy.deepcopy(old)
    new["spec"]["backoffLimitPerIndex"] = 2
    new["spec"]["podFailurePolicy"]["rules"][0]["action"] = "Ignore"
    new["spec"]["successPolicy"]["rules"][0]["succeededCount"] = 2
    assert [m for m in messages("Job", new, old) if "immutable" in m] == [
        'spec.podFailurePolicy: Invalid value: {"rules":[{"action":"Ignore","onExitCodes":{"operator":"In","values":[1]}}]}: '
        "field is immutable",
        "spec.backoffLimitPerIndex: Invalid value: 2: field is immutable",
        'spec.successPolicy: Invalid value: {"rules":[{"succeededCount":2}]}: field is immutable',
    ]
