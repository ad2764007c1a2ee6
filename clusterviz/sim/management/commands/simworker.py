"""python manage.py simworker: run simulation engines outside the web processes.

Each worker claims the clusters whose engine lease is free or expired, up to
its fair share among the live workers (so the engines spread over every core), runs
their engines, renews the leases, and follows mode changes written by the
web processes. SIGTERM stops it cleanly (engines saved, leases released).

It runs at a lower CPU priority than the web processes (``--nice``, CLUSTERVIZ_WORKER_NICE): a
class's ``kubectl apply`` burst is answered first and the engines run on what is left, where
on equal terms every request waited behind the engines of the clusters already applied.
"""

from __future__ import annotations

import asyncio
import os
import signal

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from clusterviz.sim import lease, registry
from clusterviz.store import kv
from clusterviz.store.threads import in_thread

# How long a starting worker waits, once counted among the processes that run engines, before claiming.
ANNOUNCE_SECONDS = 1.0


class Command(BaseCommand):
    help = "Run the simulation engines of the clusters this worker can claim."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--interval", type=float, default=2.0, help="seconds between lease renewals")
        parser.add_argument(
            "--nice", type=int, default=settings.CLUSTERVIZ["WORKER_NICE"],
            help="how much to lower this process's CPU priority (default CLUSTERVIZ_WORKER_NICE, 10)",
        )

    def handle(self, *args: object, **options: object) -> None:
        # Before any thread starts: threads take their priority from the thread that starts them.
        nice = int(options["nice"])  # type: ignore[call-overload]
        if nice > 0:
            os.nice(nice)
        asyncio.run(self.run(float(options["interval"])))  # type: ignore[arg-type]

    async def run(self, interval: float) -> None:
        holder = lease.holder_identity()
        stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stopping.set)
        registry.set_holder(holder)
        self.stdout.write(f"simworker {holder} started")
        try:
            # Be counted before claiming, and give workers started at the same moment the time to be
            # counted too, so that they share the clusters out instead of the first taking them all.
            await in_thread(lease.live_hosts)(holder)
            try:
                await asyncio.wait_for(stopping.wait(), ANNOUNCE_SECONDS)  # wall-clock: peers starting up
            except TimeoutError:
                pass
            while not stopping.is_set():
                try:
                    await registry.claim_all()
                except kv.StoreUnavailable as exc:
                    # Engines give their clusters up by themselves if this lasts (registry.GIVE_UP_SECONDS).
                    self.stderr.write(f"simworker {holder}: database unavailable ({exc}); retrying")
                try:
                    await asyncio.wait_for(stopping.wait(), interval)  # wall-clock: lease renewal period
                except TimeoutError:
                    pass
        finally:
            owned = list(registry.running_clusters())
            await registry.stop_all()
            try:
                await in_thread(lease.release)(owned, holder)
                await in_thread(lease.withdraw)(holder)
            except kv.StoreUnavailable:
                pass  # the leases expire by themselves
            self.stdout.write(f"simworker {holder} stopped")
