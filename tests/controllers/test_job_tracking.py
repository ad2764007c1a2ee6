"""The Job tracking finalizer: a Job's Pods stay until the Job has counted them, and orphans are let go."""

from __future__ import annotations

from tests.controllers.test_job import job_body, job_pods, kubectl

FINALIZER = "batch.kubernetes.io/job-tracking"


async def test_a_pod_keeps_the_finalizer_while_it_runs_and_loses_it_once_counted(sim):
    await kubectl().create(job_body("tracked", exit_after="60s"))

    async def look() -> None:
        await sim.engine.sleep(20)
        [pod] = await job_pods("tracked")
        assert pod["status"]["phase"] == "Running" and pod["metadata"]["finalizers"] == [FINALIZER]

    sim.engine.spawn("test/look", look)
    await sim.engine.until_settled()
    [pod] = await job_pods("tracked")
    assert pod["status"]["phase"] == "Succeeded" and "finalizers" not in pod["metadata"]
    assert (await kubectl().get("jobs", "tracked", "default"))["status"]["succeeded"] == 1


async def test_a_deleted_running_pod_is_counted_as_failed_before_it_goes(sim):
    await kubectl().create(job_body("deleted", exit_after="60s"))

    async def delete() -> None:
        await sim.engine.sleep(20)
        [pod] = await job_pods("deleted")
        await kubectl().delete("pods", pod["metadata"]["name"], "default")

    sim.engine.spawn("test/delete", delete)
    await sim.engine.until_settled()
    job = await kubectl().get("jobs", "deleted", "default")
    assert job["status"]["failed"] == 1 and job["status"]["succeeded"] == 1
    [replacement] = await job_pods("deleted")  # the deleted one is gone once released
    assert replacement["status"]["phase"] == "Succeeded" and "finalizers" not in replacement["metadata"]


async def test_the_pods_of_a_deleted_job_are_released_and_go_with_it(sim):
    await kubectl().create(job_body("doomed", exit_after="10m", parallelism=2, completions=2))

    async def delete() -> None:
        await sim.engine.sleep(20)
        assert all(p["metadata"]["finalizers"] == [FINALIZER] for p in await job_pods("doomed"))
        await kubectl().delete("jobs", "doomed", "default", {"propagationPolicy": "Background"})

    sim.engine.spawn("test/delete", delete)
    await sim.engine.until_settled()
    # The garbage collector deleted them; without their Job, nothing counts them, so they were let go.
    assert await job_pods("doomed") == []


async def test_a_namespace_with_a_running_job_is_emptied_and_goes(sim):
    await kubectl().create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "batch-team"}})
    body = job_body("nightly", exit_after="10m")
    body["metadata"]["namespace"] = "batch-team"
    await kubectl().create(body, "batch-team")

    async def delete() -> None:
        await sim.engine.sleep(20)
        await kubectl().delete("namespaces", "batch-team")

    sim.engine.spawn("test/delete", delete)
    await sim.engine.until_settled()
    assert await kubectl().get_or_none("namespaces", "batch-team") is None
    assert (await kubectl().list("pods", "batch-team"))["items"] == []
