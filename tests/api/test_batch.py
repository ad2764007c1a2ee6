"""Jobs and CronJobs in the API server: defaulting, upstream's validation messages, and the Table cells."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

import pytest

from clusterviz.api.defaulting import apply_defaults
from clusterviz.api.tables import build_table
from clusterviz.api.validation import validate

UID = "0b5a7e36-0f45-4b0e-9d7b-6f0d9a6b8a11"
TEMPLATE = {"spec": {"restartPolicy": "Never", "containers": [{"name": "pi", "image": "perl:5.34"}]}}
NOW = datetime(2025, 1, 1, 1, 0, 0, tzinfo=UTC)


def job(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "pi", "namespace": "default", "uid": UID},
        "spec": {"template": copy.deepcopy(TEMPLATE), **spec},
    }


def cron_job(**spec: Any) -> dict[str, Any]:
    body = {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": copy.deepcopy(TEMPLATE)}}, **spec}
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "tick", "namespace": "default"},
        "spec": body,
    }


def messages(kind: str, obj: dict[str, Any], old: dict[str, Any] | None = None) -> list[str]:
    return [str(e) for e in validate(kind, obj, old)]


def test_a_job_is_defaulted_with_a_selector_of_its_uid():
    spec = apply_defaults("Job", job())["spec"]
    assert (spec["completions"], spec["parallelism"], spec["backoffLimit"]) == (1, 1, 6)
    assert (spec["completionMode"], spec["suspend"], spec["podReplacementPolicy"]) == (
        "NonIndexed",
        False,
        "TerminatingOrFailed",
    )
    assert spec["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": UID}}
    assert spec["template"]["metadata"]["labels"] == {
        "batch.kubernetes.io/controller-uid": UID,
        "batch.kubernetes.io/job-name": "pi",
        "controller-uid": UID,
        "job-name": "pi",
    }
    # Only parallelism given: completions stay unset (a work queue).
    assert "completions" not in apply_defaults("Job", job(parallelism=3))["spec"]
    assert "selector" not in apply_defaults("Job", job(manualSelector=True))["spec"]


def test_a_cronjob_is_defaulted_but_not_its_jobs_counts():
    spec = apply_defaults("CronJob", cron_job())["spec"]
    assert (spec["concurrencyPolicy"], spec["suspend"]) == ("Allow", False)
    assert (spec["successfulJobsHistoryLimit"], spec["failedJobsHistoryLimit"]) == (3, 1)
    job_spec = spec["jobTemplate"]["spec"]
    assert "completions" not in job_spec and "backoffLimit" not in job_spec
    assert job_spec["template"]["spec"]["dnsPolicy"] == "ClusterFirst"


def test_a_valid_job_and_cronjob_pass():
    assert messages("Job", job()) == []
    assert messages("CronJob", cron_job(timeZone="Asia/Shanghai")) == []


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (
            {"template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}},
            'spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"',
        ),
        ({"parallelism": -1}, "spec.parallelism: Invalid value: -1: must be greater than or equal to 0"),
        ({"backoffLimit": -2}, "spec.backoffLimit: Invalid value: -2: must be greater than or equal to 0"),
        (
            {"completionMode": "Indexed", "parallelism": 2},
            "spec.completions: Required value: when completion mode is Indexed",
        ),
        (
            {"completionMode": "Sometimes"},
            'spec.completionMode: Unsupported value: "Sometimes": supported values: "Indexed", "NonIndexed"',
        ),
        (
            {"selector": {"matchLabels": {"app": "other"}}},
            'spec.selector: Invalid value: {"matchLabels":{"app":"other","batch.kubernetes.io/controller-uid":'
            f'"{UID}"}}}}: `selector` not auto-generated',
        ),
    ],
)
def test_bad_jobs_get_upstreams_messages(spec: dict[str, Any], expected: str):
    assert expected in messages("Job", job(**spec))


def test_a_running_jobs_completions_and_template_are_immutable():
    old = apply_defaults("Job", job())
    new = copy.deepcopy(old)
    new["spec"]["completions"] = 3
    new["spec"]["parallelism"] = 2
    assert messages("Job", new, old) == ["spec.completions: Invalid value: 3: field is immutable"]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"schedule": "* * *"}, 'spec.schedule: Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]'),
        ({"schedule": ""}, "spec.schedule: Required value"),
        (
            {"schedule": "TZ=UTC 0 * * * *"},
            'spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
        ),
        ({"timeZone": "Mars/Olympus"}, 'spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus'),
        (
            {"concurrencyPolicy": "Sometimes"},
            'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
        ),
        (
            {"successfulJobsHistoryLimit": -1},
            "spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
        ),
    ],
)
def test_bad_cronjobs_get_upstreams_messages(spec: dict[str, Any], expected: str):
    assert expected in messages("CronJob", cron_job(**spec))


def test_a_cronjobs_name_leaves_room_for_the_minute_suffix():
    body = cron_job()
    body["metadata"]["name"] = "x" * 53
    assert f'metadata.name: Invalid value: "{"x" * 53}": must be no more than 52 characters' in messages(
        "CronJob", body
    )


def test_a_cronjobs_job_template_may_not_choose_its_selector():
    body = cron_job()
    body["spec"]["jobTemplate"]["spec"]["selector"] = {"matchLabels": {"a": "b"}}
    assert any(
        "spec.jobTemplate.spec.selector" in m and "`selector` will be auto-generated" in m
        for m in messages("CronJob", body)
    )


def cells(resource: str, obj: dict[str, Any]) -> list[Any]:
    return build_table(resource, [obj], NOW)["rows"][0]["cells"]


def test_job_rows_say_status_completions_and_duration():
    done = job(completions=3)
    done["metadata"]["creationTimestamp"] = "2025-01-01T00:00:00Z"
    done["status"] = {
        "succeeded": 3,
        "startTime": "2025-01-01T00:00:00Z",
        "completionTime": "2025-01-01T00:00:42Z",
        "conditions": [{"type": "Complete", "status": "True"}],
    }
    assert cells("jobs", done)[:5] == ["pi", "Complete", "3/3", "42s", "60m"]
    queue = job(parallelism=3)
    queue["status"] = {"conditions": [{"type": "Suspended", "status": "True"}]}
    assert cells("jobs", queue)[1:4] == ["Suspended", "0/1 of 3", ""]
    assert cells("jobs", job())[1:3] == ["Running", "0/1"]


def test_cronjob_rows_say_schedule_zone_suspend_and_last_schedule():
    body = cron_job(timeZone="Asia/Shanghai")
    body["status"] = {"active": [{"name": "tick-1"}], "lastScheduleTime": "2025-01-01T00:55:00Z"}
    assert cells("cronjobs", body)[:6] == ["tick", "*/5 * * * *", "Asia/Shanghai", "<unset>", 1, "5m"]
    body["spec"]["suspend"] = False
    assert cells("cronjobs", body)[3] == "False"


def test_a_jobs_status_counts_are_never_negative():
    body = apply_defaults("Job", job())
    body["status"] = {"failed": -1, "ready": "x"}
    assert sorted(messages("Job", body, body)) == [
        "status.failed: Invalid value: -1: must be greater than or equal to 0",
        'status.ready: Invalid value: "x": must be of type integer',
    ]
