"""A cluster's simulation engine: the bus, the simulated clock and the modes.

Every hop is a ``Message``. Components wait on engine primitives (``hop``,
``sleep``, watch deliveries); the engine delivers one thing at a time, and
only when nothing is running, so a run is a deterministic sequence:
deliver, let the woken component work until it waits again, deliver the next.

Modes: ``live`` (simulated time = wall time x speed), ``paused``, ``step``
(each ``step()`` call delivers exactly one message) and ``fast-forward``
(deliver at once; jump the clock to the next timer when idle).

Store writes wait for the engine too: the writes asked for while the engine's work runs, and
those of write hops delivered one after another at the same simulated instant, are committed
together in one transaction once nothing else is left to run at that instant. Each keeps its own
revision and watch event, in the order asked, and their writers resume one at a time in that
order, so a run is the same sequence as with a transaction for every write.
"""

from __future__ import annotations

import asyncio
import contextvars
import heapq
import itertools
import logging
import math
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from clusterviz.api import clock
from clusterviz.apimachinery.unstructured import resource_version
from clusterviz.store import batch, kv

from .bus import Message

log = logging.getLogger(__name__)

MODES = ("live", "paused", "step", "fast-forward")
MIN_SPEED, MAX_SPEED = 0.1, 100.0
# Simulated seconds one hop takes on the network.
HOP_LATENCY = 0.05
# Fast-forward keeps running background timers (heartbeats, monitors) this long
# after the last foreground activity, so failures that need time to show still show.
SETTLE_WINDOW = 60.0
TRACE_IN_MEMORY = 20_000
# In live mode a housekeeping timer (a heartbeat, a lease renewal, a monitor pass) may fire up to
# this many simulated seconds late, on a grid of wall-clock moments shared by every engine of the
# process: the idle clusters' renewals then come due together and share one wake-up of the event
# loop and one store transaction, as an operating system coalesces timers that allow some slack.
# Nothing else waits for them: a message or another timer due first still comes on time.
BACKGROUND_SLACK = 1.0


@dataclass(order=True)
class _Timer:
    due: float
    order: int
    background: bool = field(compare=False)
    future: asyncio.Future[None] = field(compare=False, repr=False)
    # What happens when it fires, for people ("image pull on node02 finishes"), and the task that waits.
    what: str = field(default="", compare=False)
    task: str = field(default="", compare=False)


@dataclass(frozen=True)
class Due:
    """The next thing the engine will deliver: a message or a timer, when, what it is and whose it is."""

    type: str  # "message" or "timer"
    time: float
    what: str
    component: str

    def as_dict(self) -> dict[str, Any]:
        """The ``status.next`` shape of ``simulations/default``."""
        return {"type": self.type, "time": round(self.time, 3), "what": self.what, "component": self.component}


def component_of(task_name: str) -> str:
    """The component a task belongs to, from the name it was spawned with.

    Tasks are named by path (``kubelet/node02/pod/default/web``,
    ``controller-manager/deployment-controller``): a kubelet is per node, so
    its lane is ``kubelet/<node>``; every other component is the first part.
    """
    parts = task_name.split("/")
    return "/".join(parts[:2]) if parts[0] == "kubelet" and len(parts) > 1 else parts[0]


class Engine:
    """The bus and clock of one cluster."""

    # False commits every write on its own, at once: the reference the batched runs are held to.
    commit_together = True

    def __init__(
        self, cluster: str, mode: str = "live", speed: float = 1.0, start_time: float = 0.0,
        epoch: datetime | None = None,
    ) -> None:
        self.cluster = cluster
        # The wall-clock moment simulated time 0 stands for; timestamps are epoch + now.
        self.epoch = epoch or datetime.now(UTC) - timedelta(seconds=start_time)
        self.mode = mode
        self.speed = speed
        self._now = start_time
        self._order = itertools.count()
        self.last_seq = 0
        self._pending: list[tuple[float, int, Message]] = []
        self._timers: list[_Timer] = []
        # Tasks doing simulated work right now; the engine delivers only when this is empty.
        self._busy: set[asyncio.Task[Any]] = set()
        self._waiting: dict[asyncio.Future[Any], asyncio.Task[Any]] = {}
        # The messages whose senders wait in ``hop`` for their delivery, by what each waits on.
        self._hops: dict[asyncio.Future[Any], Message] = {}
        self._idle = asyncio.Event()
        self._idle.set()
        self._changed = asyncio.Event()
        # Step requests in arrival order: (True for a skip to the next timer, what the caller waits on).
        self._steps: deque[tuple[bool, asyncio.Future[Any]]] = deque()
        # What the skip being served runs up to (see ``skip``).
        self._target: Message | _Timer | None = None
        self._last_foreground = start_time
        self._loop = asyncio.get_running_loop()
        self._wall_anchor = self._loop.time()
        self._sim_anchor = start_time
        # The simulated time ``wall`` last turned into a timestamp, and that timestamp.
        self._wall_at = (math.nan, self.epoch)
        self.trace: deque[Message] = deque(maxlen=TRACE_IN_MEMORY)
        self.listeners: list[Callable[[Message], None]] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        # Helper tasks that are not simulated work (persistence); cancelled on stop.
        self.background: set[asyncio.Task[Any]] = set()
        self._runner: asyncio.Task[None] | None = None
        self.settled = asyncio.Event()
        # Store writes asked for and not yet committed, and the instant they belong to.
        self._writes: list[tuple[kv.Write, asyncio.Future[Any]]] = []
        self._writes_due = 0.0
        # The due time of the last message delivered or timer fired: the instant work now runs at.
        self._instant = start_time
        # Revisions committed whose writers have not gone on yet: not to be published before they do.
        self._held: deque[int] = deque()
        # How many transactions the engine's own commits took, and how many writes they held.
        self.commits = 0
        self.committed_writes = 0

    # --- time -------------------------------------------------------------------------------

    @property
    def now(self) -> float:
        """Simulated seconds since the cluster's engine started."""
        if self.mode == "live":
            return self._sim_anchor + (self._loop.time() - self._wall_anchor) * self.speed
        return self._now

    def wall(self) -> datetime:
        """Simulated time as a timestamp, for the objects of this cluster."""
        now = self.now
        # Every write stamps the time, and in fast-forward many writes share an instant: one sum per instant.
        if now != self._wall_at[0]:
            self._wall_at = (now, self.epoch + timedelta(seconds=now))
        return self._wall_at[1]

    def _context(self) -> contextvars.Context:
        """A context whose clock is this engine's, for the tasks the engine starts."""
        context = contextvars.copy_context()
        context.run(clock.set_source, self.wall)
        return context

    def _set_now(self, value: float) -> None:
        self._now = max(self.now, value)
        self._sim_anchor = self._now
        self._wall_anchor = self._loop.time()

    def set_mode(self, mode: str, speed: float | None = None) -> None:
        """Switch mode and/or speed; time carries on from where it is."""
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}")
        self._now = self.now
        self._sim_anchor = self._now
        self._wall_anchor = self._loop.time()
        self.mode = mode
        if speed is not None:
            self.speed = min(max(speed, MIN_SPEED), MAX_SPEED)
        if mode == "fast-forward":
            self._last_foreground = self._now
        self._changed.set()

    @property
    def pending(self) -> int:
        return len(self._pending)

    # --- running work -----------------------------------------------------------------------

    @property
    def _running(self) -> int:
        return len(self._busy)

    def _mark(self, task: asyncio.Task[Any], busy: bool) -> None:
        if busy:
            self._busy.add(task)
            self._idle.clear()
        else:
            self._busy.discard(task)
            if not self._busy:
                self._idle.set()

    @asynccontextmanager
    async def activity(self) -> AsyncIterator[None]:
        """Count the current task as running for the enclosed work, so nothing is delivered under it."""
        task = asyncio.current_task()
        assert task is not None
        if task in self._busy:
            yield
            return
        self._mark(task, True)
        try:
            yield
        finally:
            self._mark(task, False)

    async def _block[T](self, future: asyncio.Future[T]) -> T:
        """Wait for the engine to resolve ``future``; the task is idle until then."""
        task = asyncio.current_task()
        assert task is not None
        was_busy = task in self._busy
        self._waiting[future] = task
        self._mark(task, False)
        try:
            return await future
        finally:
            self._waiting.pop(future, None)
            self._mark(task, was_busy)

    def spawn(self, name: str, factory: Callable[[], Awaitable[None]]) -> asyncio.Task[None]:
        """Run a component loop as engine work."""

        async def run() -> None:
            try:
                await factory()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("component %s of cluster %s crashed", name, self.cluster)
            finally:
                current = asyncio.current_task()
                if current is not None:
                    self._mark(current, False)

        task = self._loop.create_task(run(), name=f"{self.cluster}:{name}", context=self._context())
        self._mark(task, True)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # --- primitives ---------------------------------------------------------------------------

    def post(self, message_fields: dict[str, Any], *, future: bool = False, payload: Any = None) -> Message:
        """Queue a message; with ``future`` the sender can wait for its delivery."""
        order = next(self._order)
        msg = Message(due=self.now + HOP_LATENCY, order=order, payload=payload, **message_fields)
        if future:
            msg.future = self._loop.create_future()
        heapq.heappush(self._pending, (msg.due, order, msg))
        self._changed.set()
        return msg

    async def hop(
        self, sender: str, to: str, verb: str, kind: str, namespace: str, name: str, step: int | None, summary: str,
        *, store_write: bool = False,
    ) -> Message:
        """Send a message and wait until it is delivered (``store_write``: its delivery leads to one store write)."""
        msg = self.post(
            {"sender": sender, "to": to, "verb": verb, "kind": kind, "namespace": namespace, "name": name,
             "step": step, "summary": summary, "store_write": store_write},
            future=True,
        )
        future = msg.future
        assert future is not None
        self._hops[future] = msg
        try:
            return await self._block(future)
        finally:
            del self._hops[future]

    def fail_hops(self, task: asyncio.Task[Any], error: BaseException) -> None:
        """Raise ``error`` in ``task`` if it waits for a hop, whose message leaves the bus undelivered."""
        for future, msg in list(self._hops.items()):
            if self._waiting.get(future) is task and not future.done():
                self._pending = [entry for entry in self._pending if entry[2] is not msg]
                heapq.heapify(self._pending)
                self.wake(future, error)

    def _timer(self, seconds: float, background: bool, future: asyncio.Future[Any], what: str) -> None:
        task = asyncio.current_task()
        name = task.get_name().removeprefix(f"{self.cluster}:") if task is not None else ""
        heapq.heappush(
            self._timers, _Timer(self.now + max(seconds, 0.0), next(self._order), background, future, what, name)
        )
        self._changed.set()

    async def sleep(self, seconds: float, *, background: bool = False, what: str = "") -> None:
        """Wait ``seconds`` of simulated time; ``what`` says what happens then, for the simulation's status."""
        future: asyncio.Future[None] = self._loop.create_future()
        self._timer(seconds, background, future, what)
        await self._block(future)

    async def wait_for(
        self, future: asyncio.Future[Any], timeout: float | None = None, *, background: bool = False, what: str = ""
    ) -> Any:
        """Wait on a future resolved through ``wake``, or until ``timeout`` simulated seconds pass (``what`` then)."""
        if timeout is not None:
            self._timer(timeout, background, future, what)
        return await self._block(future)

    def wake(self, future: asyncio.Future[Any], value: Any = None) -> None:
        """Resolve a future a blocked component waits on (counting it running again); an exception is raised in it."""
        if not future.done():
            task = self._waiting.get(future)
            if task is not None:
                self._mark(task, True)
            if isinstance(value, BaseException):
                future.set_exception(value)
            else:
                future.set_result(value)

    # --- store writes -----------------------------------------------------------------------

    async def commit[T](self, perform: Callable[[], Awaitable[T]]) -> T:
        """Run ``perform``, whose store writes wait to be committed with the others of this instant."""
        if not self.commit_together:
            return await perform()
        with batch.collected_by(self._collect):
            return await perform()

    async def _collect(self, write: kv.Write) -> dict[str, Any]:
        if not self._writes:
            self._writes_due = self._instant
        future: asyncio.Future[dict[str, Any]] = self._loop.create_future()
        self._writes.append((write, future))
        self._changed.set()
        return await self._block(future)

    def _joins_writes(self) -> bool:
        """Whether the next delivery is a write hop of the instant whose writes wait, so its write may join them."""
        if self.mode not in ("live", "fast-forward") or self._steps:
            return False
        item = self._next(foreground_only=False)
        return isinstance(item, Message) and item.store_write and item.due == self._writes_due

    async def _commit_writes(self) -> None:
        """Commit the waiting writes in one transaction, then let their writers go on one at a time, in order."""
        waiting, self._writes = self._writes, []
        try:
            results = await batch.commit_all([write for write, _future in waiting])
        except Exception as failure:  # noqa: BLE001 - every write of the batch gets the failure
            results = [failure] * len(waiting)
        self.commits += 1
        self.committed_writes += len(waiting)
        revisions = [resource_version(result) if isinstance(result, dict) else None for result in results]
        self._held.extend(revision for revision in revisions if revision is not None)
        for (_write, future), result, revision in zip(waiting, results, revisions, strict=True):
            if revision is not None:
                self._held.popleft()
            self.wake(future, result)
            await self.wait_idle()

    @property
    def held_revision(self) -> int | None:
        """The oldest revision committed by this engine whose writer has not gone on yet: events from it wait."""
        return self._held[0] if self._held else None

    # --- delivery ---------------------------------------------------------------------------

    def _deliver(self, msg: Message) -> None:
        self._set_now(msg.due)
        self._instant = msg.due
        self.last_seq += 1
        msg.seq = self.last_seq
        msg.time = self.now
        self._last_foreground = self.now
        self.trace.append(msg)
        for listener in list(self.listeners):
            try:
                listener(msg)
            except Exception:
                log.exception("trace listener failed")
        if msg.future is not None:
            self.wake(msg.future, msg)
        elif callable(msg.payload):
            msg.payload(msg)
        # The trace keeps the message for the page; what it carried (a watch delivery holds the object's
        # version, 20,000 of them in a big cluster's trace) is handed over and may go.
        msg.future = msg.payload = None

    def _fire(self, timer: _Timer) -> None:
        self._set_now(timer.due)
        self._instant = timer.due
        if not timer.background:
            self._last_foreground = self.now
        self.wake(timer.future)

    def _next_timer(self) -> _Timer | None:
        while self._timers and self._timers[0].future.done():
            heapq.heappop(self._timers)  # cancelled sleepers
        return self._timers[0] if self._timers else None

    def next_due(self) -> Due | None:
        """What the lesson waits for next: the earliest message or foreground timer; None when nothing is pending.

        Housekeeping (heartbeats, the node monitor) is named only when nothing else is
        due, so an image pull is not hidden behind the heartbeats that fire during it.
        """
        item = self._upcoming()
        return None if item is None else self._due(item)

    def _upcoming(self) -> Message | _Timer | None:
        live = [t for t in self._timers if not t.future.done()]
        foreground = min((t for t in live if not t.background), default=None)
        items: list[Message | _Timer] = [t for t in (foreground,) if t is not None]
        if self._pending:
            items.append(self._pending[0][2])
        if not items and live:
            items.append(min(live))
        return min(items, key=lambda item: (item.due, item.order)) if items else None

    @staticmethod
    def _due(item: Message | _Timer) -> Due:
        if isinstance(item, _Timer):
            component = component_of(item.task)
            return Due("timer", item.due, item.what or f"a timer of {component} fires", component)
        return Due("message", item.due, item.summary, item.sender)

    def waiting_writes(self) -> list[Message]:
        """Clients' writes held on the bus (hops 1-3 of the creation flow), oldest first."""
        return [m for _due, _order, m in sorted(self._pending) if m.step in (1, 2, 3)]

    def _next(self, foreground_only: bool) -> Message | _Timer | None:
        """The earliest pending thing: a message, or a timer due before it."""
        timer = self._next_timer()
        msg = self._pending[0][2] if self._pending else None
        if timer is not None and (msg is None or timer.due < msg.due):
            if foreground_only and timer.background and msg is None:
                foreground = [t for t in self._timers if not t.background and not t.future.done()]
                if not foreground and self.now - self._last_foreground >= SETTLE_WINDOW:
                    return None
            return timer
        return msg

    async def wait_idle(self) -> None:
        """Until no component is running."""
        while self._running > 0:
            await self._idle.wait()
        # Let callbacks scheduled by the last worker run before declaring quiet.
        for _ in range(3):
            await asyncio.sleep(0)
        while self._running > 0:
            await self._idle.wait()

    async def step(self) -> Message | None:
        """Deliver exactly one message (firing timers due before it); None when nothing is left."""
        return await self._request_step(skip=False)

    async def skip(self) -> Due | None:
        """Run until what ``next_due`` names has happened (a timer fired, even a slow background one).

        Everything due before it is delivered first, in order, so a skip is the same
        run as stepping would be; it returns once the woken work waits again.
        """
        return await self._request_step(skip=True)

    async def _request_step(self, skip: bool) -> Any:
        if self.mode != "step":
            self.set_mode("step")
        future: asyncio.Future[Any] = self._loop.create_future()
        self._steps.append((skip, future))
        self._changed.set()
        return await future

    async def run(self) -> None:
        """The delivery loop; runs until cancelled."""
        while True:
            await self.wait_idle()
            self._changed.clear()
            if self._writes and not self._joins_writes():
                await self._commit_writes()
                continue
            if self.mode == "paused":
                self.settled.set()
                await self._changed.wait()
                continue
            if self.mode == "step":
                if not self._steps:
                    self.settled.set()
                    await self._changed.wait()
                    continue
                skip = self._steps[0][0]
                if skip and self._target is None:
                    self._target = self._upcoming()
                target = self._target
                if skip and (target is None or isinstance(target, _Timer) and target.future.done()):
                    # Nothing pending, or the timer was cancelled (its waiter woken) on the way.
                    self._target = None
                    self._steps.popleft()[1].set_result(None if target is None else self._due(target))
                    continue
                # A skip reaches background timers too: a step stops where only housekeeping is left.
                item = self._next(foreground_only=not skip)
                if item is None:
                    self._target = None
                    self._steps.popleft()[1].set_result(None)
                    continue
                if isinstance(item, _Timer):
                    heapq.heappop(self._timers)
                    self._fire(item)
                    if item is target:
                        await self.wait_idle()
                        self._target = None
                        self._steps.popleft()[1].set_result(self._due(item))
                    continue
                heapq.heappop(self._pending)
                self._deliver(item)
                await self.wait_idle()
                if not skip or item is target:
                    self._target = None
                    self._steps.popleft()[1].set_result(item if not skip else self._due(item))
                continue
            item = self._next(foreground_only=self.mode == "fast-forward")
            if item is None:
                self.settled.set()
                await self._changed.wait()
                continue
            if self.mode == "live":
                when = self._wall_due(item)
                if when > self._loop.time():
                    self.settled.clear()
                    try:
                        async with asyncio.timeout_at(when):
                            await self._changed.wait()
                        continue  # something earlier arrived, or the mode changed
                    except TimeoutError:
                        pass
            self.settled.clear()
            if isinstance(item, _Timer):
                heapq.heappop(self._timers)
                self._fire(item)
            else:
                heapq.heappop(self._pending)
                self._deliver(item)

    def _wall_due(self, item: Message | _Timer) -> float:
        """The event loop's time at which live mode delivers ``item`` (see ``BACKGROUND_SLACK``)."""
        wall = self._loop.time()
        when = wall + (item.due - self.now) / self.speed
        if not (isinstance(item, _Timer) and item.background):
            return when
        grid = BACKGROUND_SLACK / self.speed
        slot = math.ceil(when / grid) * grid
        if slot <= wall:
            return when  # its moment has passed already: at once
        others = [t.due for t in self._timers if not t.background and not t.future.done()]
        if self._pending:
            others.append(self._pending[0][0])
        if others:
            slot = min(slot, wall + (min(others) - self.now) / self.speed)
        return max(when, slot)

    def start(self) -> None:
        if self._runner is None:
            self._runner = self._loop.create_task(self.run(), name=f"{self.cluster}:engine", context=self._context())

    async def stop(self) -> None:
        tasks = [t for t in (self._runner, *self._tasks, *self.background) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._runner = None
        for _skip, future in self._steps:
            if not future.done():
                future.set_result(None)

    async def until_settled(self) -> None:
        """Wait until the engine has nothing it would deliver now (fast-forward: the cluster is quiet)."""
        while True:
            self.settled.clear()
            self._changed.set()
            await self.settled.wait()
            await self.wait_idle()
            if self.settled.is_set() and self._running == 0:
                return
