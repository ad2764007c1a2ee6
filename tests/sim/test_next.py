"""The simulation says what happens next and when, lists the writes held on the bus, and skips to timers."""

import asyncio

from clusterviz.api.client import Client

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "pinned", "namespace": "default"},
    "spec": {"nodeName": "node02", "containers": [{"name": "web", "image": "nginx:1.27"}]},
}
STEP = "/apis/clusterviz.io/v1/simulations/default/step"


async def _status(client: Client) -> dict:
    return (await client.get("simulations", "default"))["status"]


async def test_next_names_the_image_pull_once_a_pod_is_bound_in_step_mode(sim):
    await sim.engine.until_settled()
    sim.engine.set_mode("step")
    kubectl = Client("demo", "kubectl")
    create = asyncio.ensure_future(kubectl.create(POD))
    seen = []
    for _ in range(200):
        status = await _status(kubectl)
        seen.append(status["next"]["what"])
        if status["next"]["what"] == "image pull on node02 finishes":
            break
        await sim.engine.step()
    else:
        raise AssertionError(f"no image pull was ever next: {seen}")
    assert status["next"]["type"] == "timer"
    assert status["next"]["component"] == "kubelet/node02"
    assert status["next"]["time"] > status["time"]
    assert status["pending"] == 0  # no message is queued: only the pull's timer says what comes
    await create


async def test_writes_held_at_hop_one_are_listed(sim):
    await sim.engine.until_settled()
    sim.engine.set_mode("step")
    kubectl = Client("demo", "kubectl")
    patch = asyncio.ensure_future(kubectl.patch("nodes", "node02", {"metadata": {"labels": {"disktype": "ssd"}}}))
    for _ in range(500):
        if sim.engine.pending:
            break
        await asyncio.sleep(0.01)  # wall-clock: the write reads the store in a thread before it reaches the bus
    status = await _status(kubectl)
    assert status["waiting"] == [
        {"hop": 1, "from": "kubectl", "to": "apiserver", "verb": "patch", "object": "Node/node02"}
    ]
    assert status["next"]["type"] == "message" and status["next"]["component"] == "kubectl"
    for _ in range(3):
        await sim.engine.step()
    await asyncio.wait_for(patch, 5)
    assert (await _status(kubectl))["waiting"] == []


async def test_skip_moves_the_clock_to_the_next_timer_and_fires_it(sim):
    await sim.engine.until_settled()
    sim.engine.set_mode("paused")
    client = Client("demo", "client")
    before = await _status(client)
    assert before["pending"] == 0 and before["next"]["type"] == "timer"
    resp = await client.request("POST", STEP, query={"untilTimer": "true"}, payload={})
    assert resp.body["reason"] == "TimerFired"
    assert resp.body["details"]["next"] == before["next"]
    after = await _status(client)
    assert after["time"] == before["next"]["time"]
    assert (await client.get("simulations", "default"))["spec"]["mode"] == "step"


async def test_skip_runs_past_the_heartbeats_to_the_image_pull_it_named(sim):
    await sim.engine.until_settled()
    sim.engine.set_mode("step")
    sim.ctx.settings.image_pull_bandwidth = 1024 * 1024  # a pull that takes longer than a heartbeat interval
    kubectl = Client("demo", "kubectl")
    create = asyncio.ensure_future(kubectl.create(POD))
    while (await _status(kubectl))["next"]["what"] != "image pull on node02 finishes":
        await sim.engine.step()
    due = (await _status(kubectl))["next"]
    skipped = await sim.engine.skip()
    assert skipped is not None and skipped.as_dict() == due
    assert round(sim.engine.now, 3) == due["time"]
    await create
