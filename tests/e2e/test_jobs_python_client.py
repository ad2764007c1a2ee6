"""Jobs and CronJobs through the official kubernetes Python client: create, list, watch, delete."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from kubernetes import client, watch
from kubernetes.client.rest import ApiException

from tests.livesim import LiveServer, wait_until


@pytest.fixture
def batch(live: LiveServer) -> Iterator[client.BatchV1Api]:
    config = client.Configuration(host=live.cluster_url("demo"))
    with client.ApiClient(config) as api_client:
        yield client.BatchV1Api(api_client)


def pod_template(run: str = "5s") -> client.V1PodTemplateSpec:
    return client.V1PodTemplateSpec(
        metadata=client.V1ObjectMeta(annotations={"clusterviz.io/exit-after": run}),
        spec=client.V1PodSpec(
            restart_policy="Never", containers=[client.V1Container(name="work", image="busybox:1.36")]
        ),
    )


def test_a_job_is_created_watched_to_completion_and_deleted(batch: client.BatchV1Api):
    body = client.V1Job(metadata=client.V1ObjectMeta(name="py-job"), spec=client.V1JobSpec(template=pod_template()))
    created = batch.create_namespaced_job("default", body)
    assert created.spec.backoff_limit == 6 and created.spec.completions == 1
    assert created.spec.selector.match_labels == {"batch.kubernetes.io/controller-uid": created.metadata.uid}
    assert [j.metadata.name for j in batch.list_namespaced_job("default", label_selector="job-name=py-job").items] == [
        "py-job"
    ]
    complete = None
    for event in watch.Watch().stream(
        batch.list_namespaced_job,
        "default",
        field_selector="metadata.name=py-job",
        resource_version=created.metadata.resource_version,
        timeout_seconds=30,
    ):
        conditions = event["object"].status.conditions or []
        complete = next((c for c in conditions if c.type == "Complete" and c.status == "True"), None)
        if complete is not None:
            break
    assert complete is not None and complete.reason == "CompletionsReached"
    done = batch.read_namespaced_job_status("py-job", "default")
    assert done.status.succeeded == 1 and done.status.completion_time is not None
    batch.delete_namespaced_job("py-job", "default", propagation_policy="Background")
    with pytest.raises(ApiException) as info:
        batch.read_namespaced_job("py-job", "default")
    assert info.value.status == 404


def test_a_cronjob_is_created_listed_watched_and_deleted(batch: client.BatchV1Api):
    body = client.V1CronJob(
        metadata=client.V1ObjectMeta(name="py-cron"),
        spec=client.V1CronJobSpec(
            schedule="*/1 * * * *",
            time_zone="Asia/Shanghai",
            job_template=client.V1JobTemplateSpec(spec=client.V1JobSpec(template=pod_template())),
        ),
    )
    created = batch.create_namespaced_cron_job("default", body)
    try:
        assert created.spec.concurrency_policy == "Allow" and created.spec.successful_jobs_history_limit == 3
        assert [c.metadata.name for c in batch.list_namespaced_cron_job("default").items] == ["py-cron"]
        scheduled = None
        for event in watch.Watch().stream(
            batch.list_namespaced_cron_job,
            "default",
            resource_version=created.metadata.resource_version,
            timeout_seconds=30,
        ):
            if event["object"].status.last_schedule_time is not None:
                scheduled = event["object"]
                break
        assert scheduled is not None and scheduled.status.last_schedule_time.second == 0
        batch.patch_namespaced_cron_job("py-cron", "default", {"spec": {"suspend": True}})
    finally:
        batch.delete_namespaced_cron_job("py-cron", "default")

    def owned() -> list[client.V1Job]:
        jobs = batch.list_namespaced_job("default").items
        return [j for j in jobs if any(r.name == "py-cron" for r in j.metadata.owner_references or [])]

    assert wait_until(lambda: owned() == [], 20)
