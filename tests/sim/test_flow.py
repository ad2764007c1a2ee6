"""The whole creation flow: a Deployment applied by a client ends with Pods Running on nodes."""

from clusterviz.api.client import Client

from .test_engine import DEPLOYMENT


async def test_deployment_pods_are_scheduled_and_run(sim):
    kubectl = Client("demo", "kubectl")
    await kubectl.create(DEPLOYMENT)
    await sim.engine.until_settled()
    pods = (await kubectl.list("pods", "default", label_selector="app=myapp"))["items"]
    assert len(pods) == 3
    assert all(p["spec"].get("nodeName") for p in pods)
    assert {p["status"]["phase"] for p in pods} == {"Running"}
    decisions = (await kubectl.list("schedulingdecisions", "default"))["items"]
    assert {d["selected"] for d in decisions} == {p["spec"]["nodeName"] for p in pods}
    for pod in pods:
        name = pod["metadata"]["name"]
        steps = [m.step for m in sim.engine.trace if m.step and (m.name == name or m.kind != "Pod")]
        numbered = [s for s in steps if s is not None]
        for expected in range(1, 14):
            assert expected in numbered, f"step {expected} missing for {name}"


async def test_pinned_pods_skip_the_scheduler(sim):
    kubectl = Client("demo", "kubectl")
    body = {**DEPLOYMENT, "metadata": {"name": "pinned", "namespace": "default"}}
    body["spec"] = {**DEPLOYMENT["spec"], "template": {**DEPLOYMENT["spec"]["template"]}}
    body["spec"]["template"]["spec"] = {**DEPLOYMENT["spec"]["template"]["spec"], "nodeName": "node01"}
    await kubectl.create(body)
    await sim.engine.until_settled()
    pods = (await kubectl.list("pods", "default", label_selector="app=myapp"))["items"]
    assert len(pods) == 3 and {p["spec"]["nodeName"] for p in pods} == {"node01"}
    events = (await kubectl.list("events", "default"))["items"]
    assert not [e for e in events if e["reason"] == "Scheduled"]


async def test_step_mode_delivers_one_message_per_step_until_the_pods_run(sim):
    import asyncio

    await sim.engine.until_settled()
    sim.engine.set_mode("step")
    kubectl = Client("demo", "kubectl")
    apply = asyncio.ensure_future(kubectl.create(DEPLOYMENT))
    await asyncio.sleep(0)
    pods = (await kubectl.list("pods", "default"))["items"]
    assert pods == [] and not apply.done()
    seqs = []
    while True:
        msg = await sim.engine.step()
        if msg is None:
            break
        seqs.append(msg.seq)
        assert len(seqs) < 5000
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    await apply
    pods = (await kubectl.list("pods", "default", label_selector="app=myapp"))["items"]
    assert len(pods) == 3 and {p["status"]["phase"] for p in pods} == {"Running"}
