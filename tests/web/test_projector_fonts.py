"""The cluster page in projector mode, in a real headless Chromium: readable from the back of the room."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.livesim import ROOT, LiveServer
from tests.web.test_browser import CHROMIUM, FLAGS
from tests.web.test_presenter import SMALLEST_FONT

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")

CLUSTER = "projector-fonts"


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def cluster(browser, live: LiveServer) -> str:
    """A cluster with myapp's three Pods Running, applied from the page's YAML editor as a teacher would."""
    result = live.manage("createcluster", CLUSTER, "--nodes", "3")
    assert result.returncode == 0 or "exists" in (result.stdout + result.stderr), result.stderr
    page = browser.new_page()
    page.goto(f"{live.url}/c/{CLUSTER}/")
    page.wait_for_selector(".CodeMirror")
    page.evaluate("(yaml) => window.clusterviz.editor.setValue(yaml)", (ROOT / "examples" / "myapp.yaml").read_text())
    page.click("#yaml-form button[value='apply']")
    page.wait_for_function("document.querySelectorAll('#nodes .chip.running').length === 3", timeout=30_000)
    page.close()
    return CLUSTER


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize(("width", "height"), [(1920, 1080), (1280, 720)])
def test_projector_mode_has_no_text_under_20_px_and_no_sideways_scrolling(browser, live: LiveServer, cluster: str,
                                                                          width: int, height: int, language: str):
    context = browser.new_context(viewport={"width": width, "height": height})
    context.add_cookies([{"name": "django_language", "value": language, "url": live.url}])
    context.add_init_script("localStorage.setItem('clusterviz-projector', 'on')")
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(f"{live.url}/c/{cluster}/")
    page.wait_for_selector("body.projector-mode #flow .lane")
    # The Pods on their nodes, one Pod's scheduling panel, the kubectl pane and the objects' tables all shown.
    page.locator("#nodes .chip.running").first.click()
    page.wait_for_selector("#scoring #scoring-panel table.decision.scores")
    page.wait_for_selector("#console-pods pre.terminal")
    page.wait_for_selector("#objects table.objects-table")
    smallest, where = page.evaluate(SMALLEST_FONT)
    assert smallest >= 20, f"{smallest}px at {width}x{height} ({language}): {where!r}"
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    # With the plugins equal on every node shown too (their explanations name long label selectors).
    page.click("#scoring-panel [data-fold]")
    page.wait_for_selector("#scoring-panel:not(.fold-equal)")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert problems == []
    context.close()
