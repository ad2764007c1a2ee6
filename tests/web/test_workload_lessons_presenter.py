"""The Job and StatefulSet lessons in the presenter, on a Chinese page: the first Pod told to 13 / 13, readable."""

from __future__ import annotations

import pytest

from tests.livesim import LiveServer
from tests.web.test_browser import CHROMIUM
from tests.web.test_presenter import SMALLEST_FONT, _cluster, _next, _open, browser  # noqa: F401  (the fixture)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")


@pytest.mark.parametrize(("lesson", "first"), [("jobs", "count-"), ("statefulset", "web-0")])
def test_the_lessons_first_pod_is_told_to_the_end_in_chinese(browser, live: LiveServer, lesson: str, first: str):  # noqa: F811
    cluster = _cluster(live, f"zh-{lesson}")
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="zh-CN")
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    _open(page, live, cluster, lesson)
    assert "下一步" in page.inner_text("#next")
    page.click("form.action button")
    page.wait_for_selector("#outcome .flash")
    progress = ""
    for _press in range(30):
        _label, progress = _next(page)
        if progress == "13 / 13":
            break
    assert progress == "13 / 13"
    followed = page.get_attribute("#map .chip.followed", "data-pod")
    assert followed and followed.startswith(first)
    smallest, where = page.evaluate(SMALLEST_FONT)
    assert smallest >= 20, f"{smallest}px: {where!r}"
    assert page.evaluate("document.documentElement.scrollHeight <= window.innerHeight")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert problems == []
    context.close()
