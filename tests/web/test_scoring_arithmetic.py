"""The scoring panel shows every cell's arithmetic with the inputs the scheduler really used."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.template.loader import render_to_string

from clusterviz.api.client import Client
from clusterviz.scheduler.decision import DecisionRecord
from clusterviz.web.scoring import build_panel
from tests.scheduler.helpers import MiB, container, make_node, make_pod, run
from tests.scheduler.test_decision_inputs import seeds_cluster

ROOT = Path(__file__).resolve().parent.parent.parent


def render(record: DecisionRecord) -> str:
    """The panel's HTML for a record, as the API would serve it (through JSON)."""
    body: dict[str, Any] = json.loads(json.dumps(record.to_dict()))
    context = {
        "cluster": "demo",
        "namespace": body["pod"]["namespace"],
        "name": body["pod"]["name"],
        "record": body,
        "attempts": [body["attempt"]],
        "panel": build_panel(body),
    }
    return render_to_string("web/scoring.html", context)


def text(html: str) -> str:
    """What a reader sees: the HTML without tags (a <wbr> shows nothing), entities decoded, whitespace collapsed."""
    plain = re.sub(r"<[^>]+>", " ", html.replace("<wbr>", "")).replace("&#x27;", "'").replace("&gt;", ">").replace("&lt;", "<")
    return re.sub(r"\s+", " ", plain)


def pod(name: str, cpu: str, memory: str, node: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "image": "nginx:1.27", "resources": {"requests": {"cpu": cpu, "memory": memory}}}]
    }
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


@pytest.mark.django_db(transaction=True)
async def test_the_seeds_example_shows_each_fraction_and_balanced_allocation_deciding(sim, async_client):
    kubectl = Client("demo", "kubectl")
    await kubectl.patch("nodes", "node03", {"spec": {"unschedulable": True}})  # two nodes, as in the seeds
    await kubectl.create(pod("busy-1", "800m", "4915Mi", node="node01"))
    await kubectl.create(pod("busy-2", "2", "4Gi", node="node02"))
    await sim.engine.until_settled()
    await kubectl.create(pod("balanced", "200m", "200Mi"))
    await sim.engine.until_settled()
    assert (await kubectl.get("pods", "balanced", "default"))["spec"]["nodeName"] == "node02"
    html = (await async_client.get("/c/demo/scoring/default/balanced")).content.decode()
    seen = text(html)
    # node01 at 20% CPU : 60% memory, node02 at 50% : 50% before the Pod; then the Pod's 200m / 200Mi.
    assert "CPU 800m+200m / 4 = 25% (20% before the Pod)" in seen
    assert "memory 4915Mi+200Mi / 8Gi = 62% (60% before the Pod)" in seen
    assert "CPU 2+200m / 4 = 55% (50% before the Pod)" in seen
    assert "memory 4Gi+200Mi / 8Gi = 52% (50% before the Pod)" in seen
    assert "std 0.19 → (1 − 0.19) × 100 = 81" in seen and "std 0.01 → (1 − 0.01) × 100 = 98" in seen
    # LeastAllocated prefers the emptier node01; BalancedAllocation outweighs it.
    assert "CPU (4 − 800m − 200m) × 100 / 4 = 75" in seen and "(75 + 37) / 2 = 56" in seen
    assert "NodeResourcesBalancedAllocation decided: node02 +17 over node01" in seen
    assert re.search(r'<th scope="col" data-plugin-step="\d+" title="[^"]*" class="decider">', html)
    # A cordoned node's filter cell says why.
    assert "node is cordoned (spec.unschedulable)" in seen


def test_equal_plugins_are_folded_away_by_default():
    nodes, pods = seeds_cluster()
    html = render(run(make_pod("web", cpu="200m", memory="200Mi"), nodes, pods))
    assert '<div class="scoring-panel fold-equal"' in html
    assert "Equal on every node: TaintToleration 300, ImageLocality 0" in text(html)
    assert '<button type="button" data-fold aria-pressed="false">Show equal plugins</button>' in html
    # TaintToleration's header, cells and bar segments all fold; the deciding plugin's do not.
    assert html.count('class="equal"') == 2 * 3  # header + two cells, for each equal plugin
    assert html.count('class="seg equal"') == 2 * 2
    assert re.search(r'class="seg decider" data-step="\d+" style="--w: [\d.]+%; --wf: [\d.]+%', html)


def test_a_pod_without_requests_says_scoring_counts_it_as_100m_and_200mi():
    nodes, pods = seeds_cluster()
    seen = text(render(run(make_pod("best-effort"), nodes, pods)))
    assert (
        "The Pod requests no CPU: scoring counts it as 100m (upstream's DefaultMilliCPURequest); the filter counts 0."
        in seen
    )
    assert "The Pod requests no memory: scoring counts it as 200Mi (upstream's DefaultMemoryRequest)" in seen
    assert "CPU (4 − 800m − 100m) × 100 / 4 = 77" in seen
    assert "requests no resources: it needs only a Pod slot (1 of 110 used)" in seen


def test_a_nodes_pods_without_requests_count_with_the_defaults_for_least_allocated_only():
    nodes = [make_node("node01"), make_node("node02")]
    seen = text(render(run(make_pod("web", cpu="500m", memory="1Gi"), nodes, [make_pod("batch-1", node="node01")])))
    assert "CPU (4 − 100m − 500m) × 100 / 4 = 85" in seen
    assert "(the node's Pods request 0; those without a CPU request count 100m each: 100m)" in seen
    assert "CPU 0+500m / 4 = 13% (0% before the Pod)" in seen  # BalancedAllocation counts them as 0


def test_preferred_node_affinity_terms_show_their_weights_and_which_matched():
    preferred = [
        {"weight": 80, "preference": {"matchExpressions": [{"key": "disktype", "operator": "In", "values": ["ssd"]}]}},
        {"weight": 20, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}},
    ]
    affinity = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": preferred}}
    nodes = [make_node("fast", labels={"disktype": "ssd"}), make_node("near", labels={"zone": "a"})]
    seen = text(render(run(make_pod("p", cpu="100m", affinity=affinity), nodes)))
    assert "✓ preferred weight 80: disktype In [ssd]" in seen and "✗ preferred weight 20: zone In [a]" in seen
    assert "sum of matched weights: 80 = 80" in seen and "sum of matched weights: 20 = 20" in seen
    assert "NodeAffinity decided: fast +150 over near" in seen  # 100 vs 25 normalised, x 2


def test_image_locality_shows_the_size_its_spread_and_the_scaled_sum():
    nodes = [make_node("node01", images=[(["nginx:1.25"], 500 * MiB)]), make_node("node02"), make_node("node03")]
    seen = text(render(run(make_pod("web", cpu="100m"), nodes)))
    assert "nginx:1.25 500Mi × 1/3 nodes = 166.7Mi" in seen
    assert "sum 166.7Mi, clamped to [23Mi, 1000Mi]: 100 × (166.7Mi − 23Mi) / (1000Mi − 23Mi) = 14" in seen
    assert "nginx:1.25 is not on this node" in seen and "sum 0Mi, not above the 23Mi threshold → 0" in seen


def test_a_taken_host_port_names_the_pod_holding_it():
    port = {"containerPort": 80, "hostPort": 8080}
    holder = make_pod("holder", containers=[container(ports=[port])], node="node01")
    html = render(run(make_pod("web", containers=[container(ports=[port])]), [make_node("node01")], [holder]))
    assert re.search(r'<td class="fail" data-step="1" title="[^"]*">✗ node\(s\) didn&#x27;t have free ports', html)
    assert "host port 8080/TCP already taken by default/holder" in text(html)


def test_a_pending_pod_shows_each_nodes_first_failing_filter_with_its_numbers():
    nodes, pods = seeds_cluster()
    nodes.append(make_node("node03", taints=[{"key": "gpu", "effect": "NoSchedule"}]))
    seen = text(render(run(make_pod("huge", cpu="3900m"), nodes, pods)))
    why = seen[seen.index("Why no node fits") :]
    assert "node01 · NodeResourcesFit: Insufficient cpu needs 3900m CPU, 3200m free (4 − 800m)" in why
    assert "node02 · NodeResourcesFit: Insufficient cpu needs 3900m CPU, 2 free (4 − 2)" in why
    # TaintToleration runs before NodeResourcesFit: node03's first failure is its taint.
    assert "node03 · TaintToleration: node(s) had untolerated taint(s) untolerated taint gpu:NoSchedule" in why


def test_the_panel_is_sized_in_em_so_a_bigger_container_font_scales_it():
    css = (ROOT / "static/css/lesson.css").read_text()
    section = css[css.index("/* --- scoring panel") : css.index("/* --- flow diagram")]
    panel = re.sub(r"/\*.*?\*/", "", section, flags=re.S)  # the rules, not their comments
    assert "rem" not in panel
    # Pixels only for hairlines and outlines.
    assert set(re.findall(r"(\d*\.?\d+)px", panel)) <= {"1", "2", "3"}


def test_default_spreading_shows_its_selector_the_counts_per_node_and_the_skew():
    rs = {"kind": "ReplicaSet", "metadata": {"name": "web", "namespace": "default"},
          "spec": {"selector": {"matchLabels": {"app": "web"}}}}  # fmt: skip
    owner = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "controller": True}]
    placed = [make_pod(f"web-{i}", cpu="100m", labels={"app": "web"}, node="node01") for i in range(2)]
    incoming = make_pod("web-new", cpu="100m", labels={"app": "web"})
    incoming["metadata"]["ownerReferences"] = owner
    nodes = [make_node("node01"), make_node("node02"), make_node("node03")]
    seen = text(render(run(incoming, nodes, placed, workloads=[rs])))
    assert (
        "no topologySpreadConstraints of its own: the default ones (ScheduleAnyway), counting Pods that match app=web"
        in seen
    )
    assert "kubernetes.io/hostname=node01: 2 matching Pods × 1.61 + (3 − 1)" in seen  # ln(3 + 2)
    assert "weight ln(3 domains + 2); skew here 2 − fewest 0 = 2 (maxSkew 3)" in seen
    assert "kubernetes.io/hostname=node02: 0 matching Pods × 1.61 + (3 − 1)" in seen


def test_nodes_a_prefilter_left_out_fail_first_at_node_affinity():
    pinned = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node01"]}]}]}}  # fmt: skip
    nodes = [make_node("node01"), make_node("node02", unschedulable=True)]
    html = render(run(make_pod("p", cpu="8", affinity={"nodeAffinity": pinned}), nodes))
    why = text(html)[text(html).index("Why no node fits") :]
    assert "node02 · NodeAffinity: node(s) didn't satisfy plugin(s) [NodeAffinity]" in why
    assert "node02 · NodeUnschedulable" not in why
    assert "upstream never runs this filter here" in html
