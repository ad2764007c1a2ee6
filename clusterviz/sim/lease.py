"""Engine leases: each cluster's engine runs in exactly one process at a time.

A process claims a cluster with a conditional UPDATE (only if the lease is
free, already its own, or expired) and renews it while it runs the engine;
a process that dies stops renewing, and another takes the cluster over once
the lease expires.
"""

from __future__ import annotations

import os
import socket
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from clusterviz.store import kv

from .models import EngineLease

LEASE_SECONDS = float(os.environ.get("CLUSTERVIZ_ENGINE_LEASE_SECONDS", "15"))


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


def held_elsewhere(cluster: str, holder: str, lease_seconds: float = LEASE_SECONDS) -> bool:
    """Whether another process holds a live lease on ``cluster``."""
    return holder_elsewhere(cluster, holder, lease_seconds) is not None


def release(clusters: list[str], holder: str) -> None:
    """Give up leases so another process can take the clusters at once."""
    EngineLease.objects.filter(cluster__in=clusters, holder=holder).update(holder="", renewed=None)
