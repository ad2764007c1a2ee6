"""A client's write held on the bus when the database goes: it fails with 503, it does not wait for the outage."""

import asyncio

import pytest

from clusterviz.api import errors
from clusterviz.api.client import Client
from clusterviz.store import kv
from clusterviz.store.threads import in_thread


def configmap(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}}


async def lose_the_database(outage) -> None:
    """The database goes away and a store call of this process finds out, as the simulation's do."""
    outage("")
    with pytest.raises(kv.StoreUnavailable):
        await in_thread(kv.cluster_names)()


async def test_a_write_waiting_for_its_first_hop_fails_when_the_database_goes(sim, outage):
    # Step mode holds the write at hop 1 as a simulation stuck on the database would.
    sim.engine.set_mode("step")
    write = asyncio.ensure_future(Client("demo", "kubectl").create(configmap("during")))
    while not sim.engine.waiting_writes():
        await asyncio.sleep(0)
    await lose_the_database(outage)
    with pytest.raises(errors.StatusError) as failed:
        await asyncio.wait_for(write, 5)
    assert (failed.value.code, failed.value.reason, failed.value.retry_after) == (503, "ServiceUnavailable", 1)
    # Its request leaves the bus: stepping on never shows it.
    assert sim.engine.waiting_writes() == []


async def test_a_write_arriving_while_the_database_is_away_fails_at_once_and_one_after_it_is_back_is_stored(
    sim, outage
):
    sim.engine.set_mode("step")
    await lose_the_database(outage)
    with pytest.raises(errors.StatusError) as failed:
        await asyncio.wait_for(Client("demo", "kubectl").create(configmap("during")), 5)
    assert failed.value.code == 503
    assert sim.engine.waiting_writes() == []

    outage.end()
    await in_thread(kv.cluster_names)()  # a store call that succeeds: the database is back
    sim.engine.set_mode("fast-forward")
    created = await asyncio.wait_for(create_retrying(configmap("after")), 30)
    assert created["metadata"]["name"] == "after"


async def create_retrying(obj: dict) -> dict:
    """Create ``obj`` as kubectl does, trying again after a 503's Retry-After: another store thread's
    connection, broken by the outage, may still fail once after the database is back."""
    while True:
        try:
            return await Client("demo", "kubectl").create(obj)
        except errors.StatusError as refused:
            if refused.code != 503:
                raise
            await asyncio.sleep(refused.retry_after or 1)
