"""Making a cluster while a server already runs its engine: what the controllers make first is no failure."""

import pytest

from clusterviz.api import bootstrap
from clusterviz.api.client import Client

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_cluster_whose_controllers_were_quicker_still_gets_its_nodes(monkeypatch):
    create = Client.create
    made_first: list[str] = []

    async def controllers_first(self, obj, *args, **kwargs):
        # The running root CA publisher, service account controller and kubelet act the moment they can.
        kind, meta = obj.get("kind"), obj.get("metadata") or {}
        if kind in ("ServiceAccount", "ConfigMap", "CSINode"):
            await create(Client(self.cluster, "kube-controller-manager", simulated=False), obj)
            made_first.append(f"{kind}/{meta.get('namespace', '')}/{meta['name']}")
        return await create(self, obj, *args, **kwargs)

    monkeypatch.setattr(Client, "create", controllers_first)
    assert await bootstrap.create_cluster("raced", nodes=2)

    monkeypatch.setattr(Client, "create", create)
    client = Client("raced", "kubectl")
    nodes = await client.list("nodes")
    assert [n["metadata"]["name"] for n in nodes["items"]] == ["node01", "node02"]
    assert "ConfigMap/kube-system/kube-root-ca.crt" in made_first and "CSINode//node02" in made_first
