"""Messages on a cluster's bus: one per hop between components."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from clusterviz.apimachinery.unstructured import dict_or_empty


@dataclass
class Message:
    """One hop. ``seq`` and ``time`` are set when the message is delivered."""

    sender: str
    to: str
    verb: str
    kind: str
    namespace: str
    name: str
    step: int | None
    summary: str
    due: float
    order: int
    seq: int = 0
    time: float = 0.0
    # What delivery does: resolve a waiting hop, or hand a watch event over.
    future: asyncio.Future[Message] | None = field(default=None, repr=False, compare=False)
    payload: Any = field(default=None, repr=False, compare=False)
    # A write hop (apiserver -> etcd): whoever it wakes asks the store for that write and nothing else.
    store_write: bool = field(default=False, repr=False, compare=False)

    def as_dict(self) -> dict[str, Any]:
        """The ``flowmessages`` shape served by the API."""
        return {
            "seq": self.seq,
            "time": round(self.time, 3),
            "from": self.sender,
            "to": self.to,
            "verb": self.verb,
            "object": {"kind": self.kind, "namespace": self.namespace, "name": self.name},
            "step": self.step,
            "summary": self.summary,
        }


def object_ref(obj: dict[str, Any] | None, fallback_kind: str = "") -> tuple[str, str, str]:
    """(kind, namespace, name) of an object, tolerating partial bodies."""
    if not isinstance(obj, dict):
        return fallback_kind, "", ""
    meta = dict_or_empty(obj.get("metadata"))
    name = meta.get("name") or (str(meta.get("generateName", "")) + "*" if meta.get("generateName") else "")
    return str(obj.get("kind") or fallback_kind), str(meta.get("namespace") or ""), str(name)
