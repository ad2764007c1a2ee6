"""The scoring panel's PostFilter section: the candidates of a preemption, their victims and why one node won."""

from __future__ import annotations

import re

import pytest

from clusterviz.lessons import BY_SLUG
from tests.lessons.helpers import press, start
from tests.web.untranslated import untranslated_english

pytestmark = pytest.mark.django_db(transaction=True)

SLUG = "preemption"
NAMES = ("checkout", "report-a", "report-b", "cache", "frontend", "node01", "node02", "urgent", "batch", "production")


async def _preempting_attempt(sim, async_client) -> str:
    await start(sim, SLUG)
    await press(sim, SLUG, BY_SLUG[SLUG].actions[0])
    return (await async_client.get("/c/demo/scoring/default/checkout?attempt=1")).content.decode()


async def test_the_panel_lists_each_candidate_with_its_victims_and_why_node02_won(sim, async_client):
    html = await _preempting_attempt(sim, async_client)
    assert "PostFilter · DefaultPreemption" in html
    assert "cache will be evicted from node02; the Pod waits nominated to node02 until they are gone." in html
    rows = dict(re.findall(r'<tr data-node="(node0\d)"[^>]*>(.*?)</tr>', html, re.S))
    assert set(rows) == {"node01", "node02"}
    assert 'data-victim="report-b">report-b (100)' in rows["node01"] and "report-a" not in rows["node01"]
    assert 'data-victim="cache">cache (0)' in rows["node02"] and "frontend" not in rows["node02"]
    assert "★ chosen: its most important victim has the lowest priority" in rows["node02"]
    assert "not chosen: its most important victim has the lowest priority" in rows["node01"]
    assert '<th scope="col" class="decider">Highest priority</th>' in html
    # The last step of the walk-through says what happens next.
    assert html.count("cache will be evicted from node02") == 2


async def test_the_post_filter_section_speaks_chinese(sim, async_client):
    async_client.cookies["django_language"] = "zh-hans"
    html = await _preempting_attempt(sim, async_client)
    section = html[html.index('<section class="post-filter"'):html.index("</section>")]
    assert "将从 node02 驱逐 cache" in section and "选中：其中最重要的被抢占 Pod 优先级最低" in section
    assert untranslated_english(section, NAMES) == []
