"""The protection controllers: a deleted claim goes once no Pod uses it, a deleted volume once it is not Bound.

As upstream's pvcprotection and pvprotection controllers, each watches its
kind (and the claim one the Pods) and removes the finalizer the admission
plugin added (``kubernetes.io/pvc-protection``, ``kubernetes.io/pv-protection``)
from an object being deleted as soon as nothing needs it; until then it
stays, ``Terminating``. A Pod uses a claim while it has not finished.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from clusterviz.api import errors
from clusterviz.api.admission.storage_protection import PV_PROTECTION, PVC_PROTECTION
from clusterviz.api.client import Client
from clusterviz.api.informer import Handler, key_of
from clusterviz.apimachinery.unstructured import deep_copy

from .util import Obj, Worker, deleting, meta, spec, status

if TYPE_CHECKING:
    from .manager import ControllerManager

PVC_COMPONENT: Final = "pvc-protection-controller"
PV_COMPONENT: Final = "pv-protection-controller"


def claims_of(pod: Obj) -> list[str]:
    """The ``namespace/name`` of each claim the Pod's volumes name."""
    namespace = meta(pod).get("namespace", "")
    return [
        f"{namespace}/{v['persistentVolumeClaim'].get('claimName', '')}"
        for v in spec(pod).get("volumes") or []
        if isinstance(v, dict) and isinstance(v.get("persistentVolumeClaim"), dict)
    ]


async def _release(client: Client, obj: Obj, finalizer: str) -> None:
    """Remove the finalizer (the API server then deletes the object); a conflict is retried by the worker."""
    wanted = deep_copy(obj)
    wanted["metadata"]["finalizers"] = [f for f in meta(obj).get("finalizers") or [] if f != finalizer]
    try:
        await client.update(wanted)
    except errors.StatusError as exc:
        if exc.code != 404:
            raise


class ClaimProtectionController:
    """Lets a deleted PersistentVolumeClaim go once no unfinished Pod uses it."""

    def __init__(self, cm: ControllerManager) -> None:
        self.client = cm.client
        self.claims = cm.informers["persistentvolumeclaims"]
        self.pods = cm.informers["pods"]
        self.worker = Worker(cm.engine, f"controller-manager/{PVC_COMPONENT}", self.sync)
        queue = self._queue
        self.claims.add_handler(Handler(queue, lambda _old, new: queue(new), None))
        self.pods.add_handler(Handler(self._pod_seen, lambda _old, new: self._pod_seen(new), self._pod_seen))

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    def _queue(self, claim: Obj) -> None:
        if deleting(claim) and PVC_PROTECTION in (meta(claim).get("finalizers") or []):
            self.worker.add(key_of(claim))

    def _pod_seen(self, pod: Obj) -> None:
        for key in claims_of(pod):
            claim = self.claims.get(key)
            if claim is not None:
                self._queue(claim)

    def _in_use(self, key: str) -> bool:
        return any(
            key in claims_of(pod) and status(pod).get("phase") not in ("Succeeded", "Failed")
            for pod in self.pods.items()
        )

    async def sync(self, key: str) -> None:
        """Remove the claim's finalizer when it is being deleted and no Pod uses it."""
        claim = self.claims.get(key)
        if claim is None or not deleting(claim) or PVC_PROTECTION not in (meta(claim).get("finalizers") or []):
            return
        if not self._in_use(key):
            await _release(self.client, claim, PVC_PROTECTION)


class VolumeProtectionController:
    """Lets a deleted PersistentVolume go once it is no longer Bound."""

    def __init__(self, cm: ControllerManager) -> None:
        self.client = cm.client
        self.volumes = cm.informers["persistentvolumes"]
        self.worker = Worker(cm.engine, f"controller-manager/{PV_COMPONENT}", self.sync)
        queue = self._queue
        self.volumes.add_handler(Handler(queue, lambda _old, new: queue(new), None))

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    def _queue(self, volume: Obj) -> None:
        if deleting(volume) and PV_PROTECTION in (meta(volume).get("finalizers") or []):
            self.worker.add(key_of(volume))

    async def sync(self, name: str) -> None:
        """Remove the volume's finalizer when it is being deleted and not Bound."""
        volume = self.volumes.get(name)
        if volume is None or not deleting(volume) or PV_PROTECTION not in (meta(volume).get("finalizers") or []):
            return
        if status(volume).get("phase") != "Bound":
            await _release(self.client, volume, PV_PROTECTION)
