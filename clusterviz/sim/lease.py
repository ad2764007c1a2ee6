"""Engine leases: each cluster's engine runs in exactly one process at a time.

A process claims a cluster with a conditional UPDATE (only if the lease is
free, already its own, or expired) and renews it while it runs the engine;
a process that dies stops renewing, and another takes the cluster over once
the lease expires.
"""

from __future__ import annotations

import hashlib
import math
import os
import socket
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from clusterviz.store import kv

from .models import EngineHost, EngineLease

LEASE_SECONDS = float(os.environ.get("CLUSTERVIZ_ENGINE_LEASE_SECONDS", "15"))
# Host rows of processes gone this long are deleted (a live one renews every few seconds).
FORGET_HOSTS_AFTER = 10


def host_name() -> str:
    """The machine part of holder names: ``CLUSTERVIZ_HOST_NAME`` (e.g. a container's name) or the host name."""
    return os.environ.get("CLUSTERVIZ_HOST_NAME") or socket.gethostname()


def holder_identity() -> str:
    """This process's name in the lease table."""
    return f"{host_name()}:{os.getpid()}"


def _dead_local_holder(holder: str) -> bool:
    """True when ``holder`` was a process on this machine that no longer exists (a restarted server)."""
    host, _, pid = holder.rpartition(":")
    if host != host_name() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def claim(cluster: str, holder: str, lease_seconds: float = LEASE_SECONDS) -> bool:
    """Take or renew the lease of ``cluster``; False if another live process holds it."""
    lease, _ = EngineLease.objects.get_or_create(cluster=cluster)
    now = timezone.now()
    expired = now - timedelta(seconds=lease_seconds)
    free = Q(holder="") | Q(holder=holder) | Q(renewed__lt=expired) | Q(renewed__isnull=True)
    if lease.holder and lease.holder != holder and _dead_local_holder(lease.holder):
        free |= Q(holder=lease.holder)
    taken = EngineLease.objects.filter(cluster=cluster).filter(free).update(holder=holder, renewed=now)
    return taken == 1


def renew(clusters: list[str], holder: str) -> set[str]:
    """Renew the leases ``holder`` still holds among ``clusters`` in one transaction; the set renewed."""
    with kv.exclusive(), transaction.atomic():
        held = set(
            EngineLease.objects.filter(cluster__in=clusters, holder=holder).values_list("cluster", flat=True)
        )
        if held:
            EngineLease.objects.filter(cluster__in=held, holder=holder).update(renewed=timezone.now())
    return held


def claimable(clusters: list[str], holder: str, lease_seconds: float = LEASE_SECONDS) -> list[str]:
    """Which of ``clusters`` ``claim`` could take now (one query; the claim itself decides)."""
    expired = timezone.now() - timedelta(seconds=lease_seconds)
    rows = EngineLease.objects.filter(cluster__in=clusters).values_list("cluster", "holder", "renewed")
    leases = {cluster: (owner, renewed) for cluster, owner, renewed in rows}

    def free(cluster: str) -> bool:
        if cluster not in leases:
            return True
        owner, renewed = leases[cluster]
        return owner in ("", holder) or renewed is None or renewed < expired or _dead_local_holder(owner)

    return [cluster for cluster in clusters if free(cluster)]


def holder_elsewhere(cluster: str, holder: str, lease_seconds: float = LEASE_SECONDS) -> str | None:
    """The other process holding a live lease on ``cluster`` (its engine runs there), or None."""
    fresh = timezone.now() - timedelta(seconds=lease_seconds)
    return (
        EngineLease.objects.filter(cluster=cluster, renewed__gte=fresh)
        .exclude(holder="")
        .exclude(holder=holder)
        .values_list("holder", flat=True)
        .first()
    )


def live_holders(lease_seconds: float = LEASE_SECONDS) -> dict[str, str]:
    """The process holding each cluster's live lease (one query for every cluster)."""
    fresh = timezone.now() - timedelta(seconds=lease_seconds)
    rows = EngineLease.objects.filter(renewed__gte=fresh).exclude(holder="").values_list("cluster", "holder")
    return dict(rows)


def held_elsewhere(cluster: str, holder: str, lease_seconds: float = LEASE_SECONDS) -> bool:
    """Whether another process holds a live lease on ``cluster``."""
    return holder_elsewhere(cluster, holder, lease_seconds) is not None


def release(clusters: list[str], holder: str) -> None:
    """Give up leases so another process can take the clusters at once."""
    EngineLease.objects.filter(cluster__in=clusters, holder=holder).update(holder="", renewed=None)


def live_hosts(holder: str, lease_seconds: float = LEASE_SECONDS) -> int:
    """Renew ``holder``'s row among the processes that run engines; how many of them are alive, itself included.

    A row not renewed within the lease, or naming a process of this machine that no longer exists,
    is not counted; rows gone for ``FORGET_HOSTS_AFTER`` leases are deleted.
    """
    now = timezone.now()
    if not EngineHost.objects.filter(holder=holder).update(renewed=now):
        EngineHost.objects.get_or_create(holder=holder, defaults={"renewed": now})
    EngineHost.objects.filter(renewed__lt=now - timedelta(seconds=lease_seconds * FORGET_HOSTS_AFTER)).delete()
    fresh = EngineHost.objects.filter(renewed__gte=now - timedelta(seconds=lease_seconds)).exclude(holder=holder)
    return 1 + sum(1 for other in fresh.values_list("holder", flat=True) if not _dead_local_holder(other))


def withdraw(holder: str) -> None:
    """Leave the processes that run engines (a clean stop), so the others share the clusters out at once."""
    EngineHost.objects.filter(holder=holder).delete()


def fair_share(clusters: int, hosts: int) -> int:
    """How many of ``clusters`` one of ``hosts`` processes should run: each takes its share, the first ones one more."""
    return math.ceil(clusters / max(hosts, 1))


def preference(holder: str, cluster: str) -> bytes:
    """The order in which ``holder`` tries to claim clusters: each process its own, so processes starting together
    mostly try different clusters instead of racing for the same ones."""
    return hashlib.sha1(f"{holder}/{cluster}".encode()).digest()
