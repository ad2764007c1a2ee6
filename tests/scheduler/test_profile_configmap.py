"""The profile edited through the ``kube-system/kube-scheduler`` ConfigMap, applied from the next attempt."""

from __future__ import annotations

from typing import Any

import pytest

from clusterviz.api import errors
from clusterviz.api.client import Client
from clusterviz.scheduler.profile import configuration_errors

WITHOUT_BALANCE_AND_IMAGES = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled:
      - name: NodeResourcesBalancedAllocation
      - name: ImageLocality
"""

HEAVY_TAINT_TOLERATION = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    multiPoint:
      enabled:
      - name: TaintToleration
        weight: 7
"""

BROKEN_WEIGHT = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: LeastAllocated
        resources:
        - name: cpu
          weight: 500
"""

PERCENTAGE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 50
"""


def config_map(text: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "kube-scheduler", "namespace": "kube-system"},
        "data": {"config.yaml": text},
    }


def pod(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]},
    }


async def record_of(kubectl: Client, name: str) -> dict[str, Any]:
    items = (await kubectl.list("schedulingdecisions", "default", label_selector=f"clusterviz.io/pod={name}"))["items"]
    return max(items, key=lambda d: d["attempt"])


def scores(record: dict[str, Any]) -> dict[str, int]:
    """Plugin -> weight, from the first scored node of a record."""
    node = next(n for n in record["nodes"] if n.get("scores"))
    return {s["plugin"]: s["weight"] for s in node["scores"]}


async def test_disabling_score_plugins_removes_them_from_the_next_record(sim):
    kubectl = Client("demo", "kubectl")
    await kubectl.create(pod("before"))
    await sim.engine.until_settled()
    assert {"NodeResourcesBalancedAllocation", "ImageLocality"} <= set(scores(await record_of(kubectl, "before")))

    await kubectl.create(config_map(WITHOUT_BALANCE_AND_IMAGES))
    await sim.engine.until_settled()
    await kubectl.create(pod("after"))
    await sim.engine.until_settled()
    after = scores(await record_of(kubectl, "after"))
    assert "NodeResourcesBalancedAllocation" not in after and "ImageLocality" not in after
    assert after["TaintToleration"] == 3 and after["NodeResourcesFit"] == 1

    await kubectl.delete("configmaps", "kube-scheduler", "kube-system")
    await sim.engine.until_settled()
    await kubectl.create(pod("restored"))
    await sim.engine.until_settled()
    assert {"NodeResourcesBalancedAllocation", "ImageLocality"} <= set(scores(await record_of(kubectl, "restored")))


async def test_a_weight_change_shows_in_the_record(sim):
    kubectl = Client("demo", "kubectl")
    await kubectl.create(config_map(HEAVY_TAINT_TOLERATION))
    await sim.engine.until_settled()
    await kubectl.create(pod("weighed"))
    await sim.engine.until_settled()
    record = await record_of(kubectl, "weighed")
    assert scores(record)["TaintToleration"] == 7
    for node in record["nodes"]:
        for row in node.get("scores") or []:
            if row["plugin"] == "TaintToleration":
                assert row["weighted"] == row["normalized"] * 7


async def test_an_invalid_configuration_is_refused_and_the_running_profile_stays(sim):
    kubectl = Client("demo", "kubectl")
    await kubectl.create(config_map(HEAVY_TAINT_TOLERATION))
    await sim.engine.until_settled()
    with pytest.raises(errors.StatusError) as refused:
        await kubectl.update(config_map(BROKEN_WEIGHT) | {"metadata": await _meta(kubectl)})
    assert refused.value.code == 422
    text = str(refused.value)
    assert "data[config.yaml]" in text and "resource weight of cpu not in valid range (0, 100]" in text
    with pytest.raises(errors.StatusError) as refused_yaml:
        await kubectl.update(config_map("profiles: [unclosed") | {"metadata": await _meta(kubectl)})
    assert refused_yaml.value.code == 422

    await kubectl.create(pod("still-heavy"))
    await sim.engine.until_settled()
    assert scores(await record_of(kubectl, "still-heavy"))["TaintToleration"] == 7
    stored = await kubectl.get("configmaps", "kube-scheduler", "kube-system")
    assert stored["data"]["config.yaml"] == HEAVY_TAINT_TOLERATION


async def test_other_config_maps_are_not_checked(sim):
    kubectl = Client("demo", "kubectl")
    other = config_map(BROKEN_WEIGHT)
    other["metadata"] = {"name": "kube-scheduler", "namespace": "default"}
    await kubectl.create(other)


async def test_percentage_of_nodes_to_score_is_accepted(sim):
    kubectl = Client("demo", "kubectl")
    await kubectl.create(config_map(PERCENTAGE))
    await sim.engine.until_settled()
    with pytest.raises(errors.StatusError) as refused:
        await kubectl.update(config_map(PERCENTAGE.replace("50", "150")) | {"metadata": await _meta(kubectl)})
    assert refused.value.code == 422 and "percentageOfNodesToScore" in str(refused.value)
    await kubectl.create(pod("partial"))
    await sim.engine.until_settled()
    placed = await kubectl.get("pods", "partial", "default")
    assert placed["spec"]["nodeName"]


def test_configuration_errors_lists_each_problem():
    assert configuration_errors(PERCENTAGE) == []
    assert configuration_errors("") == []
    problems = configuration_errors(BROKEN_WEIGHT.replace("LeastAllocated", "Fastest"))
    assert any("scoringStrategy.type" in p for p in problems)
    assert any("resources[0].weight" in p for p in problems)
    assert configuration_errors("- a list") == ["must be a KubeSchedulerConfiguration object, not list"]
    assert configuration_errors("profiles: [unclosed")[0].startswith("invalid YAML")
    assert configuration_errors("profiles:\n- plugins: [1]\n")[0].startswith("malformed KubeSchedulerConfiguration")


def test_unknown_fields_are_refused_by_path_as_strict_decoding_does():
    text = (
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        "percentageOfNodeToScore: 50\n"
        "profiles:\n"
        "- schedulerName: default-scheduler\n"
        "  plugins:\n"
        "    score:\n"
        "      enabled:\n"
        "      - name: ImageLocality\n"
        "        wieght: 5\n"
    )
    assert configuration_errors(text) == [
        'strict decoding error: unknown field "percentageOfNodeToScore"',
        'strict decoding error: unknown field "profiles[0].plugins.score.enabled[0].wieght"',
    ]
    # Plugin args belong to each plugin's own type and are checked by its loader.
    assert configuration_errors(PERCENTAGE) == []


async def _meta(kubectl: Client) -> dict[str, Any]:
    current = await kubectl.get("configmaps", "kube-scheduler", "kube-system")
    return current["metadata"]


async def test_an_invalid_configuration_that_gets_through_leaves_a_warning_and_the_profile(sim):
    kubectl = Client("demo", "kubectl")
    await kubectl.create(config_map(HEAVY_TAINT_TOLERATION))
    await sim.engine.until_settled()
    scheduler = sim.components["scheduler"]
    running = scheduler.profile
    # The API refuses this write; feed it to the handler directly, as a stale or foreign write would arrive.
    stored = await kubectl.get("configmaps", "kube-scheduler", "kube-system")
    scheduler._config_map_changed(stored | {"data": {"config.yaml": BROKEN_WEIGHT}})
    await sim.engine.until_settled()
    assert scheduler.profile is running
    events = (await kubectl.list("events", "kube-system", field_selector="involvedObject.name=kube-scheduler"))["items"]
    warning = next(e for e in events if e["reason"] == "InvalidConfiguration")
    assert warning["type"] == "Warning" and "resources[0].weight" in warning["message"]
