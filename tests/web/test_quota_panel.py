"""ResourceQuotas and LimitRanges on the page: their tab reads like kubectl get, describe like kubectl's."""

import pytest

from tests.web.test_objects import KUBECTL, get, headings, rows

pytestmark = pytest.mark.django_db(transaction=True)

QUOTA = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q1", "namespace": "default"},
         "spec": {"hard": {"pods": "10", "limits.memory": "1Gi"}}}
LIMITS = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits", "namespace": "default"},
          "spec": {"limits": [{"type": "Container", "max": {"memory": "512Mi"}}]}}


async def test_quotas_tab_and_describe(sim, async_client):
    await KUBECTL.create(QUOTA)
    await KUBECTL.create(LIMITS)
    await sim.engine.until_settled()
    html = await get(async_client, "/c/demo/objects?tab=quotas")
    assert headings(html, "resourcequotas") == ["NAMESPACE", "NAME", "AGE", "REQUEST", "LIMIT"]
    (row,) = rows(html, "resourcequotas")
    assert row[:2] == ["default", "q1"] and row[3:] == ["pods: 0/10", "limits.memory: 0/1Gi"]
    assert headings(html, "limitranges") == ["NAMESPACE", "NAME", "CREATED AT"]
    described = await get(async_client, "/c/demo/describe/resourcequotas/q1?namespace=default")
    for line in ("Resource", "Used", "Hard", "limits.memory", "1Gi", "pods", "10"):
        assert line in described
    described = await get(async_client, "/c/demo/describe/limitranges/limits?namespace=default")
    for line in ("Default Limit", "Container", "memory", "512Mi"):
        assert line in described
    async_client.cookies["django_language"] = "zh-hans"
    assert "ResourceQuota（资源配额）+ LimitRange（限制范围）" in await get(async_client, "/c/demo/")
