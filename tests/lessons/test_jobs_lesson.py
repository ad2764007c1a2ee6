"""The Job lesson played to the end: Pods complete, a failing Job stops at its backoffLimit, a CronJob ticks."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from clusterviz.lessons import BY_SLUG
from clusterviz.lessons.runner import run

from .helpers import CLUSTER, kubectl, pods, press, start

SLUG = "jobs"


def condition(job: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(c for c in job["status"].get("conditions", []) if c["type"] == kind)


async def tick_jobs() -> list[str]:
    return sorted(j["metadata"]["name"] for j in (await kubectl().list("jobs", "default"))["items"]
                  if j["metadata"]["name"].startswith("tick-"))


async def test_the_jobs_lesson_completes_fails_at_the_backoff_limit_and_keeps_the_cron_history(sim):
    count, flaky, tick, now, suspend = BY_SLUG[SLUG].actions
    await start(sim, SLUG)
    await press(sim, SLUG, count)
    job = await kubectl().get("jobs", "count", "default")
    assert job["status"]["succeeded"] == 3 and condition(job, "Complete")["status"] == "True"
    found = await pods("batch.kubernetes.io/job-name=count")
    assert len(found) == 3 and {p["status"]["phase"] for p in found} == {"Succeeded"}
    # Two at a time: the third started only once one of the first two had finished.
    started = sorted(p["status"]["startTime"] for p in found)
    finished = sorted(p["status"]["containerStatuses"][0]["state"]["terminated"]["finishedAt"] for p in found)
    assert started[2] >= finished[0]

    await press(sim, SLUG, flaky)
    job = await kubectl().get("jobs", "flaky", "default")
    failed = condition(job, "Failed")
    assert (failed["reason"], failed["message"]) == ("BackoffLimitExceeded", "Job has reached the specified backoff limit")
    found = await pods("batch.kubernetes.io/job-name=flaky")
    assert len(found) == 3 and {p["status"]["phase"] for p in found} == {"Failed"}

    # The CronJob keeps fast-forward going: the class's later buttons are pressed minutes apart.
    async def later() -> None:
        await sim.engine.sleep(5 * 60)
        assert (await run(CLUSTER, now, BY_SLUG[SLUG].manifest)).ok
        await sim.engine.sleep(30)
        assert (await run(CLUSTER, suspend, BY_SLUG[SLUG].manifest)).ok

    outcome = await run(CLUSTER, tick, BY_SLUG[SLUG].manifest)
    assert outcome.ok and outcome.message == "cronjob.batch/tick created"
    sim.engine.spawn("test/class", later)
    await sim.engine.until_settled()
    # The Job made by hand is the CronJob's too, so it counts in the history: it and the latest scheduled one stay.
    scheduled, manual_name = await tick_jobs()
    assert manual_name == "tick-now"
    assert int(scheduled.rsplit("-", 1)[1]) * 60 == int(datetime.fromisoformat(
        (await kubectl().get("cronjobs", "tick", "default"))["status"]["lastScheduleTime"]).timestamp())
    manual = await kubectl().get("jobs", "tick-now", "default")
    assert manual["metadata"]["annotations"]["cronjob.kubernetes.io/instantiate"] == "manual"
    assert manual["metadata"]["ownerReferences"][0]["kind"] == "CronJob"
    assert manual["status"]["succeeded"] == 1
    cron_job = await kubectl().get("cronjobs", "tick", "default")
    assert cron_job["spec"]["suspend"] is True
    reasons = [e["reason"] for e in (await kubectl().list("events", "default",
                                                         field_selector="involvedObject.name=tick"))["items"]]
    assert reasons.count("SuccessfulCreate") >= 5 and "SawCompletedJob" in reasons and "SuccessfulDelete" in reasons
