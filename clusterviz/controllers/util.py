"""What every controller shares: object accessors, pod predicates, owner references, indexes and workers.

These follow client-go and k8s.io/kubernetes/pkg/controller: handlers only
enqueue keys, a worker takes keys one at a time and reconciles from the
informer caches, failed keys are retried with exponential backoff.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from clusterviz.api import errors
from clusterviz.api.client import Client
from clusterviz.api.component import Engine
from clusterviz.api.informer import Handler, Informer, WorkQueue, key_of
from clusterviz.apimachinery import labels
from clusterviz.apimachinery.labels import Selector
from clusterviz.apimachinery.unstructured import deep_copy, resource_version

log = logging.getLogger(__name__)

Obj = dict[str, Any]


def meta(obj: Obj) -> dict[str, Any]:
    """The object's metadata (an empty dict when it has none)."""
    value = obj.get("metadata")
    return value if isinstance(value, dict) else {}


def spec(obj: Obj) -> dict[str, Any]:
    """The object's spec (an empty dict when it has none)."""
    value = obj.get("spec")
    return value if isinstance(value, dict) else {}


def status(obj: Obj) -> dict[str, Any]:
    """The object's status (an empty dict when it has none)."""
    value = obj.get("status")
    return value if isinstance(value, dict) else {}


def labels_of(obj: Obj) -> dict[str, str]:
    """metadata.labels."""
    value = meta(obj).get("labels")
    return value if isinstance(value, dict) else {}


def annotations_of(obj: Obj) -> dict[str, str]:
    """metadata.annotations."""
    value = meta(obj).get("annotations")
    return value if isinstance(value, dict) else {}


def deleting(obj: Obj) -> bool:
    """Whether the object carries a deletionTimestamp."""
    return bool(meta(obj).get("deletionTimestamp"))


def owner_refs(obj: Obj) -> list[dict[str, Any]]:
    """metadata.ownerReferences."""
    refs = meta(obj).get("ownerReferences")
    return [r for r in refs if isinstance(r, dict)] if isinstance(refs, list) else []


def controller_ref(obj: Obj) -> dict[str, Any] | None:
    """The owner reference marked ``controller: true`` (metav1.GetControllerOf)."""
    for ref in owner_refs(obj):
        if ref.get("controller") is True:
            return ref
    return None


def new_controller_ref(owner: Obj) -> dict[str, Any]:
    """metav1.NewControllerRef: the reference a controller puts on what it creates or adopts."""
    return {
        "apiVersion": owner.get("apiVersion", ""),
        "kind": owner.get("kind", ""),
        "name": meta(owner).get("name", ""),
        "uid": meta(owner).get("uid", ""),
        "controller": True,
        "blockOwnerDeletion": True,
    }


async def patch_owner_refs(client: Client, plural: str, obj: Obj, refs: list[dict[str, Any]]) -> Obj | None:
    """Adopt or release ``obj`` with the strategic merge patch of ownerReferences upstream's controllers send
    (the uid guards against a namesake); None if it is gone."""
    body = {"metadata": {"ownerReferences": refs, "uid": meta(obj).get("uid")}}
    try:
        return await client.patch(
            plural, meta(obj).get("name", ""), body, meta(obj).get("namespace", ""), patch_type="strategic"
        )
    except errors.StatusError as exc:
        if exc.code == 404:
            return None
        raise


def int_field(obj: dict[str, Any], name: str, default: int = 0) -> int:
    """An integer field, ``default`` when absent (Go's zero value for omitted fields)."""
    value = obj.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def replicas_of(obj: Obj) -> int:
    """spec.replicas (defaulted to 1 by the API server, as upstream)."""
    return int_field(spec(obj), "replicas", 1)


def selector_of(obj: Obj) -> labels.Selector:
    """The workload's selector; a ReplicationController keeps a plain map (raises SelectorError)."""
    raw = spec(obj).get("selector")
    if obj.get("kind") == "ReplicationController":
        return labels.selector_from_set(raw if isinstance(raw, dict) else {})
    return labels.selector_from_label_selector(raw if isinstance(raw, dict) else None)


def selecting(owners: Informer, obj: Obj) -> list[Obj]:
    """The owners of ``obj``'s namespace whose selector matches it (an empty selector matches nothing here)."""
    namespace = meta(obj).get("namespace")
    found = []
    for owner in owners.items():
        if meta(owner).get("namespace") != namespace:
            continue
        try:
            selector = selector_of(owner)
        except labels.SelectorError:
            continue
        if not selector.empty and selector.matches(labels_of(obj)):
            found.append(owner)
    return found


# --- pods ---------------------------------------------------------------------------------------


def pod_condition(pod: Obj, type_: str) -> dict[str, Any] | None:
    """The status condition of that type (Pods and Nodes alike)."""
    for condition in status(pod).get("conditions") or []:
        if isinstance(condition, dict) and condition.get("type") == type_:
            return condition
    return None


def is_pod_ready(pod: Obj) -> bool:
    """podutil.IsPodReady: the Ready condition is True."""
    condition = pod_condition(pod, "Ready")
    return condition is not None and condition.get("status") == "True"


def is_pod_active(pod: Obj) -> bool:
    """controller.IsPodActive: not finished and not being deleted."""
    return status(pod).get("phase") not in ("Succeeded", "Failed") and not deleting(pod)


def max_restarts(pod: Obj) -> int:
    """The highest restartCount among the Pod's containers."""
    return max(
        (int_field(c, "restartCount") for c in status(pod).get("containerStatuses") or [] if isinstance(c, dict)),
        default=0,
    )


@dataclass(frozen=True, slots=True)
class PodFacts:
    """What a workload controller's sync asks of each of its Pods on every pass."""

    active: bool
    deleting: bool
    controller: dict[str, Any] | None
    labels: dict[str, str]
    ready: bool
    # Whether a selector (by its string form, which names it exactly) selects the Pod: every pass asks the
    # same one or two selectors of each Pod, and the labels of a Pod's version never change.
    selected: dict[str, bool] = field(default_factory=dict, compare=False)

    def selected_by(self, selector: Selector) -> bool:
        """``selector.matches(self.labels)``, worked out once per selector."""
        if selector.matches_nothing:
            return False  # its string form is the empty selector's, which selects everything
        key = str(selector)
        found = self.selected.get(key)
        if found is None:
            found = self.selected[key] = selector.matches(self.labels)
        return found


class PodFactsCache:
    """The :class:`PodFacts` of each Pod's latest version, worked out once per version.

    A ReplicaSet's sync looks at every one of its Pods each time one of them changes. An informer never
    changes an object it handed out (a change is a new object), so a Pod's facts hold for as long as the
    same object is asked about; the owner forgets a Pod when the informer deletes it.
    """

    def __init__(self) -> None:
        self._facts: dict[str, tuple[Obj, PodFacts]] = {}

    def of(self, pod: Obj, key: str | None = None) -> PodFacts:
        """``is_pod_active``, ``deleting``, ``controller_ref``, ``labels_of`` and ``is_pod_ready`` of ``pod``.

        ``key`` is the Pod's informer key when the caller has it (an :meth:`Index.entries` pair).
        """
        if key is None:
            key = key_of(pod)
        found = self._facts.get(key)
        if found is not None and found[0] is pod:
            return found[1]
        facts = PodFacts(is_pod_active(pod), deleting(pod), controller_ref(pod), labels_of(pod), is_pod_ready(pod))
        self._facts[key] = (pod, facts)
        return facts

    def forget(self, pod: Obj) -> None:
        """The Pod is gone."""
        self._facts.pop(key_of(pod), None)


# --- indexes ------------------------------------------------------------------------------------


class Index:
    """Keys of an informer's objects grouped by values derived from each object (client-go's indexer).

    Groups are insertion-ordered dicts, never sets, so iterating them is
    deterministic whatever the hash seed.
    """

    def __init__(self, informer: Informer, values: Callable[[Obj], Iterable[str]]) -> None:
        self.informer = informer
        self.values = values
        self._groups: dict[str, dict[str, None]] = {}
        informer.add_handler(Handler(self._on_add, self._on_update, self._on_delete))

    def _on_add(self, obj: Obj) -> None:
        key = key_of(obj)
        for value in self.values(obj):
            self._groups.setdefault(value, {})[key] = None

    def _on_update(self, old: Obj, new: Obj) -> None:
        self._on_delete(old)
        self._on_add(new)

    def _on_delete(self, obj: Obj) -> None:
        key = key_of(obj)
        for value in self.values(obj):
            group = self._groups.get(value)
            if group is not None:
                group.pop(key, None)
                if not group:
                    del self._groups[value]

    def keys(self, value: str) -> list[str]:
        """The keys filed under ``value``."""
        return list(self._groups.get(value, ()))

    def get(self, value: str) -> list[Obj]:
        """The cached objects filed under ``value``."""
        cache = self.informer.cache
        return [cache[k] for k in self._groups.get(value, ()) if k in cache]

    def entries(self, value: str) -> list[tuple[str, Obj]]:
        """The keys and cached objects filed under ``value``."""
        cache = self.informer.cache
        return [(k, cache[k]) for k in self._groups.get(value, ()) if k in cache]

    def has(self, value: str) -> bool:
        """Whether any object is filed under ``value``."""
        return value in self._groups


def by_controller_uid(obj: Obj) -> list[str]:
    """Index function: the uid of the object's controller."""
    ref = controller_ref(obj)
    return [str(ref.get("uid"))] if ref else []


def by_namespace_if_orphan(obj: Obj) -> list[str]:
    """Index function: the namespace of an object without a controller."""
    return [] if controller_ref(obj) else [str(meta(obj).get("namespace") or "")]


def by_namespace(obj: Obj) -> list[str]:
    """Index function: the namespace."""
    return [str(meta(obj).get("namespace") or "")]


def by_node_name(obj: Obj) -> list[str]:
    """Index function: the node a Pod is bound to."""
    node = spec(obj).get("nodeName")
    return [node] if isinstance(node, str) and node else []


def by_uid(obj: Obj) -> list[str]:
    """Index function: the object's own uid."""
    uid = meta(obj).get("uid")
    return [uid] if isinstance(uid, str) and uid else []


def by_owner_uids(obj: Obj) -> list[str]:
    """Index function: the uids of all its owners."""
    return [str(ref.get("uid")) for ref in owner_refs(obj) if ref.get("uid")]


class RecentWrites:
    """A controller's own latest writes, used where they are newer than the informer's copy.

    The watch brings a write back a few hops after the writer has the stored
    object; syncing from the older cached copy in between would only earn a
    409 Conflict (and, on the bus, hops that change nothing).
    """

    def __init__(self) -> None:
        self._objects: dict[str, Obj] = {}

    def remember(self, obj: Obj) -> Obj:
        """Keep a stored object we just got back from a write; returns it."""
        self._objects[key_of(obj)] = obj
        return obj

    def forget(self, key: str) -> None:
        """Drop what we remember of ``key`` (the object was deleted)."""
        self._objects.pop(key, None)

    def fresh(self, cached: Obj | None) -> Obj | None:
        """The newer of the cached object and our last write of it (the cached one once it caught up)."""
        if cached is None:
            return None
        key = key_of(cached)
        mine = self._objects.get(key)
        if mine is None:
            return cached
        if meta(mine).get("uid") != meta(cached).get("uid") or resource_version(mine) <= resource_version(cached):
            del self._objects[key]
            return cached
        return mine


async def write_status(client: Client, written: RecentWrites, obj: Obj, wire: dict[str, Any], plural: str) -> Obj:
    """UpdateStatus with ``wire`` as the whole status, once more from a fresh read after a 409 Conflict."""
    current = obj
    for attempt in range(2):
        body = deep_copy(current)
        body["status"] = wire
        try:
            return written.remember(await client.update(body, sub="status"))
        except errors.StatusError as exc:
            if attempt == 1 or exc.code != 409:
                raise
            current = await client.get(plural, meta(obj).get("name", ""), meta(obj).get("namespace", ""))
    return current


# --- workers ------------------------------------------------------------------------------------


class Worker:
    """A controller's work queue and its one worker loop.

    A key that fails is retried after 5 ms, doubling each time (client-go's
    default controller rate limiter), in simulated time. After MAX_RETRIES the
    key is dropped until its next event, as the endpoints controller does
    upstream: a key failing for ever would keep fast-forward from settling.
    """

    BASE_DELAY = 0.005
    MAX_RETRIES = 15

    def __init__(self, engine: Engine, name: str, sync: Callable[[str], Awaitable[None]]) -> None:
        self.engine = engine
        self.name = name
        self.sync = sync
        self.queue = WorkQueue(engine)
        self._failures: dict[str, int] = {}
        self._waiting: dict[str, float] = {}

    def add(self, key: str) -> None:
        """Queue ``key`` (once, however often it is added before it is taken)."""
        self.queue.add(key)

    def add_after(self, key: str, delay: float, *, background: bool = False) -> None:
        """Add ``key`` once ``delay`` simulated seconds have passed (the earliest request wins).

        A ``background`` wait does not keep fast-forward running (a retry of something others must do).
        """
        if delay <= 0:
            self.add(key)
            return
        due = self.engine.now + delay
        if key in self._waiting and self._waiting[key] <= due:
            return
        self._waiting[key] = due

        async def later() -> None:
            await self.engine.sleep(delay, background=background, what=f"{self.name.rpartition('/')[2]} requeues {key}")
            # A later, earlier-due request has already taken over this key.
            if self._waiting.get(key) == due:
                del self._waiting[key]
                self.add(key)

        self.engine.spawn(f"{self.name}/after", later)

    def start(self) -> None:
        """Run the worker loop as engine work."""
        self.engine.spawn(self.name, self._loop)

    async def _loop(self) -> None:
        while True:
            key = await self.queue.get()
            try:
                await self.sync(key)
            except errors.StatusError as exc:
                log.info("%s: error syncing %s: %s", self.name, key, exc.message)
                self._retry(key)
            except Exception:
                log.exception("%s: error syncing %s", self.name, key)
                self._retry(key)
            else:
                self._failures.pop(key, None)

    def _retry(self, key: str) -> None:
        failures = self._failures.get(key, 0)
        if failures >= self.MAX_RETRIES:
            log.warning("%s: dropping %s after %d retries", self.name, key, failures)
            del self._failures[key]
            return
        self._failures[key] = failures + 1
        self.add_after(key, self.BASE_DELAY * 2**failures)


async def run_parallel(
    engine: Engine, name: str, jobs: Sequence[Callable[[], Awaitable[None]]]
) -> list[Exception | None]:
    """Run ``jobs`` side by side as engine work and wait for all; each job's exception (or None), in order.

    Side by side matters for the lesson: the hops of several Pod creations
    are on the bus at once, as with the goroutines of upstream's slowStartBatch.
    """
    results: list[Exception | None] = [None] * len(jobs)
    if not jobs:
        return results
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    remaining = len(jobs)

    def job_runner(index: int, job: Callable[[], Awaitable[None]]) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            nonlocal remaining
            try:
                await job()
            except Exception as exc:
                results[index] = exc
            finally:
                remaining -= 1
                if remaining == 0:
                    engine.wake(done)

        return run

    for index, job in enumerate(jobs):
        engine.spawn(f"{name}#{index}", job_runner(index, job))
    await engine.wait_for(done)
    return results


def is_conflict(exc: Exception | None) -> bool:
    """A 409 Conflict (a stale resourceVersion), not an AlreadyExists."""
    return isinstance(exc, errors.StatusError) and exc.code == 409 and exc.reason == "Conflict"
