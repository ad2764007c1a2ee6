"""Pod bookkeeping of the ReplicaSet controllers, after pkg/controller/controller_utils.go.

Expectations (what a controller waits to see in its cache), the Pod a
template makes, and the order in which surplus Pods are deleted.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from clusterviz.api import errors
from clusterviz.api.client import Client
from clusterviz.api.component import Engine
from clusterviz.api.informer import Informer, key_of
from clusterviz.api.record import EventRecorder
from clusterviz.apimachinery.unstructured import deep_copy

from .util import (
    Obj,
    annotations_of,
    is_pod_active,
    is_pod_ready,
    max_restarts,
    meta,
    new_controller_ref,
    run_parallel,
    spec,
    status,
)

# Expectations older than this are given up on (upstream's ExpectationsTimeout, 5 minutes).
EXPECTATIONS_TTL = 300.0
DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost"
PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}
# generateName keeps room for the 5 random characters within a 63-character name.
GENERATED_PREFIX_MAX = 58
SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
NAME_ATTEMPTS = 8


class Expectations:
    """Pods a controller has created or deleted but not yet seen in its cache, per controller key."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._adds: dict[str, dict[str, None]] = {}
        self._dels: dict[str, dict[str, None]] = {}
        self._since: dict[str, float] = {}

    def expect_creation(self, key: str, pod_key: str) -> None:
        """Wait for ``pod_key`` to appear before managing ``key`` again."""
        self._adds.setdefault(key, {})[pod_key] = None
        self._since[key] = self.engine.now

    def expect_deletions(self, key: str, pod_keys: list[str]) -> None:
        """Wait for these Pods to be seen deleted (or terminating) before managing ``key`` again."""
        self._dels.setdefault(key, {}).update(dict.fromkeys(pod_keys))
        self._since[key] = self.engine.now

    def creation_observed(self, key: str, pod_key: str) -> None:
        """The cache holds ``pod_key`` (a second sighting changes nothing)."""
        self._adds.get(key, {}).pop(pod_key, None)

    def deletion_observed(self, key: str, pod_key: str) -> None:
        """The cache saw ``pod_key`` go (a second sighting changes nothing)."""
        self._dels.get(key, {}).pop(pod_key, None)

    def pending(self, key: str) -> tuple[int, int]:
        """(creations, deletions) still to be observed."""
        return len(self._adds.get(key, ())), len(self._dels.get(key, ()))

    def satisfied(self, key: str) -> bool:
        """True when every expected Pod has been observed, or the expectations expired."""
        if not self._adds.get(key) and not self._dels.get(key):
            return True
        return self.engine.now - self._since.get(key, self.engine.now) > EXPECTATIONS_TTL

    def forget(self, key: str) -> None:
        """Drop every expectation of ``key``."""
        self._adds.pop(key, None)
        self._dels.pop(key, None)
        self._since.pop(key, None)


class PodController(Protocol):
    """What PodControl uses of the controller it works for (read at each call, so a test may swap the client)."""

    client: Client
    recorder: EventRecorder
    rng: random.Random
    pods: Informer
    expectations: Expectations


class PodControl:
    """RealPodControl: a controller's Pod creations and deletions, with its expectations and upstream's events
    (SuccessfulCreate, FailedCreate, SuccessfulDelete, FailedDelete)."""

    def __init__(self, controller: PodController) -> None:
        self.controller = controller

    async def create(self, owner: Obj, key: str, prefix: str = "") -> None:
        """One Pod of ``owner``'s template (a copy of the owner may carry a template made for this Pod), named
        ``prefix`` (the owner's name and a dash by default) and five random characters."""
        ctl = self.controller
        namespace = meta(owner).get("namespace", "")
        prefix = (prefix or f"{meta(owner).get('name')}-")[:GENERATED_PREFIX_MAX]
        for _ in range(NAME_ATTEMPTS):
            # Named here from the seeded random source (not by the API server) so that runs repeat.
            name = prefix + "".join(ctl.rng.choice(SUFFIX_ALPHABET) for _ in range(5))
            pod_key = f"{namespace}/{name}"
            if pod_key in ctl.pods.cache:
                continue
            ctl.expectations.expect_creation(key, pod_key)
            try:
                await ctl.client.create(pod_from_template(owner, name, prefix), namespace, handed_over=True)
            except errors.StatusError as exc:
                ctl.expectations.creation_observed(key, pod_key)
                if exc.reason == "AlreadyExists":
                    continue
                if not errors.has_cause(exc, errors.NAMESPACE_TERMINATING_CAUSE):
                    # As upstream: no event for a namespace being deleted, where every create fails.
                    await ctl.recorder.event(owner, "Warning", "FailedCreate", f"Error creating: {exc.message}")
                raise
            await ctl.recorder.event(owner, "Normal", "SuccessfulCreate", f"Created pod: {name}")
            return
        raise errors.already_exists("pods", "", prefix)

    async def delete(self, owner: Obj, key: str, namespace: str, name: str) -> None:
        """Delete one of ``owner``'s Pods (its deletion is expected already)."""
        ctl = self.controller
        try:
            await ctl.client.delete("pods", name, namespace)
        except errors.StatusError as exc:
            # The informer will never report this deletion, so stop waiting for it.
            ctl.expectations.deletion_observed(key, f"{namespace}/{name}")
            if exc.code != 404:
                await ctl.recorder.event(owner, "Warning", "FailedDelete", f"Error deleting: {exc.message}")
            raise
        await ctl.recorder.event(owner, "Normal", "SuccessfulDelete", f"Deleted pod: {name}")


async def slow_start_batch(
    engine: Engine, name: str, jobs: Sequence[Callable[[], Awaitable[None]]]
) -> errors.StatusError | None:
    """slowStartBatch: 1, then 2, 4, ... jobs side by side, stopping at the first batch with a failure."""
    done, batch = 0, min(len(jobs), 1)
    while batch > 0:
        for result in await run_parallel(engine, name, jobs[done : done + batch]):
            if isinstance(result, errors.StatusError):
                return result
            if result is not None:
                raise result
        done += batch
        batch = min(2 * batch, len(jobs) - done)
    return None


def pod_from_template(owner: Obj, name: str, prefix: str) -> Obj:
    """controller.GetPodFromTemplate: a Pod of the owner's template, controlled by the owner."""
    template = spec(owner).get("template") or {}
    template_meta = template.get("metadata") or {}
    pod_meta: dict[str, Any] = {"name": name, "generateName": prefix, "namespace": meta(owner).get("namespace")}
    for field in ("labels", "annotations", "finalizers"):
        if template_meta.get(field):
            pod_meta[field] = deep_copy(template_meta[field])
    pod_meta["ownerReferences"] = [new_controller_ref(owner)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": deep_copy(template.get("spec") or {})}


def _deletion_cost(pod: Obj) -> int:
    try:
        return int(annotations_of(pod).get(DELETION_COST_ANNOTATION, "0"))
    except ValueError:
        return 0


def _after_or_zero(first: Any, second: Any) -> bool:
    """Upstream's afterOrZero: a missing time counts as the earliest."""
    if first is None or second is None:
        return first is None
    return bool(first > second)


def pods_to_delete(
    pods: list[Obj],
    related: list[Obj],
    count: int,
    ready_since: Callable[[Obj], float | None],
    creation_rank: Callable[[Obj], tuple[str, int]],
) -> list[Obj]:
    """getPodsToDelete: the ``count`` Pods upstream's ActivePodsWithRanks puts first.

    Unscheduled before scheduled, Pending before Unknown before Running, not
    ready before ready, lower pod-deletion-cost first, more colocated related
    Pods first, ready for less time first, more restarts first, newest first.
    """
    if count >= len(pods):
        return pods[:count]
    on_node: dict[str, int] = {}
    for pod in related:
        if is_pod_active(pod):
            node = spec(pod).get("nodeName") or ""
            on_node[node] = on_node.get(node, 0) + 1
    ranks = {key_of(p): on_node.get(spec(p).get("nodeName") or "", 0) for p in pods}

    def less(a: Obj, b: Obj) -> bool:
        node_a, node_b = spec(a).get("nodeName") or "", spec(b).get("nodeName") or ""
        if node_a != node_b and (not node_a or not node_b):
            return not node_a
        phase_a = PHASE_ORDINAL.get(status(a).get("phase", ""), 0)
        phase_b = PHASE_ORDINAL.get(status(b).get("phase", ""), 0)
        if phase_a != phase_b:
            return phase_a < phase_b
        if is_pod_ready(a) != is_pod_ready(b):
            return not is_pod_ready(a)
        if _deletion_cost(a) != _deletion_cost(b):
            return _deletion_cost(a) < _deletion_cost(b)
        if ranks[key_of(a)] != ranks[key_of(b)]:
            return ranks[key_of(a)] > ranks[key_of(b)]
        if is_pod_ready(a) and is_pod_ready(b):
            ready_a, ready_b = ready_since(a), ready_since(b)
            if ready_a != ready_b:
                return _after_or_zero(ready_a, ready_b)
        if max_restarts(a) != max_restarts(b):
            return max_restarts(a) > max_restarts(b)
        created_a, created_b = creation_rank(a), creation_rank(b)
        if created_a != created_b:
            return _after_or_zero(created_a, created_b)
        return False

    def compare(a: Obj, b: Obj) -> int:
        return -1 if less(a, b) else (1 if less(b, a) else 0)

    return sorted(pods, key=functools.cmp_to_key(compare))[:count]
