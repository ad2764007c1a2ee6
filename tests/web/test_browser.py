"""The cluster page in a real headless Chromium (Debian's), driven by Playwright."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.livesim import ROOT, LiveServer

CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run"]


@pytest.fixture
def page(live: LiveServer) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.problems = []  # type: ignore[attr-defined]
        page.on("console", lambda m: m.type == "error" and page.problems.append(m.text))  # type: ignore[attr-defined]
        page.on("requestfailed", lambda r: page.problems.append(f"failed {r.url}"))  # type: ignore[attr-defined]
        yield page
        browser.close()


def test_a_kubectl_change_shows_up_without_reload(page, live: LiveServer, kubectl_binary: str, tmp_path: Path):
    page.goto(f"{live.url}/c/demo/")
    page.wait_for_selector("#node-node03")
    # The websocket is up once the first snapshot frame has replaced the node grid.
    page.wait_for_function("document.querySelector('#nodes') && window.htmx !== undefined")
    subprocess.run([kubectl_binary, f"--server={live.cluster_url()}", f"--cache-dir={tmp_path}", "label", "node",
                    "node03", "lesson=browser", "--overwrite"], check=True, capture_output=True,
                   env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    page.wait_for_selector("#node-node03 .labels code:has-text('lesson=browser')", timeout=15_000)
    assert page.url.endswith("/c/demo/")
    assert page.problems == []  # type: ignore[attr-defined]


def test_the_page_fits_a_projector_without_horizontal_scrolling(page, live: LiveServer):
    page.goto(f"{live.url}/c/demo/")
    page.wait_for_selector("#node-node01")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.problems == []  # type: ignore[attr-defined]


def test_clicking_a_pod_opens_its_scoring_panel(page, live: LiveServer, kubectl_binary: str, tmp_path: Path):
    manifest = tmp_path / "pod.yaml"
    manifest.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: clicked}\nspec:\n"
                        "  containers: [{name: c, image: 'nginx:1.27'}]\n")
    subprocess.run([kubectl_binary, f"--server={live.cluster_url()}", f"--cache-dir={tmp_path}", "apply", "-f",
                    str(manifest)], check=True, capture_output=True, env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    page.goto(f"{live.url}/c/demo/")
    page.click(".chip[title^='default/clicked']", timeout=15_000)
    page.wait_for_selector("#scoring table.decision tr.winner")
    rows = page.locator("#scoring table.decision").first.locator("tbody tr")
    assert rows.count() == 3
    page.screenshot(path=str(tmp_path / "scoring.png"), full_page=True)
    assert page.problems == []  # type: ignore[attr-defined]


def test_stepping_through_the_scoring_panel_reveals_one_node_then_one_plugin_per_click(
    page, live: LiveServer, kubectl_binary: str, tmp_path: Path
):
    manifest = tmp_path / "pod.yaml"
    manifest.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: walked}\nspec:\n"
                        "  containers: [{name: c, image: 'nginx:1.27', resources: {requests: {cpu: 250m}}}]\n")
    subprocess.run([kubectl_binary, f"--server={live.cluster_url()}", f"--cache-dir={tmp_path}", "apply", "-f",
                    str(manifest)], check=True, capture_output=True, env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    page.goto(f"{live.url}/c/demo/")
    page.click(".chip[title^='default/walked']", timeout=15_000)
    page.wait_for_selector("#scoring-panel")
    shown = "document.querySelectorAll('#scoring-panel td[data-step]:not(.step-hidden)').length"
    per_node = page.locator("#scoring table.filters thead th").count() - 1  # each filter, and the result
    plugins = page.locator("#scoring table.scores thead th[data-plugin-step]").count()
    nodes = page.locator("#scoring table.filters tbody tr").count()
    assert plugins >= 2 and nodes == page.locator("#scoring table.scores tbody tr").count()
    page.click("#scoring [data-stepper='start']")
    assert page.evaluate(shown) == 0
    assert not page.locator("#scoring .verdict").is_visible()
    for node in range(1, nodes + 1):
        page.click("#scoring [data-stepper='next']")
        assert page.evaluate(shown) == node * per_node
        assert page.locator("#scoring .narration li:visible").inner_text().startswith("Filter · ")
    names = page.locator("#scoring table.scores thead th[data-plugin-step]")
    for plugin in range(1, plugins + 1):
        page.keyboard.press("ArrowRight")  # the keyboard works as well as the button
        assert page.evaluate(shown) == nodes * per_node + plugin * nodes
        plugin_name = names.nth(plugin - 1).inner_text().split("\n")[0]
        assert page.locator("#scoring .narration li:visible").inner_text().startswith(plugin_name)
        assert not page.locator("#scoring .win-mark").is_visible()  # the winner does not give itself away
    page.keyboard.press("ArrowRight")
    assert page.locator("#scoring tr.winner .win-mark").is_visible()
    assert page.locator("#scoring .verdict").is_visible()
    final = nodes + plugins + 1
    assert page.locator("#scoring .step-count").inner_text() == f"{final} / {final}"
    page.click("#scoring [data-stepper='back']")
    assert not page.locator("#scoring .win-mark").is_visible()
    page.click("#scoring [data-stepper='all']")
    assert page.evaluate(shown) == page.locator("#scoring-panel td[data-step]").count()
    assert page.problems == []  # type: ignore[attr-defined]


def test_clicking_a_timeline_row_highlights_its_arrow_and_caption(
    page, live: LiveServer, kubectl_binary: str, tmp_path: Path
):
    page.add_init_script("document.addEventListener('htmx:wsAfterMessage', () => { window.frames_seen = true; })")
    page.goto(f"{live.url}/c/demo/")
    assert page.locator("#flow .lane").count() == min(4, page.locator("#nodes .node-card").count())
    page.wait_for_function("window.frames_seen === true")  # the socket is up: what follows arrives live
    subprocess.run([kubectl_binary, f"--server={live.cluster_url()}", f"--cache-dir={tmp_path}", "run", "timeline-pod",
                    "--image=nginx:1.27"], check=True, capture_output=True, env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    page.wait_for_selector("#nodes .chip.running:has-text('timeline-pod')", timeout=15_000)
    # Paused, so no later message takes the caption over while we look.
    page.click("#controls button[value='paused']")
    page.wait_for_selector("#controls button.on[value='paused']")
    try:
        row = page.locator("#timeline li[data-step='9']:has-text('timeline-pod')").first
        row.click()
        assert row.get_attribute("aria-current") == "true"
        assert page.locator("#timeline li.selected").count() == 1
        assert page.inner_text("#caption .step") == "9"
        assert page.inner_text("#caption .text") == row.locator(".what").inner_text()
        assert "filters and scores the nodes" in page.inner_text("#caption .caption-why")
        assert page.get_attribute("#flow-focus", "points")  # the API server -> scheduler arrow
        page.wait_for_selector("#tokens .token.parked")  # the numbered token arrived at the scheduler
        page.screenshot(path=str(tmp_path / "timeline.png"))
    finally:
        page.click("#controls button[value='fast-forward']")
        page.wait_for_selector("#controls button.on[value='fast-forward']")
    assert page.problems == []  # type: ignore[attr-defined]


def test_bad_yaml_in_the_editor_is_marked_at_its_line(page, live: LiveServer, tmp_path: Path):
    page.goto(f"{live.url}/c/demo/")
    page.wait_for_selector(".CodeMirror")
    page.evaluate("window.clusterviz.editor.setValue('apiVersion: v1\\nkind: Pod\\nmetadata:\\n  name: [oops\\n')")
    page.click("#yaml-form button[value='apply']")
    page.wait_for_selector("#yaml-result [data-line]")
    assert page.locator(".CodeMirror .error-line").count() == 1
    page.screenshot(path=str(tmp_path / "editor.png"))
    assert page.problems == []  # type: ignore[attr-defined]


def test_projector_mode_enlarges_the_type_and_is_remembered(page, live: LiveServer):
    page.goto(f"{live.url}/c/demo/")
    normal = page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
    page.click("#projector")
    assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") > normal
    page.reload()
    assert page.evaluate("document.body.classList.contains('projector-mode')")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_stepping_an_apply_from_the_editor_moves_one_message_per_click(page, live: LiveServer):
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "createcluster", "stepped", "--nodes", "2"],
                   env=live.env, cwd=ROOT, check=True, capture_output=True)
    page.goto(f"{live.url}/c/stepped/")
    page.wait_for_selector(".CodeMirror")
    page.click("#controls button[value='step']")
    page.wait_for_selector("#controls button.on[value='step']")
    page.evaluate(f"window.clusterviz.editor.setValue({json.dumps(STEPPED_POD)})")
    page.click("#yaml-form button[value='apply']")
    seqs: list[int] = []
    steps: list[int] = []
    for _ in range(200):
        before = page.locator("#timeline li").count()
        page.click("#step")
        page.wait_for_function(f"document.querySelectorAll('#timeline li').length > {before}")
        first = page.locator("#timeline li").first
        seqs.append(int(first.locator(".seq").inner_text().lstrip("#")))
        if first.locator(".step").count():
            steps.append(int(first.locator(".step").inner_text()))
        if page.locator("#nodes .chip.running:has-text('stepped-pod')").count():
            break
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    numbered = [s for i, s in enumerate(steps) if i == 0 or s != steps[i - 1]]
    assert [s for s in (1, 2, 3, 9, 10, 11, 12, 13) if s in numbered] == [1, 2, 3, 9, 10, 11, 12, 13]
    assert page.locator("#yaml-result").inner_text().strip().endswith("applied")
    assert page.problems == []  # type: ignore[attr-defined]


STEPPED_POD = """apiVersion: v1
kind: Pod
metadata:
  name: stepped-pod
spec:
  containers:
  - name: web
    image: nginx:1.27
"""


def test_a_kubectl_scale_shows_up_as_pods_on_the_cards(page, live: LiveServer, kubectl_binary: str, tmp_path: Path):
    server = live.cluster_url("scaled")
    assert live.manage("createcluster", "scaled", "--nodes", "3").returncode == 0

    def kubectl(*args: str) -> None:
        subprocess.run([kubectl_binary, f"--server={server}", f"--cache-dir={tmp_path}", *args], check=True,
                       capture_output=True, env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})

    kubectl("create", "deployment", "grow", "--image=nginx:1.27", "--replicas=1")
    page.goto(f"{live.url}/c/scaled/")
    page.wait_for_selector(".node-card .chip[title*='/grow-'][title$=': Running']", timeout=20_000)
    kubectl("scale", "deployment", "grow", "--replicas=4")
    page.wait_for_function(
        "document.querySelectorAll(\".node-card .chip[title*='/grow-'][title$=': Running']\").length === 4",
        timeout=30_000,
    )
    assert page.url.endswith("/c/scaled/")
    assert page.problems == []  # type: ignore[attr-defined]
