"""The scoring panel in a real headless Chromium: equal plugins fold and unfold, and the panel scales with its container."""

from __future__ import annotations

import pytest

from tests.livesim import LiveServer
from tests.web.test_browser import CHROMIUM, page  # noqa: F401  (the shared Playwright page fixture)
from tests.web.test_browser_actions import create

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")


def create_pod(live: LiveServer, name: str, cpu: str, node: str = "") -> None:
    spec: dict = {"containers": [{"name": "c", "image": "nginx:1.27", "resources": {"requests": {"cpu": cpu}}}]}
    if node:
        spec["nodeName"] = node
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}
    create(live, "/api/v1/namespaces/default/pods", body)


def test_equal_plugins_fold_and_the_panel_scales_with_its_containers_font(page, live: LiveServer):  # noqa: F811
    create_pod(live, "folding-busy", "2", node="node01")  # node01 differs from the two empty nodes
    create_pod(live, "folding-web", "250m")
    page.goto(f"{live.url}/c/demo/")
    page.click(".chip[title^='default/folding-web']", timeout=15_000)
    page.wait_for_selector("#scoring table.scores")
    page.click("#scoring [data-stepper='all']")
    equal = page.locator("#scoring table.scores thead th.equal")
    assert equal.count() >= 1 and not equal.first.is_visible()  # TaintToleration's 300 on every node
    assert page.locator("#scoring .folding").inner_text().startswith("Equal on every node: TaintToleration 300")
    page.click("#scoring [data-fold]")
    assert equal.first.is_visible()
    assert page.locator("#scoring [data-fold]").get_attribute("aria-pressed") == "true"
    # The arithmetic is in the cells.
    assert "× 100 /" in page.locator("#scoring table.scores tbody").inner_text()

    def sizes() -> list[float]:
        return page.evaluate(
            """() => ['#scoring table.scores', '#scoring .math li', '#scoring .bar-track', '#scoring .stepper button']
                .map((s) => document.querySelector(s))
                .map((el) => [parseFloat(getComputedStyle(el).fontSize), el.getBoundingClientRect().height])
                .flat()"""
        )

    page.evaluate("document.getElementById('scoring').style.fontSize = '10px'")
    small = sizes()
    page.evaluate("document.getElementById('scoring').style.fontSize = '20px'")
    large = sizes()
    for before, after in zip(small[::2], large[::2], strict=True):
        assert after == pytest.approx(2 * before, rel=0.05)  # every font size doubles with the container's
    assert large[5] == pytest.approx(2 * small[5], rel=0.05)  # and so does the bars' height
    assert page.problems == []  # type: ignore[attr-defined]
