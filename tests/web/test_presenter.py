"""The presenter view in a real headless Chromium: lessons a class can follow from the back of the room."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from clusterviz import lessons
from tests.livesim import LiveServer
from tests.web.test_browser import CHROMIUM, FLAGS

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")

# The smallest text of every visible element, HTML or SVG, in CSS pixels as rendered on the screen.
SMALLEST_FONT = """() => {
  let smallest = Infinity, where = "";
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const el = node.parentElement;
    if (!node.textContent.trim() || !el || el.closest("dialog:not([open]), title, script, style, option")) continue;
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height || getComputedStyle(el).visibility === "hidden") continue;
    let size = parseFloat(getComputedStyle(el).fontSize);
    const svg = el.closest("svg");
    if (svg) size *= svg.getScreenCTM().a;
    if (size < smallest) { smallest = size; where = node.textContent.trim().slice(0, 40); }
  }
  return [smallest, where];
}"""


@pytest.fixture
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        launched.close()


def _page(browser, width: int = 1920, height: int = 1080):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.problems = []
    page.on("console", lambda m: m.type == "error" and page.problems.append(m.text))
    page.on("pageerror", lambda e: page.problems.append(str(e)))
    page.on("requestfailed", lambda r: page.problems.append(f"failed {r.url}"))
    return page


def _cluster(live: LiveServer, name: str) -> str:
    result = live.manage("createcluster", name, "--nodes", "3")
    assert result.returncode == 0 or "exists" in (result.stdout + result.stderr), result.stderr
    return name


def _settled(page) -> None:
    page.wait_for_function(
        "document.getElementById('present').dataset.busy !== 'true' && "
        "document.getElementById('present').dataset.playing !== 'true'",
        timeout=30_000,
    )


def _next(page) -> tuple[str, str]:
    page.click("#next")
    page.wait_for_timeout(50)
    _settled(page)
    return page.inner_text("#hop-label"), page.inner_text("#progress")


def _open(page, live: LiveServer, cluster: str, lesson: str) -> None:
    page.goto(f"{live.url}/c/{cluster}/present/?lesson={lesson}&anim=0")
    page.wait_for_selector("#map .lane")
    page.wait_for_function("document.querySelector('.modes button.on')")


def _api(live: LiveServer, cluster: str, path: str) -> dict:
    with urllib.request.urlopen(f"{live.cluster_url(cluster)}{path}") as response:
        return json.loads(response.read())


def test_creation_flow_tells_one_pod_1_to_13_once_each_within_16_presses(browser, live: LiveServer):
    cluster = _cluster(live, "present-flow")
    page = _page(browser)
    _open(page, live, cluster, "creation-flow")
    page.click("form.action button")
    page.wait_for_selector("#outcome .flash.queued:has-text('hop 1')")
    seen: list[str] = []
    for _press in range(16):
        label, progress = _next(page)
        if not seen or seen[-1] != label:
            seen.append(label)
        if progress == "13 / 13":
            break
    assert page.inner_text("#progress") == "13 / 13"
    numbers = [int(label) for label in seen if label.isdigit()]
    assert numbers == list(range(1, 14)), seen
    assert "6a–8a" in seen and seen.index("6a–8a") == seen.index("5") + 1
    # The followed Pod is Running on the node the scheduler chose, and its chip is marked.
    followed = page.get_attribute("#map .chip.followed", "data-pod")
    assert followed and followed.startswith("myapp-")
    # Back shows the earlier hops again from the trace, down to the scheduler's hop 9.
    for _press in range(6):
        page.click("#back")
        _settled(page)
        if page.inner_text("#hop-label") == "9":
            break
    assert page.inner_text("#hop-label") == "9"
    assert page.locator("#map .lane .verdict rect").count() == 3
    assert page.problems == []


def test_the_presenter_view_is_readable_from_the_back_of_the_room(browser, live: LiveServer):
    cluster = _cluster(live, "present-fonts")
    page = _page(browser)
    _open(page, live, cluster, "creation-flow")
    page.click("form.action button")
    for _press in range(11):
        _next(page)  # to hop 9 and its scores, the busiest picture
    hop = page.inner_text("#hop-label")
    smallest, where = page.evaluate(SMALLEST_FONT)
    assert smallest >= 20, f"{smallest}px: {where!r}"
    assert page.evaluate("document.documentElement.scrollHeight <= window.innerHeight")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    # The map takes at least three quarters of the width.
    width = page.evaluate("document.getElementById('map').getBoundingClientRect().width")
    assert width >= 0.75 * 1920 - 20
    # A 1280x720 projector: the same hop, at 20 px too, without scrolling.
    small = _page(browser, 1280, 720)
    _open(small, live, cluster, "creation-flow")
    small.wait_for_function("(hop) => document.getElementById('hop-label').textContent === hop", arg=hop)
    _settled(small)
    if hop == "9":
        small.wait_for_function("document.querySelectorAll('#map .lane .verdict rect').length === 3")
    smallest, where = small.evaluate(SMALLEST_FONT)
    assert smallest >= 20, f"{smallest}px at 1280x720: {where!r}"
    assert small.evaluate("document.documentElement.scrollHeight <= window.innerHeight")
    assert small.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert small.evaluate("document.getElementById('map').getBoundingClientRect().width") >= 0.75 * 1280 - 20
    assert page.problems == [] and small.problems == []


def test_the_loaded_lesson_and_its_step_survive_a_reload(browser, live: LiveServer):
    cluster = _cluster(live, "present-reload")
    page = _page(browser)
    _open(page, live, cluster, "node-selector")
    page.click("#next-step")
    page.wait_for_selector("#script[data-step='1']")
    page.goto(f"{live.url}/c/{cluster}/present/")
    page.wait_for_selector("#script[data-step='1']")
    assert page.input_value("#lesson-select") == "node-selector"
    assert page.problems == []


@pytest.mark.parametrize("lesson", [lesson.slug for lesson in lessons.LESSONS])
def test_every_lesson_runs_to_its_end_through_its_buttons_and_next(browser, live: LiveServer, lesson: str,
                                                                  tmp_path: Path):
    cluster = _cluster(live, f"run-{lesson}")
    page = _page(browser)
    _open(page, live, cluster, lesson)
    script = lessons.BY_SLUG[lesson]
    start = _api(live, cluster, "/apis/clusterviz.io/v1/simulations/default")["status"]["lastSeq"]
    for index, step in enumerate(script.steps):
        page.wait_for_selector(f"#script[data-step='{index}']")
        outcome = ""
        if step.action is not None:
            page.click("form.action button")
            page.wait_for_selector("#outcome .flash")
        idle = 0
        for _press in range(40 if step.action else 3):
            if page.locator("#outcome .flash.ok, #outcome .flash.bad").count():
                outcome = page.inner_text("#outcome")
                break
            before = (_api(live, cluster, "/apis/clusterviz.io/v1/simulations/default")["status"]["lastSeq"],
                      page.inner_text("#subtitles"))
            _next(page)
            if page.locator(f"#script[data-step='{index + 1}']").count():
                break  # nothing was left for this step: Next moved the script on
            after = (_api(live, cluster, "/apis/clusterviz.io/v1/simulations/default")["status"]["lastSeq"],
                     page.inner_text("#subtitles"))
            idle = idle + 1 if after == before else 0
            if idle == 2:
                break
        if step.action is not None and not outcome:
            page.wait_for_selector("#outcome .flash.ok, #outcome .flash.bad", timeout=30_000)
            outcome = page.inner_text("#outcome")
        if step.action is not None:
            # The command the button stands for is logged in the kubectl pane with kubectl's answer.
            assert page.locator(f"#kubectl-log pre:has-text({step.action.kubectl()!r})").count() >= 1
        assert page.locator("#outcome .flash.bad").count() == 0, outcome
        page.screenshot(path=str(tmp_path / f"{lesson}-{index + 1}.png"))
        if index + 1 < len(script.steps) and not page.locator(f"#script[data-step='{index + 1}']").count():
            page.click("#next-step")
    assert _api(live, cluster, "/apis/clusterviz.io/v1/simulations/default")["status"]["lastSeq"] > start
    assert page.problems == []


def _to_hop_nine_revealed(page) -> None:
    page.click("form.action button")
    page.wait_for_selector("#outcome .flash")
    for _press in range(12):
        label, _progress = _next(page)
        if label == "9":
            break
    _next(page)  # the reveal after the class's guess
    page.wait_for_selector("#map .lane.winner")


# Every lane's text inside its lane and clear of the rest; each Pod chip or "+N more" inside its lane.
LANES_TIDY = """() => [...document.querySelectorAll("#map .lane")].flatMap((lane) => {
    const bg = lane.querySelector(".lane-bg").getBoundingClientRect();
    const texts = [...lane.querySelectorAll("text")].filter((t) => t.textContent.trim());
    const boxes = texts.map((t) => [t.textContent.trim().slice(0, 30), t.getBoundingClientRect()]);
    const problems = boxes.filter(([, r]) => r.left < bg.left - 1 || r.right > bg.right + 1 || r.top < bg.top - 1
        || r.bottom > bg.bottom + 1).map(([what]) => `${lane.dataset.node}: ${what} outside its lane`);
    boxes.forEach(([a, ra], i) => boxes.slice(i + 1).forEach(([b, rb]) => {
        if (ra.left < rb.right - 2 && rb.left < ra.right - 2 && ra.top < rb.bottom - 2 && rb.top < ra.bottom - 2)
            problems.push(`${lane.dataset.node}: ${a} over ${b}`);
    }));
    return problems;
})"""


def test_six_narrow_lanes_at_1280_show_their_pods_under_a_one_line_bar(browser, live: LiveServer):
    cluster = _cluster(live, "present-six-lanes-at-1280-with-a-long-name")
    page = _page(browser, 1280, 720)
    _open(page, live, cluster, "node-affinity")  # six nodes, and one of the longest titles
    bar = page.evaluate("""() => [...document.querySelectorAll('.bar-top > *')].map((e) => {
        const r = e.getBoundingClientRect(); return [r.top, r.bottom, r.right]; })""")
    # One line: every item of the bar beside the others, none past the screen's edge.
    assert max(top for top, _, _ in bar) < min(bottom for _, bottom, _ in bar)
    assert max(right for _, _, right in bar) <= 1280
    _to_hop_nine_revealed(page)
    assert page.evaluate(LANES_TIDY) == []
    # Each ruled-out lane shows the operator that ruled it out, on as many lines as the narrow lane needs.
    for node, operator in {"node03": "NotIn[hdd]", "node04": "DoesNotExist", "node05": "Gt[4]", "node06": "Lt[64]"}.items():
        shown = page.evaluate(f"""() => [...document.querySelectorAll("#map .lane[data-node='{node}'] .verdict text")]
            .slice(1).map((t) => t.textContent).join('')""")
        assert operator in shown.replace(" ", ""), (node, shown)
        # And its verdict's head names the plugin whole (on a line of its own if need be), not "✗ NodeAf…".
        head = page.evaluate(f"""() => document.querySelector("#map .lane[data-node='{node}'] .verdict text")
            .textContent""")
        assert "NodeAffinity" in head and "…" not in head, (node, head)
    seen = set()
    for _press in range(6):
        _next(page)
        # Every status whole, ContainerCreating too: narrower type rather than lost letters.
        statuses = page.evaluate("""() => [...document.querySelectorAll('#map .chip')].map((chip) => [
            chip.querySelector('.chip-status').textContent, chip.querySelector('title').textContent])""")
        assert all(title.split(": ", 1)[1].startswith(shown) for shown, title in statuses), statuses
        seen |= {shown for shown, _ in statuses}
    assert "ContainerCreating" in seen, seen
    pods = _api(live, cluster, "/api/v1/namespaces/default/pods")["items"]
    placed = {p["spec"]["nodeName"] for p in pods if p["spec"].get("nodeName")}
    assert placed
    for node in placed:
        assert page.locator(f"#map .lane[data-node='{node}'] .chip").count() >= 1, f"no Pod drawn on {node}"
    assert page.evaluate(LANES_TIDY) == []
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.problems == []


def test_the_resources_lesson_shows_the_seeds_fractions_and_balanced_allocation_deciding(browser, live: LiveServer):
    cluster = _cluster(live, "present-resources")
    page = _page(browser)
    _open(page, live, cluster, "resources")
    _to_hop_nine_revealed(page)
    assert page.get_attribute("#map .lane.winner", "data-node") == "node02"
    assert "Insufficient cpu" in (page.text_content("#map .lane[data-node='node03'] .verdict") or "")
    page.click("#open-scoring")
    page.wait_for_selector("#overlay #scoring-panel")
    panel = page.inner_text("#overlay")
    # The seeds' 20%:60% against 50%:50%, as requested / allocatable before the Pod.
    assert "(20% before the Pod)" in panel and "(60% before the Pod)" in panel
    assert panel.count("(50% before the Pod)") >= 2
    assert "NodeResourcesBalancedAllocation decided: node02" in panel
    assert page.evaluate("document.documentElement.scrollHeight <= window.innerHeight")
    assert page.problems == []


def test_the_node_affinity_lesson_shows_each_operator_deciding_a_node(browser, live: LiveServer):
    cluster = _cluster(live, "present-affinity")
    page = _page(browser)
    _open(page, live, cluster, "node-affinity")
    _to_hop_nine_revealed(page)
    verdict = {node: (page.text_content(f"#map .lane[data-node='{node}'] .verdict") or "")
               for node in ("node03", "node04", "node05", "node06")}
    # The hard rule: each of four nodes is ruled out by one operator, named as the YAML writes it.
    assert "NotIn" in verdict["node03"] and "DoesNotExist" in verdict["node04"]
    assert "Gt" in verdict["node05"] and "Lt" in verdict["node06"]
    page.click("#open-scoring")
    page.wait_for_selector("#overlay #scoring-panel")
    panel = page.inner_text("#overlay")
    # The soft rules: In and Exists add their weights, and the weights decide.
    assert "✓ preferred weight 60: zone In [a]" in panel and "✓ preferred weight 30: gpu Exists" in panel
    assert "NodeAffinity decided: node01" in panel
    assert page.problems == []


def test_the_node_failure_lesson_evicts_and_replaces_within_a_minute(browser, live: LiveServer):
    cluster = _cluster(live, "present-failure")
    page = _page(browser)
    _open(page, live, cluster, "node-failure")
    script = lessons.BY_SLUG["node-failure"]
    stop = next(i for i, step in enumerate(script.steps) if step.action and step.action.kind == "stop-kubelet")
    page.click("form.action button")
    for _press in range(30):
        _next(page)
        if page.locator("#outcome .flash.ok").count() and page.inner_text("#progress") == "13 / 13":
            break
    # On to the step with the kubelet's button, as the teacher's "Next step" would.
    page.evaluate("(step) => htmx.ajax('POST', location.pathname + 'step', {values: {step}, target: '#script', "
                  "swap: 'outerHTML'})", str(stop))
    page.wait_for_selector(f"#script[data-step='{stop}']")
    pods = _api(live, cluster, "/api/v1/namespaces/default/pods")["items"]
    lost = {p["metadata"]["name"] for p in pods if p["spec"].get("nodeName") == "node02"}
    assert lost
    page.click("form.action button")
    page.wait_for_selector("#outcome .flash")
    stopped_at = _api(live, cluster, "/apis/clusterviz.io/v1/simulations/default")["status"]["time"]
    replaced_at, countdown = None, None
    for _press in range(40):
        _next(page)
        pods = _api(live, cluster, "/api/v1/namespaces/default/pods")["items"]
        node = _api(live, cluster, "/api/v1/nodes/node02")
        if countdown is None and any(t.get("effect") == "NoExecute" for t in node["spec"].get("taints") or []):
            # The press that stored the taint stops there, before the clock runs on to the eviction: the
            # subtitle says when, and the lane counts down (once the page's socket has brought the taint).
            countdown = page.inner_text("#sub-what")
            page.wait_for_function("""() => /^evicts in [0-9]+ s$/.test(document.querySelector(
                "#map .lane[data-node='node02'] .lane-countdown")?.textContent || "")""")
        running = [p for p in pods if p["status"].get("phase") == "Running" and p["spec"].get("nodeName") != "node02"
                   and not p["metadata"].get("deletionTimestamp")]
        gone = all(p["metadata"].get("deletionTimestamp") for p in pods if p["metadata"]["name"] in lost)
        if len(running) == 3 and gone:
            replaced_at = _api(live, cluster, "/apis/clusterviz.io/v1/simulations/default")["status"]["time"]
            break
    assert replaced_at is not None, "no replacement Pod Running"
    assert replaced_at - stopped_at <= 60
    # tolerationSeconds is 5; timeAdded keeps whole seconds, so what is left reads 5 or 4.
    assert re.fullmatch(r"node02 is tainted node\.kubernetes\.io/unreachable:NoExecute: its Pods are evicted in [45] s\.",
                        countdown or ""), countdown
    assert "NotReady" in (page.text_content("#map .lane[data-node='node02'] .lane-state") or "")
    # However long the state, it stays inside its lane and clear of the node's name.
    assert page.evaluate("""() => [...document.querySelectorAll("#map .lane")].every((lane) => {
        const [bg, name, state] = [".lane-bg", ".lane-name", ".lane-state tspan"].map(
            (s) => lane.querySelector(s).getBoundingClientRect());
        return state.left >= bg.left && state.right <= bg.right && state.top >= name.bottom - 4;
    })""")
    assert page.problems == []
