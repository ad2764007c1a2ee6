"""The cluster page in a real headless Chromium (Debian's), driven by Playwright."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.livesim import LiveServer

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
