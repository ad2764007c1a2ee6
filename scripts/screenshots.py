"""Make docs/screenshots/ from a real browser: the demo cluster after applying the seeds' Deployment, and the
presenter view of the resources lesson at hop 9 (English, Chinese, and with its scoring overlay open).

Run: .venv/bin/python scripts/screenshots.py   (needs Debian's chromium and the machine's kubectl)
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.livesim import LiveServer  # noqa: E402

SIZES = [(1280, 720), (1920, 1080)]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]


def kubectl(server: str, home: Path, *args: str, stdin: str | None = None) -> None:
    subprocess.run(["kubectl", f"--server={server}", f"--cache-dir={home / 'cache'}", *args], input=stdin,
                   text=True, check=True, capture_output=True, env={"HOME": str(home), "PATH": "/usr/bin:/bin"})


def wait_running(server: str, count: int) -> None:
    for _ in range(200):
        with urllib.request.urlopen(f"{server}/api/v1/namespaces/default/pods") as response:
            body = response.read().decode()
        if body.count('"phase":"Running"') >= count:
            return
        time.sleep(0.1)  # wall-clock: waiting for the server process


def main() -> None:
    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("chromium is not installed (apt-get install chromium)")
    out = ROOT / "docs" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        server = LiveServer(work, {"CLUSTERVIZ_DEFAULT_MODE": "fast-forward"})
        server.start()
        try:
            api = server.cluster_url("demo")
            kubectl(api, work, "apply", "-f", str(ROOT / "examples" / "myapp.yaml"))
            kubectl(api, work, "label", "node", "node01", "disktype=ssd")
            kubectl(api, work, "create", "-f", "-", stdin=(
                "apiVersion: v1\nkind: Pod\nmetadata: {name: wants-gpu}\nspec:\n  nodeSelector: {gpu: 'true'}\n"
                "  containers: [{name: c, image: 'nginx:1.27', resources: {requests: {cpu: 500m}}}]\n"))
            wait_running(api, 3)
            for width, height in SIZES:
                target = out / f"cluster-{width}x{height}.png"
                subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={work / 'chromium'}",
                                f"--window-size={width},{height}", f"--screenshot={target}",
                                f"{server.url}/c/demo/"], check=True, capture_output=True)
                print(target.relative_to(ROOT))
            presenter(server, out)
        finally:
            server.stop()


def presenter(server: LiveServer, out: Path) -> None:
    """The resources lesson on the presenter view, told up to the scheduler's verdicts and scores (hop 9)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_FLAGS[1:])
        for language in ("en", "zh-hans"):
            cluster = f"present-{language}"
            server.manage("createcluster", cluster, "--nodes", "3")
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.context.add_cookies([{"name": "django_language", "value": language, "url": server.url}])
            page.goto(f"{server.url}/c/{cluster}/present/?lesson=resources")
            page.wait_for_selector("#map .lane")
            page.click("form.action button")
            page.wait_for_selector("#outcome .flash")
            for _press in range(12):
                page.click("#next")
                page.wait_for_function("document.getElementById('present').dataset.busy !== 'true' && "
                                       "document.getElementById('present').dataset.playing !== 'true'")
                if page.inner_text("#hop-label") == "9":
                    break
            page.click("#next")  # the reveal, after the class has guessed
            page.wait_for_selector("#map .lane.winner")
            page.wait_for_timeout(1500)  # wall-clock: the last token comes to rest
            target = out / f"present-{'zh' if language != 'en' else 'en'}-1920x1080.png"
            page.screenshot(path=str(target))
            print(target.relative_to(ROOT))
            if language == "en":
                page.click("#open-scoring")
                page.wait_for_selector("#overlay #scoring-panel")
                page.wait_for_timeout(500)  # wall-clock: the panel's fonts settle
                target = out / "present-scoring-1920x1080.png"
                page.screenshot(path=str(target))
                print(target.relative_to(ROOT))
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
