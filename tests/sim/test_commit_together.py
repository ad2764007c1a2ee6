"""The writes of one simulated instant share a transaction, and the run is the same as with one each."""

import pytest
from asgiref.sync import sync_to_async

from clusterviz.api.bootstrap import create_cluster
from clusterviz.api.client import Client
from clusterviz.sim import registry
from clusterviz.sim.engine import Engine
from clusterviz.sim.models import FlowMessage, Simulation
from clusterviz.store import kv

from .test_engine import DEPLOYMENT

pytestmark = pytest.mark.django_db(transaction=True)


def _stored(cid: int) -> list[tuple[str, str, str, str, str]]:
    """Every stored object as (resource, namespace, name, resourceVersion, phase)."""
    rows = []
    for resource in ("pods", "replicasets.apps", "deployments.apps", "nodes"):
        for obj in kv.list_objects(cid, resource)[0]:
            meta = obj["metadata"]
            phase = str((obj.get("status") or {}).get("phase", ""))
            rows.append((resource, meta.get("namespace", ""), meta["name"], meta["resourceVersion"], phase))
    return sorted(rows)


async def run(replicas: int) -> tuple[list[tuple], list[tuple], int, int]:
    await create_cluster("together")
    running = await registry.start("together", mode="fast-forward")
    assert running is not None
    engine = running.engine
    await engine.until_settled()
    deployment = {**DEPLOYMENT, "spec": {**DEPLOYMENT["spec"], "replicas": replicas}}
    await Client("together", "kubectl").create(deployment)
    await engine.until_settled()
    trace = [(m.seq, round(m.time, 3), m.sender, m.to, m.verb, m.kind, m.namespace, m.name, m.step, m.summary)
             for m in engine.trace]
    cid = await sync_to_async(kv.cluster_id)("together")
    stored = await sync_to_async(_stored)(cid)
    commits, writes = engine.commits, engine.committed_writes
    await registry.stop("together")
    await sync_to_async(kv.delete_cluster)("together")
    await sync_to_async(lambda: (Simulation.objects.filter(cluster="together").delete(),
                                 FlowMessage.objects.filter(cluster="together").delete()))()
    return trace, stored, commits, writes


async def test_writes_of_one_instant_share_a_transaction_and_change_nothing_else(monkeypatch):
    monkeypatch.setattr(Engine, "commit_together", False)
    one_each, stored_one_each, commits, _ = await run(12)
    assert commits == 0  # the reference run commits every write on its own
    monkeypatch.setattr(Engine, "commit_together", True)
    together, stored_together, commits, writes = await run(12)
    assert len(together) > 300
    assert together == one_each
    assert stored_together == stored_one_each
    assert len([row for row in stored_together if row[0] == "pods" and row[4] == "Running"]) == 12
    # Some instants held several writes: fewer transactions than writes.
    assert writes > commits > 0
    print(f"{writes} writes in {commits} transactions")
