"""PodDisruptionBudgets on the page: their tab reads like kubectl get pdb -o wide, describe like kubectl's."""

import pytest

from tests.web.test_actions import deployment
from tests.web.test_objects import KUBECTL, get, headings, rows

pytestmark = pytest.mark.django_db(transaction=True)

BUDGET = {
    "apiVersion": "policy/v1",
    "kind": "PodDisruptionBudget",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
}


async def test_budgets_tab_and_describe(sim, async_client):
    await KUBECTL.create(deployment(replicas=2))
    await KUBECTL.create(BUDGET)
    await sim.engine.until_settled()
    html = await get(async_client, "/c/demo/objects?tab=poddisruptionbudgets")
    assert headings(html, "poddisruptionbudgets") == [
        "NAMESPACE", "NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE",
    ]
    (row,) = rows(html, "poddisruptionbudgets")
    assert row[:5] == ["default", "web", "1", "N/A", "1"]
    described = await get(async_client, "/c/demo/describe/poddisruptionbudgets/web?namespace=default")
    for line in ("Min available:", "Selector:", "app=web", "Allowed disruptions:", "Current:", "Desired:", "Total:"):
        assert line in described
    async_client.cookies["django_language"] = "zh-hans"
    assert "PodDisruptionBudget（干扰预算）" in await get(async_client, "/c/demo/")
