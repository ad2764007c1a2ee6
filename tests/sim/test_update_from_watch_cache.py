"""An update that names a revision the watch cache holds starts from that copy, and answers as a read would."""

import pytest

from clusterviz.api import errors
from clusterviz.api.client import Client

CONFIG = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "default"},
          "data": {"colour": "blue"}}


async def _stale_copy(client: Client) -> dict:
    """The ConfigMap as first created, after another write has changed it."""
    created = await client.create(CONFIG)
    await client.update({**created, "data": {"colour": "green"}})
    return created


async def test_a_kubelet_renews_its_lease_from_the_lease_it_last_wrote(sim):
    await sim.engine.until_settled()
    kubelet = next(iter(sim.components["kubelets"].kubelets.values()))
    before = kubelet._latest_lease
    await sim.engine.sleep(15)
    after = await Client("demo").get("leases", kubelet.node_name, "kube-node-lease")
    assert int(after["metadata"]["resourceVersion"]) > int(before["metadata"]["resourceVersion"])
    assert after["spec"]["renewTime"] > before["spec"]["renewTime"]


async def test_an_update_naming_a_replaced_revision_is_a_conflict(sim):
    client = Client("demo")
    stale = await _stale_copy(client)
    with pytest.raises(errors.StatusError) as refused:
        await client.update({**stale, "data": {"colour": "red"}})
    assert refused.value.code == 409
    assert (await client.get("configmaps", "settings", "default"))["data"] == {"colour": "green"}


async def test_an_update_that_changes_nothing_of_a_replaced_revision_is_a_conflict(sim):
    client = Client("demo")
    stale = await _stale_copy(client)
    with pytest.raises(errors.StatusError) as refused:
        await client.update(stale)
    assert refused.value.code == 409


async def test_an_update_of_a_deleted_object_naming_its_last_revision_is_not_found(sim):
    client = Client("demo")
    created = await client.create(CONFIG)
    await client.delete("configmaps", "settings", "default")
    with pytest.raises(errors.StatusError) as refused:
        await client.update({**created, "data": {"colour": "red"}})
    assert refused.value.code == 404
