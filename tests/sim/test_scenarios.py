"""Classroom scenarios: each resets the cluster to its starting state and teaches what it says."""

import pytest

from clusterviz.api import codec
from clusterviz.api.client import Client
from clusterviz.sim import scenarios


@pytest.mark.parametrize("scenario", scenarios.SCENARIOS, ids=[s.key for s in scenarios.SCENARIOS])
def test_every_manifest_is_valid_yaml_of_known_kinds(scenario):
    from clusterviz.api.client import resource_for

    docs = codec.parse_yaml(scenario.manifest, multi=True)
    assert docs and all(resource_for(d) for d in docs)
    assert scenario.title_zh and scenario.watch_zh


async def run(sim, key: str) -> Client:
    await scenarios.load("demo", scenarios.BY_KEY[key])
    sim.engine.set_mode("fast-forward")
    kubectl = Client("demo", "kubectl")
    for doc in codec.parse_yaml(scenarios.BY_KEY[key].manifest, multi=True):
        await kubectl.create(doc)
    await sim.engine.until_settled()
    return kubectl


async def test_balanced_allocation_prefers_the_node_with_even_use(sim):
    kubectl = await run(sim, "balanced-allocation")
    pod = await kubectl.get("pods", "balanced", "default")
    assert pod["spec"]["nodeName"] == "node02"
    record = (await kubectl.list("schedulingdecisions", "default", label_selector="clusterviz.io/pod=balanced"))["items"][0]
    node03 = [n for n in record["nodes"] if n["name"] == "node03"][0]
    assert any(f["reason"] == "Insufficient cpu" for f in node03["filters"])


async def test_node_affinity_hard_then_soft(sim):
    kubectl = await run(sim, "node-affinity")
    pods = (await kubectl.list("pods", "default", label_selector="app=myapp"))["items"]
    assert {p["spec"]["nodeName"] for p in pods} == {"node01"}


async def test_anti_affinity_spreads_one_per_node(sim):
    kubectl = await run(sim, "pod-anti-affinity")
    pods = (await kubectl.list("pods", "default", label_selector="app=myapp"))["items"]
    assert sorted(p["spec"]["nodeName"] for p in pods) == ["node01", "node02", "node03"]


async def test_loading_a_scenario_leaves_step_mode_and_only_its_objects(sim):
    kubectl = await run(sim, "creation-flow")
    await scenarios.load("demo", scenarios.BY_KEY["node-selector"])
    assert (await kubectl.get("simulations", "default"))["spec"]["mode"] == "step"
    assert (await kubectl.list("deployments", "default"))["items"] == []
    assert [n["metadata"]["name"] for n in (await kubectl.list("nodes"))["items"]] == ["node01", "node02", "node03"]
