"""Loading a lesson and doing its actions: a clean start, step mode, and kubectl's own words."""

from __future__ import annotations

import asyncio

from clusterviz.lessons import BY_SLUG, Action
from clusterviz.lessons.runner import load, run

from .helpers import CLUSTER, kubectl, press, start


async def test_load_clears_the_previous_lesson_and_its_story_starts_with_the_first_action(sim):
    await start(sim, "creation-flow")
    await press(sim, "creation-flow", BY_SLUG["creation-flow"].actions[0])
    assert (await kubectl().list("events"))["items"]

    lesson = BY_SLUG["node-selector"]
    seq = await load(CLUSTER, lesson)
    assert (await kubectl().list("events"))["items"] == []
    assert (await kubectl().list("deployments", "default"))["items"] == []
    simulation = await kubectl().get("simulations", "default")
    assert simulation["spec"]["mode"] == "step" and simulation["status"]["lastSeq"] == seq
    assert [n["metadata"]["name"] for n in (await kubectl().list("nodes"))["items"]] == ["node01", "node02", "node03"]

    apply = asyncio.ensure_future(run(CLUSTER, lesson.steps[0].action, lesson.manifest))
    for _ in range(500):
        if sim.engine.pending:
            break
        await asyncio.sleep(0.01)  # wall-clock: the action reads the store in a thread before it reaches the bus
    first = await sim.engine.step()
    assert first is not None and first.seq == seq + 1
    assert (first.sender, first.to, first.step, first.kind) == ("kubectl", "apiserver", 1, "Deployment")
    assert not apply.done()  # in step mode kubectl waits for its hops
    sim.engine.set_mode("fast-forward")
    outcome = await apply
    assert outcome.ok and outcome.message == "deployment.apps/myapp created"
    assert outcome.kubectl == "kubectl apply -f myapp.yaml"


async def test_load_sets_the_lessons_timings_and_the_defaults_for_the_next_one(sim):
    await start(sim, "node-failure")
    spec = (await kubectl().get("simulations", "default"))["spec"]
    assert spec["nodeMonitorGracePeriodSeconds"] == 8 and spec["podEvictionTimeoutSeconds"] == 5
    await start(sim, "creation-flow")
    spec = (await kubectl().get("simulations", "default"))["spec"]
    assert spec["nodeMonitorGracePeriodSeconds"] == 40 and spec["podEvictionTimeoutSeconds"] == 300


async def test_the_nodes_of_a_lesson_report_the_images_on_their_disks(sim):
    await start(sim, "resources")
    node04 = await kubectl().get("nodes", "node04")
    names = [name for image in node04["status"]["images"] for name in image["names"]]
    assert "python:3.12" in names and "docker.io/library/python:3.12" in names
    assert node04["spec"]["taints"] == [{"key": "pool", "value": "build", "effect": "NoSchedule"}]


async def test_actions_answer_in_kubectls_words_and_refusals_as_kubectl_prints_them(sim):
    await start(sim, "node-selector")
    label = Action("label", "node02", "disktype=ssd")
    assert (await run(CLUSTER, label)).message == "node/node02 labeled"
    clash = await run(CLUSTER, Action("label", "node02", "disktype=hdd"))
    assert not clash.ok and clash.message == "error: 'disktype' already has a value (ssd), and --overwrite is false"
    missing = await run(CLUSTER, Action("scale", "deployment/nope", "2"))
    assert not missing.ok
    assert missing.message == 'Error from server (NotFound): deployments.apps "nope" not found'
    assert (await run(CLUSTER, Action("cordon", "node03"))).message == "node/node03 cordoned"
    assert (await run(CLUSTER, Action("taint", "node01", "k=v:NoSchedule"))).message == "node/node01 tainted"
    assert (await run(CLUSTER, Action("untaint", "node01", "k:NoSchedule"))).message == "node/node01 untainted"
    again = await run(CLUSTER, Action("apply", "myapp.yaml"), BY_SLUG["node-selector"].manifest)
    assert again.message == "deployment.apps/myapp created"
    assert (await run(CLUSTER, Action("apply", "myapp.yaml"), BY_SLUG["node-selector"].manifest)).message == (
        "deployment.apps/myapp unchanged"
    )
