import clusterviz.sim.components  # noqa
from clusterviz.api.client import Client

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"},
       "spec": {"nodeName": "node01", "containers": [{"name": "web", "image": "nginx:1.22"}]}}

async def test_x(sim):
    k = Client("demo", "kubectl")
    await k.create(POD)
    await sim.engine.until_settled()
    pod = await k.get("pods", "web", "default")
    import json; print(json.dumps(pod["status"], indent=1))
    for m in sim.engine.trace:
        print(m.seq, round(m.time,2), m.sender, m.to, m.verb, m.kind, m.name, m.step, m.summary)
    ev = await k.list("events", "default")
    for e in ev["items"]:
        print(e["reason"], e["message"], e["source"])
    node = await k.get("nodes", "node01")
    print(node["status"]["images"])
    print(await k.list("leases", "kube-node-lease"))
    print(sim.engine.now)
