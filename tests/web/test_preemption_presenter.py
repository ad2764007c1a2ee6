"""The preemption lesson on the presenter's screen in Chinese: the page and every caption of checkout's story
translated, the victim's delete told between the scheduler's watch and the binding to node02."""

import pytest
from django.utils.html import format_html_join

from clusterviz.lessons import BY_SLUG
from tests.web.test_language import chinese_page, lesson_in_chinese, lesson_names, names_in
from tests.web.untranslated import untranslated_english

pytestmark = pytest.mark.django_db(transaction=True)


async def test_the_preemption_lesson_is_told_in_chinese(sim, async_client):
    lesson = BY_SLUG["preemption"]
    html = await chinese_page(async_client, "/c/demo/present/?lesson=preemption")
    names = await names_in("demo") | lesson_names(lesson)
    assert set(untranslated_english(html, names)) <= set(untranslated_english(lesson_in_chinese(lesson), names))
    await async_client.post("/c/demo/present/action")
    captions, after = [], 0
    for _press in range(300):
        moved = (await async_client.post("/c/demo/present/next")).json()
        captions += [moved["stop"]["caption"]] if "stop" in moved else []
        after += moved["progress"] == moved["last"]
        if after == 12:
            break
    told = (await async_client.get("/c/demo/present/story.json")).json()
    captions += [message["caption"] for beat in told["beats"] for message in beat["messages"]]
    shown = format_html_join("", "<p>{}</p><p>{}</p>", ((c["what"], c["why"]) for c in captions))
    assert untranslated_english(shown, names | {told["pod"], "urgent"}) == []
    assert "调度器 → API Server: 绑定 Binding default/checkout" in shown
    # Between the scheduler's watch and the binding, beat 9a: the victim's graceful delete.
    labels = [beat["label"] for beat in told["beats"]]
    assert labels[labels.index("9") + 1] == "9a"
    assert "抢占：调度器驱逐这个优先级更低的 Pod" in shown and "Pod default/cache" in shown
