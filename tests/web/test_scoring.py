"""The scoring panel: a decision record as tables, bars and numbered steps to walk through."""

import re

import pytest

from clusterviz.api.client import Client
from clusterviz.web.scoring import build_panel

pytestmark = pytest.mark.django_db(transaction=True)

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"namespace": "default"},
    "spec": {"containers": [{"name": "c", "image": "nginx:1.27", "resources": {"requests": {"cpu": "100m"}}}]},
}


def pod(name: str, **spec: object) -> dict:
    return {**POD, "metadata": {**POD["metadata"], "name": name}, "spec": {**POD["spec"], **spec}}


def filters(*statuses: tuple[str, str, str]) -> list[dict]:
    return [{"plugin": p, "legacyName": f"Legacy{p}", "status": s, "reason": r} for p, s, r in statuses]


def score(plugin: str, raw: int | None, weight: int) -> dict:
    normalized = None if raw is None else raw
    return {
        "plugin": plugin,
        "legacyName": f"Legacy{plugin}",
        "raw": raw,
        "normalized": normalized,
        "weight": weight,
        "weighted": (normalized or 0) * weight,
        "needed": True,
    }


RECORD = {
    "pod": {"namespace": "default", "name": "web"},
    "attempt": 1,
    "selected": "b",
    "tied": ["a", "b"],
    "scoringNeeded": True,
    "message": "",
    "tieBreak": {"text": "2 nodes share the highest total (30)."},
    "nodes": [
        {
            "name": "a",
            "feasible": True,
            "total": 30,
            "filters": filters(("NodeName", "Success", ""), ("NodePorts", "Skip", "")),
            "scores": [score("ImageLocality", 10, 1), score("NodeResourcesFit", 20, 1), score("NodeAffinity", None, 2)],
        },
        {
            "name": "b",
            "feasible": True,
            "total": 30,
            "filters": filters(("NodeName", "Success", ""), ("NodePorts", "Skip", "")),
            "scores": [score("ImageLocality", 0, 1), score("NodeResourcesFit", 30, 1), score("NodeAffinity", None, 2)],
        },
        {
            "name": "c",
            "feasible": False,
            "total": None,
            "filters": filters(
                ("NodeName", "Unschedulable", "node(s) didn't match the requested node name"), ("NodePorts", "Skip", "")
            ),
        },
    ],
}


class TestBuildPanel:
    def test_plugins_that_skipped_everywhere_are_listed_apart_from_the_columns(self):
        panel = build_panel(RECORD)
        assert [p.name for p in panel.filters] == ["NodeName"]
        assert [p.name for p in panel.skipped_filters] == ["NodePorts"]
        assert [p.name for p in panel.scores] == ["ImageLocality", "NodeResourcesFit"]
        assert [p.name for p in panel.skipped_scores] == ["NodeAffinity"]

    def test_filters_step_node_by_node_then_scores_plugin_by_plugin_then_the_selection(self):
        panel = build_panel(RECORD)
        assert [row.step for row in panel.filter_rows] == [1, 2, 3]
        assert [p.step for p in panel.scores] == [4, 5]
        assert panel.final_step == 6
        assert [s.number for s in panel.steps] == [0, 1, 2, 3, 4, 5, 6]
        assert "c is filtered out" in panel.steps[3].text
        assert "node(s) didn&#x27;t match the requested node name" in panel.steps[3].detail  # HTML, escaped

    def test_only_feasible_nodes_are_scored_and_the_bars_are_drawn_against_the_best_total(self):
        rows = {row.node: row for row in build_panel(RECORD).score_rows}
        assert set(rows) == {"a", "b"}
        assert rows["b"].selected and rows["a"].tied and rows["b"].tied
        assert sum(cell.percent for cell in rows["b"].cells) == 100.0
        assert [cell.percent for cell in rows["a"].cells] == [pytest.approx(33.33), pytest.approx(66.67)]

    def test_the_last_step_names_the_winner_and_how_the_tie_was_broken(self):
        verdict = build_panel(RECORD).steps[-1]
        assert "b is selected" in verdict.text
        assert verdict.detail == "2 nodes share the highest total (30)."

    def test_plugins_carry_their_explanation(self):
        panel = build_panel(RECORD)
        assert "spec.nodeName" in panel.filters[0].explanation


def cells(html: str, step: int) -> int:
    return len(re.findall(rf'data-step="{step}"', html))


async def test_the_panel_shows_every_node_every_plugin_and_the_winner(sim, async_client):
    kubectl = Client("demo", "kubectl")
    await kubectl.create(pod("scored-web"))
    await sim.engine.until_settled()
    chosen = (await kubectl.get("pods", "scored-web", "default"))["spec"]["nodeName"]
    record = (await kubectl.list("schedulingdecisions", "default", label_selector="clusterviz.io/pod=scored-web"))[
        "items"
    ][-1]
    html = (await async_client.get("/c/demo/scoring/default/scored-web")).content.decode()
    panel = build_panel(record)
    for plugin in [*panel.filters, *panel.skipped_filters, *panel.scores, *panel.skipped_scores]:
        assert plugin.name in html and plugin.legacy in html
    assert "LeastRequestedPriority" in html and "BalancedResourceAllocation" in html
    assert '<th scope="col" title=' in html and "Node<wbr>Resources<wbr>Fit" in html  # headers wrap between words
    assert len(re.findall(rf'<tr class="winner"><th>{chosen}\b', html)) == 2  # its filter row and its score row
    for node in ("node01", "node02", "node03"):
        assert re.search(rf'<span class="bar-node">{node}</span>', html)
    assert f'data-final="{panel.final_step}"' in html
    assert html.count("data-say=") == panel.final_step + 1
    assert html.count('class="winner"') == 2
    assert "★ selected" in html
    # Every node's filter verdicts appear at its own step, each score plugin's cells at its own step.
    for row in panel.filter_rows:
        assert cells(html, row.step) == len(panel.filters) + 1
    for plugin in panel.scores:
        assert cells(html, plugin.step) == 2 * len(panel.score_rows)  # table cell and bar segment


async def test_a_pending_pod_shows_why_no_node_fits(sim, async_client):
    await Client("demo", "kubectl").create(pod("stuck-web", nodeSelector={"disktype": "ssd"}))
    await sim.engine.until_settled()
    html = (await async_client.get("/c/demo/scoring/default/stuck-web")).content.decode()
    assert '<p class="verdict bad" data-step="4">0/3 nodes are available' in html
    assert html.count('<td class="fail" data-step=') == 6  # NodeAffinity and the result, for each node
    assert html.count("✗ node(s) didn&#x27;t match Pod&#x27;s node affinity/selector") == 3
    assert "No node fits" in html and "The Pod stays Pending" in html
    assert 'table class="decision scores"' not in html


async def test_every_attempt_can_be_picked(sim, async_client):
    kubectl = Client("demo", "kubectl")
    await kubectl.create(pod("retried", nodeSelector={"disktype": "ssd"}))
    await sim.engine.until_settled()
    await kubectl.patch("nodes", "node02", {"metadata": {"labels": {"disktype": "ssd"}}})
    await sim.engine.until_settled()
    latest = (await async_client.get("/c/demo/scoring/default/retried")).content.decode()
    assert "?attempt=1" in latest and "Selected: <strong>node02</strong>" in latest
    first = (await async_client.get("/c/demo/scoring/default/retried?attempt=1")).content.decode()
    assert "0/3 nodes are available" in first and 'class="on" aria-current="true">1<' in first


async def test_the_panel_speaks_chinese_on_a_chinese_page(sim, async_client):
    await Client("demo", "kubectl").create(pod("zh-web"))
    await sim.engine.until_settled()
    async_client.cookies["django_language"] = "zh-hans"
    html = (await async_client.get("/c/demo/scoring/default/zh-web")).content.decode()
    assert "逐步讲解" in html and "先过滤，再打分" in html
    assert "节点剩余的可分配 CPU 和内存必须满足 Pod 的请求" in html  # NodeResourcesFit's own explanation
    # The tie-break sentence too (the record's own is English): the three empty nodes tie.
    assert "个节点同为最高总分" in html and "reservoir sampling" not in html
