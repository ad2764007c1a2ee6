"""HorizontalPodAutoscalers on the page: their tab and describe as kubectl's, and the load knob that moves them."""

import pytest

from clusterviz.web.describe_autoscaling import describe_horizontal_pod_autoscaler
from tests.web.test_actions import act, deployment
from tests.web.test_language import chinese_page, names_in
from tests.web.test_objects import KUBECTL, get, headings, rows
from tests.web.untranslated import untranslated_english

pytestmark = pytest.mark.django_db(transaction=True)


def loaded_deployment(replicas: int = 2) -> dict:
    web = deployment(replicas=replicas)
    web["spec"]["template"]["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "100m"}}
    return web


def autoscaler() -> dict:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                 "minReplicas": 2, "maxReplicas": 6,
                 "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                     "type": "Utilization", "averageUtilization": 50}}}]},
    }


async def test_the_load_knob_sets_the_annotation_and_the_autoscaler_follows(sim, async_client):
    await KUBECTL.create(loaded_deployment())
    await KUBECTL.create(autoscaler())
    await sim.engine.until_settled()
    described = await get(async_client, "/c/demo/describe/deployments/web?namespace=default")
    assert 'name="load"' in described and "Set load" in described

    url = "/c/demo/workloads/deployments/default/web"
    reply = await act(async_client, url, action="load", load="400m")
    assert "kubectl annotate deployment/web clusterviz.io/load=400m --overwrite" in reply
    assert "deployment.apps/web annotated" in reply
    web = await KUBECTL.get("deployments", "web", "default")
    assert web["metadata"]["annotations"]["clusterviz.io/load"] == "400m"
    await sim.engine.until_settled()
    assert (await KUBECTL.get("deployments", "web", "default"))["spec"]["replicas"] == 6

    html = await get(async_client, "/c/demo/objects?tab=horizontalpodautoscalers")
    assert headings(html, "horizontalpodautoscalers") == [
        "NAMESPACE", "NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"]
    (row,) = rows(html, "horizontalpodautoscalers")
    assert row[:3] == ["default", "web", "Deployment/web"] and row[4:7] == ["2", "6", "6"]
    described = await get(async_client, "/c/demo/describe/horizontalpodautoscalers/web?namespace=default")
    for line in ("Reference:", "Deployment/web", "resource cpu on pods  (as a percentage of request):", "Min replicas:",
                 "Deployment pods:", "AbleToScale", "SuccessfulRescale", "New size: 4; reason: cpu resource utilization"):
        assert line in described

    # Emptied, the knob removes the annotation (kubectl annotate key-).
    reply = await act(async_client, url, action="load", load="")
    assert "clusterviz.io/load-" in reply
    assert "clusterviz.io/load" not in ((await KUBECTL.get("deployments", "web", "default"))["metadata"].get("annotations") or {})


async def test_a_load_that_is_not_a_quantity_is_refused_and_nothing_changes(sim, async_client):
    await KUBECTL.create(loaded_deployment())
    await sim.engine.until_settled()
    before = await KUBECTL.get("deployments", "web", "default")
    reply = await act(async_client, "/c/demo/workloads/deployments/default/web", action="load", load="lots")
    assert "the load must be an amount of CPU" in reply
    assert await KUBECTL.get("deployments", "web", "default") == before
    async_client.cookies["django_language"] = "zh-hans"
    assert "HorizontalPodAutoscaler（水平自动扩缩）" in await get(async_client, "/c/demo/")
    chinese = await act(async_client, "/c/demo/workloads/deployments/default/web", action="load", load="lots")
    assert "负载必须是 CPU 数量" in chinese


def test_describe_lines_up_like_kubectls():
    hpa = autoscaler()
    hpa["metadata"]["creationTimestamp"] = "2025-01-01T00:00:00Z"
    hpa["spec"]["behavior"] = {"scaleDown": {"stabilizationWindowSeconds": 60, "selectPolicy": "Max",
                                             "policies": [{"type": "Pods", "value": 1, "periodSeconds": 15}]}}
    hpa["status"] = {"currentReplicas": 2, "desiredReplicas": 2, "currentMetrics": [
        {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 20, "averageValue": "20m"}}}],
        "conditions": [{"type": "AbleToScale", "status": "True", "reason": "ReadyForNewScale",
                        "message": "recommended size matches current size"}]}
    text = str(describe_horizontal_pod_autoscaler(hpa)).splitlines()
    assert text[5:8] == [
        "Reference:                                             Deployment/web",
        "Metrics:                                               ( current / target )",
        "  resource cpu on pods  (as a percentage of request):  20% (20m) / 50%",
    ]
    assert "Behavior:" in text and "  Scale Down:" in text and "    Stabilization Window: 60 seconds" in text
    assert "      - Type: Pods  Value: 1  Period: 15 seconds" in text
    # The behavior's lines without tabs end the column block, as in Go's tabwriter.
    assert "Deployment pods:    2 current / 2 desired" in text
    assert text[-3:] == ["  Type         Status  Reason            Message", "  ----         ------  ------            -------",
                         "  AbleToScale  True    ReadyForNewScale  recommended size matches current size"]


async def test_the_panels_read_in_chinese(sim, async_client):
    await KUBECTL.create(loaded_deployment())
    await KUBECTL.create(autoscaler())
    await sim.engine.until_settled()
    names = await names_in("demo") | {"web"}
    for tab, describe in (("deployments", "deployments/default/web"),
                          ("horizontalpodautoscalers", "horizontalpodautoscalers/default/web")):
        panel = await chinese_page(async_client, f"/c/demo/objects?tab={tab}&describe={describe}")
        assert untranslated_english(panel, names) == []
