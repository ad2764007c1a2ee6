"""A Job's podFailurePolicy: a FailJob rule ends the Job at the first matching failure, Ignore leaves a disruption
out of the count, and the first matching rule decides."""

from __future__ import annotations

from typing import Any

from tests.controllers.test_job import condition, job_body, job_events, job_pods, kubectl

Obj = dict[str, Any]


def policy(*rules: Obj) -> Obj:
    return {"rules": list(rules)}


def exit_codes(action: str, operator: str, *values: int) -> Obj:
    return {"action": action, "onExitCodes": {"containerName": "work", "operator": operator, "values": list(values)}}


async def test_a_fail_job_rule_fails_the_job_at_the_first_matching_exit_code(sim):
    body = job_body("fatal", exit_code=42, backoffLimit=6, podFailurePolicy=policy(exit_codes("FailJob", "In", 42)))
    await kubectl().create(body)
    await sim.engine.until_settled()

    job = await kubectl().get("jobs", "fatal", "default")
    [pod] = await job_pods("fatal")  # no retry, although backoffLimit allows six
    message = f"Container work for pod default/{pod['metadata']['name']} failed with exit code 42 matching FailJob rule at index 0"
    failed = condition(job, "Failed")
    assert (failed["status"], failed["reason"], failed["message"]) == ("True", "PodFailurePolicy", message)
    assert condition(job, "FailureTarget")["reason"] == "PodFailurePolicy"
    assert job["status"]["failed"] == 1
    warning = (await job_events("fatal"))[-1]
    assert (warning["type"], warning["reason"], warning["message"]) == ("Warning", "PodFailurePolicy", message)


async def test_an_ignore_rule_on_the_disruption_condition_keeps_an_evicted_pod_out_of_the_count(sim):
    ignore = {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}
    await kubectl().create(job_body("survivor", exit_after="60s", backoffLimit=0, podFailurePolicy=policy(ignore)))

    async def evict() -> None:
        await sim.engine.sleep(20)
        [pod] = await job_pods("survivor")
        name = pod["metadata"]["name"]
        eviction = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": "default"}}
        await kubectl().request("POST", f"/api/v1/namespaces/default/pods/{name}/eviction", payload=eviction)

    sim.engine.spawn("test/evict", evict)
    await sim.engine.until_settled()

    job = await kubectl().get("jobs", "survivor", "default")
    # backoffLimit 0 fails a Job at its first counted failure: the eviction was not one.
    assert condition(job, "Complete")["status"] == "True"
    assert job["status"]["succeeded"] == 1 and "failed" not in job["status"]
    reasons = [e["reason"] for e in await job_events("survivor")]
    assert reasons.count("SuccessfulCreate") == 2


async def test_the_first_matching_rule_decides_and_count_uses_up_the_backoff_limit(sim):
    rules = policy(exit_codes("Count", "NotIn", 3), exit_codes("FailJob", "In", 1))
    await kubectl().create(job_body("counted", exit_code=1, backoffLimit=1, podFailurePolicy=rules))
    await sim.engine.until_settled()

    job = await kubectl().get("jobs", "counted", "default")
    assert job["status"]["failed"] == 2 and len(await job_pods("counted")) == 2
    assert condition(job, "Failed")["reason"] == "BackoffLimitExceeded"
