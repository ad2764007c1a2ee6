"""The presenter view's websocket: the same list-watch as the cluster page's, sent as JSON for the map.

Frames: ``{"state": ...}`` (nodes with their Pods, Pending Pods, Services with endpoints; see
cluster_map.map_state), ``{"flows": [...]}`` (delivered messages with their captions) and
``{"simulation": ...}`` (mode, clock, what is due).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from django.utils import translation

from . import simulation_feed
from .captions import timer
from .cluster_map import map_state
from .consumers import CONTROLS_SECONDS, ClusterConsumer, flows_frame

# The eviction timeout until the simulation's own setting has been read.
DEFAULT_EVICTION_TIMEOUT = 300.0


class PresenterConsumer(ClusterConsumer):
    """One per open presenter view."""

    CACHED = ("pods", "nodes", "services", "endpoints")
    WATCHED = ()

    eviction_timeout = DEFAULT_EVICTION_TIMEOUT
    shown_state = ""

    def frame(self) -> str:
        """The map's JSON when it changed since the last frame ("" when it did not)."""
        state = map_state(
            self.informers["nodes"].items(),
            self.informers["pods"].items(),
            self.informers["services"].items(),
            self.informers["endpoints"].items(),
            self.eviction_timeout,
        )
        text = json.dumps({"state": state})
        if text == self.shown_state:
            return ""
        self.shown_state = text
        return text

    async def objects_loop(self) -> None:
        """The presenter has no objects panel to reload."""

    async def flows_loop(self) -> None:
        """Delivered messages as JSON only (the presenter has no timeline rows)."""
        while True:
            await self.flows_waiting.wait()
            await asyncio.sleep(0.05)  # wall-clock: gather a burst of messages into one frame
            self.flows_waiting.clear()
            batch, self.flows = self.flows, []
            if batch:
                await self.send(text_data=flows_frame(batch))

    async def controls_loop(self) -> None:
        """The simulation's mode, clock and settings, whenever they change."""
        shown: Any = None
        async for _feed, simulation in simulation_feed.readings(self.client, CONTROLS_SECONDS / 2):
            self.eviction_timeout = float(simulation["spec"].get("podEvictionTimeoutSeconds", DEFAULT_EVICTION_TIMEOUT))
            now = {"spec": simulation["spec"], "status": simulation["status"]}
            due = simulation["status"].get("next")
            if due:
                # What is due next, in the page's language (the presenter shows it while the class waits).
                with translation.override(self.language):
                    now["due"] = {"what": timer(str(due.get("what", ""))), "time": due.get("time", 0)}
            if now != shown:
                await self.send(text_data=json.dumps({"simulation": now}))
                shown = now
