"""The cluster page's websocket: list-watch of the cluster, pushed as htmx out-of-band fragments.

On connect the page gets a full snapshot; after that every batch of watch
events (about 50 ms worth) re-renders the node cards and the pending queue,
and every delivered bus message is appended to the timeline and sent as JSON
for the animation layer. A change to any object the objects panel shows sends
a small fragment that makes the panel reload its tables (at most once a second).
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections import OrderedDict
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string
from django.utils import translation

from clusterviz.api import errors, shared_informers
from clusterviz.api.client import Client
from clusterviz.api.informer import Handler, Informer

from . import message_feed, simulation_feed
from .captions import MODE_NAMES, caption, language_of
from .cluster_view import PENDING_SHOWN, compact, node_cards, pending_pods

BATCH_SECONDS = 0.05
OBJECTS_SECONDS = 1.0
CONTROLS_SECONDS = 1.0
# What the node cards and the pending queue are drawn from.
CARD_RESOURCES = ("pods", "nodes")
# Watched for the objects panel only: a change just makes the panel reload.
PANEL_RESOURCES = (
    "deployments",
    "replicasets",
    "replicationcontrollers",
    "daemonsets",
    "statefulsets",
    "controllerrevisions",
    "jobs",
    "cronjobs",
    "poddisruptionbudgets",
    "resourcequotas",
    "horizontalpodautoscalers",
    "persistentvolumeclaims",
    "persistentvolumes",
    "storageclasses",
    "services",
    "endpoints",
    "events",
)


# Every page of a cluster shows each message the same way (per language): render it once per process.
# Each entry keeps its message: a cluster made again under the same name numbers its messages from 1 again.
_RENDERED: OrderedDict[tuple[str, int, str], tuple[dict[str, Any], str, str]] = OrderedDict()
RENDERED_KEPT = 2000


def rendered_message(cluster: str, message: dict[str, Any], language: str) -> tuple[str, str]:
    """A message's timeline row (an out-of-band fragment) and, as JSON, what the animation needs of it."""
    key = (cluster, int(message["seq"]), language)
    found = _RENDERED.get(key)
    if found is None or found[0] != message:
        with translation.override(language):
            row = render_to_string("web/flow.html#message", {"m": message, "oob": True})
            found = _RENDERED[key] = (message, row, json.dumps({"flow": message, "caption": caption(message)}))
        if len(_RENDERED) > RENDERED_KEPT:
            _RENDERED.popitem(last=False)
    return found[1], found[2]


def flows_frame(batch: list[tuple[str, str]]) -> str:
    """The animation's frame ``{"flows": [...]}`` of a batch of rendered messages (their JSON as made once)."""
    return '{"flows": [' + ", ".join(data for _, data in batch) + "]}"


class ClusterConsumer(AsyncWebsocketConsumer):
    """One per open cluster page."""

    # Resources drawn (a change redraws the page); resources whose change only reloads the objects panel.
    CACHED: tuple[str, ...] = CARD_RESOURCES
    WATCHED: tuple[str, ...] = PANEL_RESOURCES

    async def connect(self) -> None:
        self.cluster = self.scope["url_route"]["kwargs"]["cluster"]
        self.client = Client(self.cluster, "dashboard")
        try:
            await self.client.list("namespaces")
        except errors.StatusError:
            await self.close(code=4404)
            return
        await self.accept()
        # Fragments and captions are rendered in the language the page was rendered in.
        self.language = language_of(self.scope)
        self.dirty = asyncio.Event()
        self.objects_dirty = asyncio.Event()
        # What the page shows now, so a frame carries only what changed.
        self.layout: tuple[bool, list[str]] | None = None
        self.cards: dict[str, Any] = {}
        self.pending: list[Any] | None = None
        self.pending_total = 0
        # The page's list-watch is the components' own informer, shared by every page of the cluster in
        # this process: it relists after an expired watch and retries while the store is unavailable
        # (503), so the page catches up without a reload.
        watched = (*self.CACHED, *(p for p in self.WATCHED if p not in self.CACHED))
        self.handlers: list[tuple[Informer, Handler]] = []
        self.informers = {plural: self.informer(plural) for plural in watched}
        self.flows: list[tuple[str, str]] = []
        self.flows_waiting = asyncio.Event()
        message_feed.join(self.client, self.message_delivered)
        loops = (self.flows_loop(), self.controls_loop(), self.render_loop(), self.objects_loop())
        self.tasks = [asyncio.ensure_future(loop) for loop in loops]

    async def disconnect(self, code: int) -> None:
        for task in getattr(self, "tasks", []):
            task.cancel()
        for informer, handler in getattr(self, "handlers", []):
            shared_informers.leave(informer, handler)
        if hasattr(self, "flows"):
            message_feed.leave(self.client, self.message_delivered)

    def informer(self, plural: str) -> Informer:
        """The shared list-watch of ``plural``, whose every change (and every list) marks what it feeds as
        out of date."""

        def changed(*_objects: dict[str, Any]) -> None:
            self.objects_dirty.set()
            if plural in self.CACHED:
                self.dirty.set()

        handler = Handler(changed, changed, changed, changed)
        informer = shared_informers.join(self.client, plural, handler)
        self.handlers.append((informer, handler))
        return informer

    async def render_loop(self) -> None:
        while True:
            await self.dirty.wait()
            await asyncio.sleep(BATCH_SECONDS)  # wall-clock: batch a burst of events into one frame
            self.dirty.clear()
            if not all(self.informers[plural].synced for plural in self.CACHED):
                continue  # a half-listed cluster is no picture to draw: the last list marks it dirty again
            html = self.frame()
            if html:
                await self.send(text_data=html)

    def frame(self) -> str:
        """The out-of-band fragments for what changed since the last frame ("" when nothing did).

        Only changed node cards are sent (a label on one of 200 nodes re-renders one card); the whole
        grid goes when nodes come or go or the grid turns compact. Heartbeats change no card at all.
        """
        pods, nodes = self.informers["pods"].items(), self.informers["nodes"].items()
        cards = node_cards(nodes, pods)
        small = compact(nodes, pods)
        waiting = pending_pods(pods)
        context = {"cluster": self.cluster, "oob": True, "compact": small}
        layout = (small, [card.name for card in cards])
        parts = []
        with translation.override(self.language):
            if layout != self.layout:
                parts.append(render_to_string("web/cluster.html#nodes", {**context, "cards": cards}))
            else:
                for card in cards:
                    if self.cards.get(card.name) != card:
                        parts.append(
                            render_to_string("web/cluster.html#card", {**context, "card": card, "oob_card": True})
                        )
            shown = waiting[:PENDING_SHOWN]
            if shown != self.pending or len(waiting) != self.pending_total:
                more = len(waiting) - len(shown)
                parts.append(
                    render_to_string("web/cluster.html#pending", {**context, "pending": shown, "pending_more": more})
                )
        self.layout, self.cards = layout, {card.name: card for card in cards}
        self.pending, self.pending_total = shown, len(waiting)
        return "".join(parts)

    async def objects_loop(self) -> None:
        """Make the page reload its objects panel after changes, at most once per ``OBJECTS_SECONDS``."""
        while True:
            await self.objects_dirty.wait()
            self.objects_dirty.clear()
            await self.send(text_data=render_to_string("web/objects.html#refresh", {"cluster": self.cluster}))
            # wall-clock: a change during the pause sets the flag again, so the last one is never missed
            await asyncio.sleep(OBJECTS_SECONDS)

    def message_delivered(self, message: dict[str, Any]) -> None:
        """The trace, live: a timeline row per delivered message, and JSON for the animation."""
        self.flows.append(rendered_message(self.cluster, message, self.language))
        self.flows_waiting.set()

    async def controls_loop(self) -> None:
        """Keep the controls in step with ``simulations/default``, whoever changes it (kubectl, another page).

        The whole form when the mode or speed changed; otherwise only the clock, so a slider being
        dragged is not replaced under the pointer.
        """
        shown: tuple[Any, ...] | None = None
        clock: tuple[Any, ...] | None = None
        async for feed, simulation in simulation_feed.readings(self.client, CONTROLS_SECONDS):
            spec, status = simulation["spec"], simulation["status"]
            now_shown = (spec["mode"], spec["speed"])
            now_clock = (status["time"], status["lastSeq"], status["pending"], status.get("next"),
                         status.get("waiting"))
            if shown is not None and now_shown != shown:
                render = functools.partial(self.controls, simulation, "controls", oob=True)
                await self.send(text_data=feed.rendered((self.language, "controls"), render))
            elif clock is not None and now_clock != clock:
                render = functools.partial(self.controls, simulation, "clock", oob_clock=True)
                await self.send(text_data=feed.rendered((self.language, "clock"), render))
            shown, clock = now_shown, now_clock

    def controls(self, simulation: dict[str, Any], partial: str, **flags: bool) -> str:
        """The controls form (or only its clock) as an out-of-band fragment."""
        context = {"cluster": self.cluster, "simulation": simulation, "modes": MODE_NAMES, **flags}
        with translation.override(self.language):
            return render_to_string(f"web/cluster.html#{partial}", context)

    async def flows_loop(self) -> None:
        """Send the messages delivered meanwhile as one frame of rows and one of JSON ``{"flows": [...]}``.

        One message at a time in step mode; under load, one pair of frames carries many, so a class
        of pages costs the server a few sends per batch instead of two per message and page. A message
        after a quiet spell goes at once (with the others delivered at that moment); then frames go at
        most every ``BATCH_SECONDS``, each with what came meanwhile.
        """
        loop = asyncio.get_running_loop()
        sent = -BATCH_SECONDS
        while True:
            await self.flows_waiting.wait()
            # wall-clock: frames are spaced in real time; 0 still lets this moment's other deliveries in
            await asyncio.sleep(max(0.0, sent + BATCH_SECONDS - loop.time()))
            self.flows_waiting.clear()
            batch, self.flows = self.flows, []
            if batch:
                sent = loop.time()
                await self.send(text_data="".join(row for row, _ in batch))
                await self.send(text_data=flows_frame(batch))
