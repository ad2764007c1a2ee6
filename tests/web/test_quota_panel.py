"""ResourceQuotas and LimitRanges on the page: their tab reads like kubectl get, describe like kubectl's."""

import pytest

from clusterviz.api.defaulting import apply_defaults
from clusterviz.web.describe_quota import describe_limit_range, describe_resource_quota
from tests.web.test_objects import KUBECTL, get, headings, rows

QUOTA = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q1", "namespace": "default"},
         "spec": {"hard": {"pods": "10", "limits.memory": "1Gi"}}}
LIMITS = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits", "namespace": "default"},
          "spec": {"limits": [{"type": "Container", "max": {"memory": "512Mi"}}]}}


@pytest.mark.django_db(transaction=True)
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


def test_describe_prints_what_kubectl_describe_prints():
    # The lines kubectl describe printed for the same objects (tests/e2e/test_quota_kubectl.py).
    limits = apply_defaults("LimitRange", {"metadata": {"name": "limits", "namespace": "bounded"}, "spec": {"limits": [
        {"type": "Container", "max": {"cpu": "1"}, "defaultRequest": {"cpu": "250m"}}]}})
    assert str(describe_limit_range(limits)).splitlines()[2:] == [
        "Type        Resource  Min  Max  Default Request  Default Limit  Max Limit/Request Ratio",
        "----        --------  ---  ---  ---------------  -------------  -----------------------",
        "Container   cpu       -    1    250m             1              -",
    ]
    quota = {"metadata": {"name": "q1", "namespace": "team"},
             "status": {"hard": {"pods": "2", "requests.cpu": "1"}, "used": {"pods": "2", "requests.cpu": "200m"}}}
    assert str(describe_resource_quota(quota)).splitlines()[2:5] == [
        "Resource      Used  Hard", "--------      ----  ----", "pods          2     2",
    ]
