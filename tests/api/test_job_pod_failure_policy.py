"""A Job's podFailurePolicy in the API server: upstream's validation messages and the replacement policy it implies."""

from __future__ import annotations

from typing import Any

from clusterviz.api.defaulting import apply_defaults
from tests.api.test_batch import job, messages

PATH = "spec.podFailurePolicy.rules"


def with_policy(*rules: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return apply_defaults("Job", job(podFailurePolicy={"rules": list(rules)}, **spec))


def test_a_valid_policy_is_accepted_and_replacements_wait_for_failed_pods():
    body = with_policy(
        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
        {"action": "FailJob", "onExitCodes": {"containerName": "pi", "operator": "In", "values": [1, 2, 42]}},
        {"action": "Count", "onExitCodes": {"operator": "NotIn", "values": [0, 5]}},
    )
    assert messages("Job", body) == []
    assert body["spec"]["podReplacementPolicy"] == "Failed"


def test_rules_are_checked_as_upstream_words_it():
    body = with_policy(
        {"onExitCodes": {"operator": "Within", "values": [3, 1, 1]}},
        {"action": "Explode", "onExitCodes": {"containerName": "other", "operator": "In", "values": [0]}},
        {"action": "FailIndex", "onPodConditions": [{"type": "bad type!", "status": "Maybe"}]},
        {"action": "Ignore"},
        {"action": "Count", "onExitCodes": {"operator": "In", "values": [1]},
         "onPodConditions": [{"type": "Ready"}]},
        {"action": "Count", "onExitCodes": {"operator": "In", "values": []}},
    )
    assert messages("Job", body) == [
        f'{PATH}[0].action: Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]',
        f'{PATH}[0].onExitCodes.operator: Unsupported value: "Within": supported values: "In", "NotIn"',
        f"{PATH}[0].onExitCodes.values[2]: Duplicate value: 1",
        f"{PATH}[0].onExitCodes.values: Invalid value: [3,1,1]: must be ordered",
        f'{PATH}[1].action: Unsupported value: "Explode": supported values: "Count", "FailIndex", "FailJob", "Ignore"',
        f'{PATH}[1].onExitCodes.containerName: Invalid value: "other": must be one of the container or initContainer '
        "names in the pod template",
        f"{PATH}[1].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator",
        f'{PATH}[2].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set',
        f'{PATH}[2].onPodConditions[0].type: Invalid value: "bad type!": name part must consist of alphanumeric '
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
        "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        f'{PATH}[2].onPodConditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", '
        '"Unknown"',
        f"{PATH}[3]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required",
        f'{PATH}[4].onPodConditions[0].status: Required value: valid values: ["False" "True" "Unknown"]',
        f"{PATH}[4]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported",
        f"{PATH}[5].onExitCodes.values: Invalid value: []: at least one value is required",
    ]


def test_the_policy_needs_restart_policy_never_and_failed_replacements():
    body = with_policy({"action": "Count", "onExitCodes": {"operator": "In", "values": [1]}},
                       podReplacementPolicy="TerminatingOrFailed")
    body["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure"
    assert messages("Job", body) == [
        'spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"',
        'spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when '
        "podFailurePolicy is specified",
    ]


def test_too_many_rules_are_refused():
    rule = {"action": "Count", "onExitCodes": {"operator": "In", "values": [1]}}
    assert messages("Job", with_policy(*[rule] * 21)) == [f"{PATH}: Too many: 21: must have at most 20 items"]
