"""A lesson's reset leaves no claim or volume behind, and keeps the cluster's StorageClasses."""

from __future__ import annotations

from typing import Any

from clusterviz.api.client import Client
from clusterviz.lessons import runner
from tests.controllers.test_persistent_volume import claim, volume


async def test_a_reset_removes_claims_and_volumes_even_in_use(sim: Any) -> None:
    client = Client("demo", "kubectl")
    await client.create(volume())
    await client.create(claim(storageClassName="manual"))
    await client.create(claim("scratch", storageClassName="fast"))
    await client.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "user", "namespace": "default"},
                         "spec": {"containers": [{"name": "c", "image": "nginx"}],
                                  "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "scratch"}}]}})
    await sim.engine.until_settled()
    assert len((await client.list("persistentvolumes"))["items"]) == 2
    await runner.reset("demo")
    await sim.engine.until_settled()
    assert (await client.list("persistentvolumeclaims"))["items"] == []
    assert (await client.list("persistentvolumes"))["items"] == []
    assert sorted(c["metadata"]["name"] for c in (await client.list("storageclasses"))["items"]) == ["fast", "standard"]
