"""Jobs and CronJobs on the cluster page: their tab of the objects panel, their describe panel, Completed Pods
on the node cards and the container's exit on the bus, in English and Chinese."""

import re

import pytest

from clusterviz.api.client import Client
from clusterviz.web import captions, cluster_view
from tests.web.test_language import chinese_page, names_in
from tests.web.test_objects import get, headings, rows
from tests.web.untranslated import untranslated_english

pytestmark = pytest.mark.django_db(transaction=True)

KUBECTL = Client("demo", "kubectl")
POD_TEMPLATE = {
    "metadata": {"annotations": {"clusterviz.io/exit-after": "5s"}},
    "spec": {"restartPolicy": "Never", "containers": [{"name": "work", "image": "busybox:1.36"}]},
}
JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "pi", "namespace": "default"},
    "spec": {"completions": 2, "template": POD_TEMPLATE},
}
CRON_JOB = {
    "apiVersion": "batch/v1",
    "kind": "CronJob",
    "metadata": {"name": "nightly", "namespace": "default"},
    "spec": {"schedule": "0 2 * * *", "suspend": True, "jobTemplate": {"spec": {"template": POD_TEMPLATE}}},
}


def test_the_panel_has_a_jobs_tab(client):
    page = client.get("/c/demo/").content.decode()
    assert 'name="tab" value="jobs"' in page


async def test_the_tab_reads_like_kubectl_get_jobs_and_cronjobs_wide(sim, async_client):
    await KUBECTL.create(JOB)
    await KUBECTL.create(CRON_JOB)
    await sim.engine.until_settled()
    html = await get(async_client, "/c/demo/objects?tab=jobs")
    assert headings(html, "jobs") == [
        "NAMESPACE",
        "NAME",
        "STATUS",
        "COMPLETIONS",
        "DURATION",
        "AGE",
        "CONTAINERS",
        "IMAGES",
        "SELECTOR",
    ]
    [job] = rows(html, "jobs")
    assert job[:4] == ["default", "pi", "Complete", "2/2"] and job[6:8] == ["work", "busybox:1.36"]
    assert headings(html, "cronjobs")[:8] == [
        "NAMESPACE",
        "NAME",
        "SCHEDULE",
        "TIMEZONE",
        "SUSPEND",
        "ACTIVE",
        "LAST SCHEDULE",
        "AGE",
    ]
    [cron_job] = rows(html, "cronjobs")
    assert cron_job[:7] == ["default", "nightly", "0 2 * * *", "&lt;none&gt;", "True", "0", "&lt;none&gt;"]


async def test_describe_shows_the_jobs_counts_and_events(sim, async_client):
    await KUBECTL.create(JOB)
    await KUBECTL.create(CRON_JOB)
    await sim.engine.until_settled()
    html = await get(async_client, "/c/demo/describe/jobs/pi?namespace=default")
    assert re.search(r"Completions:\s+2", html) and re.search(r"Completion Mode:\s+NonIndexed", html)
    assert re.search(r"Pods Statuses:\s+0 Active \(0 Ready\) / 2 Succeeded / 0 Failed", html)
    assert re.search(r"Duration:\s+\d+s", html)
    assert html.count("SuccessfulCreate") == 2 and "Job completed" in html
    cron = await get(async_client, "/c/demo/describe/cronjobs/nightly?namespace=default")
    assert re.search(r"Schedule:\s+0 2 \* \* \*", cron) and re.search(r"Concurrency Policy:\s+Allow", cron)
    assert re.search(r"Successful Job History Limit:\s+3", cron) and re.search(r"Active Jobs:\s+&lt;none&gt;", cron)


async def test_a_finished_job_pod_shows_completed_and_its_exit_is_a_hop(sim):
    await KUBECTL.create(JOB)
    await sim.engine.until_settled()
    pods = (await KUBECTL.list("pods", "default", label_selector="job-name=pi"))["items"]
    assert {cluster_view.pod_status(p) for p in pods} == {"Completed"}
    assert {cluster_view.chip(p).css for p in pods} == {"succeeded"}
    [hop] = [m for m in sim.engine.trace if m.verb == "exit"][:1]
    told = captions.caption({"from": hop.sender, "to": hop.to, "verb": hop.verb, "step": hop.step, "object": {}})
    assert "runtime tells the kubelet" in told["why"]


async def test_the_tab_and_describe_have_no_english_left_in_chinese(sim, async_client):
    await KUBECTL.create(JOB)
    await KUBECTL.create(CRON_JOB)
    await sim.engine.until_settled()
    page = await chinese_page(async_client, "/c/demo/")
    assert "Job（任务）+ CronJob（定时任务）" in page
    names = await names_in("demo") | {"pi", "nightly"}
    for describe in ("jobs/default/pi", "cronjobs/default/nightly"):
        panel = await chinese_page(async_client, f"/c/demo/objects?tab=jobs&describe={describe}")
        assert untranslated_english(panel, names) == []
