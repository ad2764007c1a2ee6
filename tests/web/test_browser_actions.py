"""Actions and the objects panel in a real headless Chromium: a click writes, the page follows by list-watch."""

from __future__ import annotations

import json
import urllib.request

import pytest

from tests.livesim import LiveServer
from tests.web.test_browser import CHROMIUM, page  # noqa: F401  (the shared Playwright page fixture)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")


def create(live: LiveServer, path: str, obj: dict) -> None:
    """POST an object to the live server's API, as any HTTP client would."""
    request = urllib.request.Request(
        f"{live.cluster_url()}{path}",
        data=json.dumps(obj).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        assert response.status == 201


def test_labelling_a_node_from_its_card_keeps_what_is_typed_in_the_others(page, live: LiveServer):  # noqa: F811
    page.goto(f"{live.url}/c/demo/")
    page.wait_for_selector("#node-node02")
    page.fill("#value-node01", "typed=here")
    page.fill("#value-node02", "lesson=card")
    page.click("#node-node02 button[value='label']")
    page.wait_for_selector("#flash-node02 .flash.ok:has-text('node/node02 labeled')")
    # The card is re-rendered from the watch event; the other card's input survives that.
    page.wait_for_selector("#node-node02 .labels code:has-text('lesson=card')", timeout=15_000)
    assert page.input_value("#value-node01") == "typed=here"
    assert page.locator("#flash-node02 .flash.ok").count() == 1
    page.fill("#value-node02", "bad key=1")
    page.click("#node-node02 button[value='label']")
    page.wait_for_selector("#flash-node02 .flash.bad:has-text('metadata.labels: Invalid value')")
    assert page.problems == []  # type: ignore[attr-defined]


def test_scaling_from_the_describe_panel_shows_in_the_live_table(page, live: LiveServer):  # noqa: F811
    create(
        live,
        "/apis/apps/v1/namespaces/default/deployments",
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "scaled"},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {"app": "scaled"}},
                "template": {
                    "metadata": {"labels": {"app": "scaled"}},
                    "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
                },
            },
        },
    )
    page.goto(f"{live.url}/c/demo/")
    page.click("#objects-form label:has-text('Deployments')")
    row = page.locator("table[data-plural='deployments'] tbody tr:has(td:text-is('scaled'))")
    row.click()
    page.wait_for_selector("#describe-body pre:has-text('Name:')")
    page.fill("#describe input[name='replicas']", "3")
    page.click("#describe button:has-text('Scale')")
    page.wait_for_selector("#describe-flash .flash.ok:has-text('deployment.apps/scaled scaled')")
    # No reload: the websocket tells the panel to refresh as the Pods come up.
    page.wait_for_selector(
        "table[data-plural='deployments'] tr:has(td:text-is('scaled')) td:text-is('3/3')", timeout=20_000
    )
    page.wait_for_selector("#describe-body pre:has-text('3 desired | 3 updated | 3 total | 3 available')")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.problems == []  # type: ignore[attr-defined]


def test_a_label_in_step_mode_is_shown_queued_with_its_kubectl_command(page, live: LiveServer):  # noqa: F811
    assert live.manage("createcluster", "queued", "--nodes", "2").returncode == 0
    page.goto(f"{live.url}/c/queued/")
    page.wait_for_selector("#kubectl-log", state="attached")
    page.click("#controls button[value='step']")
    page.wait_for_selector("#controls button.on[value='step']")
    page.fill("#value-node02", "disktype=ssd")
    page.click("#node-node02 button[value='label']")
    # The reply comes at once: the write waits at hop 1, and the pane shows the command it stands for.
    page.wait_for_selector("#flash-node02 .flash.queued:has-text('waiting at hop 1')")
    page.wait_for_selector("#kubectl-log pre:has-text('$ kubectl label node node02 disktype=ssd')")
    page.wait_for_selector("#clock:has-text('held at hop 1: patch Node/node02')")
    for _ in range(3):
        with page.expect_response(lambda r: "/controls/step" in r.url):
            page.click("#controls button:has-text('Next numbered hop')")
    page.wait_for_selector("#flash-node02 .flash.ok:has-text('node/node02 labeled')")
    page.wait_for_selector("#kubectl-log pre:has-text('node/node02 labeled')")
    page.wait_for_selector("#node-node02 .labels code:has-text('disktype=ssd')")
    assert page.problems == []  # type: ignore[attr-defined]
