from .helpers import kubectl, pinned_pod, pod, set_kubelet

async def test_x(sim):
    await set_kubelet("node02", "stopped")
    await sim.engine.until_settled()
    await kubectl().create(pinned_pod("late", node="node02"))
    await sim.engine.until_settled()
    for m in sim.engine.trace:
        if m.name in ("late", "node02"):
            print(m.seq, round(m.time,2), m.sender, m.to, m.verb, m.kind, m.name, m.step, m.summary)
    ev = await kubectl().list("events", "default")
    for e in ev["items"]:
        print(e["involvedObject"]["name"], e["reason"], e["message"], e["source"])
