"""The bus and the clock: hops are delivered one at a time, in order, and step mode really waits."""

import asyncio

from clusterviz.api.client import Client

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "myapp", "namespace": "default"},
    "spec": {
        "replicas": 3,
        "selector": {"matchLabels": {"app": "myapp"}},
        "template": {
            "metadata": {"labels": {"app": "myapp"}},
            "spec": {"containers": [{"name": "myapp", "image": "soscscs/myapp:v1", "ports": [{"containerPort": 80}]}]},
        },
    },
}


async def test_a_client_write_travels_hops_one_two_three(sim):
    kubectl = Client("demo", "kubectl")
    await kubectl.create(DEPLOYMENT)
    await sim.engine.until_settled()
    steps = [m.step for m in sim.engine.trace if m.name == "myapp" and m.kind == "Deployment"]
    assert steps[:3] == [1, 2, 3]
    seqs = [m.seq for m in sim.engine.trace]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)


async def test_the_trace_keeps_the_messages_but_not_what_they_carried(sim):
    # A big cluster's trace holds 20,000 messages: the object versions its watch deliveries carried
    # must not stay alive with them.
    kubectl = Client("demo", "kubectl")
    await kubectl.create(DEPLOYMENT)
    await sim.engine.until_settled()
    deliveries = [m for m in sim.engine.trace if m.verb.startswith("watch ") and m.kind == "Pod"]
    assert len(deliveries) >= 3
    assert all(m.payload is None and m.future is None for m in sim.engine.trace)


async def test_step_mode_holds_a_write_until_each_hop_is_stepped(sim):
    sim.engine.set_mode("step")
    kubectl = Client("demo", "kubectl")
    write = asyncio.ensure_future(kubectl.create(DEPLOYMENT))
    await asyncio.sleep(0)
    assert not write.done()
    first = await sim.engine.step()
    assert (first.sender, first.to, first.step) == ("kubectl", "apiserver", 1)
    assert not write.done()
    second = await sim.engine.step()
    assert (second.sender, second.to, second.step, second.seq) == ("apiserver", "etcd", 2, first.seq + 1)
    third = await sim.engine.step()
    assert (third.sender, third.to, third.step) == ("etcd", "apiserver", 3)
    created = await asyncio.wait_for(write, 5)
    assert created["metadata"]["name"] == "myapp"
