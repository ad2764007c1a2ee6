"""The Job controller: Pods run to completion, failures count against backoffLimit, deadlines, suspend, indexes."""

from __future__ import annotations

from typing import Any

from clusterviz.api.client import Client
from clusterviz.kubelet.script import EXIT_AFTER_ANNOTATION, EXIT_CODE_ANNOTATION

Obj = dict[str, Any]


def job_body(name: str, *, exit_after: str = "10s", exit_code: int = 0, **spec: Any) -> Obj:
    template = {
        "metadata": {"annotations": {EXIT_AFTER_ANNOTATION: exit_after, EXIT_CODE_ANNOTATION: str(exit_code)}},
        "spec": {"restartPolicy": "Never", "containers": [{"name": "work", "image": "busybox:1.36"}]},
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"template": template, **spec},
    }


def kubectl() -> Client:
    return Client("demo", "kubectl")


async def job_pods(name: str) -> list[Obj]:
    return (await kubectl().list("pods", "default", label_selector=f"job-name={name}"))["items"]


async def job_events(name: str) -> list[Obj]:
    listed = await kubectl().list("events", "default", field_selector=f"involvedObject.name={name}")
    items = [e for e in listed["items"] if e["involvedObject"]["kind"] == "Job"]
    return sorted(items, key=lambda e: int(e["metadata"]["resourceVersion"]))


def condition(job: Obj, type_: str) -> Obj:
    return next((c for c in job["status"].get("conditions", []) if c["type"] == type_), {})


async def test_a_job_runs_its_pods_to_completion(sim):
    await kubectl().create(job_body("pi", completions=3, parallelism=2))
    await sim.engine.until_settled()

    job = await kubectl().get("jobs", "pi", "default")
    assert job["status"]["succeeded"] == 3
    assert "active" not in job["status"] and job["status"]["ready"] == 0 and job["status"]["terminating"] == 0
    complete = condition(job, "Complete")
    assert complete["status"] == "True" and complete["reason"] == "CompletionsReached"
    assert complete["message"] == "Reached expected number of succeeded pods"
    assert condition(job, "SuccessCriteriaMet")["status"] == "True"
    assert job["status"]["startTime"] <= job["status"]["completionTime"]
    pods = await job_pods("pi")
    assert len(pods) == 3 and {p["status"]["phase"] for p in pods} == {"Succeeded"}
    assert all(p["metadata"]["ownerReferences"][0]["kind"] == "Job" for p in pods)
    events = await job_events("pi")
    reasons = [e["reason"] for e in events]
    assert reasons.count("SuccessfulCreate") == 3 and reasons[-1] == "Completed"
    assert events[-1]["message"] == "Job completed" and events[-1]["source"]["component"] == "job-controller"
    assert {e["message"] for e in events if e["reason"] == "SuccessfulCreate"} == {
        f"Created pod: {p['metadata']['name']}" for p in pods
    }


async def test_parallelism_bounds_the_pods_that_run_at_once(sim):
    await kubectl().create(job_body("waves", completions=4, parallelism=2))
    await sim.engine.until_settled()

    assert (await kubectl().get("jobs", "waves", "default"))["status"]["succeeded"] == 4
    pods = sorted(await job_pods("waves"), key=lambda p: p["metadata"]["creationTimestamp"])
    finished = sorted(p["status"]["containerStatuses"][0]["state"]["terminated"]["finishedAt"] for p in pods)
    # Two at first; the third and fourth only once the first two have ended.
    assert pods[1]["metadata"]["creationTimestamp"] < finished[0]
    assert pods[2]["metadata"]["creationTimestamp"] >= finished[0]


async def test_failing_pods_count_until_the_backoff_limit_fails_the_job(sim):
    await kubectl().create(job_body("flaky", exit_code=1, backoffLimit=1))
    await sim.engine.until_settled()

    job = await kubectl().get("jobs", "flaky", "default")
    assert job["status"]["failed"] == 2 and "succeeded" not in job["status"]
    failed = condition(job, "Failed")
    assert failed["status"] == "True" and failed["reason"] == "BackoffLimitExceeded"
    assert failed["message"] == "Job has reached the specified backoff limit"
    assert condition(job, "FailureTarget")["reason"] == "BackoffLimitExceeded"
    assert "completionTime" not in job["status"]
    pods = await job_pods("flaky")
    assert [p["status"]["phase"] for p in pods] == ["Failed", "Failed"]
    warning = (await job_events("flaky"))[-1]
    assert (warning["type"], warning["reason"]) == ("Warning", "BackoffLimitExceeded")
    # The second Pod waited the 10 s back-off after the first one failed.
    first, second = sorted(pods, key=lambda p: p["metadata"]["creationTimestamp"])
    finished = first["status"]["containerStatuses"][0]["state"]["terminated"]["finishedAt"]
    assert second["metadata"]["creationTimestamp"] >= finished


async def test_active_deadline_fails_the_job_and_deletes_its_pods(sim):
    await kubectl().create(job_body("slow", exit_after="10m", activeDeadlineSeconds=30))
    await sim.engine.until_settled()

    job = await kubectl().get("jobs", "slow", "default")
    assert condition(job, "Failed")["reason"] == "DeadlineExceeded"
    assert condition(job, "Failed")["message"] == "Job was active longer than specified deadline"
    assert await job_pods("slow") == []
    # The Pod stopped for the deadline counts as failed; Failed waited until it was gone.
    assert job["status"]["failed"] == 1 and job["status"]["terminating"] == 0 and "active" not in job["status"]
    failed_at = condition(job, "Failed")["lastTransitionTime"]
    assert condition(job, "FailureTarget")["lastTransitionTime"] <= failed_at
    reasons = [e["reason"] for e in await job_events("slow")]
    assert "SuccessfulDelete" in reasons and reasons[-1] == "DeadlineExceeded"


async def test_an_indexed_job_runs_each_index_once(sim):
    await kubectl().create(job_body("idx", completions=3, parallelism=3, completionMode="Indexed"))
    await sim.engine.until_settled()

    job = await kubectl().get("jobs", "idx", "default")
    assert job["status"]["completedIndexes"] == "0-2" and job["status"]["succeeded"] == 3
    pods = await job_pods("idx")
    indexes = sorted(p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] for p in pods)
    assert indexes == ["0", "1", "2"]
    for pod in pods:
        index = pod["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"]
        assert pod["metadata"]["name"].startswith(f"idx-{index}-") and pod["spec"]["hostname"] == f"idx-{index}"
        env = pod["spec"]["containers"][0]["env"]
        assert env[0]["name"] == "JOB_COMPLETION_INDEX"


async def test_suspend_deletes_the_pods_and_resume_runs_them_again(sim):
    await kubectl().create(job_body("paused", suspend=True))
    await sim.engine.until_settled()
    job = await kubectl().get("jobs", "paused", "default")
    suspended = condition(job, "Suspended")
    assert (suspended["status"], suspended["reason"], suspended["message"]) == ("True", "JobSuspended", "Job suspended")
    assert await job_pods("paused") == [] and "startTime" not in job["status"]

    await kubectl().patch("jobs", "paused", {"spec": {"suspend": False}}, "default")
    await sim.engine.until_settled()
    job = await kubectl().get("jobs", "paused", "default")
    assert condition(job, "Suspended")["status"] == "False" and condition(job, "Suspended")["reason"] == "JobResumed"
    assert job["status"]["succeeded"] == 1 and job["status"]["startTime"]
    reasons = [e["reason"] for e in await job_events("paused")]
    assert reasons == ["Suspended", "Resumed", "SuccessfulCreate", "Completed"]


async def test_a_finished_job_is_deleted_after_its_ttl_with_its_pods(sim):
    await kubectl().create(job_body("brief", ttlSecondsAfterFinished=60))
    await sim.engine.until_settled()

    assert await kubectl().get_or_none("jobs", "brief", "default") is None
    assert await job_pods("brief") == []


async def test_a_jobs_creation_is_the_numbered_flow_and_its_pod_is_told_1_to_13(sim):
    from clusterviz.web import story

    await sim.engine.until_settled()
    start = sim.engine.last_seq
    await kubectl().create(job_body("told"))
    await sim.engine.until_settled()
    messages = [m.as_dict() for m in sim.engine.trace if m.seq > start]
    told = story.build(messages, story.Ref("Job", "told"))
    assert [b.label for b in told.beats] == ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "12a", "13"]
    assert told.pod.startswith("told-") and all(b.complete for b in told.beats)
    # The Pod's own end comes after its story: the runtime tells the kubelet the container exited.
    exits = [m for m in messages if m["verb"] == "exit"]
    assert exits and exits[0]["seq"] > max(s for b in told.beats for s in b.seqs)


async def test_restarts_of_an_on_failure_pod_count_against_the_backoff_limit(sim):
    body = job_body("crashy", exit_after="2s", exit_code=1, backoffLimit=2)
    body["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure"
    await kubectl().create(body)
    await sim.engine.until_settled()

    job = await kubectl().get("jobs", "crashy", "default")
    assert condition(job, "Failed")["reason"] == "BackoffLimitExceeded"
    # The one Pod restarted its container instead of failing; stopped for the failure, it counts once.
    assert job["status"]["failed"] == 1
    assert await job_pods("crashy") == []
