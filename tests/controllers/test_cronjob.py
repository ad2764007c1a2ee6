"""The CronJob controller: Jobs at the scheduled times of the simulated clock, concurrency, suspend, history."""

from __future__ import annotations

from typing import Any

from clusterviz.api.client import Client
from clusterviz.apimachinery.cron import CronError, parse_standard
from clusterviz.kubelet.script import EXIT_AFTER_ANNOTATION

Obj = dict[str, Any]


def cron_body(name: str, schedule: str = "*/1 * * * *", run: str = "10s", **spec: Any) -> Obj:
    pod_template = {
        "metadata": {"annotations": {EXIT_AFTER_ANNOTATION: run}},
        "spec": {"restartPolicy": "OnFailure", "containers": [{"name": "tick", "image": "busybox:1.36"}]},
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"schedule": schedule, "jobTemplate": {"spec": {"template": pod_template}}, **spec},
    }


def kubectl() -> Client:
    return Client("demo", "kubectl")


def suspend_after(sim: Any, name: str, seconds: float) -> None:
    """Suspend the CronJob once ``seconds`` of simulated time have passed (so that fast-forward can settle)."""

    async def later() -> None:
        await sim.engine.sleep(seconds)
        await Client("demo", "kubectl").patch("cronjobs", name, {"spec": {"suspend": True}}, "default")

    sim.engine.spawn("test/suspend", later)


async def owned_jobs(cron_job: Obj) -> list[Obj]:
    jobs = (await kubectl().list("jobs", "default"))["items"]
    uid = cron_job["metadata"]["uid"]
    return [j for j in jobs if any(r["uid"] == uid for r in j["metadata"].get("ownerReferences", []))]


async def cron_events(name: str) -> list[Obj]:
    listed = await kubectl().list("events", "default", field_selector=f"involvedObject.name={name}")
    return sorted(listed["items"], key=lambda e: int(e["metadata"]["resourceVersion"]))


def test_schedules_follow_the_standard_cron_grammar():
    from datetime import UTC, datetime
    from zoneinfo import ZoneInfo

    start = datetime(2026, 1, 1, 10, 0, 30, tzinfo=UTC)
    assert parse_standard("*/15 * * * *").next(start) == datetime(2026, 1, 1, 10, 15, tzinfo=UTC)
    assert parse_standard("0 9 * * mon-fri").next(start) == datetime(2026, 1, 2, 9, 0, tzinfo=UTC)
    # 09:00 in Shanghai is 01:00 UTC.
    nine = parse_standard("0 9 * * *").next(start, ZoneInfo("Asia/Shanghai"))
    assert nine is not None and nine.astimezone(UTC) == datetime(2026, 1, 2, 1, 0, tzinfo=UTC)
    assert parse_standard("@hourly").next(start) == datetime(2026, 1, 1, 11, 0, tzinfo=UTC)
    for bad, message in (
        ("* * *", "expected exactly 5 fields, found 3: [* * *]"),
        ("61 * * * *", "end of range (61) above maximum (59): 61"),
        ("*/0 * * * *", "step of range should be a positive number: */0"),
        ("@sometimes", "unrecognized descriptor: @sometimes"),
    ):
        try:
            parse_standard(bad)
        except CronError as exc:
            assert str(exc) == message
        else:
            raise AssertionError(bad)


async def test_every_minute_makes_a_job_and_keeps_the_history_limit(sim):
    await kubectl().create(cron_body("tick", successfulJobsHistoryLimit=2))
    suspend_after(sim, "tick", 5 * 60)
    await sim.engine.until_settled()

    cron_job = await kubectl().get("cronjobs", "tick", "default")
    jobs = await owned_jobs(cron_job)
    assert len(jobs) == 2  # four or five ran; only the two latest successful ones are kept
    names = sorted(j["metadata"]["name"] for j in jobs)
    minutes = [int(n.rsplit("-", 1)[1]) for n in names]
    assert minutes[1] - minutes[0] == 1 and all(n.startswith("tick-") for n in names)
    assert all(j["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"] for j in jobs)
    assert all(j["status"].get("succeeded") == 1 for j in jobs)
    status = cron_job["status"]
    assert status["lastScheduleTime"].endswith(":00Z") and status["lastSuccessfulTime"]
    assert "active" not in status
    reasons = [e["reason"] for e in await cron_events("tick")]
    assert reasons.count("SuccessfulCreate") >= 4 and "SawCompletedJob" in reasons
    assert reasons.count("SuccessfulDelete") == reasons.count("SuccessfulCreate") - 2
    created = next(e for e in await cron_events("tick") if e["reason"] == "SuccessfulCreate")
    assert created["message"].startswith("Created job tick-") and created["source"]["component"] == "cronjob-controller"


async def test_forbid_skips_a_time_while_the_previous_job_runs(sim):
    await kubectl().create(cron_body("single", run="90s", concurrencyPolicy="Forbid"))
    suspend_after(sim, "single", 4 * 60)
    await sim.engine.until_settled()

    reasons = [e["reason"] for e in await cron_events("single")]
    assert "JobAlreadyActive" in reasons
    jobs = await owned_jobs(await kubectl().get("cronjobs", "single", "default"))
    assert 1 < len(jobs) < 4


async def test_a_suspended_cronjob_makes_no_jobs(sim):
    await kubectl().create(cron_body("idle", suspend=True))
    await sim.engine.until_settled()

    cron_job = await kubectl().get("cronjobs", "idle", "default")
    assert await owned_jobs(cron_job) == [] and "lastScheduleTime" not in cron_job.get("status", {})
