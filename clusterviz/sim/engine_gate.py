"""The engine's side of the API server's gate: write hops and the watch fan-out over the bus."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import datetime
from typing import Any

from clusterviz.api import codec, errors, watchcache
from clusterviz.api.gate import TRIGGER_FIELDS, Classify
from clusterviz.api.request import ApiRequest, ResourcePath
from clusterviz.apimachinery.fields import field_value
from clusterviz.apimachinery.unstructured import resource_version
from clusterviz.store import kv, threads
from clusterviz.store.threads import in_thread

from . import flow
from .bus import object_ref
from .engine import Engine

# Writes that are bookkeeping rather than lesson: they are stored and watched, but are not hops.
QUIET_KINDS = frozenset({"Lease", "Event", "SchedulingDecision"})

_events_since = in_thread(kv.events_since)


def _body_of(req: ApiRequest) -> dict[str, Any] | None:
    """The request's object, for naming it in the trace (an undecodable body is named by its URL only)."""
    if isinstance(req.payload, dict):
        return req.payload
    try:
        body = codec.decode_body(req.body, req.content_type) if req.body.strip() else None
    except errors.StatusError:
        return None
    return body if isinstance(body, dict) else None


def _noun(kind: str, namespace: str, name: str) -> str:
    where = f"{namespace}/{name}" if namespace else name
    return f"{kind.lower()} {where}".strip()


class _Watcher:
    """A simulated component's watch: events reach it only as bus deliveries."""

    def __init__(
        self, gate: EngineGate, component: str, rp: ResourcePath, start: int, classify: Classify, trigger: str | None
    ) -> None:
        self.gate = gate
        self.component = component
        self.key = rp.resource.key
        self.namespace = rp.namespace
        self.start = start
        self.classify = classify
        self.trigger = trigger
        self.queue: deque[dict[str, Any]] = deque()
        self.waiter: asyncio.Future[None] | None = None

    def offer(self, event: kv.Event) -> None:
        if event.revision <= self.start or event.resource != self.key:
            return
        if self.namespace and event.namespace != self.namespace:
            return
        kind = self.classify(event)
        if not kind:
            return
        item = {"type": kind, "object": event.object}
        obj_kind = str(event.object.get("kind", ""))
        if obj_kind in QUIET_KINDS:
            self.push(item)
            return
        step = flow.delivery_step(self.component, kind, event.object)
        engine = self.gate.engine
        noun = _noun(obj_kind, event.namespace, event.name)
        if step == 5:
            # Step 4: the controller manager's list-watch is what carries the change to it.
            engine.post({"sender": self.component, "to": "apiserver", "verb": "watch", "kind": obj_kind,
                         "namespace": event.namespace, "name": event.name, "step": 4,
                         "summary": f"The {self.component} is watching {self.key} (list-watch)"})
        engine.post(
            {"sender": "apiserver", "to": self.component, "verb": f"watch {kind.lower()}", "kind": obj_kind,
             "namespace": event.namespace, "name": event.name, "step": step,
             "summary": f"The API server tells the {self.component}: {noun} {kind.lower()}"},
            payload=lambda _msg: self.push(item),
        )

    def push(self, item: dict[str, Any]) -> None:
        self.queue.append(item)
        if self.waiter is not None and not self.waiter.done():
            self.gate.engine.wake(self.waiter)

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        try:
            while True:
                while self.queue:
                    yield self.queue.popleft()
                self.waiter = asyncio.get_running_loop().create_future()
                await self.gate.engine.wait_for(self.waiter)
        finally:
            self.gate.watchers.discard(self)
            self.gate._reorder()


class _Fanout:
    """The watchers of one resource in delivery order, those that select a trigger value filed under it."""

    def __init__(self, resource: str, watchers: list[_Watcher]) -> None:
        self.field = TRIGGER_FIELDS.get(resource, "")
        self.watchers = watchers
        self.position = {watcher: i for i, watcher in enumerate(watchers)}
        self.untriggered = [watcher for watcher in watchers if watcher.trigger is None]
        self.by_trigger: dict[str, list[_Watcher]] = {}
        for watcher in watchers:
            if watcher.trigger is not None:
                self.by_trigger.setdefault(watcher.trigger, []).append(watcher)

    def offered(self, event: kv.Event) -> list[_Watcher]:
        """The watchers ``event`` may concern, in delivery order (see ``TRIGGER_FIELDS``)."""
        if not self.by_trigger:
            return self.watchers
        values = {field_value(event.object, self.field)}
        if event.previous is not None:
            values.add(field_value(event.previous, self.field))
        chosen = self.untriggered + [watcher for value in values for watcher in self.by_trigger.get(value, ())]
        return sorted(chosen, key=self.position.__getitem__)


class EngineGate:
    """Gate of one cluster: wraps writes in hops and fans watch events out over the bus.

    Its events come from the process's watch cache (``watchcache.LogFollower``), the one reader of
    the cluster's log that HTTP watches and the page share: the gate never reads the log itself.
    """

    def __init__(self, engine: Engine, cid: int, revision: int) -> None:
        self.engine = engine
        self.cid = cid
        self.published = revision
        self.follower = watchcache.acquire(cid, revision)
        self.watchers: set[_Watcher] = set()
        # Deliveries of one event go out in a fixed order (by component), so runs repeat; only the
        # watchers of the event's resource are offered it (an event would pass every other one by).
        self._ordered: dict[str, _Fanout] = {}
        self._lock = asyncio.Lock()
        self._inflight = 0
        self._tailer: asyncio.Task[None] | None = None

    def wall(self) -> datetime:
        return self.engine.wall()

    def _quiet(self, rp: ResourcePath) -> bool:
        return rp.resource.kind in QUIET_KINDS

    @asynccontextmanager
    async def request(self, req: ApiRequest, rp: ResourcePath, verb: str) -> AsyncIterator[None]:
        async with self.engine.activity():
            with self._failing_without_store(req):
                steps = flow.write_steps(req.client, verb, rp.resource.kind, rp.sub)
                req.context["steps"] = steps
                if not self._quiet(rp):
                    kind, namespace, name = object_ref(_body_of(req), rp.resource.kind)
                    name = rp.name or name
                    namespace = rp.namespace or namespace
                    what = f"{verb} {_noun(kind or rp.resource.kind, namespace, name)}"
                    if rp.sub:
                        what += f" ({rp.sub})"
                    await self.engine.hop(req.client, "apiserver", verb, kind or rp.resource.kind, namespace, name,
                                          steps.request, f"{req.client} asks the API server to {what}")
                yield

    @contextmanager
    def _failing_without_store(self, req: ApiRequest) -> Iterator[None]:
        """Fail a client's request (503) rather than let it wait for its hops while the database is away.

        The simulation cannot go on then (its components wait on the store), so such a request
        would wait as long as the outage lasts: it fails at once if the store's last call found the
        database gone, or when one does while it waits for a hop. A component's own requests wait.
        """
        if req.client not in flow.CLIENTS:
            yield
            return
        failure = threads.unreachable()
        if failure is not None:
            raise kv.StoreUnavailable(*failure.args)
        task = asyncio.current_task()
        assert task is not None

        def lost(failure: kv.StoreUnavailable) -> None:
            self.engine.fail_hops(task, kv.StoreUnavailable(*failure.args))

        with threads.on_loss(lost):
            yield

    async def write(
        self, req: ApiRequest, rp: ResourcePath, verb: str, name: str,
        perform: Callable[[], Awaitable[dict[str, Any]]],
    ) -> dict[str, Any]:
        self._inflight += 1
        try:
            if not self._quiet(rp):
                steps: flow.WriteSteps = req.context.get("steps", flow.NO_STEPS)
                noun = _noun(rp.resource.kind, rp.namespace, name)
                await self.engine.hop("apiserver", "etcd", "write", rp.resource.kind, rp.namespace, name,
                                      steps.store, f"The API server writes {noun} to etcd", store_write=True)
            obj = await self.engine.commit(perform)
            if not self._quiet(rp):
                steps = req.context.get("steps", flow.NO_STEPS)
                kind, namespace, name = object_ref(obj, rp.resource.kind)
                revision = (obj.get("metadata") or {}).get("resourceVersion", "")
                word = "deleted" if verb == "delete" else "stored"
                await self.engine.hop("etcd", "apiserver", "ack", kind, namespace, name, steps.stored,
                                      f"etcd confirms: {_noun(kind, namespace, name)} {word} at revision {revision}")
        finally:
            self._inflight -= 1
        async with self.engine.activity():
            try:
                await self.catch_up(resource_version(obj))
            except kv.StoreUnavailable:
                # The write itself is committed, so it is reported as done; the watch cache reads it
                # once the database answers again, and the tailer hands its event to the watchers.
                pass
        return obj

    async def catch_up(self, upto: int | None = None) -> None:
        """Fan every committed event out to the component watchers, in revision order.

        With ``upto`` (a write's revision), the log is read only if the watch cache has not read
        that far yet; without it, only what the cache holds is published.
        """
        async with self._lock:
            if upto is not None:
                await self.follower.refresh(upto)
            if self.published < self.follower.floor:
                await self._publish_from_store()
            # Writes committed together are published as their writers go on, one by one.
            held = self.engine.held_revision
            for event in self.follower.since(self.published):
                if held is not None and event.revision >= held:
                    break
                self._offer(event)

    def _offer(self, event: kv.Event) -> None:
        self.published = event.revision
        fanout = self._ordered.get(event.resource)
        if fanout is not None:
            for watcher in fanout.offered(event):
                watcher.offer(event)

    async def _publish_from_store(self) -> None:
        """Events older than the watch cache holds (this gate fell far behind): read them from the log."""
        while self.published < self.follower.floor:
            events = await _events_since(self.cid, self.published, 1000)
            for event in events:
                if event.revision <= self.follower.floor:
                    self._offer(event)
            if len(events) < 1000:
                return

    async def watch(
        self, req: ApiRequest, rp: ResourcePath, start: int, classify: Classify, trigger: str | None
    ) -> AsyncIterator[dict[str, Any]] | None:
        if req.client in flow.CLIENTS or req.client == "client":
            return None
        if start < 0:
            start = self.published
        watcher = _Watcher(self, req.client, rp, start, classify, trigger)
        async with self._lock:
            if start < self.published:
                if start >= self.follower.floor:
                    backlog = self.follower.since(start)
                else:
                    try:
                        backlog = await _events_since(self.cid, start, 100_000)
                    except kv.Compacted as exc:
                        raise errors.expired(str(exc)) from None
                for event in backlog:
                    if (
                        event.revision <= self.published
                        and event.resource == watcher.key
                        and (not watcher.namespace or event.namespace == watcher.namespace)
                    ):
                        kind = classify(event)
                        if kind:
                            watcher.queue.append({"type": kind, "object": event.object})
            watcher.start = max(start, self.published)
            self.watchers.add(watcher)
            self._reorder()
        return watcher.events()

    def _reorder(self) -> None:
        ordered: dict[str, list[_Watcher]] = {}
        for watcher in sorted(self.watchers, key=lambda w: (w.component, w.key, w.namespace, w.start)):
            ordered.setdefault(watcher.key, []).append(watcher)
        self._ordered = {resource: _Fanout(resource, watchers) for resource, watchers in ordered.items()}

    def start_tailer(self) -> None:
        """Pick up writes made elsewhere (other processes, management commands) as the watch cache reads them."""
        if self._tailer is None:
            self._tailer = asyncio.get_running_loop().create_task(self._tail())

    async def _tail(self) -> None:
        moved = self.follower.moved
        while True:
            await moved.wait()
            moved.clear()
            if self._inflight or not self.follower.since(self.published):
                continue  # a local write publishes its own events, in flow order
            async with self.engine.activity():
                await self.catch_up()

    async def stop(self) -> None:
        if self._tailer is not None:
            self._tailer.cancel()
            await asyncio.gather(self._tailer, return_exceptions=True)
            self._tailer = None
        watchcache.release(self.follower)
