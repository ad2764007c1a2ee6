"""The clusters are shared out among the processes that run engines: each claims only its share."""

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from clusterviz.api.bootstrap import create_cluster
from clusterviz.sim import lease, registry
from clusterviz.sim.models import EngineHost
from clusterviz.store import kv

pytestmark = pytest.mark.django_db(transaction=True)

ME = "here:1"


def host(holder: str, seconds_ago: float) -> None:
    EngineHost.objects.create(holder=holder, renewed=timezone.now() - timedelta(seconds=seconds_ago))


@pytest.fixture
async def six_clusters(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(registry, "_holder", ME)
    for i in range(6):
        await create_cluster(f"share{i}", nodes=1)
    yield await sync_to_async(kv.cluster_names)()
    await registry.stop_all()


async def test_a_process_claims_only_its_share_while_another_runs_engines(six_clusters: list[str]) -> None:
    await sync_to_async(host)("elsewhere:7", 1)
    await registry.claim_all()
    assert len(registry.running_clusters()) == -(-len(six_clusters) // 2)


async def test_a_process_alone_claims_every_cluster(six_clusters: list[str]) -> None:
    # A process that stopped renewing long ago, and one of this machine whose pid no longer exists.
    await sync_to_async(host)("elsewhere:7", lease.LEASE_SECONDS + 1)
    await sync_to_async(host)(f"{lease.host_name()}:999999999", 0)
    await registry.claim_all()
    assert sorted(registry.running_clusters()) == sorted(six_clusters)


def test_hosts_gone_for_long_are_forgotten_and_the_process_asking_is_counted(db: None) -> None:
    host("elsewhere:7", 0)
    host("elsewhere:8", lease.LEASE_SECONDS * lease.FORGET_HOSTS_AFTER + 1)
    assert lease.live_hosts(ME) == 2
    assert sorted(EngineHost.objects.values_list("holder", flat=True)) == ["elsewhere:7", ME]
    lease.withdraw(ME)
    assert lease.live_hosts("elsewhere:7") == 1
