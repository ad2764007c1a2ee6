"""The PersistentVolume controller: binds claims to volumes, asks for provisioning, releases and reclaims.

As upstream's pkg/controller/volume/persistentvolume, a claim sync and a
volume sync work from the informer caches:

* an unbound claim takes the best matching Available volume (see
  ``persistent_volume_util``) and both become Bound: the volume's claimRef,
  the claim's volumeName, ``pv.kubernetes.io/bind-completed`` and
  ``bound-by-controller`` where the controller made the link, then both
  statuses. With no match, a claim of a class is handed to its provisioner
  (``volume.kubernetes.io/storage-provisioner`` and an ExternalProvisioning
  event); a WaitForFirstConsumer claim waits (the WaitForFirstConsumer or
  WaitForPodScheduled event) until the scheduler names its node in
  ``volume.kubernetes.io/selected-node``;
* a volume whose claim is gone is Released, then reclaimed by its policy:
  Retain keeps it, Delete leaves it to its provisioner, which deletes it;
* a bound claim whose volume is gone is Lost.

Every event is told once per claim and reason, so a waiting claim leaves the
simulation quiet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from clusterviz.api import errors
from clusterviz.api.informer import Handler, key_of
from clusterviz.apimachinery.unstructured import deep_copy

from .persistent_volume_util import (
    ANN_BETA_STORAGE_PROVISIONER,
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_PROVISIONED_BY,
    ANN_SELECTED_NODE,
    ANN_STORAGE_PROVISIONER,
    WAIT_FOR_FIRST_CONSUMER,
    YES,
    claim_key,
    claim_ref_key,
    find_best_match,
    is_bound_to,
    satisfies,
    volume_class,
    with_phase,
)
from .util import Obj, Worker, annotations_of, deleting, meta, spec, status

if TYPE_CHECKING:
    from .manager import ControllerManager

COMPONENT: Final = "persistentvolume-controller"
NO_CLASS: Final = "no persistent volumes available for this claim and no storage class is set"
EXTERNAL_PROVISIONING: Final = (
    "Waiting for a volume to be created either by the external provisioner '{}' or manually by the system "
    "administrator. If volume creation is delayed, please verify that the provisioner is running and correctly "
    "registered."
)


class PersistentVolumeController:
    """Binds PersistentVolumeClaims to PersistentVolumes and follows both through their phases."""

    def __init__(self, cm: ControllerManager) -> None:
        self.client = cm.client
        self.recorder = cm.ctx.recorder(COMPONENT)
        self.volumes = cm.informers["persistentvolumes"]
        self.claims = cm.informers["persistentvolumeclaims"]
        self.classes = cm.informers["storageclasses"]
        self.pods = cm.informers["pods"]
        self.claim_worker = Worker(cm.engine, f"controller-manager/{COMPONENT}/claims", self.sync_claim)
        self.volume_worker = Worker(cm.engine, f"controller-manager/{COMPONENT}/volumes", self.sync_volume)
        # The last event told about each claim (by uid), so a claim that keeps waiting is told once.
        self._told: dict[str, tuple[str, str]] = {}
        self.claims.add_handler(Handler(self._claim_seen, lambda _old, new: self._claim_seen(new), self._claim_gone))
        self.volumes.add_handler(Handler(self._volume_seen, lambda _old, new: self._volume_seen(new), self._volume_gone))
        self.pods.add_handler(Handler(self._pod_seen, lambda _old, new: self._pod_seen(new), None))

    def start(self) -> None:
        """Start both worker loops."""
        self.claim_worker.start()
        self.volume_worker.start()

    # --- event handlers: only queue keys ---------------------------------------------------------

    def _claim_seen(self, claim: Obj) -> None:
        self.claim_worker.add(key_of(claim))

    def _claim_gone(self, claim: Obj) -> None:
        self._told.pop(str(meta(claim).get("uid", "")), None)
        name = spec(claim).get("volumeName")
        if name:
            self.volume_worker.add(str(name))
        for volume in self.volumes.items():
            if claim_ref_key(volume) == claim_key(claim):
                self.volume_worker.add(key_of(volume))

    def _volume_seen(self, volume: Obj) -> None:
        self.volume_worker.add(key_of(volume))
        # A volume that became Available may be what a waiting claim needs.
        for claim in self.claims.items():
            if not spec(claim).get("volumeName"):
                self.claim_worker.add(key_of(claim))

    def _volume_gone(self, volume: Obj) -> None:
        ref = claim_ref_key(volume)
        if ref is not None:
            self.claim_worker.add(ref)

    def _pod_seen(self, pod: Obj) -> None:
        """A Pod using a waiting claim changes what the claim waits for (its Pod to be scheduled)."""
        namespace = meta(pod).get("namespace", "")
        for volume in spec(pod).get("volumes") or []:
            source = volume.get("persistentVolumeClaim") if isinstance(volume, dict) else None
            if isinstance(source, dict) and source.get("claimName"):
                self.claim_worker.add(f"{namespace}/{source['claimName']}")

    # --- claims ----------------------------------------------------------------------------------

    async def sync_claim(self, key: str) -> None:
        """syncClaim: bind an unbound claim, or check that a bound one still has its volume."""
        claim = self.claims.get(key)
        if claim is None:
            return
        if annotations_of(claim).get(ANN_BIND_COMPLETED) is None:
            await self._sync_unbound_claim(claim)
        else:
            await self._sync_bound_claim(claim)

    def _class(self, claim: Obj) -> Obj | None:
        name = volume_class(claim)
        return self.classes.get(name) if name else None

    async def _sync_unbound_claim(self, claim: Obj) -> None:
        requested = spec(claim).get("volumeName")
        if requested:
            await self._sync_claim_asking_for(claim, str(requested))
            return
        storage_class = self._class(claim)
        delay = storage_class is not None and storage_class.get("volumeBindingMode") == WAIT_FOR_FIRST_CONSUMER
        volume = find_best_match(claim, self.volumes.items(), delay)
        if volume is not None:
            await self._bind(volume, claim)
            return
        if delay and not annotations_of(claim).get(ANN_SELECTED_NODE):
            await self._tell_waiting(claim)
        elif volume_class(claim):
            await self._provision(claim, storage_class)
        else:
            await self._tell(claim, "Normal", "FailedBinding", NO_CLASS)
        await self._set_claim_phase(claim, "Pending")

    async def _sync_claim_asking_for(self, claim: Obj, name: str) -> None:
        """A claim that names its volume: bind it when the volume is free (or pre-bound to it) and fits."""
        volume = self.volumes.get(name)
        if volume is None or (spec(volume).get("claimRef") is not None and not is_bound_to(volume, claim)):
            if volume is not None:
                await self._tell(claim, "Warning", "FailedBinding", "volume already bound to a different claim.")
            await self._set_claim_phase(claim, "Pending")
            return
        mismatch = satisfies(volume, claim)
        if mismatch:
            await self._tell(claim, "Warning", "VolumeMismatch", f'Cannot bind to requested volume "{name}": {mismatch}')
            await self._set_claim_phase(claim, "Pending")
            return
        await self._bind(volume, claim)

    async def _sync_bound_claim(self, claim: Obj) -> None:
        name = spec(claim).get("volumeName")
        volume = self.volumes.get(str(name)) if name else None
        if volume is None:
            if status(claim).get("phase") != "Lost":
                lost = ("Bound claim has lost its PersistentVolume. Data on the volume is lost!" if name
                        else "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!")
                await self._tell(claim, "Warning", "ClaimLost", lost)
                await self._set_claim_phase(claim, "Lost")
            return
        if is_bound_to(volume, claim):
            await self._bind(volume, claim)
        elif status(claim).get("phase") == "Bound":
            await self._tell(claim, "Warning", "ClaimMisbound",
                             "Two claims are bound to the same volume, this one is bound incorrectly")

    async def _tell_waiting(self, claim: Obj) -> None:
        """emitEventForUnboundDelayBindingClaim: waiting for a Pod, or for the named Pods to be scheduled."""
        namespace = meta(claim).get("namespace")
        name = meta(claim).get("name")
        waiting = sorted(
            str(meta(p).get("name")) for p in self.pods.items()
            if meta(p).get("namespace") == namespace and not spec(p).get("nodeName") and not deleting(p)
            and any(isinstance(v, dict) and (v.get("persistentVolumeClaim") or {}).get("claimName") == name
                    for v in spec(p).get("volumes") or [])
        )
        if not waiting:
            await self._tell(claim, "Normal", WAIT_FOR_FIRST_CONSUMER,
                             "waiting for first consumer to be created before binding")
        elif len(waiting) == 1:
            await self._tell(claim, "Normal", "WaitForPodScheduled", f"waiting for pod {waiting[0]} to be scheduled")
        else:
            await self._tell(claim, "Normal", "WaitForPodScheduled", f"waiting for pods {','.join(waiting)} to be scheduled")

    async def _provision(self, claim: Obj, storage_class: Obj | None) -> None:
        """provisionClaim for an external provisioner: name it on the claim and say what is awaited."""
        if storage_class is None:
            message = f'storageclass.storage.k8s.io "{volume_class(claim)}" not found'
            await self._tell(claim, "Warning", "ProvisioningFailed", message)
            return
        provisioner = str(storage_class.get("provisioner") or "")
        if annotations_of(claim).get(ANN_STORAGE_PROVISIONER) != provisioner:
            patch = {"metadata": {"annotations": {ANN_STORAGE_PROVISIONER: provisioner,
                                                  ANN_BETA_STORAGE_PROVISIONER: provisioner},
                                  "resourceVersion": meta(claim).get("resourceVersion")}}
            if await self._write(self.client.patch("persistentvolumeclaims", str(meta(claim).get("name")), patch,
                                                   str(meta(claim).get("namespace")))) is None:
                return
        await self._tell(claim, "Normal", "ExternalProvisioning", EXTERNAL_PROVISIONING.format(provisioner))

    async def _bind(self, volume: Obj, claim: Obj) -> None:
        """bind: the volume's claimRef and phase, then the claim's volumeName, annotations and phase."""
        linked = await self._bind_volume(volume, claim)
        if linked is not None and status(linked).get("phase") != "Bound":
            linked = await self._write(self.client.update(with_phase(linked, "Bound"), sub="status"))
        if linked is None:
            return
        volume = linked
        claim_uid = meta(claim).get("uid")
        wanted = deep_copy(claim)
        annotations = wanted["metadata"].setdefault("annotations", {})
        if spec(claim).get("volumeName") != meta(volume).get("name"):
            wanted["spec"]["volumeName"] = meta(volume).get("name")
            annotations[ANN_BOUND_BY_CONTROLLER] = YES
        annotations[ANN_BIND_COMPLETED] = YES
        if wanted != claim:
            written = await self._write(self.client.update(wanted))
            if written is None or meta(written).get("uid") != claim_uid:
                return
            claim = written
        bound_status = {"accessModes": spec(volume).get("accessModes") or [],
                        "capacity": spec(volume).get("capacity") or {}}
        if status(claim).get("phase") != "Bound" or any(status(claim).get(k) != v for k, v in bound_status.items()):
            await self._write(self.client.update(with_phase(claim, "Bound", **bound_status), sub="status"))
        self._told.pop(str(claim_uid), None)

    async def _bind_volume(self, volume: Obj, claim: Obj) -> Obj | None:
        """bindVolumeToClaim: point the volume at the claim (noting the controller did it) unless it already is."""
        claim_meta = meta(claim)
        ref = spec(volume).get("claimRef") or {}
        if is_bound_to(volume, claim) and ref.get("uid") == claim_meta.get("uid"):
            return volume
        wanted = deep_copy(volume)
        wanted["spec"]["claimRef"] = {
            "kind": "PersistentVolumeClaim", "namespace": claim_meta.get("namespace"), "name": claim_meta.get("name"),
            "uid": claim_meta.get("uid"), "apiVersion": "v1", "resourceVersion": claim_meta.get("resourceVersion"),
        }
        wanted["metadata"].setdefault("annotations", {})[ANN_BOUND_BY_CONTROLLER] = YES
        return await self._write(self.client.update(wanted))

    # --- volumes ---------------------------------------------------------------------------------

    async def sync_volume(self, name: str) -> None:
        """syncVolume: Available when free, Bound with its claim, Released (then reclaimed) once the claim is gone."""
        volume = self.volumes.get(name)
        if volume is None:
            return
        # A volume being deleted is followed still: once Released, its protection lets it go.
        ref = spec(volume).get("claimRef")
        if not isinstance(ref, dict):
            await self._set_volume_phase(volume, "Available")
            return
        key = claim_ref_key(volume) or ""
        claim = self.claims.get(key)
        if claim is not None and ref.get("uid") and meta(claim).get("uid") != ref.get("uid"):
            claim = None  # a new claim of the same name: the volume's claim is gone
        if not ref.get("uid"):
            await self._set_volume_phase(volume, "Available")
            if claim is not None:
                self.claim_worker.add(key)
        elif claim is None:
            await self._release(volume)
        elif not spec(claim).get("volumeName"):
            self.claim_worker.add(key)  # pre-bound (a provisioned volume): the claim's sync completes the binding
        elif spec(claim).get("volumeName") == name:
            await self._set_volume_phase(volume, "Bound")
        elif annotations_of(volume).get(ANN_BOUND_BY_CONTROLLER):
            await self._unbind(volume)
        else:
            await self._set_volume_phase(volume, "Available")

    async def _release(self, volume: Obj) -> None:
        """The claim is gone: Released, then the reclaim policy (the provisioner deletes what it made)."""
        if status(volume).get("phase") not in ("Released", "Failed"):
            released = await self._write(self.client.update(with_phase(volume, "Released"), sub="status"))
            if released is None:
                return
            volume = released
        policy = spec(volume).get("persistentVolumeReclaimPolicy")
        if policy == "Retain" or status(volume).get("phase") == "Failed":
            return
        if policy == "Delete" and annotations_of(volume).get(ANN_PROVISIONED_BY):
            return  # its provisioner deletes it
        verb, reason = ("deleter", "VolumeFailedDelete") if policy == "Delete" else ("recycler", "VolumeFailedRecycle")
        plugin = "deletable" if policy == "Delete" else "recyclable"
        message = f'error getting {verb} volume plugin for volume "{meta(volume).get("name")}": no {plugin} volume plugin matched'
        await self.recorder.event(volume, "Warning", reason, message)
        await self._write(self.client.update(with_phase(volume, "Failed", message=message), sub="status"))

    async def _unbind(self, volume: Obj) -> None:
        """unbindVolume: the controller's own link to a claim bound elsewhere is undone."""
        wanted = deep_copy(volume)
        wanted["spec"].pop("claimRef", None)
        wanted["metadata"].get("annotations", {}).pop(ANN_BOUND_BY_CONTROLLER, None)
        written = await self._write(self.client.update(wanted))
        if written is not None:
            await self._set_volume_phase(written, "Available")

    # --- writes ------------------------------------------------------------------------------------

    async def _set_volume_phase(self, volume: Obj, phase: str) -> None:
        if status(volume).get("phase") != phase:
            await self._write(self.client.update(with_phase(volume, phase), sub="status"))

    async def _set_claim_phase(self, claim: Obj, phase: str) -> None:
        if status(claim).get("phase") != phase:
            await self._write(self.client.update(with_phase(claim, phase), sub="status"))

    async def _tell(self, claim: Obj, type_: str, reason: str, message: str) -> None:
        uid = str(meta(claim).get("uid", ""))
        if self._told.get(uid) == (reason, message):
            return
        self._told[uid] = (reason, message)
        await self.recorder.event(claim, type_, reason, message)

    async def _write(self, request: Any) -> Obj | None:
        """One write; None when the object is gone. A conflict is raised, so the key is tried again."""
        try:
            result: Obj = await request
        except errors.StatusError as exc:
            if exc.code == 404:
                return None
            raise
        return result
