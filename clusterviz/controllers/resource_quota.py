"""The resource quota controller: keeps each ResourceQuota's status (hard as the spec says, used as counted).

For every quota it counts what the namespace's objects use of each resource
the quota names (Pods by their containers' requests and limits, Services,
claims, ``count/<resource>`` of any kind), with the same measures the
ResourceQuota admission step refuses creates by, and writes ``status.hard``
and ``status.used``. A quota is counted again when it changes and whenever an
object of its namespace that the controller manager watches does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from clusterviz.api import errors
from clusterviz.api.admission import resourcequota
from clusterviz.api.client import find_resource
from clusterviz.api.informer import Handler, key_of
from clusterviz.apimachinery.unstructured import dict_or_empty

from .util import Obj, Worker, meta, spec, status

if TYPE_CHECKING:
    from .manager import ControllerManager

COMPONENT = "resourcequota-controller"
_POD_NAMES = ("pods", "count/pods")


def _kind_of(name: str) -> tuple[str, str] | None:
    """The (plural, group) a quota resource counts objects of; None for one no served kind answers."""
    if name.startswith("count/"):
        plural, _, group = name.removeprefix("count/").partition(".")
    elif name in _POD_NAMES or name in ("cpu", "memory", "ephemeral-storage") or (
            name.startswith(("requests.", "limits.")) and name != "requests.storage"):
        plural, group = "pods", ""
    elif name.startswith("services"):
        plural, group = "services", ""
    elif name in ("persistentvolumeclaims", "requests.storage"):
        plural, group = "persistentvolumeclaims", ""
    else:
        plural, group = name, ""
    try:
        found = find_resource(plural, group)
    except KeyError:
        return None
    return (found.plural, found.group) if found.namespaced else None


class ResourceQuotaController:
    """Writes each ResourceQuota's status from the objects of its namespace."""

    def __init__(self, cm: ControllerManager) -> None:
        self.cm = cm
        self.client = cm.client
        self.quotas = cm.informers["resourcequotas"]
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        self.quotas.add_handler(Handler(self._queue, lambda _old, new: self._queue(new), lambda quota: None))
        for plural, informer in cm.informers.items():
            if plural != "resourcequotas":
                informer.add_handler(Handler(self._changed, lambda _old, new: self._changed(new), self._changed))

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    def _queue(self, quota: Obj) -> None:
        self.worker.add(key_of(quota))

    def _changed(self, obj: Obj) -> None:
        namespace = meta(obj).get("namespace")
        if not namespace:
            return
        for quota in self.quotas.cache.values():
            if meta(quota).get("namespace") == namespace:
                self._queue(quota)

    async def sync(self, key: str) -> None:
        """Count one quota's usage and write its status."""
        quota = self.quotas.get(key)
        if quota is None:
            return
        namespace = meta(quota).get("namespace", "")
        hard: dict[str, Any] = dict_or_empty(spec(quota).get("hard"))
        kinds = {kind for kind in map(_kind_of, hard) if kind is not None}
        probe = {**quota, "status": {}}
        used: dict[str, str] = {}
        for plural, group in sorted(kinds):
            listed = await self.client.list(f"{plural}.{group}" if group else plural, namespace)
            counted = resourcequota.used(probe, plural, group, listed.get("items") or [])
            used.update({name: str(quantity) for name, quantity in counted.items()})
        await self._write(quota, {"hard": dict(hard), "used": {name: used.get(name, "0") for name in hard}})

    async def _write(self, quota: Obj, new_status: dict[str, Any]) -> None:
        if new_status == status(quota):
            return
        try:
            await self.client.update({**quota, "status": new_status}, sub="status")
        except errors.StatusError as exc:
            if exc.code not in (404, 409):  # gone, or changed: its next event syncs it again
                raise
