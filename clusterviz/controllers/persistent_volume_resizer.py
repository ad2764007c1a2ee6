"""The simulated CSI driver's external resizer: grows a Bound claim's volume when the claim asks for more.

As the sidecar upstream runs beside a CSI driver, it acts on a claim of one
of its volumes whose ``spec.resources.requests.storage`` went beyond the
volume's capacity (the API server lets that through only where the class
sets ``allowVolumeExpansion: true``). It notes the size it is working on in
``status.allocatedResources`` (``ControllerResizeInProgress``), grows the
volume, and, since this driver's volumes need no file system resize on the
node, gives the claim its new capacity at once, with upstream's Resizing and
VolumeResizeSuccessful events.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Final

from clusterviz.api import errors
from clusterviz.api.informer import Handler, key_of
from clusterviz.api.storage_classes import DRIVER

from .persistent_volume_util import requested, storage, volume_class
from .util import Obj, Worker, deleting, meta, spec, status

if TYPE_CHECKING:
    from .manager import ControllerManager

IN_PROGRESS: Final = "ControllerResizeInProgress"


class Resizer:
    """Expands the cluster's CSI volumes to what their claims request."""

    def __init__(self, cm: ControllerManager) -> None:
        self.client = cm.client
        self.recorder = cm.ctx.recorder(DRIVER)
        self.claims = cm.informers["persistentvolumeclaims"]
        self.volumes = cm.informers["persistentvolumes"]
        self.classes = cm.informers["storageclasses"]
        self.worker = Worker(cm.engine, f"controller-manager/{DRIVER}/resize", self.sync)
        queue = self._queue
        self.claims.add_handler(Handler(queue, lambda _old, new: queue(new), None))

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    def _queue(self, claim: Obj) -> None:
        if status(claim).get("phase") == "Bound" and spec(claim).get("volumeName"):
            self.worker.add(key_of(claim))

    def _volume_to_grow(self, claim: Obj) -> Obj | None:
        """The claim's volume when it is this driver's, its class allows expansion and it is smaller than asked."""
        volume = self.volumes.get(str(spec(claim).get("volumeName")))
        if volume is None or deleting(volume) or (spec(volume).get("csi") or {}).get("driver") != DRIVER:
            return None
        storage_class = self.classes.get(volume_class(claim))
        if storage_class is None or storage_class.get("allowVolumeExpansion") is not True:
            return None
        wanted, size = requested(claim), storage(spec(volume).get("capacity"))
        return volume if wanted is not None and size is not None and wanted > size else None

    async def sync(self, key: str) -> None:
        """Grow the claim's volume, then give the claim the new capacity."""
        claim = self.claims.get(key)
        if claim is None or deleting(claim) or status(claim).get("phase") != "Bound":
            return
        volume = self._volume_to_grow(claim)
        if volume is None:
            return
        size = ((spec(claim).get("resources") or {}).get("requests") or {}).get("storage")
        name = str(meta(volume).get("name"))
        await self.recorder.event(claim, "Normal", "Resizing", f"External resizer is resizing volume {name}")
        claim = await self._claim_status(claim, {"allocatedResources": {"storage": size},
                                                 "allocatedResourceStatuses": {"storage": IN_PROGRESS}})
        if claim is None:
            return
        grown = copy.deepcopy(volume)
        grown["spec"]["capacity"] = {**(spec(volume).get("capacity") or {}), "storage": size}
        try:
            await self.client.update(grown)
        except errors.StatusError as exc:
            if exc.code != 404:
                raise
            return
        done = {**status(claim), "capacity": {**(status(claim).get("capacity") or {}), "storage": size}}
        done.pop("allocatedResourceStatuses", None)
        if await self._claim_status(claim, done, replace=True) is not None:
            await self.recorder.event(claim, "Normal", "VolumeResizeSuccessful", "Resize volume succeeded")

    async def _claim_status(self, claim: Obj, fields: dict[str, Any], *, replace: bool = False) -> Obj | None:
        """Write the claim's status (merged with ``fields``, or replaced by them); None when the claim is gone."""
        body = {**claim, "status": fields if replace else {**status(claim), **fields}}
        try:
            written: Obj = await self.client.update(body, sub="status")
        except errors.StatusError as exc:
            if exc.code != 404:
                raise
            return None
        return written
