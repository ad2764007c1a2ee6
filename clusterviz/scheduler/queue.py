"""The scheduling queue as a pure data structure over simulated time (seconds, passed in).

Upstream: ``pkg/scheduler/backend/queue/{scheduling_queue,backoff_queue}.go`` (v1.35,
with queueing hints and SchedulerPopFromBackoffQ on, both defaults):

* **activeQ**: Pods to try, highest ``spec.priority`` first, then oldest timestamp.
* **backoffQ**: Pods waiting out a per-Pod backoff of 1 s doubling to 10 s by
  attempts. Backoff ends are rounded down to whole-second windows, so a Pod
  leaves backoff at the first whole second after its window. When activeQ is
  empty, ``pop`` takes the head of backoffQ right away (SchedulerPopFromBackoffQ).
  Pods that failed with an error (no rejecting plugin) wait in a separate error
  backoff that is never popped early.
* **unschedulable pool**: rejected Pods wait here until a cluster event that one
  of their rejecting plugins registered (and whose hint says Queue) moves them,
  or until they have waited more than 5 minutes (checked every 30 s).
* Pods with ``spec.schedulingGates`` stay in the pool until the gates are gone.

Events that happen while a Pod is being scheduled ("in flight") are remembered
and checked when the attempt fails, as upstream does.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from clusterviz.scheduler.framework import (
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
    pod_update_events,
)

DEFAULT_POD_INITIAL_BACKOFF = 1.0
DEFAULT_POD_MAX_BACKOFF = 10.0
DEFAULT_POD_MAX_IN_UNSCHEDULABLE = 300.0
UNSCHEDULABLE_FLUSH_INTERVAL = 30.0
BACKOFF_ORDERING_WINDOW = 1.0

ACTIVE, BACKOFF, UNSCHEDULABLE, IN_FLIGHT = "active", "backoff", "unschedulable", "inFlight"
_SKIP, _AFTER_BACKOFF = 0, 1


def pod_key(pod: Mapping[str, Any]) -> str:
    """``namespace/name`` of a Pod object."""
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"


@dataclass
class QueuedPodInfo:
    """A Pod in the queue with its bookkeeping (``attempts`` counts pops)."""

    pod: Mapping[str, Any]
    key: str
    timestamp: float
    attempts: int = 0
    initial_attempt_timestamp: float | None = None
    unschedulable_plugins: frozenset[str] = frozenset()
    gating_plugin: str = ""
    backoff_expiration: float | None = None
    seq: int = 0
    gate_message: str = field(default="", repr=False)

    @property
    def priority(self) -> int:
        """``spec.priority`` (0 when unset)."""
        return int((self.pod.get("spec") or {}).get("priority") or 0)

    @property
    def gated(self) -> bool:
        """True while a PreEnqueue plugin holds the Pod back."""
        return bool(self.gating_plugin)


class SchedulingQueue:
    """activeQ, backoffQ and the unschedulable pool, driven by explicit ``now`` values.

    ``events`` maps plugin name -> the events it registered (``Profile.events_to_register()``);
    ``pre_enqueue`` are the PreEnqueue plugins (SchedulingGates by default).
    """

    def __init__(
        self,
        events: Mapping[str, Sequence[ClusterEventWithHint]] | None = None,
        *,
        pre_enqueue: Sequence[Any] | None = None,
        initial_backoff: float = DEFAULT_POD_INITIAL_BACKOFF,
        max_backoff: float = DEFAULT_POD_MAX_BACKOFF,
        max_in_unschedulable: float = DEFAULT_POD_MAX_IN_UNSCHEDULABLE,
        ordering_window: float = BACKOFF_ORDERING_WINDOW,
        pop_from_backoff: bool = True,
        start: float = 0.0,
    ) -> None:
        from clusterviz.scheduler.plugins import SchedulingGates

        self.events = {name: list(evs) for name, evs in (events or {}).items()}
        self.pre_enqueue = list(pre_enqueue) if pre_enqueue is not None else [SchedulingGates()]
        if pre_enqueue is None:
            self.events.setdefault("SchedulingGates", self.pre_enqueue[0].events_to_register())
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self.max_in_unschedulable = max_in_unschedulable
        self.ordering_window = ordering_window
        self.pop_from_backoff = pop_from_backoff
        self.start = start
        self._last_flush = start  # upstream's 30 s flush loop first runs at start-up
        self._seq = itertools.count()
        self._active: dict[str, QueuedPodInfo] = {}
        self._active_heap: list[tuple[int, float, int, str]] = []
        self._backoff: dict[str, QueuedPodInfo] = {}
        self._error_backoff: dict[str, QueuedPodInfo] = {}
        self._unschedulable: dict[str, QueuedPodInfo] = {}
        self._in_flight: dict[str, list[tuple[ClusterEvent, Any, Any]]] = {}
        self._in_flight_info: dict[str, QueuedPodInfo] = {}
        # Keys whose latest Pod object came with a nominatedNodeName (and may be stale, never missing one):
        # with none, ``nominated_pods`` need not look through the whole queue on every attempt.
        self._maybe_nominated: set[str] = set()

    @classmethod
    def for_profile(cls, profile: Any, configuration: Any = None, start: float = 0.0) -> SchedulingQueue:
        """A queue wired to a profile's events and PreEnqueue plugins (and a configuration's backoffs)."""
        from clusterviz.scheduler.plugins import PRE_ENQUEUE

        kwargs: dict[str, Any] = {}
        if configuration is not None:
            kwargs["initial_backoff"] = float(configuration.pod_initial_backoff_seconds)
            kwargs["max_backoff"] = float(configuration.pod_max_backoff_seconds)
        return cls(profile.events_to_register(), pre_enqueue=profile.at(PRE_ENQUEUE), start=start, **kwargs)

    def reconfigure(self, profile: Any, configuration: Any) -> None:
        """Adopt a new profile's event registrations and PreEnqueue plugins, and its backoffs; keep every Pod."""
        from clusterviz.scheduler.plugins import PRE_ENQUEUE

        self.events = {name: list(evs) for name, evs in profile.events_to_register().items()}
        self.pre_enqueue = profile.at(PRE_ENQUEUE)
        self.initial_backoff = float(configuration.pod_initial_backoff_seconds)
        self.max_backoff = float(configuration.pod_max_backoff_seconds)
        for store in (self._backoff, self._error_backoff, self._unschedulable):
            for p in store.values():
                p.backoff_expiration = None  # cached under the old backoff settings

    # --- time ---------------------------------------------------------------------------

    def _align(self, t: float) -> float:
        return math.floor(t / self.ordering_window) * self.ordering_window if self.ordering_window else t

    def backoff_duration(self, attempts: int) -> float:
        """1 s, 2 s, 4 s, 8 s, then 10 s: ``initial * 2^(attempts-1)`` capped (0 before any attempt)."""
        if attempts <= 0:
            return 0.0
        return min(self.initial_backoff * 2 ** min(attempts - 1, 62), self.max_backoff)

    def backoff_expiration(self, p: QueuedPodInfo) -> float | None:
        """When the Pod's backoff window ends (None: never tried, so no backoff)."""
        if p.attempts == 0:
            return None
        if p.backoff_expiration is None:
            p.backoff_expiration = self._align(p.timestamp + self.backoff_duration(p.attempts))
        return p.backoff_expiration

    def is_backing_off(self, p: QueuedPodInfo, now: float) -> bool:
        """Upstream: still backing off while the expiry is not before the current window."""
        expiration = self.backoff_expiration(p)
        if expiration is None:
            return False
        if self.ordering_window:
            return not expiration < self._align(now)
        return expiration > now

    def _backoff_done_at(self, p: QueuedPodInfo) -> float:
        expiration = self.backoff_expiration(p) or 0.0
        return expiration + self.ordering_window if self.ordering_window else expiration

    def _advance(self, now: float) -> None:
        # flushBackoffQCompleted (every window) ...
        for store in (self._backoff, self._error_backoff):
            for key in [k for k, p in store.items() if not self.is_backing_off(p, now)]:
                self._to_active(store.pop(key), now)
        # ... and flushUnschedulablePodsLeftover (every 30 s).
        ticks = math.floor((now - self.start) / UNSCHEDULABLE_FLUSH_INTERVAL)
        tick = self.start + ticks * UNSCHEDULABLE_FLUSH_INTERVAL
        if tick > self._last_flush:
            self._last_flush = tick
            stale = [k for k, p in self._unschedulable.items() if tick - p.timestamp > self.max_in_unschedulable]
            for key in stale:
                self._requeue(self._unschedulable.pop(key), _AFTER_BACKOFF, tick)

    # --- moving Pods --------------------------------------------------------------------

    def _gate(self, p: QueuedPodInfo) -> bool:
        for plugin in self.pre_enqueue:
            status = plugin.pre_enqueue(p.pod)
            if not status.is_success:
                p.gating_plugin = plugin.name
                p.gate_message = status.message
                p.unschedulable_plugins = p.unschedulable_plugins | {plugin.name}
                return True
        if p.gating_plugin:
            p.unschedulable_plugins = p.unschedulable_plugins - {p.gating_plugin}
        p.gating_plugin = ""
        return False

    def _to_active(self, p: QueuedPodInfo, now: float, from_backoff: bool = True) -> None:
        if not from_backoff and self._gate(p):
            self._unschedulable[p.key] = p
            return
        if p.initial_attempt_timestamp is None:
            p.initial_attempt_timestamp = now
        p.seq = next(self._seq)
        self._active[p.key] = p
        heapq.heappush(self._active_heap, (-p.priority, p.timestamp, p.seq, p.key))

    def _to_backoff(self, p: QueuedPodInfo) -> None:
        if self._gate(p):
            self._unschedulable[p.key] = p
            return
        p.seq = next(self._seq)
        (self._backoff if p.unschedulable_plugins else self._error_backoff)[p.key] = p

    def _requeue(self, p: QueuedPodInfo, strategy: int, now: float) -> str:
        if strategy == _SKIP:
            self._unschedulable[p.key] = p
            return UNSCHEDULABLE
        if self.is_backing_off(p, now):
            self._to_backoff(p)
        else:
            self._to_active(p, now, from_backoff=False)
        return self.where(p.key) or UNSCHEDULABLE

    def _worth_requeuing(self, p: QueuedPodInfo, event: ClusterEvent, old: Any, new: Any) -> int:
        if not p.unschedulable_plugins or event.is_wildcard:
            return _AFTER_BACKOFF
        for plugin in sorted(p.unschedulable_plugins):
            for registered in self.events.get(plugin, ()):
                if not registered.event.matches(event):
                    continue
                try:
                    hint = registered.hint(p.pod, old, new) if registered.hint else QueueingHint.QUEUE
                except Exception:  # noqa: BLE001 - upstream treats a failing hint as Queue
                    hint = QueueingHint.QUEUE
                if hint is QueueingHint.QUEUE:
                    return _AFTER_BACKOFF
        return _SKIP

    # --- operations ---------------------------------------------------------------------

    def add(self, pod: Mapping[str, Any], now: float) -> str:
        """A new unscheduled Pod: into activeQ (or the pool while gated). Returns where it went."""
        key = pod_key(pod)
        if self.where(key) is not None:
            return self.update(None, pod, now)
        self._note_nomination(key, pod)
        self._advance(now)
        self._to_active(QueuedPodInfo(pod, key, now), now, from_backoff=False)
        return self.where(key) or UNSCHEDULABLE

    def update(self, old: Mapping[str, Any] | None, new: Mapping[str, Any], now: float) -> str:
        """The Pod object changed: update it in place, or requeue it if the change may help."""
        self._advance(now)
        key = pod_key(new)
        self._note_nomination(key, new)
        events = pod_update_events(old, new) if old is not None else []
        if key in self._in_flight:
            self._record(events, old, new)
            self._in_flight_info[key].pod = new
            return IN_FLIGHT
        if key in self._active:
            p = self._active[key]
            p.pod = new
            p.seq = next(self._seq)  # the old heap entry goes stale; priority may have changed
            heapq.heappush(self._active_heap, (-p.priority, p.timestamp, p.seq, key))
            return ACTIVE
        for store in (self._backoff, self._error_backoff):
            if key in store:
                store[key].pod = new
                return BACKOFF
        if key in self._unschedulable:
            p = self._unschedulable[key]
            p.pod = new
            for event in events:
                if self._worth_requeuing(p, event, old, new) != _SKIP:
                    del self._unschedulable[key]
                    return self._requeue(p, _AFTER_BACKOFF, now)
            return UNSCHEDULABLE
        self._to_active(QueuedPodInfo(new, key, now), now, from_backoff=False)
        return self.where(key) or UNSCHEDULABLE

    def delete(self, pod: Mapping[str, Any] | str) -> None:
        """The Pod is gone (deleted, or bound by someone else): forget it everywhere."""
        key = pod if isinstance(pod, str) else pod_key(pod)
        for store in (self._active, self._backoff, self._error_backoff, self._unschedulable, self._in_flight_info):
            store.pop(key, None)
        self._in_flight.pop(key, None)
        self._maybe_nominated.discard(key)

    def pop(self, now: float) -> QueuedPodInfo | None:
        """The next Pod to try, or None. Counts an attempt and marks the Pod in flight."""
        self._advance(now)
        p = None
        while self._active_heap and p is None:
            _, _, seq, key = heapq.heappop(self._active_heap)
            candidate = self._active.get(key)
            if candidate is not None and candidate.seq == seq:
                p = self._active.pop(key)
        if p is None and self.pop_from_backoff and self._backoff:
            key = min(self._backoff, key=lambda k: self._backoff_order(self._backoff[k]))
            p = self._backoff.pop(key)
        if p is None:
            return None
        p.attempts += 1
        p.backoff_expiration = None
        if p.initial_attempt_timestamp is None:
            p.initial_attempt_timestamp = now
        self._in_flight[p.key] = []
        self._in_flight_info[p.key] = p
        return p

    def _backoff_order(self, p: QueuedPodInfo) -> tuple[float, int, float, int]:
        return (self.backoff_expiration(p) or 0.0, -p.priority, p.timestamp, p.seq)

    def add_unschedulable(self, p: QueuedPodInfo, unschedulable_plugins: Iterable[str], now: float) -> str:
        """The attempt failed: park the Pod, or requeue it if an event during the attempt could help.

        With no rejecting plugin (an error), the Pod goes to the error backoff.
        """
        self._advance(now)
        events = self._in_flight.pop(p.key, [])
        self._in_flight_info.pop(p.key, None)
        p.timestamp = now
        p.unschedulable_plugins = frozenset(unschedulable_plugins)
        if not p.unschedulable_plugins:
            return self._requeue(p, _AFTER_BACKOFF, now)
        strategy = max((self._worth_requeuing(p, e, o, n) for e, o, n in events), default=_SKIP)
        return self._requeue(p, strategy, now)

    def done(self, key: str) -> None:
        """The attempt succeeded (the Pod is bound): stop tracking it."""
        self._in_flight.pop(key, None)
        self._in_flight_info.pop(key, None)
        self._maybe_nominated.discard(key)

    def _record(self, events: Iterable[ClusterEvent], old: Any, new: Any) -> None:
        for event in events:
            for pending in self._in_flight.values():
                pending.append((event, old, new))

    def move_all_on_event(self, event: ClusterEvent, now: float, old: Any = None, new: Any = None) -> list[str]:
        """A cluster event: requeue every parked Pod whose rejecting plugins say it may help now.

        Returns the keys moved out of the unschedulable pool.
        """
        self._advance(now)
        self._record([event], old, new)
        moved = []
        for key in list(self._unschedulable):
            p = self._unschedulable[key]
            strategy = self._worth_requeuing(p, event, old, new)
            if strategy != _SKIP:
                del self._unschedulable[key]
                if self._requeue(p, strategy, now) != UNSCHEDULABLE:
                    moved.append(key)
        return moved

    def next_wakeup(self, now: float) -> float | None:
        """The earliest time at which ``pop`` could return a Pod (``now`` if it can already), or None."""
        self._advance(now)
        if self._active or (self.pop_from_backoff and self._backoff):
            return now
        times = [self._backoff_done_at(p) for p in (*self._backoff.values(), *self._error_backoff.values())]
        for p in self._unschedulable.values():
            if p.gated:
                continue
            due = p.timestamp + self.max_in_unschedulable
            tick = (
                self.start
                + (math.floor((due - self.start) / UNSCHEDULABLE_FLUSH_INTERVAL) + 1) * UNSCHEDULABLE_FLUSH_INTERVAL
            )
            times.append(max(tick, self._last_flush + UNSCHEDULABLE_FLUSH_INTERVAL))
        return min(times) if times else None

    # --- inspection ---------------------------------------------------------------------

    def where(self, key: str) -> str | None:
        """Which queue holds the Pod: active, backoff, unschedulable, inFlight, or None."""
        if key in self._active:
            return ACTIVE
        if key in self._backoff or key in self._error_backoff:
            return BACKOFF
        if key in self._unschedulable:
            return UNSCHEDULABLE
        if key in self._in_flight:
            return IN_FLIGHT
        return None

    def get(self, key: str) -> QueuedPodInfo | None:
        """The queued info of a Pod wherever it is."""
        for store in (self._active, self._backoff, self._error_backoff, self._unschedulable, self._in_flight_info):
            if key in store:
                return store[key]
        return None

    def pending_pods(self) -> dict[str, list[str]]:
        """Keys per queue (active in pop order)."""
        active = sorted(self._active.values(), key=lambda p: (-p.priority, p.timestamp, p.seq))
        return {
            ACTIVE: [p.key for p in active],
            BACKOFF: sorted([*self._backoff, *self._error_backoff]),
            UNSCHEDULABLE: list(self._unschedulable),
            IN_FLIGHT: list(self._in_flight),
        }

    def _note_nomination(self, key: str, pod: Mapping[str, Any]) -> None:
        if (pod.get("status") or {}).get("nominatedNodeName"):
            self._maybe_nominated.add(key)
        else:
            self._maybe_nominated.discard(key)

    def nominated_pods(self) -> list[Mapping[str, Any]]:
        """The waiting Pods an earlier preemption nominated to a node (upstream's PodNominator)."""
        if not self._maybe_nominated:
            return []
        stores = (self._active, self._backoff, self._error_backoff, self._unschedulable)
        return [p.pod for store in stores for p in store.values() if (p.pod.get("status") or {}).get("nominatedNodeName")]

    def __len__(self) -> int:
        return len(self._active) + len(self._backoff) + len(self._error_backoff) + len(self._unschedulable)
