"""An Indexed Job's successPolicy in the API server: upstream's validation messages."""

from __future__ import annotations

from typing import Any

from clusterviz.api.defaulting import apply_defaults
from tests.api.test_batch import job, messages

PATH = "spec.successPolicy"


def indexed(*rules: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return apply_defaults("Job", job(completionMode="Indexed", completions=10, successPolicy={"rules": list(rules)},
                                     **spec))


def test_rules_of_indexes_counts_or_both_are_accepted():
    assert messages("Job", indexed({"succeededIndexes": "0,2,4", "succeededCount": 1},
                                   {"succeededIndexes": "1,3,5-9"}, {"succeededCount": 10})) == []


def test_a_success_policy_needs_an_indexed_job_and_rules():
    plain = apply_defaults("Job", job(successPolicy={"rules": []}))
    assert messages("Job", plain) == [f'{PATH}: Invalid value: {{"rules":[]}}: requires indexed completion mode']
    assert messages("Job", indexed()) == [
        f"{PATH}.rules: Required value: at least one rules must be specified when the successPolicy is specified"]


def test_rules_are_checked_as_upstream_words_it():
    assert messages("Job", indexed(
        {},
        {"succeededIndexes": "3-1"},
        {"succeededIndexes": "1,0"},
        {"succeededIndexes": "12"},
        {"succeededIndexes": "1-2-3"},
        {"succeededIndexes": "a"},
        {"succeededIndexes": "0-2", "succeededCount": 4},
        {"succeededCount": 11},
    )) == [
        f"{PATH}.rules[0]: Required value: at least one of succeededCount or succeededIndexes must be specified",
        f'{PATH}.rules[1].succeededIndexes: Invalid value: "3-1": error parsing succeededIndexes: non-increasing '
        "order, previous: 3, current: 1",
        f'{PATH}.rules[2].succeededIndexes: Invalid value: "1,0": error parsing succeededIndexes: non-increasing '
        "order, previous: 1, current: 0",
        f'{PATH}.rules[3].succeededIndexes: Invalid value: "12": error parsing succeededIndexes: too large index: "12"',
        f'{PATH}.rules[4].succeededIndexes: Invalid value: "1-2-3": error parsing succeededIndexes: the fragment '
        "\"1-2-3\" violates the requirement that an index interval can have at most two parts separated by '-'",
        f'{PATH}.rules[5].succeededIndexes: Invalid value: "a": error parsing succeededIndexes: cannot convert '
        'string to integer for index: "a"',
        f"{PATH}.rules[6].succeededCount: Invalid value: 4: must be less than or equal to 3 (the number of indexes "
        "in the specified succeededIndexes field)",
        f"{PATH}.rules[7].succeededCount: Invalid value: 11: must be less than or equal to 10 (the number of "
        "specified completions)",
    ]
