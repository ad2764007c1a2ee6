"""PriorityClasses on the page: their tab reads like kubectl get pc, describe like kubectl's."""

import pytest

from tests.web.test_objects import KUBECTL, get, headings, rows

pytestmark = pytest.mark.django_db(transaction=True)


async def test_priority_classes_tab_and_describe(sim, async_client):
    await KUBECTL.create({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "batch"},
                          "value": 100, "preemptionPolicy": "Never", "description": "Reports that can wait."})
    html = await get(async_client, "/c/demo/objects?tab=priorityclasses")
    assert headings(html, "priorityclasses") == ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"]
    by_name = {row[0]: row for row in rows(html, "priorityclasses")}
    assert set(by_name) == {"batch", "system-cluster-critical", "system-node-critical"}
    assert by_name["batch"][1:3] == ["100", "false"] and by_name["batch"][4] == "Never"
    described = await get(async_client, "/c/demo/describe/priorityclasses/batch")
    for line in ("Name:", "batch", "Value:", "100", "GlobalDefault:", "false", "PreemptionPolicy:", "Never",
                 "Description:", "Reports that can wait."):
        assert line in described
    async_client.cookies["django_language"] = "zh-hans"
    assert "PriorityClass（优先级类）" in await get(async_client, "/c/demo/")
