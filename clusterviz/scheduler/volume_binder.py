"""VolumeBinding's PreBind: write the binder's choices through the API, then wait until the claims are bound.

Upstream: ``BindPodVolumes`` in ``volumebinding/binder.go``. A volume chosen for a
claim is updated with its ``claimRef``; a claim to provision is updated with the
``volume.kubernetes.io/selected-node`` annotation (the PV controller then adds the
storage-provisioner annotations and the provisioner creates a volume for that node).
The binder then checks until each claim is fully bound, for at most
``bindTimeoutSeconds``; a reset claimRef, a provisioner giving the node back, or a
provisioned volume the node cannot reach ends the wait with an error, and the Pod
is tried again. Upstream polls every second; here each claim or volume the informers
see change is a check, so a claim nobody provisions lets fast-forward come to rest.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from typing import Any

from clusterviz.api import errors
from clusterviz.api.client import Client
from clusterviz.api.component import Engine, Waiter
from clusterviz.apimachinery.unstructured import resource_version
from clusterviz.scheduler import storage
from clusterviz.scheduler.plugins.volume_binding import PodVolumes

# VolumeBindingArgs.bindTimeoutSeconds' default.
BIND_TIMEOUT_SECONDS = 600.0


class VolumeBindingError(Exception):
    """Binding the Pod's volumes failed; the message is upstream's."""


class Changes:
    """Wakes the binding cycles waiting on their claims whenever a claim or volume changes."""

    def __init__(self, waiter: Waiter) -> None:
        self.waiter = waiter
        self._waiting: set[asyncio.Future[bool]] = set()

    def notify(self) -> None:
        """A claim or volume changed: every waiting binding cycle checks again."""
        for future in list(self._waiting):
            self.waiter.wake(future, True)

    async def wait(self, timeout: float) -> bool:
        """Until the next change (True) or ``timeout`` simulated seconds (False)."""
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting.add(future)
        try:
            # A background timer: the deadline alone does not keep fast-forward going.
            what = "the scheduler gives up waiting for a Pod's volumes"
            return bool(await self.waiter.wait_for(future, timeout, background=True, what=what))
        finally:
            self._waiting.discard(future)


def _key(obj: Mapping[str, Any]) -> str:
    return f"{storage.meta(obj).get('namespace') or 'default'}/{storage.meta(obj).get('name') or ''}"


class Assumed(Mapping[str, Mapping[str, Any]]):
    """An informer's objects, each replaced by the one the binder wrote while the informer has not seen it yet.

    Upstream's assume cache: the API answers an update before its watch event reaches the informer, so a
    check made at once would take the claim without its selected node (or the volume without its claimRef)
    for one that was reset. An object the informer no longer has is gone, whatever was written.
    """

    def __init__(self, informed: Mapping[str, Mapping[str, Any]], written: Mapping[str, Mapping[str, Any]]) -> None:
        self.informed = informed
        self.written = written

    def __getitem__(self, key: str) -> Mapping[str, Any]:
        current = self.informed[key]
        written = self.written.get(key)
        if written is not None and resource_version(written) > resource_version(current):
            return written
        return current

    def __iter__(self) -> Iterator[str]:
        return iter(self.informed)

    def __len__(self) -> int:
        return len(self.informed)


def check_bindings(
    volumes: PodVolumes,
    node_name: str,
    node_labels: Mapping[str, str],
    pvcs: Mapping[str, Mapping[str, Any]],
    pvs: Mapping[str, Mapping[str, Any]],
) -> tuple[bool, str]:
    """``checkBindings``: (every claim fully bound, the error that ends the wait or "").

    ``pvcs`` (by ``namespace/name``) and ``pvs`` (by name) are the API's current objects.
    """
    for pvc, assumed in volumes.static_bindings:
        name = storage.meta(assumed).get("name") or ""
        pv = pvs.get(name)
        if pv is None:
            return False, f'failed to check binding: persistentvolume "{name}" not found'
        ref = storage.spec(pv).get("claimRef") or {}
        if not ref.get("uid"):
            return False, f'ClaimRef got reset for pv "{name}"'
        current = pvcs.get(_key(pvc))
        if current is None:
            return (
                False,
                f'error getting PVC "{_key(pvc)}": persistentvolumeclaim "{storage.meta(pvc).get("name")}" not found',
            )
        if not storage.is_fully_bound(current):
            return False, ""
    for pvc in volumes.dynamic_provisions:
        current = pvcs.get(_key(pvc))
        claim = storage.meta(pvc).get("name") or ""
        if current is None:
            return False, f'failed to check provisioning pvc: persistentvolumeclaim "{claim}" not found'
        selected = storage.annotations_of(current).get(storage.ANN_SELECTED_NODE)
        if selected is None:
            return False, f'selectedNode annotation reset for PVC "{claim}"'
        if selected != node_name:
            return False, f'provisioning failed for PVC "{claim}"'
        volume = storage.spec(current).get("volumeName") or ""
        if volume:
            pv = pvs.get(volume)
            if pv is None:
                # The volume may not have reached the informer yet; look again next time.
                return False, ""
            if not storage.node_affinity_matches(pv, node_labels):
                return False, (
                    f'pv "{volume}" node affinity doesn\'t match node "{node_name}": no matching NodeSelectorTerms'
                )
        if not storage.is_fully_bound(current):
            return False, ""
    return True, ""


def _for_update(obj: Mapping[str, Any], kind: str) -> dict[str, Any]:
    return {**obj, "apiVersion": "v1", "kind": kind}


async def bind_pod_volumes(
    client: Client,
    engine: Engine,
    changes: Changes,
    volumes: PodVolumes,
    node_name: str,
    node_labels: Mapping[str, str],
    pvcs: Mapping[str, Mapping[str, Any]],
    pvs: Mapping[str, Mapping[str, Any]],
    timeout: float = BIND_TIMEOUT_SECONDS,
) -> None:
    """``BindPodVolumes``: the API updates, then the wait; raises :class:`VolumeBindingError`.

    ``pvcs`` and ``pvs`` are live views the scheduler's informers keep current, and
    ``changes`` hears from them.
    """
    written_pvs: dict[str, Mapping[str, Any]] = {}
    written_pvcs: dict[str, Mapping[str, Any]] = {}
    try:
        for _pvc, pv in volumes.static_bindings:
            written_pvs[storage.meta(pv).get("name") or ""] = await client.update(_for_update(pv, "PersistentVolume"))
        for pvc in volumes.dynamic_provisions:
            written_pvcs[_key(pvc)] = await client.update(_for_update(pvc, "PersistentVolumeClaim"))
    except errors.StatusError as exc:
        raise VolumeBindingError(exc.message) from exc
    pvcs, pvs = Assumed(pvcs, written_pvcs), Assumed(pvs, written_pvs)
    deadline = engine.now + timeout
    while True:
        done, problem = check_bindings(volumes, node_name, node_labels, pvcs, pvs)
        if problem:
            raise VolumeBindingError(f"binding volumes: {problem}")
        if done:
            return
        remaining = deadline - engine.now
        if remaining <= 0 or not await changes.wait(remaining):
            raise VolumeBindingError("binding volumes: context deadline exceeded")
