"""The TTL-after-finished controller: deletes a finished Job once its ttlSecondsAfterFinished have passed.

As upstream's ttlafterfinished controller, it waits from the time the Job's
Complete or Failed condition became True, checks the Job again from the API
before deleting (the TTL may have been changed), and leaves the Job's Pods to
the garbage collector.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clusterviz.api import clock, errors
from clusterviz.api.informer import Handler, key_of

from .job_util import finish_time, is_finished
from .util import Obj, Worker, deleting, meta, spec

if TYPE_CHECKING:
    from .manager import ControllerManager

COMPONENT = "ttl-after-finished-controller"


def _expires_in(job: Obj) -> float | None:
    """Seconds until the finished Job may be deleted (<= 0: now); None if it never expires."""
    ttl = spec(job).get("ttlSecondsAfterFinished")
    finished = clock.parse(finish_time(job) or "")
    if not isinstance(ttl, int) or isinstance(ttl, bool) or not is_finished(job) or finished is None:
        return None
    return ttl - (clock.now() - finished).total_seconds()


class TTLAfterFinishedController:
    """Cleans up finished Jobs after their TTL."""

    def __init__(self, cm: ControllerManager) -> None:
        self.client = cm.client
        self.jobs = cm.informers["jobs"]
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        self.jobs.add_handler(Handler(self._changed, lambda _old, new: self._changed(new), lambda _job: None))

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    def _changed(self, job: Obj) -> None:
        if not deleting(job) and _expires_in(job) is not None:
            self.worker.add(key_of(job))

    async def sync(self, key: str) -> None:
        """processJob: delete the Job once expired, else look again when it will be."""
        job = self.jobs.get(key)
        if job is None or deleting(job):
            return
        left = _expires_in(job)
        if left is None:
            return
        if left > 0:
            self.worker.add_after(key, left)
            return
        name, namespace = meta(job).get("name", ""), meta(job).get("namespace", "")
        fresh = await self.client.get_or_none("jobs", name, namespace)
        if fresh is None or meta(fresh).get("uid") != meta(job).get("uid") or (_expires_in(fresh) or 0) > 0:
            return
        options = {
            "kind": "DeleteOptions",
            "apiVersion": "v1",
            "preconditions": {"uid": meta(job).get("uid")},
            "propagationPolicy": "Background",
        }
        try:
            await self.client.delete("jobs", name, namespace, options)
        except errors.StatusError as exc:
            if exc.code not in (404, 409):
                raise
