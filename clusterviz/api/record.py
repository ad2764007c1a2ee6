"""Event recording, as client-go's record package does it: Events about objects, counted when repeated."""

from __future__ import annotations

import itertools
from typing import Any

from . import clock, errors
from .client import Client

# Breaks ties between events recorded at the same simulated instant.
_sequence = itertools.count()


def involved_object(obj: dict[str, Any], field_path: str = "") -> dict[str, Any]:
    """The ObjectReference an Event points at."""
    meta = obj.get("metadata") or {}
    ref = {
        "kind": obj.get("kind", ""),
        "namespace": meta.get("namespace", ""),
        "name": meta.get("name", ""),
        "uid": meta.get("uid", ""),
        "apiVersion": obj.get("apiVersion", ""),
        "resourceVersion": meta.get("resourceVersion", ""),
    }
    if field_path:
        ref["fieldPath"] = field_path
    return {k: v for k, v in ref.items() if v != "" or k in ("kind", "name")}


class EventRecorder:
    """Writes core/v1 Events from one component (and host, for kubelets)."""

    def __init__(self, client: Client, component: str, host: str = "") -> None:
        self.client = client
        self.component = component
        self.host = host
        # Per identity of a recorded Event, its name and count: what a repeat needs (the whole Event would be
        # held for the life of the component, five for every Pod a kubelet starts).
        self._seen: dict[str, tuple[str, int]] = {}

    async def event(self, obj: dict[str, Any], type_: str, reason: str, message: str, field_path: str = "") -> None:
        """Record an Event (``type_`` is Normal or Warning); a repeat bumps the count of the same Event."""
        ref = involved_object(obj, field_path)
        namespace = ref.get("namespace") or "default"
        now = clock.rfc3339()
        identity = "|".join([ref.get("uid", ""), ref.get("name", ""), reason, message, self.component, self.host])
        previous = self._seen.get(identity)
        if previous is not None:
            name, count = previous
            try:
                await self.client.patch("events", name, {"count": count + 1, "lastTimestamp": now}, namespace)
                self._seen[identity] = (name, count + 1)
                return
            except errors.StatusError:
                self._seen.pop(identity, None)
        # Named like client-go's events, <object>.<time in hex>, so they list in the order they happened.
        suffix = f"{int(clock.now_precise().timestamp() * 1e9):x}{next(_sequence) % 4096:03x}"
        source: dict[str, Any] = {"component": self.component}
        if self.host:
            source["host"] = self.host
        name = f"{ref.get('name')}.{suffix}"
        body = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": name, "namespace": namespace},
            "involvedObject": ref,
            "reason": reason,
            "message": message,
            "source": source,
            "firstTimestamp": now,
            "lastTimestamp": now,
            "count": 1,
            "type": type_,
            "eventTime": None,
            "reportingComponent": self.component,
            "reportingInstance": self.host,
        }
        try:
            await self.client.create(body, namespace, handed_over=True)
        except errors.StatusError:
            return  # events are best effort, as in client-go
        self._seen[identity] = (name, 1)
