"""The storage lesson in the presenter, on a Chinese page: VolumeBinding's verdict on the lanes at hop 9, the first
Pod told to 13 / 13, and gallery kept in its volume's zone, readable from the back of the room."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.plugins.volume_binding import REASON_NODE_CONFLICT
from tests.livesim import LiveServer
from tests.web.test_browser import CHROMIUM
from tests.web.test_presenter import SMALLEST_FONT, _api, _cluster, _next, _open, _settled, browser  # noqa: F401  (the fixture)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")

ZONES = {"node01": "zone-a", "node02": "zone-a", "node03": "zone-b", "node04": "zone-b"}


def _to_step(page, index: int) -> None:
    """Next until the script shows step ``index``: each press delivers what is left, then moves the script on."""
    for _press in range(60):
        if page.locator(f"#script[data-step='{index}']").count():
            return
        _next(page)
    page.wait_for_selector(f"#script[data-step='{index}']")


def _press_button(page) -> None:
    page.click("form.action button")
    page.wait_for_selector("#outcome .flash")
    for _press in range(40):
        if page.locator("#outcome .flash.ok").count():
            return
        _next(page)
    page.wait_for_selector("#outcome .flash.ok")


def _readable(page) -> None:
    smallest, where = page.evaluate(SMALLEST_FONT)
    assert smallest >= 20, f"{smallest}px: {where!r}"
    assert page.evaluate("document.documentElement.scrollHeight <= window.innerHeight")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_the_storage_lesson_shows_volume_binding_on_the_lanes_in_chinese(browser, live: LiveServer):  # noqa: F811
    cluster = _cluster(live, "zh-storage")
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="zh-CN")
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    _open(page, live, cluster, "storage")
    _press_button(page)  # data.yaml
    _to_step(page, 2)
    page.click("form.action button")  # db.yaml
    page.wait_for_selector("#outcome .flash")
    for _press in range(30):
        label, _progress = _next(page)
        if label == "9":
            break
    _next(page)  # the reveal after the class's guess
    page.wait_for_selector("#map .lane.winner")
    # Every node can have the claim's volume provisioned: four lanes fit.
    assert page.locator("#map .lane .verdict").count() == 4
    page.click("#open-scoring")
    page.wait_for_selector("#overlay #scoring-panel")
    assert page.inner_text("#overlay").count("卷申领 data（存储类 standard）：将为该节点制备一个卷") == 4
    page.keyboard.press("Escape")
    progress = ""
    for _press in range(30):
        _label, progress = _next(page)
        if progress == "13 / 13":
            break
    assert progress == "13 / 13"
    followed = page.get_attribute("#map .chip.followed", "data-pod")
    assert followed and followed.startswith("db-")
    _readable(page)

    # The fast claim is Bound at step 8; gallery, applied at step 9, runs in the volume's zone.
    _to_step(page, 6)
    _press_button(page)  # photos.yaml
    _to_step(page, 8)
    _press_button(page)  # gallery.yaml
    _to_step(page, 9)
    gallery = _api(live, cluster, "/api/v1/namespaces/default/pods/gallery")
    volume = _api(live, cluster, "/api/v1/namespaces/default/persistentvolumeclaims/photos")["spec"]["volumeName"]
    [term] = _api(live, cluster, f"/api/v1/persistentvolumes/{volume}")["spec"]["nodeAffinity"]["required"][
        "nodeSelectorTerms"]
    assert [ZONES[gallery["spec"]["nodeName"]]] == term["matchExpressions"][0]["values"]
    # Followed (a click on its chip) and shown at its hop 9: the other zone's lanes are ruled out by VolumeBinding.
    page.wait_for_selector("#map .chip[data-pod='gallery']")
    page.dispatch_event("#map .chip[data-pod='gallery'] rect", "click")
    page.wait_for_function("document.querySelector('#map .chip.followed')?.dataset.pod === 'gallery'")
    for _press in range(13):
        if page.inner_text("#hop-label") == "9":
            break
        page.click("#back")
        _settled(page)
    assert page.inner_text("#hop-label") == "9"
    for node, zone in ZONES.items():
        verdict = page.text_content(f"#map .lane[data-node='{node}'] .verdict") or ""
        assert (REASON_NODE_CONFLICT in verdict) == (zone not in term["matchExpressions"][0]["values"]), (node, verdict)
    _readable(page)
    assert problems == []
    context.close()
