"""The cluster page's websocket: list-watch of the cluster, pushed as htmx out-of-band fragments.

On connect the page gets a full snapshot; after that every batch of watch
events (about 50 ms worth) re-renders the node cards and the pending queue,
and every delivered bus message is appended to the timeline and sent as JSON
for the animation layer.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string

from clusterviz.api import errors
from clusterviz.api.client import Client

from .cluster_view import node_cards, pending_pods

BATCH_SECONDS = 0.05


class ClusterConsumer(AsyncWebsocketConsumer):
    """One per open cluster page."""

    async def connect(self) -> None:
        self.cluster = self.scope["url_route"]["kwargs"]["cluster"]
        self.client = Client(self.cluster, "dashboard")
        try:
            await self.client.list("namespaces")
        except errors.StatusError:
            await self.close(code=4404)
            return
        await self.accept()
        self.dirty = asyncio.Event()
        self.caches: dict[str, dict[str, dict[str, Any]]] = {"pods": {}, "nodes": {}}
        self.tasks = [asyncio.ensure_future(self.follow(plural)) for plural in ("pods", "nodes")]
        self.tasks.append(asyncio.ensure_future(self.follow_messages()))
        self.tasks.append(asyncio.ensure_future(self.render_loop()))

    async def disconnect(self, code: int) -> None:
        for task in getattr(self, "tasks", []):
            task.cancel()

    async def follow(self, plural: str) -> None:
        """List, then watch one resource type into the cache (list-watch, as every component does)."""
        cache = self.caches[plural]
        while True:
            listed = await self.client.list(plural)
            cache.clear()
            cache.update({self.key(o): o for o in listed["items"]})
            self.dirty.set()
            try:
                async for event in self.client.watch(plural, resource_version=listed["metadata"]["resourceVersion"]):
                    obj = event["object"]
                    if event["type"] == "ERROR":
                        break
                    if event["type"] == "DELETED":
                        cache.pop(self.key(obj), None)
                    elif event["type"] in ("ADDED", "MODIFIED"):
                        cache[self.key(obj)] = obj
                    self.dirty.set()
            except errors.StatusError:
                continue  # expired: list again

    @staticmethod
    def key(obj: dict[str, Any]) -> str:
        meta = obj.get("metadata") or {}
        return f"{meta.get('namespace', '')}/{meta.get('name')}"

    async def render_loop(self) -> None:
        while True:
            await self.dirty.wait()
            await asyncio.sleep(BATCH_SECONDS)  # wall-clock: batch a burst of events into one frame
            self.dirty.clear()
            pods, nodes = list(self.caches["pods"].values()), list(self.caches["nodes"].values())
            context = {"cluster": self.cluster, "oob": True}
            html = render_to_string("web/cluster.html#nodes", {**context, "cards": node_cards(nodes, pods)})
            html += render_to_string("web/cluster.html#pending", {**context, "pending": pending_pods(pods)})
            await self.send(text_data=html)

    async def follow_messages(self) -> None:
        """The trace, live: a timeline row per delivered message, and JSON for the animation."""
        listed = await self.client.list("flowmessages")
        since = listed["metadata"]["resourceVersion"]
        resp = await self.client.request(
            "GET", "/apis/clusterviz.io/v1/flowmessages", query={"watch": "true", "sinceSeq": since}
        )
        assert resp.stream is not None
        async for event in resp.stream:
            message = event["object"]
            row = render_to_string("web/cluster.html#message", {"m": message, "oob": True})
            await self.send(text_data=row)
            await self.send(text_data=json.dumps({"flow": message}))
