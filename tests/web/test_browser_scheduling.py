"""The scheduling lesson in a real headless Chromium: why a Pod waits, a label from the page, the winner highlighted."""

from __future__ import annotations

import json
import urllib.request

import pytest

from tests.livesim import LiveServer
from tests.web.test_browser import CHROMIUM, page  # noqa: F401  (the shared Playwright page fixture)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
CLUSTER = "lesson-ssd"
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "wants-ssd", "namespace": "default"},
    "spec": {"nodeSelector": {"disktype": "ssd"}, "containers": [{"name": "c", "image": "nginx:1.27"}]},
}


def test_a_pending_pods_reasons_then_a_label_from_the_page_schedules_it(page, live: LiveServer):  # noqa: F811
    created = live.manage("createcluster", CLUSTER, "--nodes", "3")
    assert created.returncode == 0, created.stderr
    request = urllib.request.Request(
        f"{live.cluster_url(CLUSTER)}/api/v1/namespaces/default/pods",
        data=json.dumps(POD).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        assert response.status == 201
    page.goto(f"{live.url}/c/{CLUSTER}/")
    # Pending, with the scheduler's reason next to it; its panel gives every node's reasons.
    page.wait_for_selector("#pending li:has-text(\"didn't match Pod's node affinity/selector\")", timeout=20_000)
    page.click("#pending .chip:has-text('wants-ssd')")
    page.wait_for_selector("#scoring .verdict.bad:has-text('0/3 nodes are available')")
    page.click("#scoring button:has-text('Show all')")
    rows = page.locator("#scoring table.filters tbody tr")
    assert rows.count() == 3
    for i in range(3):
        assert "didn't match Pod's node affinity/selector" in rows.nth(i).inner_text()

    page.fill("#value-node02", "disktype=ssd")
    page.click("#node-node02 button[value='label']")
    chip = page.wait_for_selector("#node-node02 .chip[title$=': Running']:has-text('wants-ssd')", timeout=30_000)
    assert page.locator("#pending .chip:has-text('wants-ssd')").count() == 0
    # The open panel followed the new attempt by itself.
    page.wait_for_selector("#scoring .verdict.ok:has-text('node02')", timeout=15_000)
    chip.click()
    page.wait_for_selector("#scoring .verdict.ok:has-text('node02')")
    page.click("#scoring button:has-text('Show all')")
    # Every filter plugin's column and every score plugin's column, the Pod's node highlighted in both tables.
    header = page.locator("#scoring table.filters thead").inner_text()
    for plugin in ("NodeAffinity", "NodeResourcesFit", "TaintToleration", "NodeUnschedulable"):
        assert plugin in header
    scores = page.locator("#scoring table.scores thead").inner_text().replace("\u00ad", "").replace("\u200b", "")
    for plugin in ("NodeResourcesFit", "ImageLocality", "TaintToleration"):
        assert plugin in scores.replace("\n", "")
    assert page.locator("#scoring table.filters tr.winner th").inner_text() == "node02"
    assert page.locator("#scoring table.scores tr.winner th").inner_text().startswith("node02")
    assert page.problems == []  # type: ignore[attr-defined]
