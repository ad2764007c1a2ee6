"""The Job tracking finalizer, as upstream's Job controller keeps it on its Pods.

Every Pod a Job makes carries ``batch.kubernetes.io/job-tracking``, so a Pod that ends or is deleted stays
in the API until the Job controller has counted it in the Job's status; then the controller takes the
finalizer off, and a deleted Pod goes. A Pod whose Job is gone (an orphan) is released at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from clusterviz.api import errors
from clusterviz.apimachinery.unstructured import deep_copy

from .util import Obj, controller_ref, meta

if TYPE_CHECKING:
    from clusterviz.api.client import Client

FINALIZER: Final = "batch.kubernetes.io/job-tracking"
# Worker keys of orphaned Pods to release, beside the Jobs' own keys.
ORPHAN: Final = "orphan-pod:"


def tracked(pod: Obj) -> bool:
    """Whether the Pod still carries the tracking finalizer."""
    return FINALIZER in (meta(pod).get("finalizers") or [])


def with_tracking(owner: Obj) -> Obj:
    """A copy of the Job (or of an index's copy of it) whose template puts the finalizer on its Pods."""
    found = deep_copy(owner)
    template_meta = found.setdefault("spec", {}).setdefault("template", {}).setdefault("metadata", {})
    finalizers = template_meta.setdefault("finalizers", [])
    if FINALIZER not in finalizers:
        finalizers.append(FINALIZER)
    return found


def job_pod(pod: Obj) -> bool:
    """Whether a Job controls the Pod (by its controller reference)."""
    ref = controller_ref(pod)
    return ref is not None and ref.get("kind") == "Job" and str(ref.get("apiVersion", "")).startswith("batch/")


class Releaser:
    """Takes the finalizer off Pods, each once (a second sync before the Pod's event is not a second write)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.released: set[str] = set()

    def forget(self, pod: Obj) -> None:
        """The Pod is gone, or its event shows it released."""
        self.released.discard(str(meta(pod).get("uid", "")))

    async def release(self, pods: list[Obj]) -> None:
        """Take the finalizer off these Pods (a Pod already gone is fine)."""
        for pod in pods:
            uid = str(meta(pod).get("uid", ""))
            if not tracked(pod) or uid in self.released:
                continue
            self.released.add(uid)
            try:
                await self._remove(pod)
            except errors.StatusError as exc:
                if exc.code != 404:
                    self.released.discard(uid)
                    raise

    async def _remove(self, pod: Obj) -> None:
        """A JSON patch that tests the list it changes, so another's finalizer added meanwhile is kept (one retry)."""
        name, namespace = meta(pod).get("name", ""), meta(pod).get("namespace", "")
        for attempt in range(2):
            current = list(meta(pod).get("finalizers") or [])
            if FINALIZER not in current:
                return
            rest = [f for f in current if f != FINALIZER]
            # The list goes when it empties, as it would be left out of the object's JSON.
            change = {"op": "replace", "path": "/metadata/finalizers", "value": rest} if rest else {
                "op": "remove", "path": "/metadata/finalizers"}
            patch = [{"op": "test", "path": "/metadata/finalizers", "value": current}, change]
            try:
                await self.client.patch("pods", name, patch, namespace, patch_type="json")
                return
            except errors.StatusError as exc:
                if attempt == 1 or exc.code not in (409, 422):
                    raise
                pod = await self.client.get("pods", name, namespace)
