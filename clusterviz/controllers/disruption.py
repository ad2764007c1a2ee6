"""The disruption controller: keeps each PodDisruptionBudget's status, which evictions consult.

For every budget it counts the Pods its selector picks (in its namespace)
that are Ready and not being deleted (currentHealthy), works out how many
must stay (desiredHealthy: minAvailable, or the scale of the Pods'
controllers less maxUnavailable, percentages rounded up as upstream), and
writes disruptionsAllowed = currentHealthy - desiredHealthy (never below 0)
with the ``DisruptionAllowed`` condition. Pods an eviction recorded in
``disruptedPods`` count as gone until they are, or until two minutes pass.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from clusterviz.api import clock, errors
from clusterviz.api.informer import Handler, key_of
from clusterviz.apimachinery import labels

from .util import Obj, Worker, controller_ref, deleting, is_pod_ready, labels_of, meta, replicas_of, spec, status

if TYPE_CHECKING:
    from .manager import ControllerManager

COMPONENT = "disruption-controller"
# DeletionTimeout: an evicted Pod not deleted within this long is counted again.
DELETION_TIMEOUT = timedelta(minutes=2)
# Kinds whose scale counts as a budget's expected Pods (upstream's finders), by the owner's kind.
SCALABLE = {"ReplicaSet": "replicasets", "ReplicationController": "replicationcontrollers", "Deployment": "deployments"}


class ExpectedCountError(Exception):
    """A Pod whose controller has no scale: a percentage or maxUnavailable cannot be worked out."""


class DisruptionController:
    """Writes each PodDisruptionBudget's status from the Pods it selects."""

    def __init__(self, cm: ControllerManager) -> None:
        self.cm = cm
        self.client = cm.client
        self.recorder = cm.ctx.recorder(COMPONENT)
        self.budgets = cm.informers["poddisruptionbudgets"]
        self.pods = cm.informers["pods"]
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        self.budgets.add_handler(Handler(self._queue, lambda _old, new: self._queue(new), lambda pdb: None))
        self.pods.add_handler(Handler(self._pod_changed, lambda _old, new: self._pod_changed(new), self._pod_changed))

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    def _queue(self, pdb: Obj) -> None:
        self.worker.add(key_of(pdb))

    def _pod_changed(self, pod: Obj) -> None:
        namespace = meta(pod).get("namespace", "")
        for pdb in self.budgets.cache.values():
            if meta(pdb).get("namespace") == namespace and _selects(pdb, pod):
                self._queue(pdb)

    def _selected(self, pdb: Obj) -> list[Obj]:
        namespace = meta(pdb).get("namespace", "")
        return [p for p in self.pods.cache.values() if meta(p).get("namespace") == namespace and _selects(pdb, p)]

    async def sync(self, key: str) -> None:
        """Recompute one budget's status."""
        pdb = self.budgets.get(key)
        if pdb is None:
            return
        pods = self._selected(pdb)
        try:
            expected, desired = self._expectations(pdb, pods)
        except ExpectedCountError as exc:
            await self.recorder.event(pdb, "Warning", "CalculateExpectedPodCountFailed",
                                      f"Failed to calculate the number of expected pods: {exc}")
            await self._write(pdb, _failed_status(pdb))
            return
        disrupted, recheck = _still_disrupted(pdb, pods)
        healthy = sum(1 for p in pods if is_pod_ready(p) and not deleting(p) and meta(p).get("name") not in disrupted)
        allowed = max(healthy - desired, 0) if expected > 0 else 0
        await self._write(pdb, _status(pdb, disrupted, allowed, healthy, desired, expected))
        if recheck is not None:
            self.worker.add_after(key, recheck)

    def _expectations(self, pdb: Obj, pods: list[Obj]) -> tuple[int, int]:
        """getExpectedPodCount: (expectedPods, desiredHealthy)."""
        min_available, max_unavailable = spec(pdb).get("minAvailable"), spec(pdb).get("maxUnavailable")
        if max_unavailable is not None:
            expected = self._scale_of_controllers(pods)
            return expected, max(expected - _scaled(max_unavailable, expected), 0)
        if isinstance(min_available, str):
            expected = self._scale_of_controllers(pods)
            return expected, _scaled(min_available, expected)
        return len(pods), int(min_available or 0)

    def _scale_of_controllers(self, pods: list[Obj]) -> int:
        """The sum of the scales of the controllers owning the Pods, each counted once."""
        scales: dict[str, int] = {}
        for pod in pods:
            owner = self._scalable_owner(pod)
            if owner is None:
                raise ExpectedCountError(f'found no controllers for pod "{meta(pod).get("name")}"')
            scales[meta(owner).get("uid", "")] = replicas_of(owner)
        return sum(scales.values())

    def _scalable_owner(self, obj: Obj) -> Obj | None:
        """The Pod's ReplicaSet (or, above it, its Deployment) or ReplicationController."""
        ref = controller_ref(obj)
        if ref is None or ref.get("kind") not in SCALABLE:
            return None
        owner = self.cm.informers[SCALABLE[str(ref["kind"])]].get(f"{meta(obj).get('namespace')}/{ref.get('name')}")
        if owner is None or meta(owner).get("uid") != ref.get("uid"):
            return None
        above = self._scalable_owner(owner) if ref.get("kind") == "ReplicaSet" else None
        return above or owner

    async def _write(self, pdb: Obj, new_status: dict[str, Any]) -> None:
        if new_status == status(pdb):
            return
        try:
            await self.client.update({**pdb, "status": new_status}, sub="status")
        except errors.StatusError as exc:
            if exc.code not in (404, 409):  # gone, or changed: its next event syncs it again
                raise


def _selects(pdb: Obj, pod: Obj) -> bool:
    try:
        selector = labels.selector_from_label_selector(spec(pdb).get("selector"))
    except labels.SelectorError:
        return False
    return selector.matches(labels_of(pod))


def _scaled(value: Any, total: int) -> int:
    """An int as is; a percentage of ``total``, rounded up (GetScaledValueFromIntOrPercent with roundUp)."""
    if isinstance(value, str) and value.endswith("%"):
        return math.ceil(int(value[:-1]) * total / 100)
    return int(value)


def _still_disrupted(pdb: Obj, pods: list[Obj]) -> tuple[dict[str, str], float | None]:
    """disruptedPods kept: evicted, still there and not timed out; and when the first of them times out."""
    present = {meta(p).get("name") for p in pods if not deleting(p)}
    now = clock.now()
    kept: dict[str, str] = {}
    recheck: float | None = None
    for name, stamp in (status(pdb).get("disruptedPods") or {}).items():
        when = clock.parse(str(stamp))
        if name not in present or when is None:
            continue
        left = (when + DELETION_TIMEOUT - now).total_seconds()
        if left > 0:
            kept[name] = stamp
            recheck = left if recheck is None else min(recheck, left)
    return kept, recheck


def _condition(pdb: Obj, state: str, reason: str) -> dict[str, Any]:
    old: dict[str, Any] = next((c for c in status(pdb).get("conditions") or [] if c.get("type") == "DisruptionAllowed"), {})
    since = old.get("lastTransitionTime") if old.get("status") == state else clock.rfc3339()
    return {
        "type": "DisruptionAllowed", "status": state, "observedGeneration": meta(pdb).get("generation", 1),
        "lastTransitionTime": since, "reason": reason, "message": "",
    }


def _status(pdb: Obj, disrupted: dict[str, str], allowed: int, healthy: int, desired: int, expected: int) -> dict[str, Any]:
    out: dict[str, Any] = {"observedGeneration": meta(pdb).get("generation", 1)}
    if disrupted:
        out["disruptedPods"] = disrupted
    out.update(disruptionsAllowed=allowed, currentHealthy=healthy, desiredHealthy=desired, expectedPods=expected)
    out["conditions"] = [_condition(pdb, "True", "SufficientPods") if allowed > 0 else _condition(pdb, "False", "InsufficientPods")]
    return out


def _failed_status(pdb: Obj) -> dict[str, Any]:
    """failSafe: no disruptions allowed while the expected count cannot be known."""
    out = {**status(pdb), "disruptionsAllowed": 0, "observedGeneration": meta(pdb).get("generation", 1)}
    out["conditions"] = [_condition(pdb, "False", "SyncFailed")]
    return out
