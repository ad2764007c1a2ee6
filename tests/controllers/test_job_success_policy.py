"""An Indexed Job's successPolicy: the Job succeeds as soon as one of its rules holds; completedIndexes as upstream writes them."""

from __future__ import annotations

from typing import Any

from clusterviz.controllers.job_util import format_indexes, parse_indexes
from tests.controllers.test_job import condition, job_body, job_events, job_pods, kubectl

Obj = dict[str, Any]
INDEX = "batch.kubernetes.io/job-completion-index"


def indexed_job(name: str, rules: list[Obj], completions: int, parallelism: int) -> Obj:
    return job_body(name, completionMode="Indexed", completions=completions, parallelism=parallelism,
                    successPolicy={"rules": rules})


async def test_the_leader_index_succeeding_completes_the_job(sim):
    await kubectl().create(indexed_job("leader", [{"succeededIndexes": "0"}], completions=3, parallelism=1))
    await sim.engine.until_settled()

    job = await kubectl().get("jobs", "leader", "default")
    for type_ in ("SuccessCriteriaMet", "Complete"):
        met = condition(job, type_)
        assert (met["status"], met["reason"], met["message"]) == ("True", "SuccessPolicy", "Matched rules at index 0")
    assert job["status"]["succeeded"] == 1 and job["status"]["completedIndexes"] == "0"
    assert job["status"]["completionTime"] and "active" not in job["status"]
    # Indexes 1 and 2 were never needed.
    assert [p["metadata"]["annotations"][INDEX] for p in await job_pods("leader")] == ["0"]
    events = await job_events("leader")
    assert (events[-1]["reason"], events[-1]["message"]) == ("Completed", "Job completed")


async def test_a_count_rule_holds_once_that_many_of_its_indexes_succeeded(sim):
    rules = [{"succeededIndexes": "5"}, {"succeededIndexes": "0-3", "succeededCount": 2}]
    await kubectl().create(indexed_job("quorum", rules, completions=6, parallelism=2))
    await sim.engine.until_settled()

    job = await kubectl().get("jobs", "quorum", "default")
    complete = condition(job, "Complete")
    assert (complete["reason"], complete["message"]) == ("SuccessPolicy", "Matched rules at index 1")
    assert job["status"]["completedIndexes"] == "0,1" and job["status"]["succeeded"] == 2
    assert len(await job_pods("quorum")) == 2


def test_completed_indexes_are_written_as_upstream_prints_them():
    assert format_indexes({0, 1, 3, 4, 5, 7, 9, 10}) == "0,1,3-5,7,9,10"
    assert format_indexes(set()) == "" and parse_indexes("0,1,3-5,7") == {0, 1, 3, 4, 5, 7}
