"""The same scenario, run twice from scratch, gives the same trace."""

from asgiref.sync import sync_to_async

from clusterviz.api.bootstrap import create_cluster
from clusterviz.api.client import Client
from clusterviz.sim import registry
from clusterviz.store import kv

from .test_engine import DEPLOYMENT


async def run_scenario() -> list[tuple]:
    await create_cluster("replay")
    running = await registry.start("replay", mode="fast-forward")
    assert running is not None
    await running.engine.until_settled()
    kubectl = Client("replay", "kubectl")
    await kubectl.create(DEPLOYMENT)
    await running.engine.until_settled()
    trace = [(m.seq, round(m.time, 3), m.sender, m.to, m.verb, m.kind, m.namespace, m.name, m.step)
             for m in running.engine.trace]
    await registry.stop("replay")
    await sync_to_async(kv.delete_cluster)("replay")
    from clusterviz.sim.models import FlowMessage, Simulation

    await sync_to_async(lambda: (Simulation.objects.filter(cluster="replay").delete(),
                                 FlowMessage.objects.filter(cluster="replay").delete()))()
    return trace


async def test_the_same_scenario_twice_gives_the_same_trace(transactional_db):
    first = await run_scenario()
    second = await run_scenario()
    assert len(first) > 50
    assert first == second
