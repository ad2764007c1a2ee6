"""An Indexed Job's backoffLimitPerIndex: failures counted per index, failed indexes listed and not run again."""

from __future__ import annotations

from typing import Any

from tests.controllers.test_job import condition, job_body, job_pods, kubectl

Obj = dict[str, Any]
INDEX = "batch.kubernetes.io/job-completion-index"
FAILURES = "batch.kubernetes.io/job-index-failure-count"


def per_index(name: str, completions: int, parallelism: int, **spec: Any) -> Obj:
    return job_body(name, exit_code=1, completionMode="Indexed", completions=completions, parallelism=parallelism,
                    **spec)


def finished_at(pod: Obj) -> str:
    return pod["status"]["containerStatuses"][0]["state"]["terminated"]["finishedAt"]


async def test_each_index_is_retried_up_to_its_own_limit_then_the_job_fails_with_its_failed_indexes(sim):
    await kubectl().create(per_index("shards", completions=3, parallelism=3, backoffLimitPerIndex=1))
    await sim.engine.until_settled()

    job = await kubectl().get("jobs", "shards", "default")
    assert job["spec"]["backoffLimit"] == 2147483647  # the per-index limit replaces the Job's own
    assert job["status"]["failedIndexes"] == "0-2" and job["status"]["failed"] == 6
    failed = condition(job, "Failed")
    assert (failed["reason"], failed["message"]) == ("FailedIndexes", "Job has failed indexes")
    pods = sorted(await job_pods("shards"), key=lambda p: (p["metadata"]["annotations"][INDEX],
                                                          p["metadata"]["creationTimestamp"]))
    assert [(p["metadata"]["annotations"][INDEX], p["metadata"]["annotations"][FAILURES]) for p in pods] == [
        ("0", "0"), ("0", "1"), ("1", "0"), ("1", "1"), ("2", "0"), ("2", "1")]
    # Each retry waited its index's 10 s back-off after the failure before it.
    for first, second in zip(pods[::2], pods[1::2], strict=True):
        assert second["metadata"]["creationTimestamp"] >= finished_at(first)


async def test_more_failed_indexes_than_max_failed_indexes_fail_the_job_at_once(sim):
    await kubectl().create(per_index("strict", completions=4, parallelism=1, backoffLimitPerIndex=0,
                                     maxFailedIndexes=0))
    await sim.engine.until_settled()

    job = await kubectl().get("jobs", "strict", "default")
    failed = condition(job, "Failed")
    assert (failed["reason"], failed["message"]) == (
        "MaxFailedIndexesExceeded", "Job has exceeded the specified maximal number of failed indexes")
    assert job["status"]["failedIndexes"] == "0" and len(await job_pods("strict")) == 1


async def test_a_fail_index_rule_fails_its_index_without_a_retry(sim):
    rule = {"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [1]}}
    await kubectl().create(per_index("doomed", completions=2, parallelism=2, backoffLimitPerIndex=3,
                                     podFailurePolicy={"rules": [rule]}))
    await sim.engine.until_settled()

    job = await kubectl().get("jobs", "doomed", "default")
    assert job["status"]["failedIndexes"] == "0,1" and job["status"]["failed"] == 2
    assert condition(job, "Failed")["reason"] == "FailedIndexes"
    assert len(await job_pods("doomed")) == 2
