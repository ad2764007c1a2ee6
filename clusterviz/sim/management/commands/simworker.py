"""python manage.py simworker: run simulation engines outside the web processes.

Each worker claims the clusters whose engine lease is free or expired, runs
their engines, renews the leases, and follows mode changes written by the
web processes. SIGTERM stops it cleanly (engines saved, leases released).
"""

from __future__ import annotations

import asyncio
import signal

from asgiref.sync import sync_to_async
from django.core.management.base import BaseCommand, CommandParser

from clusterviz.sim import lease, registry, trace
from clusterviz.store import kv


class Command(BaseCommand):
    help = "Run the simulation engines of the clusters this worker can claim."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--interval", type=float, default=2.0, help="seconds between lease renewals")

    def handle(self, *args: object, **options: object) -> None:
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
            while not stopping.is_set():
                await self.tick(holder)
                try:
                    await asyncio.wait_for(stopping.wait(), interval)  # wall-clock: lease renewal period
                except TimeoutError:
                    pass
        finally:
            owned = list(registry.running_clusters())
            await registry.stop_all()
            await sync_to_async(lease.release)(owned, holder)
            self.stdout.write(f"simworker {holder} stopped")

    async def tick(self, holder: str) -> None:
        """Claim or renew every cluster we can; start the newly claimed, drop the lost; follow modes."""
        names = await sync_to_async(kv.cluster_names)()
        for name in names:
            ours = await sync_to_async(lease.claim)(name, holder)
            running = registry.get(name)
            if ours and running is None:
                await registry.start(name)
            elif not ours and running is not None:
                await registry.stop(name)
            elif ours and running is not None:
                saved = await trace.load_state(name)
                if (saved.mode, saved.speed) != (running.engine.mode, running.engine.speed):
                    running.engine.set_mode(saved.mode, saved.speed)
        for name in list(registry.running_clusters()):
            if name not in names:
                await registry.stop(name)
